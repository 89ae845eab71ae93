import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// A time budget (issue 29): over the budget nothing is written and the plan comes back deferred;
/// the app runs it later with progress. Foreign-key checks after a rebuild are scoped to the
/// tables the plan touched.
@Suite("Schema change budget")
struct SchemaChangeBudgetTests {
    static let rows = 20_000
    static let live = """
        CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL);
        CREATE INDEX item_name ON item(name);
        """
    static let desired = live.replacingOccurrences(of: "price REAL", with: "price NUMERIC")

    func makeDatabase(_ dir: TemporaryDirectory) throws -> Database {
        try ItemTableFixture.makeDatabase(dir, live: Self.live, rows: Self.rows)
    }

    /// A rate at which 20,000 rows take about 20 s: any sensible budget is exceeded.
    static let slow = PlanEstimate.Rate.default.scaled(by: 1.0 / 5000)

    @Test func overTheBudgetNothingIsWritten() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        let path = dir.file("app.sqlite")
        let contents = try DatabaseContents(db)
        let bytes = fileBytes(path)
        let outcome = try db.migrateSchema(to: Self.desired, budget: .seconds(1), rate: Self.slow)
        #expect(outcome.isDeferred)
        #expect(outcome.plan.steps.map(\.kind) == [.rebuildTable])
        #expect(outcome.plan.estimate.rows == Self.rows)
        #expect(outcome.expectedDuration > .seconds(1))
        #expect(outcome.budget == .seconds(1))
        // Not a byte: no plan applied, no fingerprint recorded.
        #expect(fileBytes(path) == bytes)
        #expect(try DatabaseContents(db) == contents)
        // Run later: applied, and the next launch takes the fast path.
        let applied = try outcome.run(in: db)
        #expect(applied.steps.map(\.kind) == [.rebuildTable])
        #expect(try db.planSchemaChange(to: Self.desired).isEmpty)
        let again = try db.migrateSchema(to: Self.desired, budget: .seconds(1), rate: Self.slow)
        #expect(!again.isDeferred && again.plan.isVerifiedByFingerprint)
    }

    @Test func withinTheBudgetItIsApplied() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        let outcome = try db.migrateSchema(to: Self.desired, budget: .seconds(3600))
        #expect(!outcome.isDeferred)
        #expect(outcome.plan.steps.map(\.kind) == [.rebuildTable])
        #expect(try db.planSchemaChange(to: Self.desired).isEmpty)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item") == Self.rows)
        // An empty plan records the fingerprint (the next call takes the fast path).
        let unchanged = try db.migrateSchema(to: Self.desired, budget: .zero)
        #expect(!unchanged.isDeferred && unchanged.plan.isEmpty)
        #expect(try db.migrateSchema(to: Self.desired, budget: .zero).plan.isVerifiedByFingerprint)
    }

    @Test func aZeroBudgetDefersAnyWorkAndAcceptsFreeSteps() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        #expect(try db.migrateSchema(to: Self.desired, budget: .zero).isDeferred)
        // A native ADD COLUMN touches no rows: expected to take no time, applied.
        let added = Self.live.replacingOccurrences(of: "price REAL", with: "price REAL, note TEXT")
        let outcome = try db.migrateSchema(to: added, budget: .zero)
        #expect(!outcome.isDeferred)
        #expect(outcome.plan.steps.map(\.kind) == [.addColumn])
    }

    /// Without statistics, the count goes as far as the budget's rows: a table larger than the
    /// default count limit is still known to fit (or not).
    @Test func theCountLimitFollowsTheBudget() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        // 20,000 rows at 1,000 rows a second: 20 s. Counted as far as the budget's 10,000 rows,
        // it does not fit whatever the rest (the rows past the count are extrapolated from the
        // rowids: exactly 20,000 here).
        let rate = PlanEstimate.Rate(
            rowsPerSecond: 1000, bytesPerSecond: .infinity, indexEntriesPerSecond: .infinity,
            foreignKeyRowsPerSecond: .infinity)
        let options = SchemaChangeOptions(estimateCountLimit: 500)
        let outcome = try db.migrateSchema(to: Self.desired, options: options, budget: .seconds(10), rate: rate)
        #expect(outcome.isDeferred)
        #expect(outcome.plan.estimate.rows == Self.rows && outcome.plan.estimate.rowSource == .rowIDSpan)
        let fits = try db.migrateSchema(to: Self.desired, options: options, budget: .seconds(30), rate: rate)
        #expect(!fits.isDeferred)
        #expect(fits.plan.estimate.rows == Self.rows && !fits.plan.estimate.rowsAreLowerBound)
    }

    @Test func calibrationGivesAPositiveRate() throws {
        let rate = try PlanEstimate.Rate.calibrated()
        #expect(rate.rowsPerSecond > 0 && rate.rowsPerSecond.isFinite)
        #expect(rate.bytesPerSecond > 0 && rate.indexEntriesPerSecond > 0 && rate.foreignKeyRowsPerSecond > 0)
    }

    /// The app's flow: check at launch, defer, show the UI (reads of the old schema go on), run
    /// the plan in the background with progress, observe its completion.
    @Test func appShapedFlow() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        do {
            let db = try makeDatabase(dir)
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            db.close()
        }
        let pool = try DatabasePool(path: path)
        // Launch: over the budget, deferred.
        let outcome = try await pool.writeWithoutTransaction { db in
            try db.migrateSchema(to: Self.desired, budget: .milliseconds(100), rate: Self.slow)
        }
        #expect(outcome.isDeferred)
        // The UI opens on the old schema.
        #expect(try await pool.read { try $0.fetchValue(Int.self, sql: "SELECT count(*) FROM item") } == Self.rows)
        // The background work, with progress.
        let events = LockedValue<[String]>([])
        let work = Task {
            try await pool.writeWithoutTransaction { db in
                try outcome.run(in: db) { event in
                    if case .rowsCopied(_, let copied, _) = event { events.withLock { $0.append("copied \(copied)") } }
                    if case .stepFinished = event { events.withLock { $0.append("finished") } }
                }
            }
        }
        // Meanwhile the UI reads (WAL: readers are not blocked by the writer).
        let seen = try await pool.read { try $0.fetchValue(Int.self, sql: "SELECT count(*) FROM item") }
        #expect(seen == Self.rows)
        let plan = try await BoundedWait.task("the deferred schema change") { try await work.value }
        #expect(plan.steps.map(\.kind) == [.rebuildTable])
        let log = events.withLock { $0 }
        #expect(log.last == "finished")
        #expect(log.contains("copied \(Self.rows)"))
        let declared = try await pool.read { db in
            try db.fetchValue(String.self, sql: "SELECT type FROM pragma_table_info('item') WHERE name = 'price'")
        }
        #expect(declared == "NUMERIC")
        #expect(try await pool.read { try $0.fetchValue(Int.self, sql: "SELECT count(*) FROM item") } == Self.rows)
    }

    /// A violation that already exists in a table the plan leaves alone never blocks it, and the
    /// check reads only the touched tables.
    @Test func aViolationInAnUntouchedTableNeverBlocks() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("app.sqlite"))
        let schema = """
            CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE player(id INTEGER PRIMARY KEY, team_id INTEGER REFERENCES team(id));
            CREATE TABLE league(id INTEGER PRIMARY KEY);
            CREATE TABLE fixture(id INTEGER PRIMARY KEY, league_id INTEGER REFERENCES league(id));
            """
        try db.execute(sql: schema)
        try db.execute(sql: "INSERT INTO team(id) VALUES (1); INSERT INTO player(team_id) VALUES (1)")
        // fixture 1 references a league that does not exist (written with foreign keys off).
        try db.execute(
            sql: "PRAGMA foreign_keys = OFF; INSERT INTO fixture(league_id) VALUES (99); PRAGMA foreign_keys = ON")
        #expect(try db.foreignKeyViolations().count == 1)
        var checked = [String]()
        db.trace { event in if event.sql.contains("foreign_key_check") { checked.append(event.sql) } }
        let desired = schema.replacingOccurrences(of: "name TEXT", with: "name TEXT NOT NULL DEFAULT ''")
        let outcome = try db.migrateSchema(to: desired, budget: .seconds(3600))
        db.trace(nil)
        #expect(!outcome.isDeferred)
        #expect(try db.planSchemaChange(to: desired).isEmpty)
        // Only the touched tables were checked, each by name: never the whole database.
        #expect(!checked.isEmpty)
        #expect(checked.allSatisfy { $0.contains("foreign_key_check(") }, "\(checked)")
        #expect(!checked.contains { $0.contains("fixture") }, "\(checked)")
        #expect(try db.foreignKeyViolations().count == 1)
    }
}
