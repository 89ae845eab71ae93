import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataSchema

/// `strata plan --online` and `strata apply --online` (issue 29): the rebuild is marked online in
/// the plan, applied in batches, and a table that cannot go online is refused with the file unchanged.
@Suite("Online apply command")
struct OnlineApplyCommandTests {
    static let live = """
        CREATE TABLE "ev""ent log"(id INTEGER PRIMARY KEY, kind TEXT, at REAL);
        CREATE INDEX "ev""ent kind" ON "ev""ent log"(kind);
        CREATE TABLE tag(name TEXT PRIMARY KEY, n REAL) WITHOUT ROWID;
        INSERT INTO tag VALUES ('a', 1.5);
        """
    static let desired = """
        CREATE TABLE "ev""ent log"(id INTEGER PRIMARY KEY, kind TEXT, at NUMERIC);
        CREATE INDEX "ev""ent kind" ON "ev""ent log"(kind);
        CREATE TABLE tag(name TEXT PRIMARY KEY, n REAL) WITHOUT ROWID;
        """

    func makeDatabase(_ dir: TemporaryDirectory, desired: String = Self.desired) throws -> (db: String, schema: String)
    {
        let path = dir.file("app.sqlite")
        let db = try Database(path: path)
        try db.execute(sql: Self.live)
        try db.execute(
            sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
                INSERT INTO "ev""ent log"(id, kind, at) SELECT i, 'kind ' || (i % 7), i * 1.5 FROM n
                """)
        db.close()
        let schema = dir.file("schema.sql")
        try Data(desired.utf8).write(to: URL(fileURLWithPath: schema))
        return (path, schema)
    }

    @Test func planMarksTheRebuildOnlineAndApplyRunsIt() throws {
        let dir = TemporaryDirectory()
        let (db, schema) = try makeDatabase(dir)
        let bytes = fileBytes(db)
        let plan = try StrataProcess.run(["plan", "--db", db, "--schema", schema, "--online"])
        #expect(plan.status == 0, "\(plan)")
        #expect(plan.stdout.contains(#"- rebuild table ev"ent log: "#) && plan.stdout.contains("(online)"), "\(plan)")
        #expect(fileBytes(db) == bytes)
        let apply = try StrataProcess.run(
            ["apply", "--db", db, "--schema", schema, "--online", "--online-batch-size", "100"])
        #expect(apply.status == 0, "\(apply)")
        let after = try Database(path: db)
        defer { after.close() }
        #expect(try after.planSchemaChange(to: Self.desired).isEmpty)
        #expect(try after.fetchValue(Int.self, sql: #"SELECT count(*) FROM "ev""ent log""#) == 1000)
        #expect(try after.fetchValue(Double.self, sql: #"SELECT sum(at) FROM "ev""ent log""#) == 1.5 * 500 * 1001)
        let strata: [String] = try after.fetchColumn(sql: "SELECT name FROM sqlite_master WHERE name LIKE 'strata%'")
        #expect(strata.isEmpty)
    }

    @Test func aWithoutRowIDTableIsRefusedAndTheFileUnchanged() throws {
        let dir = TemporaryDirectory()
        let (db, schema) = try makeDatabase(
            dir, desired: Self.desired.replacingOccurrences(of: "n REAL", with: "n NUMERIC"))
        let bytes = fileBytes(db)
        let r = try StrataProcess.run(["apply", "--db", db, "--schema", schema, "--online"])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("tag") && r.stderr.contains("cannot be rebuilt online"), "\(r.stderr)")
        #expect(fileBytes(db) == bytes)
        // With a threshold above its size, the small table is rebuilt offline and the large one online.
        let threshold = try StrataProcess.run(["apply", "--db", db, "--schema", schema, "--online-threshold", "500"])
        #expect(threshold.status == 0, "\(threshold)")
    }

    @Test func aBatchSizeOfZeroIsAUsageError() throws {
        let dir = TemporaryDirectory()
        let (db, schema) = try makeDatabase(dir)
        let bytes = fileBytes(db)
        let r = try StrataProcess.run(["apply", "--db", db, "--schema", schema, "--online", "--online-batch-size", "0"])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("--online-batch-size 0"), "\(r.stderr)")
        #expect(fileBytes(db) == bytes)
    }

    /// Issue 37, item 2: an online rebuild interrupted (as a kill leaves it), then the same change
    /// applied without `--online`, as an app that gave up on online would: `strata status` lists the
    /// interrupted rebuild (text and JSON), `strata plan` notes it, the apply removes the new table,
    /// the log, its triggers and the progress record, and nothing of it is left.
    @Test func anOfflineApplyRemovesWhatAnInterruptedOnlineRebuildLeft() throws {
        let dir = TemporaryDirectory()
        let (path, schema) = try makeDatabase(dir)
        do {
            let db = try Database(path: path)
            defer { db.close() }
            var options = SchemaChangeOptions(online: true)
            options.onlineBatchSize = 100
            #expect(throws: OnlineRebuildInterrupted.self) {
                try OnlineRebuildSeam.$afterBatch.withValue({ _, batch in
                    if batch == 3 { throw OnlineRebuildInterrupted() }
                }) {
                    try db.migrateSchema(to: Self.desired, options: options)
                }
            }
        }
        let migrations = dir.file("Migrations")
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
        let status = try StrataProcess.run(["status", "--db", path, "--migrations", migrations])
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.contains("Online rebuilds (1):"), "\(status.stdout)")
        #expect(status.stdout.contains(#"table ev"ent log (strata_tmp_"#), "\(status.stdout)")
        #expect(status.stdout.contains("interrupted after 3 batches, 300 rows copied"), "\(status.stdout)")
        let json = try StrataProcess.run(["status", "--db", path, "--migrations", migrations, "--format", "json"])
        #expect(json.stdout.contains(#""rowsCopied" : 300"#) && json.stdout.contains(#""running" : false"#), "\(json)")
        let doctor = try StrataProcess.run(["doctor", "--db", path])
        #expect(
            doctor.stdout.contains("Online rebuilds (1):") && doctor.stdout.contains("interrupted after 3 batches"),
            "\(doctor)")
        let plan = try StrataProcess.run(["plan", "--db", path, "--schema", schema])
        #expect(plan.status == 0, "\(plan)")
        #expect(plan.stderr.contains(#"online rebuild of table ev"ent log"#), "\(plan.stderr)")
        let apply = try StrataProcess.run(["apply", "--db", path, "--schema", schema])
        #expect(apply.status == 0, "\(apply)")
        let after = try Database(path: path)
        defer { after.close() }
        let strata: [String] = try after.fetchColumn(
            sql: "SELECT name FROM sqlite_master WHERE name LIKE 'strata%' AND name <> 'strata_schema_fingerprint'")
        #expect(strata.isEmpty, "\(strata)")
        #expect(try after.planSchemaChange(to: Self.desired).isEmpty)
        #expect(try after.fetchValue(Int.self, sql: #"SELECT count(*) FROM "ev""ent log""#) == 1000)
        let again = try StrataProcess.run(["status", "--db", path, "--migrations", migrations])
        #expect(!again.stdout.contains("Online rebuilds"), "\(again.stdout)")
    }

    /// Issue 37, item 2: two online rebuilds of different tables at once, in two processes. One
    /// runs at a time on a file: the second fails at once (exit 1, naming the running rebuild),
    /// changing nothing and leaving the first's objects alone; the first completes; the second
    /// then completes when run again.
    @Test func aSecondProcessWaitsItsTurnAndTheFirstCompletes() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        let old = "CREATE TABLE a(id INTEGER PRIMARY KEY, v REAL);\nCREATE TABLE b(id INTEGER PRIMARY KEY, v REAL);\n"
        do {
            let db = try Database(path: path)
            defer { db.close() }
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(
                sql: old + """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
                    INSERT INTO a(id, v) SELECT i, i * 0.5 FROM n;
                    INSERT INTO b(id, v) SELECT id, v FROM a;
                    """)
        }
        let write = { (name: String, text: String) throws -> String in
            let file = dir.file(name)
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            return file
        }
        let first = try write(
            "first.sql",
            old.replacingOccurrences(
                of: "a(id INTEGER PRIMARY KEY, v REAL)", with: "a(id INTEGER PRIMARY KEY, v NUMERIC)"))
        let second = try write(
            "second.sql",
            old.replacingOccurrences(
                of: "b(id INTEGER PRIMARY KEY, v REAL)", with: "b(id INTEGER PRIMARY KEY, v NUMERIC)"))
        let both = try write("both.sql", old.replacingOccurrences(of: "v REAL", with: "v NUMERIC"))
        let output = TemporaryDirectory("strata-online-first")
        let running = try ChildProcess.launch(
            "strata", ["apply", "--db", path, "--schema", first, "--online", "--online-batch-size", "20"],
            output: output)
        // Wait until the first run has started copying (its progress record is there).
        let reader = try Database(path: path)
        defer { reader.close() }
        var started = false
        for _ in 0..<3000 where running.isRunning {
            let tables: [String] = try reader.fetchColumn(
                sql: "SELECT name FROM sqlite_master WHERE name = 'strata_online_rebuild'")
            if !tables.isEmpty, try reader.fetchValue(Int.self, sql: "SELECT count(*) FROM strata_online_rebuild") == 1
            {
                started = true
                break
            }
            usleep(10_000)
        }
        try #require(started, "\(ChildProcess.result(of: running, output: output))")
        let objects = { () throws -> [String] in
            try reader.fetchColumn(sql: "SELECT name FROM sqlite_master WHERE name LIKE 'strata%' ORDER BY name")
        }
        let before = try objects()
        let refused = try StrataProcess.run(["apply", "--db", path, "--schema", second, "--online"])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("another online rebuild runs on this database now (of a)"), "\(refused.stderr)")
        #expect(try objects() == before || !running.isRunning)
        let migrations = dir.file("Migrations")
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
        let status = try StrataProcess.run(["status", "--db", path, "--migrations", migrations])
        #expect(status.stdout.contains("running now") || !running.isRunning, "\(status.stdout)")
        let done = ChildProcess.result(of: running, output: output)
        #expect(done.status == 0, "\(done)")
        let again = try StrataProcess.run(["apply", "--db", path, "--schema", both, "--online"])
        #expect(again.status == 0, "\(again)")
        let after = try Database(path: path)
        defer { after.close() }
        #expect(try after.planSchemaChange(to: try String(contentsOfFile: both, encoding: .utf8)).isEmpty)
        #expect(try after.fetchValue(Double.self, sql: "SELECT sum(v) FROM a") == 0.5 * 10_000 * 20_001)
        #expect(try after.fetchValue(Double.self, sql: "SELECT sum(v) FROM b") == 0.5 * 10_000 * 20_001)
        #expect(try objects().filter { $0 != "strata_schema_fingerprint" }.isEmpty)
    }
}
