import StrataSQLite

/// `DROP VIEW [IF EXISTS] name`: deletes a view (the tables it reads stay).
///
/// ```sql
/// DROP VIEW IF EXISTS "old_view"
/// ```
///
/// See <https://www.sqlite.org/lang_dropview.html>.
package struct DropViewDDL: DDLStatement {
    package var name: String
    package var ifExists: Bool

    package init(_ name: String, ifExists: Bool = false) {
        self.name = name
        self.ifExists = ifExists
    }

    package var sql: String {
        "DROP VIEW " + (ifExists ? "IF EXISTS " : "") + SQL.quoteIdentifier(name)
    }
}
