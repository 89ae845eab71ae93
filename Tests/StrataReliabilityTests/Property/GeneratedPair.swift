import Foundation
import Strata

/// A random schema A with rows, and the edits that derive B from it.
struct GeneratedPair: Sendable {
    var a: ModelSchema
    var rows: [ModelRow]
    var edits: [SchemaEdit]
    /// What the SQLite under test can do: STRICT and generated columns are left out of both
    /// schemas where it lacks them (all of them on the newest SQLite, as generated).
    var capabilities: SQLiteCapabilities

    var b: ModelSchema { SchemaEdit.derive(a, edits).limited(to: capabilities) }

    var testCase: SchemaChangeCase {
        SchemaChangeCase(before: a.sql(), data: rows.compactMap { $0.sql(in: a) }, after: b.sql(renamedFrom: a))
    }

    /// The pair number `index` of the run seeded with `seed`.
    /// At most this many edits per pair: `STRATA_PROPERTY_EDITS`, default 4.
    static let maxEdits = max(1, ProcessInfo.processInfo.environment["STRATA_PROPERTY_EDITS"].flatMap { Int($0) } ?? 4)

    static func make(seed: UInt64, index: Int, capabilities: SQLiteCapabilities) throws -> GeneratedPair {
        var rng = SeededRandom(seed: seed &+ UInt64(index) &* 0x2545_F491_4F6C_DD1D)
        let a = SchemaGenerator.schema(&rng).limited(to: capabilities)
        let db = try Database(inMemory: Configuration())
        defer { db.close() }
        try db.execute(sql: a.sql())
        let rows = SchemaGenerator.data(a, into: db, &rng)
        var s = a
        var edits = [SchemaEdit]()
        let count = Int.random(in: 1...maxEdits, using: &rng)
        var attempts = 0
        while edits.count < count, attempts < 50 {
            attempts += 1
            guard let e = SchemaEdit.random(&s, &rng) else { continue }
            e.apply(&s)
            s.repair()
            edits.append(e)
        }
        return GeneratedPair(a: a, rows: rows, edits: edits, capabilities: capabilities)
    }
}

/// Shrinks a failing pair: drops edits, rows, objects, columns and attributes while the same
/// kind of failure remains.
enum PairShrinker {
    static func shrink(_ pair: GeneratedPair, kind: String, capabilityLimit: SQLiteVersion?) -> GeneratedPair {
        var best = pair
        var rounds = 0
        var improved = true
        while improved, rounds < 400 {
            improved = false
            for candidate in candidates(best) {
                rounds += 1
                if SchemaChangeCheck.run(candidate.testCase, capabilityLimit: capabilityLimit).failureKind == kind {
                    best = candidate
                    improved = true
                    break
                }
            }
        }
        return best
    }

    static func candidates(_ p: GeneratedPair) -> [GeneratedPair] {
        var out = [GeneratedPair]()
        func with(_ change: (inout GeneratedPair) -> Void) {
            var c = p
            change(&c)
            c.a.repair()
            out.append(c)
        }
        for i in p.edits.indices { with { $0.edits.remove(at: i) } }
        if p.rows.count > 1 {
            with { $0.rows.removeLast($0.rows.count / 2) }
            with { $0.rows.removeFirst($0.rows.count / 2) }
        }
        for i in p.rows.indices { with { $0.rows.remove(at: i) } }
        for t in p.a.tables {
            with { pair in
                pair.a.tables.removeAll { $0.id == t.id }
                pair.rows.removeAll { $0.table == t.id }
            }
        }
        for i in p.a.indexes.indices { with { $0.a.indexes.remove(at: i) } }
        for i in p.a.views.indices { with { $0.a.views.remove(at: i) } }
        for i in p.a.triggers.indices { with { $0.a.triggers.remove(at: i) } }
        for (ti, t) in p.a.tables.enumerated() {
            if !t.foreignKeys.isEmpty { with { $0.a.tables[ti].foreignKeys.removeAll() } }
            if t.strict { with { $0.a.tables[ti].strict = false } }
            if t.tableCheck != nil { with { $0.a.tables[ti].tableCheck = nil } }
            if t.withoutRowID { with { $0.a.tables[ti].withoutRowID = false } }
            if case .none = t.primaryKey {} else { with { $0.a.tables[ti].primaryKey = .none } }
            for (ci, c) in t.columns.enumerated() {
                if !t.primaryKey.columnIDs.contains(c.id) { with { $0.a.tables[ti].columns.remove(at: ci) } }
                if c.check != nil { with { $0.a.tables[ti].columns[ci].check = nil } }
                if c.collation != nil { with { $0.a.tables[ti].columns[ci].collation = nil } }
                if c.defaultSQL != nil { with { $0.a.tables[ti].columns[ci].defaultSQL = nil } }
                if c.unique { with { $0.a.tables[ti].columns[ci].unique = false } }
                if c.notNull { with { $0.a.tables[ti].columns[ci].notNull = false } }
                if c.generated != nil { with { $0.a.tables[ti].columns[ci].generated = nil } }
            }
        }
        return out
    }
}
