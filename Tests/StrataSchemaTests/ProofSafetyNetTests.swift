import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// The proof on the schema-only copy is the net under every planner bug (issue 24, item 9): a
/// planner that forgets a step (a fault planted through ``PlannerFaults``) makes a plan that misses
/// the desired schema, and the proof refuses it with `planDidNotConverge` before anything is
/// written. Were the proof skipped, the plan would be applied and these tests would fail. (A
/// native ALTER left out is not among the cases: its trial on the copy then fails and the planner
/// rebuilds the table instead, a plan that converges.)
@Suite("The proof catches a plan that misses the desired schema")
struct ProofSafetyNetTests {
    struct Case: Sendable, CustomStringConvertible {
        /// The step kind the planted fault leaves out.
        var dropped: PlanStep.Kind
        var live: String
        var desired: String
        var options = SchemaChangeOptions()
        var description: String { dropped.rawValue }
    }

    static let live = """
        CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER);
        CREATE INDEX player_name ON player(name);
        CREATE VIEW top AS SELECT name FROM player WHERE score > 10;
        CREATE TABLE log(msg TEXT);
        CREATE TRIGGER player_log AFTER INSERT ON player BEGIN INSERT INTO log VALUES (new.name); END;
        """

    static let cases: [Case] = [
        Case(dropped: .createIndex, live: live, desired: live + "\nCREATE INDEX player_score ON player(score);"),
        Case(
            dropped: .dropIndex, live: live,
            desired: live.replacingOccurrences(of: "CREATE INDEX player_name ON player(name);", with: "")),
        Case(
            dropped: .createView, live: live,
            desired: live + "\nCREATE VIEW low AS SELECT name FROM player WHERE score < 3;"),
        Case(
            dropped: .createTrigger, live: live,
            desired: live
                + "\nCREATE TRIGGER player_gone AFTER DELETE ON player BEGIN INSERT INTO log VALUES (old.name); END;"),
        Case(
            dropped: .createTable, live: live, desired: live + "\nCREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);"
        ),
        Case(
            dropped: .rebuildTable, live: live,
            desired: live.replacingOccurrences(of: "score INTEGER)", with: "score INTEGER CHECK (score >= 0))"),
            options: SchemaChangeOptions(useNativeAlter: false)),
    ]

    @Test(arguments: cases)
    func aPlanMissingAStepIsNeverApplied(_ c: Case) throws {
        let dir = TemporaryDirectory("proof-net")
        let path = dir.file("db.sqlite")
        do {
            let db = try Database(path: path)
            try db.execute(sql: c.live)
            try db.execute(sql: "INSERT INTO player(name, score) VALUES ('Ann', 12), ('Bob', 2)")
            db.close()
        }
        let bytes = fileBytes(path)
        let db = try Database(path: path)
        // Without the fault, the plan has the step.
        let plan = try db.planSchemaChange(to: c.desired, options: c.options)
        #expect(plan.steps.contains { $0.kind == c.dropped }, "\(c): \(plan.summary)")

        let error = try #require(throws: SchemaError.self, "\(c)") {
            try PlannerFaults.$dropsStep.withValue({ $0.kind == c.dropped }) {
                try db.migrateSchema(to: c.desired, options: c.options)
            }
        }
        #expect(error.code == .planDidNotConverge, "\(c): \(error.message)")
        #expect(
            error.message.hasPrefix("proof failed, the plan does not yield the desired schema"),
            "\(c): \(error.message)")
        db.close()
        #expect(fileBytes(path) == bytes, "\(c): the file changed")
    }
}
