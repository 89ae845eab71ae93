import StrataSQLite

/// One schema statement that Strata writes (`CREATE`, `DROP`, `ALTER TABLE`, a rebuild's copy),
/// as a value that renders its SQL in one place.
///
/// ```swift
/// DropDDL.table("order").sql                                // DROP TABLE "order"
/// RenameColumnDDL(table: "player", from: "name", to: "fullName").sql
/// // ALTER TABLE "player" RENAME COLUMN "name" TO "fullName"
/// ```
///
/// Every name is quoted by ``SQL/quoteIdentifier(_:)`` (the connection layer's
/// `SQLLiteral.quote(identifier:)`), so keywords, spaces, quotes and any unicode name are safe.
/// Parts that are SQL already (a column definition, an expression, a SELECT) are written as given.
/// Each conforming type opens its documentation with the SQL it produces.
package protocol DDLStatement: Sendable, Hashable {
    /// The statement, without a trailing semicolon.
    var sql: String { get }
    /// The statements to run one by one: `[sql]` for every value except those made of several.
    var statements: [String] { get }
}

extension DDLStatement {
    package var statements: [String] { [sql] }
}

extension SQL {
    /// `"a", "b"`: names quoted by ``quoteIdentifier(_:)`` and separated by ", ".
    static func quotedList(_ names: [String]) -> String {
        names.map(SQL.quoteIdentifier).joined(separator: ", ")
    }
}
