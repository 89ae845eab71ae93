import CSQLite

/// Helpers over SQLite's own SQL text functions.
package enum SQLiteText {
    /// The UTF-8 byte order mark (EF BB BF) some editors write at the start of a file: no SQL,
    /// skipped wherever Strata reads SQL text from a file.
    package static let utf8ByteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// `text` without a leading UTF-8 byte order mark.
    package static func droppingByteOrderMark(_ text: String) -> String {
        text.utf8.starts(with: utf8ByteOrderMark) ? String(decoding: text.utf8.dropFirst(3), as: UTF8.self) : text
    }

    /// True when `sql` ends with a complete statement, as SQLite decides it (`sqlite3_complete`):
    /// semicolons inside strings, comments and trigger bodies do not end a statement.
    /// See <https://www.sqlite.org/c3ref/complete.html>.
    package static func isComplete(_ sql: String) -> Bool {
        sqlite3_complete(sql) != 0
    }

    /// `text` as an error message quotes it: on one line, without leading whitespace and
    /// comments, runs of whitespace shown as one space, control characters as `?`, and cut
    /// after `limit` characters, marked `…` with the number of characters of `text` left out
    /// (`… (749,880 more characters)`, as ``StrataErrorText/bounded(_:limit:)`` marks a cut).
    ///
    /// ```swift
    /// SQLiteText.excerpt("-- undo\nCOMMIT\n  TRANSACTION")   // "COMMIT TRANSACTION"
    /// ```
    package static func excerpt(_ text: String, limit: Int = 200) -> String {
        var rest = Substring(text)
        while let first = rest.first {
            if first.isWhitespace {
                rest.removeFirst()
            } else if rest.hasPrefix("--") {
                rest = rest.firstIndex(where: \.isNewline).map { rest[$0...] } ?? ""
            } else if rest.hasPrefix("/*") {
                rest = rest.firstRange(of: "*/").map { rest[$0.upperBound...] } ?? ""
            } else {
                break
            }
        }
        if rest.isEmpty, text != "" { rest = Substring(text) }  // only comments: show them
        var out = ""
        var count = 0
        var space = false
        for index in rest.indices {
            let character = rest[index]
            if character.isWhitespace {
                space = !out.isEmpty
                continue
            }
            if count + (space ? 1 : 0) >= limit {
                let left = rest[index...].count
                return out + "… (" + StrataErrorText.grouped(left) + " more character" + (left == 1 ? ")" : "s)")
            }
            if space {
                out.append(" ")
                count += 1
                space = false
            }
            let isControl = character.unicodeScalars.contains { $0.properties.generalCategory == .control }
            out.append(isControl ? "?" : character)
            count += 1
        }
        return out
    }
}
