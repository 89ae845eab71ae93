/// One lexical token of SQL text.
package struct SQLToken: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        case whitespace
        /// `-- ...` up to (not including) the newline.
        case lineComment
        /// `/* ... */`
        case blockComment
        /// A bare word: a keyword or an unquoted identifier.
        case word
        /// `"name"`, `[name]` or `` `name` ``.
        case quotedIdentifier
        /// `'text'`
        case string
        /// `X'ABCD'`
        case blob
        case number
        /// `?`, `?1`, `:name`, `@name`, `$name`
        case parameter
        /// Operators and punctuation: `(`, `)`, `,`, `;`, `.`, `||`, `<=`...
        case symbol
    }

    package let kind: Kind
    /// The exact source text of the token.
    package let text: String
    /// The offset of the token's first byte in the UTF-8 source.
    package let offset: Int
    /// The 1-based line the token starts on.
    package let line: Int

    /// True for whitespace and comments.
    package var isTrivia: Bool {
        kind == .whitespace || kind == .lineComment || kind == .blockComment
    }

    /// For words and quoted identifiers (`"x"`, `[x]`, `` `x` ``), the identifier it names: quotes
    /// removed, doubled quotes undone. Nil for other tokens. This (with ``nameValue``) is the one
    /// place Strata unquotes a name.
    package var identifierValue: String? {
        switch kind {
        case .word: return text
        case .quotedIdentifier: return Self.unquoted(text)
        default: return nil
        }
    }

    /// The name this token spells where SQLite expects a name: ``identifierValue``, or the text
    /// of a single-quoted string, which SQLite also accepts as a table or column name
    /// (`CREATE TABLE 'bigdata' ('data' integer)`). See <https://www.sqlite.org/lang_keywords.html>.
    package var nameValue: String? {
        if let identifier = identifierValue { return identifier }
        guard kind == .string else { return nil }
        return Self.unquoted(text)
    }

    /// `text` without its quotes: `"..."`, `` `...` `` and `'...'` with their doubled quote undone,
    /// `[...]` as is (no escaping inside brackets). An unterminated token (only at the end of
    /// the text) keeps everything after its opening quote.
    static func unquoted(_ text: String) -> String {
        guard let open = text.utf8.first else { return text }
        let close: UInt8
        switch open {
        case UInt8(ascii: "\""), UInt8(ascii: "`"), UInt8(ascii: "'"): close = open
        case UInt8(ascii: "["): close = UInt8(ascii: "]")
        default: return text
        }
        let bytes = Array(text.utf8.dropFirst())
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == close {
                if close != UInt8(ascii: "]"), i + 1 < bytes.count, bytes[i + 1] == close {
                    out.append(b)
                    i += 2
                    continue
                }
                break
            }
            out.append(b)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// True when this is the bare word `keyword`, compared case-insensitively (ASCII).
    package func isKeyword(_ keyword: String) -> Bool {
        kind == .word && text.asciiCaseInsensitiveEquals(keyword)
    }
}

