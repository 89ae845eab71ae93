import StrataSQLite

/// `CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name[(columns)] AS select`.
///
/// ```sql
/// CREATE VIEW "activePlayer"("id", "name") AS SELECT id, name FROM player WHERE active
/// ```
///
/// The SELECT is SQL, written as given. See <https://www.sqlite.org/lang_createview.html>.
package struct CreateViewDDL: DDLStatement {
    package var name: String
    /// Names for the view's columns, or nil to take them from the SELECT.
    package var columns: [String]?
    package var select: String
    package var isTemporary: Bool
    package var ifNotExists: Bool

    package init(
        _ name: String, columns: [String]? = nil, as select: String, isTemporary: Bool = false,
        ifNotExists: Bool = false
    ) {
        self.name = name
        self.columns = columns
        self.select = select
        self.isTemporary = isTemporary
        self.ifNotExists = ifNotExists
    }

    package var sql: String {
        var sql = "CREATE " + (isTemporary ? "TEMPORARY " : "") + "VIEW " + (ifNotExists ? "IF NOT EXISTS " : "")
        sql += SQL.quoteIdentifier(name)
        if let columns { sql += "(" + SQL.quotedList(columns) + ")" }
        return sql + " AS " + select
    }
}
