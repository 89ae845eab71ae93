import StrataSQLite

/// Quoting of identifiers and literals for SQL text that Strata writes.
///
/// ```swift
/// SQL.quoteIdentifier("order")        // "\"order\""
/// SQL.quoteIdentifier("a \"b\"")      // "\"a \"\"b\"\"\""
/// SQL.literal("it's")                 // "'it''s'"
/// ```
///
/// Identifiers are always double-quoted with inner quotes doubled, which is correct for every
/// name (keywords, spaces, unicode, quotes): see <https://www.sqlite.org/lang_keywords.html>.
///
/// Package-level (issue 27): in GRDB, `SQL` is the literal type, and users would expect that
/// meaning. Apps quote with `SQLLiteral.quote(identifier:)` and write literals with
/// `SQLValue.sqlLiteral` (the fix-it in `Sources/StrataSQLite/Fixits.swift` says so).
package enum SQL {
    /// `name` as a double-quoted SQL identifier.
    package static func quoteIdentifier(_ name: String) -> String {
        SQLLiteral.quote(identifier: name)  // the one quoting rule, in the connection layer
    }

    /// `value` as an SQL literal (strings single-quoted, blobs as `X'..'`).
    package static func literal(_ value: some SQLValueConvertible) -> String {
        value.sqlValue.sqlLiteral
    }
}
