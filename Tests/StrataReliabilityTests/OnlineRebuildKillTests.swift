import Foundation
import StrataSQLite
import StrataSchema
import StrataTestSupport
import Testing

/// An online rebuild (issue 29) killed with SIGKILL at random moments while another process
/// writes: the helper `apply-online` rebuilds `item` in batches while `write-loop` inserts,
/// renames and deletes its own rows, each in its own transaction, printing each after COMMIT.
/// After each kill the writer is stopped, and the file must hold the old schema (plus Strata's
/// own objects) or the new one, every original row unchanged and exactly the writer's committed
/// rows; a rerun then completes the change with the same rows and leaves nothing of Strata's but
/// the fingerprint.
///
/// `STRATA_ONLINE_KILLS` sets the number of kills (default 30), `STRATA_ONLINE_SEED` the seed of
/// the kill moments (spread over 1.3 times an uninterrupted run beside the writer).
@Suite("Online rebuild kills", .serialized)
struct OnlineRebuildKillTests {
    static var kills: Int { ProcessInfo.processInfo.environment["STRATA_ONLINE_KILLS"].flatMap { Int($0) } ?? 30 }
    static var seed: UInt64 { ProcessInfo.processInfo.environment["STRATA_ONLINE_SEED"].flatMap { UInt64($0) } ?? 29 }
    static let rows = 20_000
    /// The batches of the run killed in `trial`: 500 rows in even trials, and in odd ones batches
    /// that adapt to hold the lock about 2 ms (`onlineBatchTime`), so their sizes change from one
    /// batch to the next as the kills land. The uninterrupted run and the reruns use 500 rows.
    static func batch(trial: Int?) -> String { trial.map { $0 % 2 == 1 } == true ? "adaptive-2" : "500" }
    static let oldSchema = """
        CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL);
        CREATE INDEX item_name ON item(name);
        """
    static let newSchema = """
        CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price NUMERIC NOT NULL DEFAULT 0);
        CREATE INDEX item_name ON item(name);
        """

