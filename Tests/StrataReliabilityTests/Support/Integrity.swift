import Strata

/// `PRAGMA integrity_check`'s complaints, without one false positive of SQLite 3.40: "NULL
/// value in T.C" for a NOT NULL column placed before the PRIMARY KEY columns of a WITHOUT
/// ROWID table, when the column holds no NULL at all (checked with a query).
func integrityProblems(_ db: Database) throws -> [String] {
    let lines: [String] = try db.fetchColumn(sql: "PRAGMA integrity_check")
    if lines == ["ok"] { return [] }
    return try lines.filter { line in
        guard line.hasPrefix("NULL value in ") else { return true }
        let target = line.dropFirst("NULL value in ".count)
        let tables: [String] = try db.fetchColumn(sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        for table in tables where target.hasPrefix(table + ".") {
            let column = String(target.dropFirst(table.count + 1))
            let nulls = try db.fetchValue(
                Int.self,
                sql: "SELECT count(*) FROM \(SQL.quoteIdentifier(table)) WHERE \(SQL.quoteIdentifier(column)) IS NULL")
            if nulls == 0 { return false }
        }
        return true
    }
}
