import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// Issue 37, item 1: while an online rebuild copies the rows, nothing the new definition
/// enforces (constraints, foreign-key actions, generated columns, type rules) may fire on,
/// change, or fail a write the app makes under the old schema; everything is judged at the swap
/// against what the app wrote, as the offline rebuild judges it.
///
/// The property: random new definitions of a table (foreign keys with every action, CHECK,
/// UNIQUE, NOT NULL, STRICT, a STORED generated column whose function raises) × random app
/// statements between the batches (INSERT, UPDATE, DELETE on the table and on its parent, with
/// every conflict clause, some breaking the new definition), run on the database being rebuilt
/// and on a copy that stays on the old schema. Every app statement has the same outcome on both
/// (an app write that succeeds offline succeeds online). Then either the online rebuild
/// committed, the offline rebuild of the copy commits too and both files hold the same rows, or
/// the online rebuild was refused, with every row as the app left it, the old schema and none of
/// Strata's objects. And a change the offline rebuild refuses is refused online.
///
/// `STRATA_ONLINE_PROPERTY_TRIALS` sets the trials (default 16), `STRATA_ATTACK_SEED` the seed;
/// `scripts/attack-test.sh` runs more.
@Suite("Online rebuild isolation (attack)", .serialized, .tags(.attack))
struct OnlineRebuildIsolationAttackTests {
    static var trials: Int {
        ProcessInfo.processInfo.environment["STRATA_ONLINE_PROPERTY_TRIALS"].flatMap { Int($0) } ?? 16
    }
    static var seed: UInt64 { ProcessInfo.processInfo.environment["STRATA_ATTACK_SEED"].flatMap { UInt64($0) } ?? 11 }

    static let parent = "CREATE TABLE p(id INTEGER PRIMARY KEY, k TEXT UNIQUE);\n"
    static let oldTable = "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c INTEGER, pk TEXT);\n"
    static let rows = 400

    /// A random new definition of `t`: one to three changes, each of which needs a rebuild.
    static func newTable(_ rng: inout SeededRandom) -> String {
        var a = "a INTEGER"
        var b = "b TEXT"
        var c = "c INTEGER"
        var pk = "pk TEXT"
        var extra = [String]()
        var strict = false
        var changes = 0
        while changes == 0 {
            if rng.chance(45) {
                let action = rng.pick([
                    "ON DELETE SET NULL", "ON DELETE CASCADE", "ON DELETE RESTRICT", "", "ON DELETE SET DEFAULT",
                    "ON UPDATE CASCADE", "DEFERRABLE INITIALLY DEFERRED",
                ])
                a = "a INTEGER " + (rng.chance(50) ? "CONSTRAINT fa " : "") + "REFERENCES p(id) \(action)"
                changes += 1
            }
            if rng.chance(30) {
                pk =
                    "pk TEXT REFERENCES p(k) "
                    + rng.pick(["ON UPDATE CASCADE", "ON UPDATE SET NULL", "ON DELETE CASCADE", ""])
                changes += 1
            }
            if rng.chance(25) {
                extra.append("CHECK (c >= 0)")
                changes += 1
            }
            if rng.chance(25) {
                b = "b TEXT UNIQUE"
                changes += 1
            }
            if rng.chance(20) {
                c = "c INTEGER NOT NULL DEFAULT 0"
                changes += 1
            }
            if rng.chance(20), SQLiteVersion.runtime >= SQLiteVersion(3, 37) {
                strict = true
                changes += 1
            }
            if rng.chance(20), SQLiteVersion.runtime >= SQLiteVersion(3, 31) {
                extra.insert("g TEXT GENERATED ALWAYS AS (json_extract(b, '$.x')) STORED", at: 0)
                changes += 1
            }
        }
        if rng.chance(30) { extra.append("FOREIGN KEY (c) REFERENCES p(id) ON DELETE SET NULL") }
        let generated = extra.filter { $0.hasPrefix("g ") }
        let constraints = extra.filter { !$0.hasPrefix("g ") }
        let body = ["id INTEGER PRIMARY KEY", a, b, c, pk] + generated + constraints
        return "CREATE TABLE t(" + body.joined(separator: ", ") + ")" + (strict ? " STRICT" : "") + ";\n"
    }

