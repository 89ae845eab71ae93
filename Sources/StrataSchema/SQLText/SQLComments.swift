/// Comments removed from SQL text.
package enum SQLComments {
    /// `sql` without its `--` comments (block comments kept), trimmed: a column definition or
    /// constraint fit to be spliced into a longer statement, where a `--` comment would swallow
    /// the rest of the line (`ALTER TABLE t ADD COLUMN b TEXT -- note` stored in the table's SQL).
    ///
    /// ```swift
    /// SQLComments.removingLineComments("b TEXT -- @renamed from=a\n  CHECK (b <> '')")  // "b TEXT \n  CHECK (b <> '')"
    /// ```
    package static func removingLineComments(_ sql: String) -> String {
        guard sql.utf8.contains(UInt8(ascii: "-")) else { return sql.trimmedSQL(" \t\r\n") }
        return SQLTokenizer.tokenize(sql).filter { $0.kind != .lineComment }.map(\.text).joined().trimmedSQL(" \t\r\n")
    }

    /// `sql` without any comment, trimmed; `sql` itself when it holds none.
    ///
    /// ```swift
    /// SQLComments.removingComments("'' -- @renamed from=a")  // "''"
    /// ```
    package static func removingComments(_ sql: String) -> String {
        guard sql.contains("--") || sql.contains("/*") else { return sql }
        return SQLTokenizer.tokenize(sql).filter { $0.kind != .lineComment && $0.kind != .blockComment }
            .map(\.text).joined().trimmedSQL(" \t\r\n")
    }
}
