import StrataSQLite

/// `DROP TABLE [IF EXISTS] name`: deletes a table (ordinary or virtual), its rows, indexes and
/// triggers.
///
/// ```sql
/// DROP TABLE IF EXISTS "obsolete"
/// ```
///
/// See <https://www.sqlite.org/lang_droptable.html>.
package struct DropTableDDL: DDLStatement {
    package var name: String
    package var ifExists: Bool

    package init(_ name: String, ifExists: Bool = false) {
        self.name = name
        self.ifExists = ifExists
    }

    package var sql: String {
        "DROP TABLE " + (ifExists ? "IF EXISTS " : "") + SQL.quoteIdentifier(name)
    }
}
