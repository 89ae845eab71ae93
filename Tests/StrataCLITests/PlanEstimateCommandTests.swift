import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata plan` shows each step's estimate and the total (issue 29): in text after the step, in
/// `--format json` as an `estimate` object on the document and on each step (new keys only).
@Suite("Plan estimate command")
struct PlanEstimateCommandTests {
    static let table = #"ev"ent log"#
    static var live: String {
        """
        CREATE TABLE "ev""ent log"(id INTEGER PRIMARY KEY, kind TEXT, at REAL);
        CREATE INDEX "ev""ent kind" ON "ev""ent log"(kind);
        """
    }
    static var desired: String { live.replacingOccurrences(of: "at REAL", with: "at NUMERIC") }

    func makeDatabase(_ dir: TemporaryDirectory, rows: Int) throws -> (db: String, schema: String) {
        let path = dir.file("app.sqlite")
        let db = try Database(path: path)
        try db.execute(sql: Self.live)
        try db.execute(
            sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
                INSERT INTO "ev""ent log"(id, kind, at) SELECT i, 'kind ' || (i % 7), i * 1.5 FROM n
                """)
        db.close()
        let schema = dir.file("schema.sql")
        try Data(Self.desired.utf8).write(to: URL(fileURLWithPath: schema))
        return (path, schema)
    }

    @Test func textShowsTheEstimateOfEachStepAndTheTotal() throws {
        let dir = TemporaryDirectory()
        let (db, schema) = try makeDatabase(dir, rows: 3000)
        let bytes = fileBytes(db)
        let r = try StrataProcess.run(["plan", "--db", db, "--schema", schema])
        #expect(r.exitCode == 0, "\(r)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "\(r.stdout)")
        #expect(lines[0].hasPrefix("- rebuild table \(Self.table): "))
        #expect(lines[0].contains("(≈ 3 k rows, ≈ ") && lines[0].hasSuffix(", 1 index)"), "\(lines[0])")
        #expect(lines[1].hasPrefix("Estimated: ≈ 3 k rows, ≈ "), "\(lines[1])")
        #expect(fileBytes(db) == bytes)
    }

    @Test func jsonCarriesTheEstimate() throws {
        let dir = TemporaryDirectory()
        let (db, schema) = try makeDatabase(dir, rows: 2500)
        let r = try StrataProcess.run(["plan", "--db", db, "--schema", schema, "--format", "json"])
        #expect(r.exitCode == 0, "\(r)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        // The keys that were there before are still there.
        for key in ["changes", "destructive", "refused", "steps", "compatibility"] {
            #expect(document[key] != nil, "\(key)")
        }
        let total = try #require(document["estimate"] as? [String: Any])
        #expect(total["rows"] as? Int == 2500)
        #expect(total["rowSource"] as? String == "count")
        #expect(total["rowsAreLowerBound"] as? Bool == false)
        #expect(total["indexes"] as? Int == 1)
        #expect(total["indexEntries"] as? Int == 2500)
        #expect((total["bytes"] as? Int ?? 0) > 2500 * 10)
        #expect(total["expectedSeconds"] is Double || total["expectedSeconds"] is Int)
        let steps = try #require(document["steps"] as? [[String: Any]])
        try #require(steps.count == 1)
        for key in ["kind", "object", "summary", "destructive", "statements"] {
            #expect(steps[0][key] != nil, "\(key)")
        }
        let step = try #require(steps[0]["estimate"] as? [String: Any])
        #expect(step["rows"] as? Int == 2500)
        #expect(step["foreignKeyCheckTables"] as? [String] == [])
    }
}
