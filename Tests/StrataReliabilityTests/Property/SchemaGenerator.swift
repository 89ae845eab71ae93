import Foundation
import Strata

/// A seeded generator (SplitMix64): the same seed gives the same schemas, data and edits on
/// every machine.
struct SeededRandom: RandomNumberGenerator, Sendable {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &self)] }
    mutating func pickOptional<T>(_ items: [T]) -> T? { items.isEmpty ? nil : pick(items) }
}

/// Random schemas and rows that fit them.
enum SchemaGenerator {
    /// Name stems: plain, mixed case, keywords, spaces, quotes, brackets, backticks, unicode.
    /// The object's id is appended, so names never collide.
    static let stems = [
        "c", "Col", "select", "order", "a b", "quo\"te", "[br]", "back`tick", "ünï", "Ωmega", "x'y", "group by",
    ]
    static let looseTypes = ["INTEGER", "TEXT", "REAL", "BLOB", "NUMERIC", "", "VARCHAR(20)", "INT"]
    static let strictTypes = ["INTEGER", "TEXT", "REAL", "BLOB", "ANY", "INT"]
    static let actions: [String?] = [nil, "CASCADE", "SET NULL", "RESTRICT", "NO ACTION", "SET DEFAULT"]

    static func name(_ prefix: String, _ id: Int, _ rng: inout SeededRandom) -> String {
        (rng.chance(50) ? prefix : rng.pick(stems)) + String(id)
    }

    static func randomDefault(type: String, _ rng: inout SeededRandom) -> String {
        switch type {
        case "INTEGER", "INT", "NUMERIC": return rng.pick(["0", "-1", "42"])
        case "REAL": return rng.pick(["0.5", "-2.25"])
        case "BLOB": return "X'00FF'"
        default: return rng.pick(["''", "'n/a'", "'it''s'", "7"])
        }
    }

    static func randomColumn(
        _ s: inout ModelSchema, strict: Bool, in table: ModelTable?, _ rng: inout SeededRandom
    ) -> ModelColumn {
        let id = s.makeID()
        let type = rng.pick(strict ? strictTypes : looseTypes)
        var c = ModelColumn(id: id, name: name("c", id, &rng), type: type)
        if rng.chance(20) {
            c.notNull = true
            c.defaultSQL = randomDefault(type: type, &rng)
        } else if rng.chance(25) {
            c.defaultSQL = randomDefault(type: type, &rng)
        }
        if rng.chance(15) { c.collation = rng.pick(["NOCASE", "RTRIM", "BINARY"]) }
        if rng.chance(10) { c.check = Int.random(in: 0..<5, using: &rng) }
        if rng.chance(8) { c.unique = true }
        if let table, rng.chance(15), let source = rng.pickOptional(table.storedColumns) {
            c.generated = rng.pick([.column(source.id), .length(source.id), .plusOne(source.id), .lower(source.id)])
            c.stored = rng.chance(40)
            c.defaultSQL = nil
            c.unique = false
            c.notNull = false
        }
        return c
    }

    static func randomTable(_ s: inout ModelSchema, _ rng: inout SeededRandom) -> ModelTable {
        let id = s.makeID()
        var t = ModelTable(id: id, name: name("t", id, &rng), columns: [])
        t.strict = rng.chance(20)
        let count = Int.random(in: 1...5, using: &rng)
        for _ in 0..<count { t.columns.append(randomColumn(&s, strict: t.strict, in: t, &rng)) }
        let stored = t.storedColumns
        switch Int.random(in: 0..<10, using: &rng) {
        case 0..<4:
            let pid = s.makeID()
            t.columns.insert(ModelColumn(id: pid, name: name("id", pid, &rng), type: "INTEGER"), at: 0)
            t.primaryKey = .rowidAlias(pid, autoincrement: rng.chance(25))
        case 4..<7 where !stored.isEmpty:
            let pk = Array(stored.shuffled(using: &rng).prefix(Int.random(in: 1...min(2, stored.count), using: &rng)))
            t.primaryKey = .columns(pk.map(\.id))
            t.withoutRowID = rng.chance(50)
        default:
            break
        }
        if rng.chance(15) { t.tableCheck = Int.random(in: 1..<5, using: &rng) }
        return t
    }

    static func addForeignKey(_ s: inout ModelSchema, child: Int, _ rng: inout SeededRandom) {
        guard let ci = s.tableIndex(child) else { return }
        let parents = s.tables.filter { $0.primaryKey.columnIDs.count == 1 }
        guard let parent = rng.pickOptional(parents), let column = rng.pickOptional(s.tables[ci].storedColumns),
            !s.tables[ci].primaryKey.columnIDs.contains(column.id) || parent.id != child
        else { return }
        let fk = ModelForeignKey(
            column: column.id, parentTable: parent.id, parentColumn: parent.primaryKey.columnIDs[0],
            onDelete: rng.pick(actions), onUpdate: rng.chance(30) ? rng.pick(actions) : nil)
        s.tables[ci].foreignKeys.append(fk)
    }

    static func randomIndex(_ s: inout ModelSchema, _ rng: inout SeededRandom) -> ModelIndex? {
        guard let t = rng.pickOptional(s.tables), !t.columns.isEmpty else { return nil }
        let id = s.makeID()
        let count = Int.random(in: 1...min(2, t.columns.count), using: &rng)
        let parts: [ModelExpression] = t.columns.shuffled(using: &rng).prefix(count).map { c in
            rng.chance(75) ? .column(c.id) : rng.pick([.length(c.id), .lower(c.id), .plusOne(c.id)])
        }
        return ModelIndex(
            id: id, name: name("ix", id, &rng), table: t.id, unique: rng.chance(20), parts: parts,
            descending: rng.chance(20), nocase: rng.chance(20),
            wherePresent: rng.chance(25) ? rng.pick(t.columns).id : nil)
    }

