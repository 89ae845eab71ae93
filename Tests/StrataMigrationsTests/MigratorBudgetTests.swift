import Foundation
import StrataMigrations
import StrataSQLite
import StrataSchema
import StrataTestSupport
import Testing

/// The migrator's time budget (issue 29): a declarative migration expected to exceed what is left
/// of the budget is deferred with every migration after it, untouched; the app runs them later.
@Suite("Migrator budget")
struct MigratorBudgetTests {
    static let v1 = """
        CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE player(id INTEGER PRIMARY KEY, team_id INTEGER REFERENCES team(id), score REAL);
        """
    static let v2 = v1.replacingOccurrences(of: "score REAL", with: "score NUMERIC")
    static let rows = 5000

    func makeMigrator() -> Migrator {
        var migrator = Migrator()
        migrator.registerMigration("0001_v1", schema: Self.v1)
        migrator.registerMigration(
            "0002_seed",
            sql: """
                INSERT INTO team(id, name) VALUES (1, 'red');
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.rows))
                INSERT INTO player(id, team_id, score) SELECT i, 1, i * 0.5 FROM n;
                """)
        migrator.registerMigration("0003_v2", schema: Self.v2)
        migrator.registerMigration("0004_index", sql: "CREATE INDEX player_score ON player(score);")
        return migrator
    }

    static let slow = PlanEstimate.Rate.default.scaled(by: 1.0 / 10_000)

    @Test func aMigrationOverTheBudgetIsDeferredWithTheOnesAfterIt() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        let db = try Database(path: path)
        let migrator = makeMigrator()
        try migrator.migrate(db, upTo: "0002_seed")
        let bytes = fileBytes(path)
        let outcome = try migrator.migrate(db, budget: .seconds(1), rate: Self.slow)
        #expect(outcome.isDeferred)
        #expect(outcome.applied == [])
        #expect(outcome.deferred == ["0003_v2", "0004_index"])
        #expect(outcome.deferredPlan?.steps.map(\.kind) == [.rebuildTable])
        #expect(outcome.deferredPlan?.estimate.rows == Self.rows)
        #expect((outcome.expectedDuration ?? .zero) > .seconds(1))
        #expect(fileBytes(path) == bytes)
        // Later, in the background: the rest runs.
        #expect(try migrator.migrate(db) == ["0003_v2", "0004_index"])
        #expect(try migrator.pendingMigrations(db).isEmpty)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") == Self.rows)
    }

    @Test func migrationsBeforeTheDeferredOneAreApplied() throws {
        let db = try Database(inMemory: Configuration())
        let outcome = try makeMigrator().migrate(db, budget: .seconds(1), rate: Self.slow)
        // 0001 creates empty tables (nothing to estimate), 0002 is SQL: applied; 0003 rebuilds
        // 5,000 rows at the slow rate: deferred.
        #expect(outcome.applied == ["0001_v1", "0002_seed"])
        #expect(outcome.deferred == ["0003_v2", "0004_index"])
    }

    @Test func withinTheBudgetEverythingRuns() throws {
        let db = try Database(inMemory: Configuration())
        let outcome = try makeMigrator().migrate(db, budget: .seconds(3600))
        #expect(!outcome.isDeferred)
        #expect(outcome.applied == ["0001_v1", "0002_seed", "0003_v2", "0004_index"])
        #expect(outcome.deferredPlan == nil)
    }

    /// A declarative migration checks the foreign keys of the tables it touches, not the whole
    /// database: a violation elsewhere neither blocks it nor is read.
    @Test func aViolationInAnUntouchedTableNeverBlocksADeclarativeMigration() throws {
        let schema = Self.v1 + "\nCREATE TABLE audit(id INTEGER PRIMARY KEY, team_id INTEGER REFERENCES team(id));"
        var migrator = Migrator()
        migrator.registerMigration("0001", schema: schema)
        migrator.registerMigration(
            "0002", sql: "INSERT INTO team(id) VALUES (1); INSERT INTO player(team_id) VALUES (1);")
        migrator.registerMigration("0003", schema: schema.replacingOccurrences(of: "score REAL", with: "score NUMERIC"))
        let db = try Database(inMemory: Configuration())
        try migrator.migrate(db, upTo: "0002")
        try db.execute(
            sql: "PRAGMA foreign_keys = OFF; INSERT INTO audit(team_id) VALUES (77); PRAGMA foreign_keys = ON")
        var checked = [String]()
        db.trace { event in if event.sql.contains("foreign_key_check") { checked.append(event.sql) } }
        #expect(try migrator.migrate(db) == ["0003"])
        db.trace(nil)
        #expect(!checked.contains { $0.contains("audit") || !$0.contains("foreign_key_check(") }, "\(checked)")
        #expect(try db.foreignKeyViolations().count == 1)
    }
}