/// Splits SQL text into tokens, following SQLite's lexical rules (quotes, comments, blobs,
/// parameters). Never fails: an unterminated quote or comment runs to the end of the text.
///
/// ```swift
/// let tokens = SQLTokenizer.tokenize("SELECT \"a b\" FROM t -- note")
/// ```
/// See <https://www.sqlite.org/lang_expr.html> and <https://www.sqlite.org/lang_keywords.html>.
package enum SQLTokenizer {
    package static func tokenize(_ sql: String) -> [SQLToken] {
        let bytes = Array(sql.utf8)
        var tokens = [SQLToken]()
        var i = 0
        var line = 1
        let n = bytes.count

        func make(_ kind: SQLToken.Kind, _ start: Int, _ end: Int) {
            let text = String(decoding: bytes[start..<end], as: UTF8.self)
            tokens.append(SQLToken(kind: kind, text: text, offset: start, line: line))
            for b in bytes[start..<end] where b == 0x0A { line += 1 }
        }

        while i < n {
            let c = bytes[i]
            let start = i
            switch c {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0C:
                while i < n, isWhitespace(bytes[i]) { i += 1 }
                make(.whitespace, start, i)
            case UInt8(ascii: "-") where i + 1 < n && bytes[i + 1] == UInt8(ascii: "-"):
                while i < n, bytes[i] != 0x0A { i += 1 }
                make(.lineComment, start, i)
            case UInt8(ascii: "/") where i + 1 < n && bytes[i + 1] == UInt8(ascii: "*"):
                i += 2
                while i < n, !(bytes[i] == UInt8(ascii: "*") && i + 1 < n && bytes[i + 1] == UInt8(ascii: "/")) {
                    i += 1
                }
                i = min(n, i + 2)
                make(.blockComment, start, i)
            case UInt8(ascii: "'"):
                i = scanQuoted(bytes, from: i, quote: UInt8(ascii: "'"))
                make(.string, start, i)
            case UInt8(ascii: "\""), UInt8(ascii: "`"):
                i = scanQuoted(bytes, from: i, quote: c)
                make(.quotedIdentifier, start, i)
            case UInt8(ascii: "["):
                i += 1
                while i < n, bytes[i] != UInt8(ascii: "]") { i += 1 }
                i = min(n, i + 1)
                make(.quotedIdentifier, start, i)
            case _
            where (c == UInt8(ascii: "x") || c == UInt8(ascii: "X")) && i + 1 < n && bytes[i + 1] == UInt8(ascii: "'"):
                i = scanQuoted(bytes, from: i + 1, quote: UInt8(ascii: "'"))
                make(.blob, start, i)
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                i = scanNumber(bytes, from: i)
                make(.number, start, i)
            case UInt8(ascii: ".") where i + 1 < n && isDigit(bytes[i + 1]):
                i = scanNumber(bytes, from: i)
                make(.number, start, i)
            case UInt8(ascii: "?"):
                i += 1
                while i < n, isDigit(bytes[i]) { i += 1 }
                make(.parameter, start, i)
            case UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "$"):
                i += 1
                while i < n, isIdentifierByte(bytes[i]) || bytes[i] == UInt8(ascii: ":") { i += 1 }
                make(i - start > 1 ? .parameter : .symbol, start, i)
            default:
                if isIdentifierStart(c) {
                    while i < n, isIdentifierByte(bytes[i]) { i += 1 }
                    make(.word, start, i)
                } else {
                    i += symbolLength(bytes, at: i)
                    make(.symbol, start, i)
                }
            }
        }
        return tokens
    }

    /// The tokens that are not whitespace or comments.
    package static func significantTokens(_ sql: String) -> [SQLToken] {
        tokenize(sql).filter { !$0.isTrivia }
    }

    private static func scanQuoted(_ b: [UInt8], from start: Int, quote: UInt8) -> Int {
        var i = start + 1
        while i < b.count {
            if b[i] == quote {
                if i + 1 < b.count, b[i + 1] == quote {
                    i += 2
                    continue
                }
                return i + 1
            }
            i += 1
        }
        return b.count
    }

    private static func scanNumber(_ b: [UInt8], from start: Int) -> Int {
        var i = start
        if i + 1 < b.count, b[i] == UInt8(ascii: "0"), b[i + 1] == UInt8(ascii: "x") || b[i + 1] == UInt8(ascii: "X") {
            i += 2
            while i < b.count, isHexDigit(b[i]) { i += 1 }
            return i
        }
        while i < b.count, isDigit(b[i]) || b[i] == UInt8(ascii: "_") { i += 1 }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            while i < b.count, isDigit(b[i]) { i += 1 }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            var j = i + 1
            if j < b.count, b[j] == UInt8(ascii: "+") || b[j] == UInt8(ascii: "-") { j += 1 }
            if j < b.count, isDigit(b[j]) {
                i = j
                while i < b.count, isDigit(b[i]) { i += 1 }
            }
        }
        return i
    }

    private static func symbolLength(_ b: [UInt8], at i: Int) -> Int {
        // Compared byte by byte: this runs for every symbol of every schema statement read.
        let c = b[i]
        let next: UInt8 = i + 1 < b.count ? b[i + 1] : 0
        switch (c, next) {
        case (UInt8(ascii: "-"), UInt8(ascii: ">")):
            return i + 2 < b.count && b[i + 2] == UInt8(ascii: ">") ? 3 : 2  // ->> and ->
        case (UInt8(ascii: "|"), UInt8(ascii: "|")), (UInt8(ascii: "<"), UInt8(ascii: "=")),
            (UInt8(ascii: ">"), UInt8(ascii: "=")), (UInt8(ascii: "="), UInt8(ascii: "=")),
            (UInt8(ascii: "!"), UInt8(ascii: "=")), (UInt8(ascii: "<"), UInt8(ascii: ">")),
            (UInt8(ascii: "<"), UInt8(ascii: "<")), (UInt8(ascii: ">"), UInt8(ascii: ">")):
            return 2
        default:
            break
        }
        // A multi-byte UTF-8 character that is not an identifier start stays whole.
        var len = 1
        while i + len < b.count, b[i + len] & 0xC0 == 0x80 { len += 1 }
        return len
    }

    static func isWhitespace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C }
    static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    static func isHexDigit(_ c: UInt8) -> Bool {
        isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
    }
    /// SQLite treats every byte >= 0x80 as an identifier character.
    static func isIdentifierStart(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c >= 0x80
    }
    static func isIdentifierByte(_ c: UInt8) -> Bool { isIdentifierStart(c) || isDigit(c) || c == 0x24 }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        return replacing(target, with: replacement)
    }

    /// SQLite folds only ASCII letters when comparing identifiers.
    func asciiLowercased() -> String {
        // Names are compared through their lowercased keys many times per plan: most are already
        // lowercase, and then the string itself is the answer (no copy).
        guard utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return self }
        return String(decoding: utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    func asciiCaseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        for (a, b) in zip(utf8, other.utf8) where a != b {
            let la = (a >= 0x41 && a <= 0x5A) ? a + 32 : a
            let lb = (b >= 0x41 && b <= 0x5A) ? b + 32 : b
            if la != lb { return false }
        }
        return true
    }
}