    static func randomView(_ s: inout ModelSchema, _ rng: inout SeededRandom) -> ModelView? {
        guard let t = rng.pickOptional(s.tables), !t.columns.isEmpty else { return nil }
        let id = s.makeID()
        let columns = t.columns.shuffled(using: &rng).prefix(Int.random(in: 1...t.columns.count, using: &rng)).map(\.id)
        var v = ModelView(
            id: id, name: name("v", id, &rng), table: t.id, columns: Array(columns), filtered: rng.chance(40))
        if rng.chance(30) { v.join = rng.pick(s.tables).id }
        if rng.chance(20), let base = rng.pickOptional(s.views) {
            v.over = base.id
            v.table = base.table
        }
        return v
    }

    static func randomTrigger(_ s: inout ModelSchema, _ rng: inout SeededRandom) -> ModelTrigger? {
        guard let t = rng.pickOptional(s.tables), let c = rng.pickOptional(t.columns),
            let target = rng.pickOptional(s.tables), let tc = rng.pickOptional(target.storedColumns)
        else { return nil }
        let id = s.makeID()
        return ModelTrigger(
            id: id, name: name("trg", id, &rng), table: t.id, event: rng.pick(["INSERT", "UPDATE", "DELETE"]),
            timing: rng.pick(["BEFORE", "AFTER"]), column: c.id, target: target.id, targetColumn: tc.id)
    }

    /// A random valid schema.
    static func schema(_ rng: inout SeededRandom) -> ModelSchema {
        var s = ModelSchema()
        for _ in 0..<Int.random(in: 1...4, using: &rng) { s.tables.append(randomTable(&s, &rng)) }
        for t in s.tables where rng.chance(40) { addForeignKey(&s, child: t.id, &rng) }
        for _ in 0..<Int.random(in: 0...3, using: &rng) { if let i = randomIndex(&s, &rng) { s.indexes.append(i) } }
        for _ in 0..<Int.random(in: 0...2, using: &rng) { if let v = randomView(&s, &rng) { s.views.append(v) } }
        for _ in 0..<Int.random(in: 0...2, using: &rng) { if let t = randomTrigger(&s, &rng) { s.triggers.append(t) } }
        s.repair()
        return s
    }

    static func randomValue(type: String, _ rng: inout SeededRandom) -> SQLValue {
        if rng.chance(10) { return .null }
        let kind: String
        switch type {
        case "INTEGER", "INT": kind = rng.chance(85) ? "i" : rng.pick(["t", "r"])
        case "REAL": kind = rng.chance(85) ? "r" : "i"
        case "TEXT", "VARCHAR(20)": kind = rng.chance(85) ? "t" : rng.pick(["i", "n"])
        case "BLOB": kind = rng.chance(85) ? "b" : "t"
        default: kind = rng.pick(["i", "r", "t", "b", "n"])
        }
        switch kind {
        case "i": return .integer(Int64.random(in: -50...50, using: &rng) * (rng.chance(10) ? 1_000_000_007 : 1))
        case "r": return .real(Double(Int.random(in: -400...400, using: &rng)) / 8)
        case "n": return .text(String(Int.random(in: 0...99, using: &rng)))
        case "b":
            return .blob((0..<Int.random(in: 0...4, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        default:
            return .text(
                rng.pick([
                    "", "a", "B", "it's", "Ünïcødé ✓", "x -- @renamed from=y", "semi;colon", "  pad  ", "NULL",
                    "line\nbreak",
                ]))
        }
    }

    /// Random rows inserted into `db` (at schema `s`); the rows SQLite accepted are returned
    /// (some break a constraint and are skipped).
    static func data(_ s: ModelSchema, into db: Database, _ rng: inout SeededRandom) -> [ModelRow] {
        var inserted = [ModelRow]()
        let q = SQL.quoteIdentifier
        for t in s.tables {
            for _ in 0..<Int.random(in: 0...12, using: &rng) {
                var row = ModelRow(table: t.id, values: [])
                for c in t.storedColumns {
                    if case .rowidAlias(let id, _) = t.primaryKey, id == c.id, rng.chance(70) { continue }
                    var v = randomValue(type: c.type, &rng)
                    if let fk = t.foreignKeys.first(where: { $0.column == c.id }), let parent = s.table(fk.parentTable),
                        let pc = parent.column(fk.parentColumn), rng.chance(75)
                    {
                        let keys =
                            (try? db.fetchAll(sql: "SELECT \(q(pc.name)) FROM \(q(parent.name))").map { $0.values[0] })
                            ?? []
                        v = rng.pickOptional(keys) ?? .null
                    }
                    row.values.append(ModelRow.Value(column: c.id, value: v))
                }
                if let sql = row.sql(in: s), (try? db.execute(sql: sql)) != nil { inserted.append(row) }
            }
        }
        return inserted
    }
}

/// One row of generated data, by column id (so it renders against a shrunk schema too).
struct ModelRow: Hashable, Sendable {
    struct Value: Hashable, Sendable {
        var column: Int
        var value: SQLValue
    }

    var table: Int
    var values: [Value]

    func sql(in s: ModelSchema) -> String? {
        guard let t = s.table(table) else { return nil }
        let q = SQL.quoteIdentifier
        let present = values.compactMap { v in t.column(v.column).map { (q($0.name), v.value.sqlLiteral) } }
        if present.isEmpty { return "INSERT INTO \(q(t.name)) DEFAULT VALUES" }
        return
            "INSERT INTO \(q(t.name))(\(present.map(\.0).joined(separator: ", "))) VALUES (\(present.map(\.1).joined(separator: ", ")))"
    }
}
