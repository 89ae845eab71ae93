import StrataSQLite

/// `DROP INDEX [IF EXISTS] name`: deletes an index (the table and its rows stay).
///
/// ```sql
/// DROP INDEX IF EXISTS "old_index"
/// ```
///
/// See <https://www.sqlite.org/lang_dropindex.html>.
package struct DropIndexDDL: DDLStatement {
    package var name: String
    package var ifExists: Bool

    package init(_ name: String, ifExists: Bool = false) {
        self.name = name
        self.ifExists = ifExists
    }

    package var sql: String {
        "DROP INDEX " + (ifExists ? "IF EXISTS " : "") + SQL.quoteIdentifier(name)
    }
}
