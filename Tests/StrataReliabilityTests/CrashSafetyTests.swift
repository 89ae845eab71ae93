import Foundation
import Strata
import StrataTestSupport
import Testing

/// A helper process (or `strata apply`) applies a rebuild plan (or a migration list) to a file
/// database and is killed with SIGKILL at a random moment. After each kill the database must open, pass
/// `integrity_check` and `foreign_key_check`, hold exactly the old or the new schema (no
/// temporary table) and exactly the old or the new rows, and a rerun must complete.
///
/// `STRATA_CRASH_TRIALS` sets the number of kills per test (default 16), `STRATA_CRASH_SEED`
/// the seed of the kill moments; `scripts/crash-test.sh N` runs more.
@Suite("Crash safety", .serialized)
struct CrashSafetyTests {
    static var trials: Int { ProcessInfo.processInfo.environment["STRATA_CRASH_TRIALS"].flatMap { Int($0) } ?? 16 }
    static var seed: UInt64 { ProcessInfo.processInfo.environment["STRATA_CRASH_SEED"].flatMap { UInt64($0) } ?? 8 }
    static let books = 40000

    /// Counts of what the kills hit, for the summary line.
    struct Tally: CustomStringConvertible {
        var states = [String: Int]()
        var hotJournals = 0
        var description: String {
            states.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
                + ", kills that left a journal or WAL to recover: \(hotJournals)"
        }
    }

