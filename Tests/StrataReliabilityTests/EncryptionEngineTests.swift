import Foundation
import Strata
import StrataTestSupport
import Testing

/// The schema engine, the migrator and a crash mid-rekey on encrypted databases, against a real
/// encryption-capable SQLite (skipped, with the reason, on the system SQLite). After each
/// operation every file in the database's folder is scanned: none may start with SQLite's
/// plaintext header or hold the marker string stored in the rows.
@Suite("Encryption and the engine", .timeLimit(.minutes(3)))
struct EncryptionEngineTests {
    static let marker = "STRATA-ENGINE-MARKER-51c9"

    static func configuration(_ passphrase: String) -> Configuration {
        var configuration = Configuration()
        configuration.encryptionKey = { .passphrase(passphrase) }
        return configuration
    }

    static let v1 = """
        CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE note(id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES author(id), body TEXT);
        CREATE INDEX note_author ON note(author_id);
        CREATE VIEW note_count AS SELECT author_id, count(*) AS n FROM note GROUP BY author_id;
        CREATE TRIGGER note_touch AFTER UPDATE ON note BEGIN SELECT 1; END;
        CREATE VIRTUAL TABLE note_search USING fts5(body);
        """
    /// note.body gains NOT NULL and a collation: a table rebuild (never a native ALTER).
    static let v2 = """
        CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE note(id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES author(id), body TEXT NOT NULL COLLATE NOCASE, extra INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX note_author ON note(author_id);
        CREATE VIEW note_count AS SELECT author_id, count(*) AS n FROM note GROUP BY author_id;
        CREATE TRIGGER note_touch AFTER UPDATE ON note BEGIN SELECT 1; END;
        CREATE VIRTUAL TABLE note_search USING fts5(body);
        """

