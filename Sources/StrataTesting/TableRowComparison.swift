import Foundation
import Strata

/// Every row of every table of two databases with the same schema, compared exactly (issue 37
/// item 4): what a baseline (`strata squash`, ``MigrationHistory/verifyUpgrades(to:rows:seed:)-(Migrator,_,_)``)
/// must reproduce of what the original migrations left.
///
/// It reads the tables itself, independently of the code that wrote the baseline's INSERTs, so a
/// dump that leaves a kind of table out is caught rather than compared with itself. Compared:
/// - every ordinary table (rowid tables with their rowids when a name reaches them, WITHOUT ROWID,
///   STRICT), each value with its storage class (`typeof`) and its exact bytes or bits, generated
///   columns included; rows as a multiset (order does not matter);
/// - the rows of FTS3/4/5 and R*Tree tables as the table returns them, and for FTS5 its index
///   term by term (`fts5vocab` of type `instance`: every term, document, column and offset), so
///   an index rebuilt from the same rows compares equal whatever its segment layout;
/// - `sqlite_sequence` (AUTOINCREMENT counters) of the schema's tables.
///
/// Shadow tables are not compared row by row: FTS5 rebuilds them from the rows, in its own
/// layout; their content is what the two checks above compare.
package enum TableRowComparison {
    /// A difference: the table and a message naming the row.
    package struct Difference: Error, CustomStringConvertible {
        package var table: String
        package var row: String?
        package var message: String
        package var description: String { message }
    }

    /// The first difference between the rows of `expected` and `actual` (both with `schema`),
    /// nil when every table holds the same rows. `expectedName` and `actualName` say in the
    /// message which database is which ("the originals'", "the baseline's").
    package static func firstDifference(
        expected: Database, actual: Database, schema: DatabaseSchema, expectedName: String = "expected",
        actualName: String = "actual"
    ) throws -> Difference? {
        for table in schema.tables {
            let quoted = "main." + SQLLiteral.quote(identifier: table.name)
            var queries: [(what: String, sql: String)] = []
            if !table.isVirtual {
                let columns = try columnNames(table.name, in: expected)
                var selection: [String] = []
                if table.hasRowID, let rowid = rowIDName(table) { selection.append(rowid) }
                selection += columns.map(SQLLiteral.quote(identifier:))
                queries.append(("rows", select(selection, from: quoted)))
            } else {
                switch (table.module ?? "").lowercased() {
                case "fts5", "fts4", "fts3":
                    let columns = try columnNames(table.name, in: expected)
                    queries.append(
                        ("rows", select(["rowid"] + columns.map(SQLLiteral.quote(identifier:)), from: quoted)))
                case "rtree", "rtree_i32":
                    let columns = try columnNames(table.name, in: expected)
                    queries.append(("rows", select(columns.map(SQLLiteral.quote(identifier:)), from: quoted)))
                default:
                    continue  // another module's rows: not read (a baseline refuses a table of it with rows)
                }
            }
            for (what, sql) in queries {
                if let difference = try compare(
                    sql, table: table.name, what: what, expected: expected, actual: actual, expectedName: expectedName,
                    actualName: actualName)
                {
                    return difference
                }
            }
            if table.isVirtual, (table.module ?? "").lowercased() == "fts5",
                let difference = try compareFullTextIndex(
                    table.name, expected: expected, actual: actual, expectedName: expectedName, actualName: actualName)
            {
                return difference
            }
        }
        // AUTOINCREMENT counters.
        let names = Set(schema.tables.map { $0.name.lowercased() })
        let sequences = "SELECT name, seq FROM main.sqlite_sequence"
        if try hasSequenceTable(expected) || hasSequenceTable(actual) {
            let e = try hasSequenceTable(expected) ? expected.fetchAll(sql: sequences) : []
            let a = try hasSequenceTable(actual) ? actual.fetchAll(sql: sequences) : []
            func counters(_ rows: [Row]) -> [String: SQLValue] {
                var out: [String: SQLValue] = [:]
                for row in rows {
                    guard case .text(let name) = row.value(at: 0), names.contains(name.lowercased()) else { continue }
                    out[name.lowercased()] = row.value(at: 1)
                }
                return out
            }
            let ce = counters(e)
            let ca = counters(a)
            for name in Set(ce.keys).union(ca.keys).sorted() where ce[name] != ca[name] {
                let table = schema.table(named: name)?.name ?? name
                return Difference(
                    table: table, row: nil,
                    message:
                        "table \(table): its AUTOINCREMENT counter (sqlite_sequence) is \(ca[name].map(render) ?? "absent") in \(actualName), \(ce[name].map(render) ?? "absent") in \(expectedName)"
                )
            }
        }
        return nil
    }

    /// The name that reaches a rowid table's rowid (`rowid`, `_rowid_` or `oid`, the first no
    /// column takes), nil when columns take all three.
    package static func rowIDName(_ table: TableInfo) -> String? {
        guard table.hasRowID else { return nil }
        return ["rowid", "_rowid_", "oid"].first { table.column(named: $0) == nil }
    }

    /// The columns of `table` a `SELECT` can name: stored and generated, not a virtual table's hidden ones.
    static func columnNames(_ table: String, in db: Database) throws -> [String] {
        try db.fetchColumn(
            String.self, sql: "SELECT name FROM pragma_table_xinfo(?1, 'main') WHERE hidden <> 1 ORDER BY cid",
            arguments: [table])
    }

    static func select(_ expressions: [String], from table: String) -> String {
        var parts: [String] = []
        for expression in expressions { parts += [expression, "typeof(\(expression))"] }
        return "SELECT \(parts.joined(separator: ", ")) FROM \(table)"
    }

    static func hasSequenceTable(_ db: Database) throws -> Bool {
        try db.fetchValue(Bool.self, sql: "SELECT count(*) > 0 FROM main.sqlite_master WHERE name = 'sqlite_sequence'")
            ?? false
    }

    /// Runs `sql` on both, rows as sorted keys, and names the first row one has and the other lacks.
    static func compare(
        _ sql: String, table: String, what: String, expected: Database, actual: Database, expectedName: String,
        actualName: String
    ) throws -> Difference? {
        let e = try keyedRows(sql, in: expected)
        let a = try keyedRows(sql, in: actual)
        if e.map(\.key) == a.map(\.key) { return nil }
        // The first key present in one and not the other (both sorted).
        var i = 0
        var j = 0
        while i < e.count || j < a.count {
            if i < e.count, j < a.count, e[i].key == a[j].key {
                i += 1
                j += 1
                continue
            }
            if j >= a.count || (i < e.count && e[i].key.lexicographicallyPrecedes(a[j].key)) {
                return Difference(
                    table: table, row: e[i].text,
                    message:
                        "table \(table): row \(e[i].text) of \(expectedName) \(what) is missing from \(actualName) (\(e.count) rows there, \(a.count) here)"
                )
            }
            return Difference(
                table: table, row: a[j].text,
                message:
                    "table \(table): row \(a[j].text) of \(actualName) \(what) is not in \(expectedName) (\(e.count) rows there, \(a.count) here)"
            )
        }
        return nil
    }

    /// FTS5's index, term by term, through a temporary `fts5vocab` table of type `instance`.
    static func compareFullTextIndex(
        _ table: String, expected: Database, actual: Database, expectedName: String, actualName: String
    ) throws -> Difference? {
        let vocabulary = "temp.\"strata_compare_vocab\""
        let argument = "'" + table.replacingOccurrences(of: "'", with: "''") + "'"
        func create(_ db: Database) -> Bool {
            (try? db.execute(
                sql: "CREATE VIRTUAL TABLE \(vocabulary) USING fts5vocab(main, \(argument), 'instance')")) != nil
        }
        defer {
            for db in [expected, actual] { try? db.execute(sql: "DROP TABLE IF EXISTS \(vocabulary)") }
        }
        guard create(expected), create(actual) else { return nil }  // no fts5vocab in this SQLite
        return try compare(
            "SELECT term, typeof(term), doc, typeof(doc), col, typeof(col), \"offset\", typeof(\"offset\") FROM \(vocabulary)",
            table: table, what: "full-text index (term, document, column, offset)", expected: expected,
            actual: actual, expectedName: expectedName, actualName: actualName)
    }

    /// The rows of `sql` (value, typeof, value, typeof...), each as an exact key and a short text, sorted by key.
    static func keyedRows(_ sql: String, in db: Database) throws -> [(key: [UInt8], text: String)] {
        var rows: [(key: [UInt8], text: String)] = []
        for row in try db.fetchAll(sql: sql) {
            var key: [UInt8] = []
            var shown: [String] = []
            var index = 0
            while index + 1 < row.columnCount {
                let value = row.value(at: index)
                let type: String
                if case .text(let t) = row.value(at: index + 1) { type = t } else { type = "" }
                appendKey(of: value, type: type, to: &key)
                shown.append(type == "text" && value.isBlob ? "text bytes \(render(value))" : render(value))
                index += 2
            }
            var text = "(" + shown.joined(separator: ", ") + ")"
            if text.count > 300 { text = String(text.prefix(300)) + "... (\(text.count) characters)" }
            rows.append((key, text))
        }
        rows.sort { $0.key.lexicographicallyPrecedes($1.key) }
        return rows
    }

    /// An exact, unambiguous encoding of one value and its storage class (length-prefixed bytes).
    static func appendKey(of value: SQLValue, type: String, to key: inout [UInt8]) {
        func append(_ tag: UInt8, _ bytes: some Collection<UInt8>) {
            key.append(tag)
            withUnsafeBytes(of: UInt64(bytes.count).bigEndian) { key.append(contentsOf: $0) }
            key.append(contentsOf: bytes)
        }
        switch value {
        case .null: append(0, [])
        case .integer(let i): withUnsafeBytes(of: i.bigEndian) { append(1, Array($0)) }
        case .real(let d): withUnsafeBytes(of: d.bitPattern.bigEndian) { append(2, Array($0)) }
        case .text(let s): append(3, Array(s.utf8))
        // Text that is not UTF-8 reads as bytes: its storage class keeps it apart from a blob.
        case .blob(let bytes): append(type == "text" ? 3 : 4, bytes)
        }
    }

    /// A value as SQL would write it, for messages (long values cut).
    static func render(_ value: SQLValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let i): return String(i)
        case .real(let d): return "\(d)"
        case .text(let s):
            // Control characters as `char(n)` pieces: a NUL would cut the message where it is
            // printed, a line break would split it.
            let scalars = s.unicodeScalars
            var pieces: [String] = []
            var literal = ""
            for scalar in scalars.prefix(60) {
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    if !literal.isEmpty { pieces.append("'" + literal + "'") }
                    literal = ""
                    pieces.append("char(\(scalar.value))")
                } else {
                    literal += scalar == "'" ? "''" : String(scalar)
                }
            }
            if !literal.isEmpty || pieces.isEmpty { pieces.append("'" + literal + "'") }
            let cut = scalars.count > 60 ? "...(\(scalars.count) characters)" : ""
            return pieces.joined(separator: " || ") + cut
        case .blob(let bytes):
            let hex = bytes.prefix(30).map { String(format: "%02X", $0) }.joined()
            return "X'" + hex + "'" + (bytes.count > 30 ? "...(\(bytes.count) bytes)" : "")
        }
    }
}

extension SQLValue {
    fileprivate var isBlob: Bool {
        if case .blob = self { return true }
        return false
    }
}