    static func makeTemplate(at path: String) throws {
        let db = try Database(path: path)
        defer { db.close() }
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        try db.execute(sql: oldSchema)
        try db.execute(
            sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
                INSERT INTO item(id, name, price) SELECT i, 'item ' || i, CASE WHEN i % 7 = 0 THEN NULL ELSE i * 0.5 END FROM n
                """)
        try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// The writer's rows as its printed, committed operations leave them: id → name.
    static func writerRows(_ stdout: String) -> [Int64: String] {
        var rows = [Int64: String]()
        for line in stdout.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let id = Int64(parts[1]) else { continue }
            switch parts[0] {
            case "i": rows[id] = "w \(id)"
            case "u": rows[id] = "u \(id)"
            case "d": rows[id] = nil
            default: break
            }
        }
        return rows
    }

    @Test func killsLeaveTheOldOrTheNewTableWithEveryCommittedRow() throws {
        let dir = TemporaryDirectory("strata-online-kill")
        let schemaFile = dir.file("new.sql")
        try Data(Self.newSchema.utf8).write(to: URL(fileURLWithPath: schemaFile))
        let template = dir.file("template.sqlite")
        try Self.makeTemplate(at: template)
        let old = try DatabaseSchema(sql: Self.oldSchema)
        let new = try DatabaseSchema(sql: Self.newSchema)
        let original = try {
            let db = try Database(path: template)
            defer { db.close() }
            return try db.fetchAll(sql: "SELECT id, name, coalesce(price, 0) * 1.0 FROM item ORDER BY id").map(\.values)
        }()

        // One uninterrupted run beside the writer: how long the kills spread over.
        let full = dir.file("full.sqlite")
        try FileManager.default.copyItem(atPath: template, toPath: full)
        let fullStop = dir.file("stop-full")
        let fullWriterOutput = TemporaryDirectory("strata-online-writer")
        let fullWriter = try ChildProcess.launch(
            "StrataTestHelper", ["write-loop", full, "1000000", fullStop], output: fullWriterOutput)
        let started = Date()
        let run = try ChildProcess.run("StrataTestHelper", ["apply-online", full, schemaFile, Self.batch(trial: nil)])
        let duration = Date().timeIntervalSince(started)
        _ = FileManager.default.createFile(atPath: fullStop, contents: nil)
        let fullWrites = ChildProcess.result(of: fullWriter, output: fullWriterOutput)
        #expect(run.status == 0, "uninterrupted run: \(run)")
        #expect(fullWrites.status == 0, "uninterrupted run's writer: \(fullWrites)")
        try {
            let db = try Database(path: full)
            defer { db.close() }
            #expect(try DatabaseSchema.read(from: db).differences(from: new).isEmpty)
            try check(db, original: original, writer: Self.writerRows(fullWrites.stdout), label: "uninterrupted run")
        }()

        var rng = SeededRandom(seed: Self.seed)
        var tally = [String: Int]()
        var writes = 0
        for trial in 0..<Self.kills {
            let path = dir.file("trial-\(trial).sqlite")
            try FileManager.default.copyItem(atPath: template, toPath: path)
            let stop = dir.file("stop-\(trial)")
            let writerOutput = TemporaryDirectory("strata-online-writer")
            let writer = try ChildProcess.launch(
                "StrataTestHelper", ["write-loop", path, "1000000", stop], output: writerOutput)
            let delay = Double.random(in: 0...(duration * 1.3), using: &rng)
            let label = "trial \(trial) (batches \(Self.batch(trial: trial)), killed after \(Int(delay * 1000)) ms)"
            let output = TemporaryDirectory("strata-online-apply")
            let apply = try ChildProcess.launch(
                "StrataTestHelper", ["apply-online", path, schemaFile, Self.batch(trial: trial)], output: output)
            usleep(UInt32(delay * 1_000_000))
            if apply.isRunning { kill(apply.processIdentifier, SIGKILL) }
            BoundedWait.exit(of: apply)
            if apply.terminationReason == .exit {
                let r = ChildProcess.result(of: apply, output: output)
                #expect(r.status == 0, "\(label): the apply failed on its own: \(r)")
            }
            // The writer goes on a little after the kill, then stops.
            usleep(20_000)
            _ = FileManager.default.createFile(atPath: stop, contents: nil)
            let written = ChildProcess.result(of: writer, output: writerOutput)
            #expect(written.status == 0 && written.stdout.contains("done"), "\(label): a write failed: \(written)")
            let expectedWriter = Self.writerRows(written.stdout)
            writes += written.stdout.split(separator: "\n").count - 2

            let db = try Database(path: path)
            #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok", "\(label): integrity")
            let schema = try DatabaseSchema.read(from: db)
            let isOld = schema.differences(from: old).isEmpty
            let isNew = schema.differences(from: new).isEmpty
            #expect(isOld || isNew, "\(label): schema is neither old nor new: \(schema.differences(from: new))")
            if isNew {
                let strata: [String] = try db.fetchColumn(
                    sql:
                        "SELECT name FROM sqlite_master WHERE name LIKE 'strata%' AND name <> 'strata_schema_fingerprint'"
                )
                #expect(
                    strata.isEmpty || strata == ["strata_online_rebuild"], "\(label): left after the swap: \(strata)")
            }
            try check(db, original: original, writer: expectedWriter, label: label)
            tally[isNew ? "new" : isOld ? "old" : "neither", default: 0] += 1
            let leftovers: [String] = try db.fetchColumn(
                sql: "SELECT name FROM sqlite_master WHERE name LIKE 'strata_tmp%'")
            if !leftovers.isEmpty { tally["old with a copy to resume", default: 0] += 1 }

            // A rerun completes the change with the same rows.
            var options = SchemaChangeOptions(allowDestructive: true, online: true)
            options.onlineBatchSize = 500
            try db.migrateSchema(to: Self.newSchema, options: options)
            #expect(try DatabaseSchema.read(from: db).differences(from: new).isEmpty, "\(label): rerun schema")
            try check(db, original: original, writer: expectedWriter, label: "\(label), rerun")
            let strata: [String] = try db.fetchColumn(sql: "SELECT name FROM sqlite_master WHERE name LIKE 'strata%'")
            #expect(strata == ["strata_schema_fingerprint"], "\(label): after the rerun: \(strata)")
            db.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        print(
            "crash test (online rebuild): \(Self.kills) kills with a concurrent writer (\(writes) committed writes), "
                + tally.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
    }

    /// The original rows unchanged (the NULL prices read as the new default) and the writer's rows
    /// exactly as its committed operations left them.
    private func check(_ db: Database, original: [[SQLValue]], writer: [Int64: String], label: String) throws {
        let rows = try db.fetchAll(
            sql: "SELECT id, name, coalesce(price, 0) * 1.0 FROM item WHERE id < 1000000 ORDER BY id"
        )
        .map(\.values)
        #expect(rows == original, "\(label): the original rows changed (\(rows.count) of \(original.count))")
        let written = try db.fetchAll(sql: "SELECT id, name FROM item WHERE id >= 1000000 ORDER BY id")
        var found = [Int64: String]()
        for row in written {
            let id: Int64 = try row["id"]
            let name: String = try row["name"]
            found[id] = name
        }
        #expect(found == writer, "\(label): the writer's rows differ (\(found.count) found, \(writer.count) committed)")
    }
}