    @Test(.requiresEncryption) func aRebuildKeepsEverythingEncrypted() throws {
        for mode in ["DELETE", "WAL"] {
            let dir = TemporaryDirectory("strata-encrypted-engine")
            let path = dir.file("app.sqlite")
            let db = try Database(path: path, configuration: Self.configuration("engine key"))
            _ = try db.fetchValue(String.self, sql: "PRAGMA journal_mode = \(mode)")
            _ = try db.migrateSchema(to: Self.v1)
            try db.transaction {
                try db.execute(sql: "INSERT INTO author(id, name) VALUES (1, ?)", arguments: [Self.marker + " author"])
                for i in 0..<400 {
                    let body = "\(Self.marker) note \(i) " + String(repeating: "y", count: 150)
                    try db.execute(sql: "INSERT INTO note(author_id, body) VALUES (1, ?)", arguments: [body])
                    try db.execute(sql: "INSERT INTO note_search(body) VALUES (?)", arguments: [body])
                }
            }
            let before = try DatabaseContents(db)
            let plan = try db.migrateSchema(to: Self.v2)
            #expect(plan.steps.contains { $0.kind == .rebuildTable }, "\(mode): \(plan.summary)")
            #expect(
                try db.fetchValue(
                    Int.self, sql: "SELECT count(*) FROM note WHERE body LIKE ?", arguments: [Self.marker + "%"]) == 400
            )
            #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
            let after = try DatabaseContents(db)
            #expect(after.rows["author"] == before.rows["author"])
            #expect(after.rows["note"]?.map { Array($0.prefix(4)) } == before.rows["note"])
            // Checked with the connection open (journal/WAL files present) and after closing it.
            #expect(
                plaintextLeaks(in: dir.path, marker: Self.marker).isEmpty,
                "\(mode): \(plaintextLeaks(in: dir.path, marker: Self.marker)) in \(filesIn(dir.path))")
            db.close()
            #expect(
                plaintextLeaks(in: dir.path, marker: Self.marker).isEmpty,
                "\(mode): \(plaintextLeaks(in: dir.path, marker: Self.marker))")
            let reopened = try Database(path: path, configuration: Self.configuration("engine key"))
            #expect(try DatabaseContents(reopened) == after)
            reopened.close()
        }
    }

    @Test(.requiresEncryption) func versionedMigrationsThroughAnEncryptedPool() async throws {
        let dir = TemporaryDirectory("strata-encrypted-migrations")
        let path = dir.file("app.sqlite")
        var migrator = Migrator()
        migrator.registerMigration("0001_create", sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);")
        migrator.registerMigration("0002_fill") { db in
            for i in 0..<300 {
                try db.execute(
                    sql: "INSERT INTO note(body) VALUES (?)",
                    arguments: ["\(Self.marker) \(i) " + String(repeating: "z", count: 100)])
            }
        }
        // A rebuild inside a versioned migration, as `strata new` writes them.
        migrator.registerMigration(
            "0003_rebuild",
            sql: """
                CREATE TABLE note_new(id INTEGER PRIMARY KEY, body TEXT NOT NULL CHECK (length(body) > 0));
                INSERT INTO note_new(id, body) SELECT id, body FROM note;
                DROP TABLE note;
                ALTER TABLE note_new RENAME TO note;
                """)
        let pool = try DatabasePool(path: path, configuration: Self.configuration("pool key"), migrator: migrator)
        let count = try await pool.read { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM note") }
        #expect(count == 300)
        #expect(
            plaintextLeaks(in: dir.path, marker: Self.marker).isEmpty,
            "\(plaintextLeaks(in: dir.path, marker: Self.marker))")
        await pool.close()

        // Development mode's check replays the migrations on an in-memory scratch database,
        // which cannot be (and need not be) keyed.
        let db = try Database(path: path, configuration: Self.configuration("pool key"))
        #expect(try migrator.changesRequiringErase(db).isEmpty)
        #expect(try migrator.status(db).pending.isEmpty)
        db.close()
        #expect(plaintextLeaks(in: dir.path, marker: Self.marker).isEmpty)
        #expect(!fileBytes(path).starts(with: Data("SQLite format 3\0".utf8)))
    }

    /// The helper changes the key of a database (`Database.rekey(fileAt:from:to:)`, with
    /// passphrases: key derivation included) and is killed with SIGKILL after a growing delay.
    /// After each kill the file must open with the old key or the new one, pass integrity_check
    /// and hold every row. `RekeyKillTests` kills `strata rekey` a thousand times in every mode.
    @Test(.requiresEncryption) func killingARekeyLeavesTheOldOrTheNewKey() throws {
        let dir = TemporaryDirectory("strata-rekey-crash")
        var tally = (old: 0, new: 0, hotJournals: 0)
        var duration = 0.0  // of an uninterrupted rekey, measured on the first trial of each mode
        for (trial, mode) in zip(
            0..<24, [String](repeating: "DELETE", count: 12) + [String](repeating: "WAL", count: 12))
        {
            let path = dir.file("trial\(trial).sqlite")
            let expected: DatabaseContents
            do {
                let db = try Database(path: path, configuration: Self.configuration("old key"))
                _ = try db.fetchValue(String.self, sql: "PRAGMA journal_mode = \(mode)")
                try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
                try db.execute(
                    sql: """
                        WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 8000)
                        INSERT INTO note(body) SELECT printf('%s %d %s', ?, i, hex(randomblob(60))) FROM c
                        """, arguments: [Self.marker])
                expected = try DatabaseContents(db)
                db.close()
            }
            if trial % 12 == 0 {
                // One uninterrupted run of the mode (key derivations, the copy, the check, the
                // rename) on a copy: the kills of the mode are spread over 0 to 1.1 times it.
                let measured = dir.file("measure.sqlite")
                try FileManager.default.copyItem(atPath: path, toPath: measured)
                let started = Date()
                let run = try ChildProcess.run(
                    "StrataTestHelper", ["rekey", measured],
                    environment: ["STRATA_TEST_KEY": "old key", "STRATA_TEST_NEW_KEY": "new key"])
                duration = Date().timeIntervalSince(started)
                #expect(run.status == 0, "\(mode): \(run)")
                try FileManager.default.removeItem(atPath: measured)
            }
            let delay = Double(trial % 12) / 11 * duration * 1.1
            let output = TemporaryDirectory("strata-rekey-kill")
            let process = try ChildProcess.launch(
                "StrataTestHelper", ["rekey", path], output: output,
                environment: ["STRATA_TEST_KEY": "old key", "STRATA_TEST_NEW_KEY": "new key"])
            // Wait until the helper opened the database (key derivation takes a while), then the delay.
            for _ in 0..<3000
            where process.isRunning
                && !String(decoding: fileBytes(output.file("stdout")), as: UTF8.self).contains("started")
            {
                usleep(1000)
            }
            usleep(UInt32(delay * 1_000_000))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            BoundedWait.exit(of: process)
            if process.terminationReason == .exit {
                let r = ChildProcess.result(of: process, output: output)
                #expect(r.status == 0, "trial \(trial): the helper failed on its own: \(r)")
            }
            if !fileBytes(path + "-journal").isEmpty || !fileBytes(path + "-wal").isEmpty { tally.hotJournals += 1 }
            let label = "trial \(trial) (\(mode), killed after \(Int(delay * 1000)) ms)"
            var opened: Database?
            for (key, name) in [("old key", "old"), ("new key", "new")] {
                do {
                    opened = try Database(path: path, configuration: Self.configuration(key))
                    if name == "old" { tally.old += 1 } else { tally.new += 1 }
                    break
                } catch let error as SQLiteError where error.resultCode == .SQLITE_NOTADB {
                    continue
                }
            }
            guard let db = opened else {
                Issue.record("\(label): the file opens with neither the old key nor the new one")
                continue
            }
            #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok", "\(label)")
            #expect(try DatabaseContents(db) == expected, "\(label): rows differ")
            db.close()
            #expect(
                plaintextLeaks(in: dir.path, marker: Self.marker).isEmpty,
                "\(label): \(plaintextLeaks(in: dir.path, marker: Self.marker))")
        }
        print(
            "crash test (rekey): 24 kills, opened with the old key \(tally.old), with the new key \(tally.new), kills that left a journal or WAL: \(tally.hotJournals)"
        )
        #expect(tally.old + tally.new == 24)
    }
}
