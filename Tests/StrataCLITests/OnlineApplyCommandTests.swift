import Foundation
import Strata
import StrataTestSupport
import Testing

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
}