    /// A random app statement under the old schema: some break the new definition, unless
    /// `fitting` (then it writes values every new definition accepts, and leaves `p` alone).
    static func appStatement(_ rng: inout SeededRandom, fitting: Bool) -> String {
        let clause = rng.pick(["", "OR ABORT ", "OR FAIL ", "OR ROLLBACK ", "OR REPLACE ", "OR IGNORE "])
        let id = rng.chance(70) ? Int.random(in: 1...rows, using: &rng) : Int.random(in: 1...rows + 60, using: &rng)
        let fit = { (rng: inout SeededRandom, column: String) -> String in
            switch column {
            case "a": rng.chance(20) ? "NULL" : "\(Int.random(in: 1...20, using: &rng))"
            case "b": "'{\"x\": \(Int.random(in: 10_000...1_000_000, using: &rng))}'"
            case "c": "\(Int.random(in: 0...20, using: &rng))"
            default: "'k\(Int.random(in: 1...20, using: &rng))'"
            }
        }
        if fitting {
            switch Int.random(in: 0..<5, using: &rng) {
            case 0, 1:
                let values = ["a", "b", "c", "pk"].map { fit(&rng, $0) }.joined(separator: ", ")
                return
                    "INSERT \(clause)INTO t(id, a, b, c, pk) VALUES (\(rng.chance(50) ? "\(id)" : "NULL"), \(values))"
            case 2:
                let column = rng.pick(["a", "b", "c", "pk"])
                return "UPDATE \(clause)t SET \(column) = \(fit(&rng, column)) WHERE id = \(id)"
            case 3:
                return "UPDATE \(clause)t SET id = id + 1000 WHERE id = \(id)"
            default:
                return "DELETE FROM t WHERE id = \(id)"
            }
        }
        let value = { (rng: inout SeededRandom) -> String in
            rng.pick([
                "\(Int.random(in: 1...20, using: &rng))", "999", "-1", "NULL", "'text'", "'{\"x\": 7}'", "'oops'",
                "'k\(Int.random(in: 1...20, using: &rng))'", "'k999'", "x'00ff'", "2.5",
                "'{\"x\": \(Int.random(in: 1...rows, using: &rng))}'",
            ])
        }
        switch Int.random(in: 0..<9, using: &rng) {
        case 0, 1:
            let values = (0..<4).map { _ in value(&rng) }.joined(separator: ", ")
            let rowID = rng.chance(50) ? "\(id), " : "NULL, "
            return "INSERT \(clause)INTO t(id, a, b, c, pk) VALUES (\(rowID)\(values))"
        case 2, 3:
            let column = rng.pick(["a", "b", "c", "pk"])
            return "UPDATE \(clause)t SET \(column) = \(value(&rng)) WHERE id = \(id)"
        case 4:
            return "UPDATE \(clause)t SET id = id + 1000 WHERE id = \(id)"
        case 5:
            return "DELETE FROM t WHERE id = \(id)"
        case 6:
            return "DELETE FROM p WHERE id = \(Int.random(in: 1...20, using: &rng))"
        case 7:
            return "UPDATE \(clause)p SET k = k || 'x' WHERE id = \(Int.random(in: 1...20, using: &rng))"
        default:
            return "UPDATE \(clause)p SET id = id + 100 WHERE id = \(Int.random(in: 1...20, using: &rng))"
        }
    }

    static func seedRows(_ db: Database, _ rng: inout SeededRandom) throws {
        try db.execute(sql: parent + oldTable)
        try db.transaction {
            for i in 1...20 { try db.execute(sql: "INSERT INTO p(id, k) VALUES (?, ?)", arguments: [i, "k\(i)"]) }
            for i in 1...rows {
                let a: SQLValue = rng.chance(10) ? .null : .integer(Int64.random(in: 1...20, using: &rng))
                try db.execute(
                    sql: "INSERT INTO t(id, a, b, c, pk) VALUES (?, ?, ?, ?, ?)",
                    arguments: [i, a, "{\"x\": \(i)}", i, "k\(Int.random(in: 1...20, using: &rng))"])
            }
        }
    }

    /// The rows of `t` and `p`, and the definition of `t`.
    static func state(_ db: Database) throws -> [String] {
        let t = try db.fetchAll(sql: "SELECT rowid, id, a, b, c, pk FROM t ORDER BY rowid").map { "\($0.values)" }
        let p = try db.fetchAll(sql: "SELECT rowid, id, k FROM p ORDER BY rowid").map { "\($0.values)" }
        return t + ["--"] + p
    }

    static func outcome(_ db: Database, _ sql: String) -> String {
        do {
            try db.execute(sql: sql)
            return "ok \(db.changes)"
        } catch let error as SQLiteError {
            return "error \(error.extendedResultCode)"
        } catch {
            return "error \(error)"
        }
    }

