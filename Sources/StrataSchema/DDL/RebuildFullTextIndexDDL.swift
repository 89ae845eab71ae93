import StrataSQLite

/// `INSERT INTO fts(fts) VALUES ('rebuild')`: the FTS4/FTS5 command that indexes again every row
/// of an external content table (a new full-text table over existing rows starts empty).
///
/// ```sql
/// INSERT INTO "note_search"("note_search") VALUES ('rebuild')
/// ```
///
/// See <https://www.sqlite.org/fts5.html#the_rebuild_command> and
/// <https://www.sqlite.org/fts3.html#rebuild>.
package struct RebuildFullTextIndexDDL: DDLStatement {
    package var table: String

    package init(_ table: String) { self.table = table }

    package var sql: String {
        let name = SQL.quoteIdentifier(table)
        return "INSERT INTO \(name)(\(name)) VALUES ('rebuild')"
    }
}
