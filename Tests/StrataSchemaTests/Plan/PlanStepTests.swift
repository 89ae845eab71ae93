import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// Plan steps as values (issue 27): each step is made by its kind's factory from DDL values and
/// keeps them; a refusal of destructive changes carries the plan; the engine's entry points are
/// symmetric.
@Suite("Plan steps, preflight and entry points")
struct PlanStepTests {
    /// A live schema and a desired one that give almost every kind of step (hostile names).
    static let live = #"""
        CREATE TABLE "order" (id INTEGER PRIMARY KEY, "select" TEXT, gone TEXT, n INTEGER);
        CREATE TABLE "my ""item""" (id INTEGER PRIMARY KEY AUTOINCREMENT, price REAL);
        CREATE INDEX "i x" ON "my ""item"""(price);
        CREATE VIEW v AS SELECT "select" FROM "order";
        CREATE TRIGGER t AFTER INSERT ON "order" BEGIN SELECT 1; END;
        CREATE TABLE dropped(a);
        INSERT INTO "order" VALUES (1, 'a', 'x', 1);
        INSERT INTO "my ""item""" VALUES (1, 2.5);
        """#
    static let desired = #"""
        CREATE TABLE "order" (id INTEGER PRIMARY KEY, "from" TEXT, n INTEGER, added TEXT DEFAULT 'x');
        CREATE TABLE "my ""item""" (id INTEGER PRIMARY KEY AUTOINCREMENT, price NUMERIC NOT NULL DEFAULT 0);
        CREATE INDEX "i x" ON "my ""item"""(price);
        CREATE INDEX fresh ON "order"(n);
        CREATE VIEW v AS SELECT "from" FROM "order";
        CREATE TABLE created(a);
        """#

    static let renames: [SchemaRename] = [.column("select", to: "from", inTable: "order")]

    func allowedPlan() throws -> (Database, Plan) {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: Self.live)
        return (
            db, try db.planSchemaChange(to: Self.desired, options: .init(allowDestructive: true, renames: Self.renames))
        )
    }

    /// Every step's statements are exactly what its values render, and its kind, object, summary
    /// and destructiveness follow from them.
    @Test(.requiresSQLite(3, 35, "DROP COLUMN")) func stepsAreMadeFromTheirValues() throws {
        let (_, plan) = try allowedPlan()
        let kinds = plan.steps.map(\.kind)
        for kind in [
            PlanStep.Kind.dropTable, .dropColumn, .renameColumn, .addColumn, .rebuildTable, .createTable,
            .createIndex, .dropTrigger,
        ] {
            #expect(kinds.contains(kind), "\(kind) missing: \(plan.summary)")
        }
        for step in plan.steps {
            #expect(step.parts.flatMap(\.statements) == step.statements, "\(step)")
            #expect(step.isDestructive == [.dropTable, .dropColumn].contains(step.kind), "\(step)")
            #expect(step.summary.hasPrefix(step.kind.rawValue + " ") || step.kind == .renameColumn, "\(step)")
            for part in step.parts {
                if case .verbatim = part { Issue.record("a planned step holds text: \(step)") }
            }
        }
        let drop = try #require(plan.steps.first { $0.kind == .dropTable })
        #expect(drop.object == "dropped" && drop.parts == [.drop(DropDDL.table("dropped"))])
        let rename = try #require(plan.steps.first { $0.kind == .renameColumn })
        #expect(rename.object == "order.from" && rename.summary == "rename column order.select to from")
        #expect(rename.parts == [.renameColumn(RenameColumnDDL(table: "order", from: "select", to: "from"))])
        let rebuild = try #require(plan.steps.first { $0.kind == .rebuildTable })
        #expect(rebuild.object == #"my "item""#)
        // The count guard (NULL prices are backfilled with the DEFAULT: no condition), the
        // sequence carried over, the index after the copy.
        #expect(rebuild.guards.count == 1, "\(rebuild.guards)")
        #expect(rebuild.parts.contains { if case .carryOverSequence = $0 { true } else { false } })
        #expect(rebuild.parts.last.map { if case .createIndex(let i) = $0 { i.name == "i x" } else { false } } == true)
        #expect(rebuild.temporaryTables.count == 1 && rebuild.temporaryTables.values.first == #"my "item""#)
        // The step names its temporary table only where SQL needs it: never in its summary.
        #expect(!rebuild.summary.contains(TemporaryNames.rebuildPrefix))
    }

    /// A temporary name in SQLite's message is replaced by the table it becomes, read from the
    /// step's values (quoted by the quoted name, bare by the bare name).
    @Test(.requiresSQLite(3, 35, "DROP COLUMN")) func temporaryNamesInMessagesComeFromTheValues() throws {
        let (_, plan) = try allowedPlan()
        let rebuild = try #require(plan.steps.first { $0.kind == .rebuildTable })
        let (temp, final) = try #require(rebuild.temporaryTables.first)
        #expect(
            TemporaryNames.userFacing("UNIQUE constraint failed: \(temp).price", renames: rebuild.temporaryTables)
                == "UNIQUE constraint failed: \(final).price")
        #expect(
            TemporaryNames.userFacing(SQL.quoteIdentifier(temp), renames: rebuild.temporaryTables)
                == SQL.quoteIdentifier(final))
        // Text from a file (a migration) is still read for its renames: the same answer.
        #expect(
            TemporaryNames.userFacing("no such table: \(temp)", statements: rebuild.statements)
                == "no such table: \(final)")
    }

    /// Refused destructive changes carry the plan that allowing them would apply: the same steps,
    /// planned once; the database is unchanged.
    @Test(.requiresSQLite(3, 35, "DROP COLUMN")) func theRefusalCarriesThePlan() throws {
        let (db, allowed) = try allowedPlan()
        let before = try DatabaseContents(db)
        let error = try #require(throws: SchemaError.self) {
            try db.planSchemaChange(to: Self.desired, options: .init(renames: Self.renames))
        }
        #expect(error.code == .destructiveChangesRefused)
        #expect(error.culprit == "dropped")
        #expect(error.destructiveChanges == ["drop table dropped (0 rows)", "drop column order.gone (1 row)"])
        let plan = try #require(error.plan)
        // Rebuilds draw a fresh temporary name each time: compare what the steps do.
        #expect(plan.steps.map(\.kind) == allowed.steps.map(\.kind))
        #expect(plan.steps.map(\.object) == allowed.steps.map(\.object))
        #expect(plan.steps.map(\.summary) == allowed.steps.map(\.summary))
        #expect(plan.destructiveChanges == error.destructiveChanges)
        #expect(try DatabaseContents(db) == before)
        // Applying the carried plan is what allowing would have done.
        try db.applySchemaChange(plan)
        #expect(try db.planSchemaChange(to: Self.desired, options: .init(renames: Self.renames)).isEmpty)
    }

    /// A broken data condition fails the preflight, unless destructive changes are refused first:
    /// then there is no plan to carry.
    @Test func aBrokenConditionAfterOrWithoutARefusal() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT); INSERT INTO t VALUES (1, NULL, 'x');")
        let before = try DatabaseContents(db)
        let tightened = "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT NOT NULL);"
        let refused = try #require(throws: SchemaError.self) { try db.planSchemaChange(to: tightened) }
        #expect(refused.code == .destructiveChangesRefused && refused.plan == nil, "\(refused)")
        let failed = try #require(throws: SchemaError.self) {
            try db.planSchemaChange(to: tightened, options: .init(allowDestructive: true))
        }
        #expect(failed.code == .preflightFailed && failed.culprit == "t" && failed.plan == nil, "\(failed)")
        #expect(failed.message.contains("1 row holds NULL"), "\(failed)")
        let kept = try #require(throws: SchemaError.self) {
            try db.planSchemaChange(to: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT NOT NULL, b TEXT);")
        }
        #expect(kept.code == .preflightFailed, "\(kept)")
        #expect(try DatabaseContents(db) == before)
    }

    /// Every form of `migrateSchema` takes a progress callback, and reports the same events.
    @Test func migrateSchemaReportsProgressForEveryFormOfSchema() throws {
        let live = #"CREATE TABLE "a b"(id INTEGER PRIMARY KEY, x REAL); INSERT INTO "a b" VALUES (1, 1.5);"#
        let desired = #"CREATE TABLE "a b"(id INTEGER PRIMARY KEY, x NUMERIC);"#
        let definition = SchemaDefinition { s in
            s.table("a b") { t in
                t.primaryKey("id", .integer)
                t.column("x", .numeric)
            }
        }
        var reported = [[String]]()
        for form in 0..<3 {
            let db = try Database(inMemory: Configuration())
            try db.execute(sql: live)
            var events = [String]()
            let plan: Plan
            switch form {
            case 0: plan = try db.migrateSchema(to: desired) { events.append("\($0)") }
            case 1: plan = try db.migrateSchema(to: try DatabaseSchema(sql: desired)) { events.append("\($0)") }
            default: plan = try db.migrateSchema(to: definition) { events.append("\($0)") }
            }
            #expect(plan.steps.map(\.kind) == [.rebuildTable], "form \(form): \(plan)")
            #expect(try db.fetchValue(Double.self, sql: #"SELECT x FROM "a b""#) == 1.5)
            reported.append(events)
        }
        #expect(reported[0].contains("a b: 1 of 1 rows copied"), "\(reported[0])")
        #expect(reported[1] == reported[0])
        #expect(reported[2].count == reported[0].count, "\(reported[2])")
        // An error thrown by the callback rolls everything back, whatever the form.
        struct Stop: Error {}
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: live)
        let before = try DatabaseContents(db)
        #expect(throws: Stop.self) { try db.migrateSchema(to: definition) { _ in throw Stop() } }
        #expect(throws: Stop.self) { try db.migrateSchema(to: try DatabaseSchema(sql: desired)) { _ in throw Stop() } }
        #expect(try DatabaseContents(db) == before)
    }
}
