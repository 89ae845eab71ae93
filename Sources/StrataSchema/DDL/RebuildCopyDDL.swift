import StrataSQLite

/// `INSERT OR ABORT INTO new (columns) SELECT expressions FROM old`: the copy of a table rebuild,
/// which moves every row of the old table into the new one.
///
/// ```sql
/// INSERT OR ABORT INTO "strata_tmp_00c0ffee00c0ffee" (rowid, "id", "name") SELECT rowid, "id", coalesce("name", '') FROM "player"
/// ```
///
/// `OR ABORT` overrides any `ON CONFLICT REPLACE/IGNORE` of the new definition: a conflicting row
/// fails the statement instead of replacing or skipping another
/// (<https://www.sqlite.org/lang_conflict.html>). The source expressions are SQL (a quoted
/// column, a `coalesce(...)` backfill, a rowid name). See
/// <https://www.sqlite.org/lang_insert.html> and ARCHITECTURE.md, "Rebuilding a table safely".
package struct RebuildCopyDDL: DDLStatement {
    /// A column of the new table that receives values.
    package enum Target: Sendable, Hashable {
        /// A column, by name (quoted when rendered).
        case column(String)
        /// The rowid under one of its names (`rowid`, `_rowid_`, `oid`), written bare so that it
        /// means the rowid and not a column.
        case rowID(String)

        var sql: String {
            switch self {
            case .column(let name): SQL.quoteIdentifier(name)
            case .rowID(let name): name
            }
        }
    }

    /// The table the rows go to.
    package var table: String
    /// The table the rows come from.
    package var source: String
    /// A target column and the SQL expression over ``source`` that fills it.
    package struct Assignment: Sendable, Hashable {
        package var target: Target
        package var expression: String

        package init(_ target: Target, _ expression: String) {
            self.target = target
            self.expression = expression
        }
    }

    /// The filled columns, in order.
    package var columns: [Assignment]

    package init(into table: String, from source: String, columns: [Assignment]) {
        self.table = table
        self.source = source
        self.columns = columns
    }

    package var sql: String {
        "INSERT OR ABORT INTO " + SQL.quoteIdentifier(table) + " (" + columns.map(\.target.sql).joined(separator: ", ")
            + ") SELECT " + columns.map(\.expression).joined(separator: ", ") + " FROM " + SQL.quoteIdentifier(source)
    }
}

/// `UPDATE sqlite_sequence ...; INSERT INTO sqlite_sequence ...`: carries an AUTOINCREMENT
/// table's sequence over to the table that replaces it in a rebuild, so that ids are never reused.
///
/// ```sql
/// UPDATE sqlite_sequence SET seq = max(seq, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'player'), 0)) WHERE name = 'strata_tmp_00c0ffee00c0ffee';
/// INSERT INTO sqlite_sequence(name, seq) SELECT 'strata_tmp_00c0ffee00c0ffee', seq FROM sqlite_sequence WHERE name = 'player' AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'strata_tmp_00c0ffee00c0ffee')
/// ```
///
/// The new table's sequence becomes the larger of its own (the copied rows' largest rowid) and
/// the old one. Two statements: run ``statements`` one by one.
/// See <https://www.sqlite.org/autoinc.html>.
package struct SequenceCarryOverDDL: DDLStatement {
    /// The table whose sequence is carried over.
    package var source: String
    /// The table that receives it.
    package var table: String

    package init(from source: String, to table: String) {
        self.source = source
        self.table = table
    }

    package var statements: [String] {
        // sqlite_sequence holds names as values: string literals, not identifiers.
        let old = SQLValue.text(source).sqlLiteral
        let new = SQLValue.text(table).sqlLiteral
        return [
            "UPDATE sqlite_sequence SET seq = max(seq, coalesce((SELECT seq FROM sqlite_sequence WHERE name = \(old)), 0)) "
                + "WHERE name = \(new)",
            "INSERT INTO sqlite_sequence(name, seq) SELECT \(new), seq FROM sqlite_sequence WHERE name = \(old) "
                + "AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = \(new))",
        ]
    }

    /// Both statements, separated by `;\n` (for display; execute ``statements`` one by one).
    package var sql: String { statements.joined(separator: ";\n") }
}
