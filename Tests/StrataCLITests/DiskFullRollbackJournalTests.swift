import Foundation
import Strata
import StrataTestSupport
import Testing

/// A real full disk (a small tmpfs) under a database in rollback-journal mode. SQLite's pager
/// leaves the rollback unfinished after an I/O error (a hot journal, the file grown by the failed
/// write); Strata finishes it before reporting, so "the database is unchanged" is true.
@Suite("Disk full with a rollback journal", .enabled(if: SmallFileSystem.isAvailable, "mounting a tmpfs needs root"))
struct DiskFullRollbackJournalTests {
    /// A rollback-journal database of about 6 MiB that is not on the small filesystem.
    static func template(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("template.sqlite")
        let db = try Database(path: path)
        defer { db.close() }
        try db.execute(
            sql: """
                PRAGMA journal_mode = DELETE;
                CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT);
                WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
                INSERT INTO t(a, b) SELECT printf('%0120d', x), printf('%0160d', x) FROM c;
                """)
        return path
    }

    /// Runs `arguments(db)` through the CLI on a copy of `template` on a tmpfs of each size; every
    /// failure must leave the file byte-identical with no journal, and say the database is unchanged.
    func attack(template: String, sizes: [Int], _ arguments: (String) -> [String]) throws -> Int {
        let original = fileBytes(template)
        var failures = 0
        for size in sizes {
            let fs = try SmallFileSystem(kilobytes: size)
            let db = fs.file("app.sqlite")
            try original.write(to: URL(fileURLWithPath: db))
            let run = try StrataProcess.run(arguments(db))
            guard run.exitCode != 0 else { continue }
            failures += 1
            #expect(run.exitCode == 1, "\(size) KiB: \(run)")
            #expect(run.stderr.contains("disk is full"), "\(size) KiB: \(run.stderr)")
            #expect(fileBytes(db) == original, "\(size) KiB: the database file changed (\(fileBytes(db).count) bytes)")
            #expect(!FileManager.default.fileExists(atPath: db + "-journal"), "\(size) KiB: a journal was left behind")
            #expect(!run.stderr.contains("hot journal"), "\(size) KiB: \(run.stderr)")
        }
        return failures
    }

    @Test func applyOnAFullDiskLeavesTheFileAsItWas() throws {
        let dir = TemporaryDirectory("strata-full-apply")
        let template = try Self.template(dir)
        let schema = dir.file("schema.sql")
        try Data(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT); CREATE INDEX ta ON t(a); CREATE INDEX tb ON t(b);"
                .utf8
        )
        .write(to: URL(fileURLWithPath: schema))
        let failures = try attack(template: template, sizes: [7_000, 8_000, 9_000, 10_000]) {
            ["apply", "--db", $0, "--schema", schema]
        }
        #expect(failures >= 2, "the disk filled up only \(failures) times")
    }

    @Test func migrateOnAFullDiskLeavesTheFileAsItWas() throws {
        let dir = TemporaryDirectory("strata-full-migrate")
        let template = try Self.template(dir)
        let migrations = try migrationFolder([
            "0001_copy.sql": """
            CREATE TABLE copy(id INTEGER PRIMARY KEY, a TEXT, b TEXT);
            INSERT INTO copy SELECT * FROM t;
            CREATE INDEX copy_a ON copy(a);
            """
        ])
        let failures = try attack(template: template, sizes: [7_000, 9_000, 11_000]) {
            ["migrate", "--db", $0, "--migrations", migrations.path]
        }
        #expect(failures >= 2, "the disk filled up only \(failures) times")
    }

    /// `hasHotJournal()` on a copy taken while a write was in progress (what a crash or a failed
    /// rollback leaves), and the first read on the connection rolling it back.
    @Test func hotJournalIsSeenThenRolledBack() throws {
        let dir = TemporaryDirectory("strata-hot")
        let path = try Self.template(dir)
        let original = fileBytes(path)
        let writer = try Database(path: path)
        try writer.execute(sql: "PRAGMA cache_size = 10")
        try writer.execute(sql: "BEGIN IMMEDIATE")
        // Enough changes to spill pages into the file before COMMIT.
        try writer.execute(sql: "UPDATE t SET a = b")
        let copy = dir.file("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        #expect(fileBytes(copy) != original, "the copy should hold pages of the unfinished write")
        // Opened before its journal arrives (opening reads the file), then the journal is put beside it.
        let db = try Database(path: copy)
        defer { db.close() }
        #expect(!db.hasHotJournal())
        try FileManager.default.copyItem(atPath: path + "-journal", toPath: copy + "-journal")
        try writer.execute(sql: "ROLLBACK")
        writer.close()
        #expect(db.hasHotJournal())
        // The next read rolls the journal back.
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t WHERE a = b") == 0)
        #expect(!db.hasHotJournal())
        #expect(fileBytes(copy) == original)
    }
}
