import Foundation
import Strata

/// The values of every column that survives a schema change (same name, or a `-- @renamed`
/// hint), captured before and verified after, by rowid where the rowid survives, else as a
/// multiset of rows.
struct KeptColumns {
    struct TableCapture {
        var desired: TableInfo
        /// Desired column names and, for each, the expected value of each captured row.
        var columns: [ColumnInfo]
        var keyedByRowID: Bool
        /// rowid (or nil) -> expected values, in `columns` order.
        var expected: [(rowid: SQLValue?, values: [SQLValue?])]
    }

    var tables: [TableCapture] = []

    static func capture(db: Database, live: DatabaseSchema, desired: DatabaseSchema) throws -> KeptColumns {
        var result = KeptColumns()
        let converter = try AffinityConverter()
        for bt in desired.tables where !bt.isVirtual {
            let hinted = bt.renamedFrom.flatMap { live.table(named: $0) }
            guard let at = hinted ?? live.table(named: bt.name), !at.isVirtual else { continue }
            var sources = [String]()
            var columns = [ColumnInfo]()
            for bc in bt.columns where !bc.isGenerated {
                let src = bc.renamedFrom.flatMap { at.column(named: $0) } ?? at.column(named: bc.name)
                guard let ac = src, !ac.isGenerated else { continue }
                sources.append(ac.name)
                columns.append(bc)
            }
            var keyed = at.hasRowID && bt.hasRowID
            if keyed, let alias = bt.rowIDAliasColumn, let i = columns.firstIndex(where: { $0.name == alias.name }) {
                keyed = at.rowIDAliasColumn?.name.lowercased() == sources[i].lowercased()
            }
            let q = SQL.quoteIdentifier
            let select = (keyed ? ["rowid"] : []) + sources.map(q)
            guard !select.isEmpty else { continue }
            let rows = try db.fetchAll(sql: "SELECT \(select.joined(separator: ", ")) FROM \(q(at.name))").map(\.values)
            var expected = [(rowid: SQLValue?, values: [SQLValue?])]()
            for row in rows {
                let values = Array(row.dropFirst(keyed ? 1 : 0))
                var out = [SQLValue?]()
                for (value, bc) in zip(values, columns) {
                    var v = value
                    if v == .null, bc.isNotNull, let d = bc.defaultSQL {
                        v = try converter.evaluate(d)
                    }
                    out.append(try converter.convert(v, type: bc.declaredType, strict: bt.isStrict))
                }
                expected.append((rowid: keyed ? row[0] : nil, values: out))
            }
            result.tables.append(TableCapture(desired: bt, columns: columns, keyedByRowID: keyed, expected: expected))
        }
        return result
    }

    /// Nil when every kept value is as expected, else what differs.
    func verify(db: Database) throws -> String? {
        let q = SQL.quoteIdentifier
        for t in tables {
            let select = (t.keyedByRowID ? ["rowid"] : []) + t.columns.map { q($0.name) }
            let rows = try db.fetchAll(sql: "SELECT \(select.joined(separator: ", ")) FROM \(q(t.desired.name))").map(
                \.values)
            if rows.count != t.expected.count {
                return "table \(t.desired.name): \(t.expected.count) rows before, \(rows.count) after"
            }
            func text(_ values: [SQLValue?]) -> String {
                values.map { $0?.sqlLiteral ?? "<unconvertible>" }.joined(separator: ", ")
            }
            if t.keyedByRowID {
                var expectedByRowID = [SQLValue: [SQLValue?]]()
                for e in t.expected { if let rowid = e.rowid { expectedByRowID[rowid] = e.values } }
                for row in rows {
                    let values = Array(row.dropFirst()).map { Optional($0) }
                    guard let e = expectedByRowID[row[0]] else {
                        return "table \(t.desired.name): rowid \(row[0]) did not exist before"
                    }
                    if e != values {
                        return
                            "table \(t.desired.name) rowid \(row[0]) (\(t.columns.map(\.name).joined(separator: ", "))): "
                            + "expected \(text(e)), found \(text(values))"
                    }
                }
            } else {
                let before = t.expected.map { text($0.values) }.sorted()
                let after = rows.map { text($0.map { Optional($0) }) }.sorted()
                if before != after {
                    return "table \(t.desired.name) (\(t.columns.map(\.name).joined(separator: ", "))): rows expected "
                        + "\(before), found \(after)"
                }
            }
        }
        return nil
    }
}

/// What SQLite stores when a value goes into a column of a declared type (type affinity, or a
/// STRICT column's conversion), computed by SQLite itself in a scratch database.
final class AffinityConverter {
    private let db: Database
    private var tables = [String: String]()

    init() throws { db = try Database(inMemory: Configuration()) }
    deinit { db.close() }

    /// Nil when a STRICT column cannot take the value.
    func convert(_ value: SQLValue?, type: String, strict: Bool) throws -> SQLValue? {
        guard let value else { return nil }
        let key = "\(strict)|\(type)"
        let name: String
        if let existing = tables[key] {
            name = existing
        } else {
            name = "conv\(tables.count)"
            try db.execute(sql: "CREATE TABLE \(name)(x \(type))\(strict ? " STRICT" : "")")
            tables[key] = name
        }
        try db.execute(sql: "DELETE FROM \(name)")
        do {
            try db.execute(sql: "INSERT INTO \(name)(x) VALUES (?)", arguments: StatementArguments([value]))
        } catch is SQLiteError {
            return nil
        }
        return try db.fetchAll(sql: "SELECT x FROM \(name)").first?.values.first
    }

    /// The value of a DEFAULT expression.
    func evaluate(_ defaultSQL: String) throws -> SQLValue {
        try db.fetchAll(sql: "SELECT \(defaultSQL)").first?.values.first ?? .null
    }
}