    @Test func killingASchemaApplyLeavesTheOldOrTheNewDatabase() throws {
        let dir = TemporaryDirectory("strata-crash")
        let schemaFile = dir.file("new.sql")
        try Data(CrashFixture.newSchema.utf8).write(to: URL(fileURLWithPath: schemaFile))
        var templates = [String]()
        for wal in [false, true] {
            let path = dir.file("template-\(wal ? "wal" : "delete").sqlite")
            try CrashFixture.makeOldDatabase(at: path, books: Self.books, wal: wal)
            templates.append(path)
        }
        let before = try state(of: try #require(templates.first))
        let oldSchema = try DatabaseSchema(sql: CrashFixture.oldSchema)
        let newSchema = try DatabaseSchema(sql: CrashFixture.newSchema)

        // The processes killed, in turn: the helper on a rollback-journal and on a WAL database,
        // the `strata apply` command line, and the helper on the old-SQLite path (rebuilds only).
        struct Mode {
            var name: String
            var executable: String
            var template: Int
            var arguments: (String) -> [String]
        }
        let modes = [
            Mode(name: "helper, rollback journal", executable: "StrataTestHelper", template: 0) {
                ["apply-schema", $0, schemaFile]
            },
            Mode(name: "helper, WAL", executable: "StrataTestHelper", template: 1) {
                ["apply-schema", $0, schemaFile]
            },
            Mode(name: "strata apply, rollback journal", executable: "strata", template: 0) {
                ["apply", "--db", $0, "--schema", schemaFile, "--allow-destructive"]
            },
            Mode(name: "helper on the old-SQLite path, WAL", executable: "StrataTestHelper", template: 1) {
                ["apply-schema", $0, schemaFile, "--old-sqlite"]
            },
        ]

        // One uninterrupted run per mode gives the new state and how long a run takes.
        var duration = 0.0
        var after: DatabaseState? = nil
        for mode in modes {
            let full = dir.file("full.sqlite")
            try CrashFixture.copy(templates[mode.template], to: full)
            let started = Date()
            let run = try ChildProcess.run(mode.executable, mode.arguments(full))
            duration = max(duration, Date().timeIntervalSince(started))
            #expect(run.status == 0, "\(mode.name): \(run)")
            let state = try state(of: full)
            if let after {
                #expect(state == after, "\(mode.name) gives another new state: \(state.differences(from: after))")
            }
            after = after ?? state
            try FileManager.default.removeItem(atPath: full)
        }
        let newState = try #require(after)
        #expect(before != newState)

        var rng = SeededRandom(seed: Self.seed)
        var tally = Tally()
        for trial in 0..<Self.trials {
            let mode = modes[trial % modes.count]
            let path = dir.file("trial-\(trial).sqlite")
            try CrashFixture.copy(templates[mode.template], to: path)
            let delay = Double.random(in: 0...(duration * 1.5), using: &rng)
            let hot = try killMidway(mode.executable, mode.arguments(path), after: delay, path: path)
            if hot { tally.hotJournals += 1 }
            let label = "trial \(trial) (\(mode.name), killed after \(Int(delay * 1000)) ms)"

            let db = try Database(path: path)
            try verifyConsistent(db, label: label)
            let schema = try DatabaseSchema.read(from: db)
            #expect(
                schema == oldSchema || schema == newSchema,
                "\(label): schema is neither old nor new: \(schema.differences(from: newSchema))")
            let now = try DatabaseState(db)
            #expect(
                now == before || now == newState,
                "\(label): rows or schema entries are neither the old nor the new ones")
            tally.states["\(mode.name): \(now == before ? "old" : now == newState ? "new" : "neither")", default: 0] +=
                1
            // A rerun completes the change.
            try db.migrateSchema(to: newSchema, options: SchemaChangeOptions(allowDestructive: true))
            let rerun = try DatabaseState(db)
            #expect(
                rerun == newState,
                "\(label): the rerun did not give the new state: \(rerun.differences(from: newState))")
            db.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        print("crash test (schema apply): \(Self.trials) kills, \(tally)")
    }

    @Test func killingAMigrationRunLeavesAConsistentPrefix() throws {
        let dir = TemporaryDirectory("strata-crash-migrations")
        let list = CrashFixture.migrations(books: Self.books)
        let folder = dir.file("migrations")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try CrashFixture.writeMigrations(list, to: folder)
        let migrator = CrashFixture.migrator(list)

        // The template has the first two migrations; the states after each later one are known.
        let template = dir.file("template.sqlite")
        do {
            let db = try Database(path: template)
            try migrator.migrate(db, upTo: "0002_seed")
            db.close()
        }
        var states = [try state(of: template)]
        for m in list.dropFirst(2) {
            let path = dir.file("state-\(m.identifier).sqlite")
            try CrashFixture.copy(template, to: path)
            let db = try Database(path: path)
            try migrator.migrate(db, upTo: m.identifier)
            states.append(try DatabaseState(db))
            db.close()
        }
        let full = dir.file("full.sqlite")
        try CrashFixture.copy(template, to: full)
        let started = Date()
        let run = try ChildProcess.run("StrataTestHelper", ["migrate", full, folder])
        let duration = Date().timeIntervalSince(started)
        #expect(run.status == 0, "\(run)")
        #expect(try state(of: full) == states.last, "the helper's migration run differs from the in-process one")

        var rng = SeededRandom(seed: Self.seed &+ 1)
        var tally = Tally()
        for trial in 0..<Self.trials {
            let path = dir.file("trial-\(trial).sqlite")
            try CrashFixture.copy(template, to: path)
            let delay = Double.random(in: 0...(duration * 1.5), using: &rng)
            if try killMidway("StrataTestHelper", ["migrate", path, folder], after: delay, path: path) {
                tally.hotJournals += 1
            }
            let label = "trial \(trial) (killed after \(Int(delay * 1000)) ms)"

            let db = try Database(path: path)
            try verifyConsistent(db, label: label)
            let now = try DatabaseState(db)
            let index = states.firstIndex(of: now)
            #expect(index != nil, "\(label): the database is not the state after any whole number of migrations")
            tally.states[index.map { "after \(list[$0 + 1].identifier)" } ?? "neither", default: 0] += 1
            try migrator.migrate(db)
            #expect(try DatabaseState(db) == states.last, "\(label): the rerun did not complete the migrations")
            db.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        print("crash test (migrations): \(Self.trials) kills, \(tally)")
    }

    // MARK: Helpers

    private func state(of path: String) throws -> DatabaseState {
        let db = try Database(path: path)
        defer { db.close() }
        return try DatabaseState(db)
    }

    /// Runs the helper and kills it after `delay` seconds (if it is still running). Returns
    /// whether a journal or WAL file was left for recovery.
    private func killMidway(
        _ executable: String, _ arguments: [String], after delay: TimeInterval, path: String
    ) throws -> Bool {
        let output = TemporaryDirectory("strata-kill")
        let process = try ChildProcess.launch(executable, arguments, output: output)
        usleep(UInt32(delay * 1_000_000))
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        BoundedWait.exit(of: process)
        if process.terminationReason == .exit {
            let r = ChildProcess.result(of: process, output: output)
            #expect(r.status == 0, "\(executable) failed on its own: \(r)")
        }
        let journal = fileBytes(path + "-journal")
        let wal = fileBytes(path + "-wal")
        return !journal.isEmpty || !wal.isEmpty
    }

    private func verifyConsistent(_ db: Database, label: String) throws {
        #expect(try integrityProblems(db).isEmpty, "\(label): integrity_check failed")
        #expect(try db.fetchAll(sql: "PRAGMA foreign_key_check").isEmpty, "\(label): foreign key violations")
        let temps: [String] = try db.fetchColumn(sql: "SELECT name FROM sqlite_master WHERE name LIKE 'strata_tmp%'")
        #expect(temps.isEmpty, "\(label): temporary tables left: \(temps)")
    }
}
