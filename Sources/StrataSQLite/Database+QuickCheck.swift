extension Database {
    /// The problems `PRAGMA quick_check` reports for the main database (empty: none), without
    /// the false complaints SQLite 3.40 and 3.41 make about sound rows.
    ///
    /// ```swift
    /// let problems = try db.quickCheckProblems()   // [] when the file is sound
    /// ```
    ///
    /// SQLite 3.40.1 complains about the values of a `WITHOUT ROWID` table whose `PRIMARY KEY`
    /// lists its columns in another order than the table declares them: `NULL value in t.a` for
    /// `CREATE TABLE t(a REAL, b, PRIMARY KEY(b, a)) WITHOUT ROWID` holding `(1.5, 'y')`, or
    /// `TEXT value in t.c` for a column holding no text that looks like a number (it checks one
    /// column's rule against another column's value; `integrity_check` does the same on some
    /// rows). 3.38.3 and 3.45.0 report nothing for the same files; the range Strata assumes is
    /// 3.40.0 up to 3.42.0. On such a release, for such a table only, a `NULL value` complaint is
    /// kept when the column does hold a NULL, and a complaint about another type is left out
    /// (no SQL can tell it from the misreading). Every other line is kept, so nothing SQLite
    /// reports elsewhere is hidden.
    package func quickCheckProblems() throws -> [String] {
        let lines = try fetchColumn(String.self, sql: "PRAGMA main.quick_check")
        if lines == ["ok"] { return [] }
        let affected =
            SQLiteVersion.runtime >= SQLiteVersion(3, 40, 0) && SQLiteVersion.runtime < SQLiteVersion(3, 42, 0)
        guard affected else { return lines }
        var problems: [String] = []
        for line in lines where line != "ok" {
            guard let (kind, table, column) = try valueComplaint(line), try hasReorderedPrimaryKey(table) else {
                problems.append(line)
                continue
            }
            if kind == "NULL" {
                // typeof reads the stored value (`IS NULL` on a NOT NULL column is folded to false).
                let quotedTable = SQLLiteral.quote(identifier: table)
                let quotedColumn = SQLLiteral.quote(identifier: column)
                let nulls =
                    try fetchValue(
                        Int.self, sql: "SELECT count(*) FROM main.\(quotedTable) WHERE typeof(\(quotedColumn)) = 'null'"
                    )
                    ?? 0
                if nulls > 0 { problems.append(line) }
            }
        }
        return problems
    }

    /// A complaint about a column's value (`NULL value in a.b.c`: the kind `NULL`, the table `a`
    /// or `a.b`, whichever is a table of the main database with that column), nil when the line
    /// is not such a complaint or names no table and column found.
    private func valueComplaint(_ line: String) throws -> (kind: String, table: String, column: String)? {
        guard let range = line.range(of: " value in ") else { return nil }
        let kind = String(line[..<range.lowerBound])
        guard !kind.isEmpty, kind.allSatisfy({ $0.isASCII && ($0.isUppercase || $0 == "-") }) else { return nil }
        let tableDotColumn = line[range.upperBound...]
        var index = tableDotColumn.startIndex
        while let dot = tableDotColumn[index...].firstIndex(of: ".") {
            let table = String(tableDotColumn[..<dot])
            let column = String(tableDotColumn[tableDotColumn.index(after: dot)...])
            index = tableDotColumn.index(after: dot)
            let columns = try fetchColumn(
                String.self, sql: "SELECT name FROM pragma_table_xinfo(?, 'main')", arguments: [table])
            if columns.contains(column) { return (kind, table, column) }
        }
        return nil
    }

    /// True when `table` is a `WITHOUT ROWID` table whose primary key does not list its columns
    /// in the order the table declares them (the condition of the 3.40 misreading).
    private func hasReorderedPrimaryKey(_ table: String) throws -> Bool {
        let withoutRowID =
            try fetchValue(
                Int.self, sql: "SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", arguments: [table]
            )
            ?? 0
        guard withoutRowID == 1 else { return false }
        let positions = try fetchColumn(
            Int.self, sql: "SELECT cid FROM pragma_table_xinfo(?, 'main') WHERE pk > 0 ORDER BY pk", arguments: [table])
        return positions != positions.sorted()
    }
}