    /// The app's connection, written through from the seam (which must be `@Sendable`).
    final class App: @unchecked Sendable {
        let online: Database
        let reference: Database
        var rng: SeededRandom
        let fitting: Bool
        var log = [(String, String, String)]()
        init(online: Database, reference: Database, rng: SeededRandom, fitting: Bool) {
            self.online = online
            self.reference = reference
            self.rng = rng
            self.fitting = fitting
        }
        func writes() {
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let sql = OnlineRebuildIsolationAttackTests.appStatement(&rng, fitting: fitting)
                let online = OnlineRebuildIsolationAttackTests.outcome(self.online, sql)
                let reference = OnlineRebuildIsolationAttackTests.outcome(self.reference, sql)
                log.append((sql, online, reference))
            }
        }
    }

    @Test func nothingTheNewDefinitionEnforcesTouchesTheAppsWrites() throws {
        var rng = SeededRandom(seed: Self.seed)
        var tally = [String: Int]()
        for trial in 0..<Self.trials {
            let dir = TemporaryDirectory()
            let path = dir.file("online.sqlite")
            let copyPath = dir.file("offline.sqlite")
            do {
                let db = try Database(path: path)
                try Self.seedRows(db, &rng)
                db.close()
            }
            try FileManager.default.copyItem(atPath: path, toPath: copyPath)
            let desired = Self.parent + Self.newTable(&rng)
            let db = try Database(path: path)
            let fitting = trial % 2 == 0
            let app = App(
                online: try Database(path: path), reference: try Database(path: copyPath), rng: rng, fitting: fitting)
            defer {
                app.online.close()
                app.reference.close()
                db.close()
            }
            var options = SchemaChangeOptions(online: true)
            options.onlineBatchSize = 60
            options.allowDestructive = true
            let plan = try db.planSchemaChange(to: desired, options: options)
            let wentOnline = plan.steps.contains(where: \.isOnline)
            let online = Result {
                try OnlineRebuildSeam.$afterBatch.withValue({ _, _ in app.writes() }) {
                    try db.migrateSchema(to: desired, options: options)
                }
            }
            let context =
                "trial \(trial): \(desired)\n" + app.log.map { "\($0.0) -> \($0.1) / \($0.2)" }.joined(separator: "\n")
            // Every app statement as it went on the old schema alone.
            for (sql, onlineOutcome, referenceOutcome) in app.log {
                #expect(onlineOutcome == referenceOutcome, "\(sql)\n\(context)")
            }
            var offlineOptions = options
            offlineOptions.online = false
            let referenceBefore = try Self.state(app.reference)
            let offline = Result { try app.reference.migrateSchema(to: desired, options: offlineOptions) }
            switch (online, offline) {
            case (.success, .success):
                tally[wentOnline ? "applied online" : "applied (not online)", default: 0] += 1
                #expect(try Self.state(db) == Self.state(app.reference), "\(context)")
                let sql = { (db: Database) in
                    try db.fetchValue(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = 't'")
                }
                #expect(try sql(db) == sql(app.reference), "\(context)")
                #expect(try db.fetchAll(sql: "PRAGMA foreign_key_check").isEmpty, "\(context)")
            case (.failure(let error), _):
                tally["refused online (offline \(offline.isSuccess ? "applied" : "refused"))", default: 0] += 1
                if ProcessInfo.processInfo.environment["STRATA_ONLINE_PROPERTY_VERBOSE"] != nil {
                    print("refused: \(error)\n\(context)")
                }
                #expect(!(error is OnlineRebuildInterrupted), "\(context)")
                // Nothing lost: every row as the app left it, the old schema, no leftovers.
                #expect(try Self.state(db) == referenceBefore, "\(error)\n\(context)")
                #expect(
                    try db.fetchValue(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = 't'")
                        == Self.oldTable.dropLast(2).description, "\(context)")
                let leftovers: [String] = try db.fetchColumn(
                    sql:
                        "SELECT name FROM sqlite_master WHERE name LIKE 'strata%' AND name <> 'strata_schema_fingerprint'"
                )
                #expect(leftovers.isEmpty, "\(leftovers)\n\(context)")
            case (.success, .failure(let error)):
                Issue.record("committed online a change the offline rebuild refuses: \(error)\n\(context)")
            }
            #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
            rng = app.rng
        }
        print(
            "attack test: online rebuild isolation: "
                + tally.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        #expect((tally["applied online"] ?? 0) > 0)
    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { true } else { false }
    }
}
