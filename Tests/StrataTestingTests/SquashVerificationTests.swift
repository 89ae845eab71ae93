import Foundation
import Strata
import StrataTestSupport
import StrataTesting
import Testing

/// A 200-migration history squashed into a baseline, proved equivalent by the test kit.
///
/// Verifying every version upgrades each of them to head (about 20,000 migration steps), the
/// longest test of the suite; `STRATA_SQUASH_HISTORY` shortens the history where the length is not
/// what is tested (`scripts/sqlite-versions.sh test` sets it to 40 for the runs against each SQLite).
@Suite("Squashed history verified")
struct SquashVerificationTests {
    /// How many migrations the history holds: 200 unless `STRATA_SQUASH_HISTORY` says otherwise.
    static let count: Int = {
        guard let text = ProcessInfo.processInfo.environment["STRATA_SQUASH_HISTORY"], let n = Int(text), n >= 10
        else { return 200 }
        return n
    }()

    /// `count` migrations: two tables, a column per step (hostile names), an index, a seed row.
    static let history: [Migration] = {
        var steps = [
            Migration(
                "0001_create", sql: #"CREATE TABLE "order"(id INTEGER PRIMARY KEY, "it's" TEXT NOT NULL DEFAULT '')"#),
            Migration(
                "0002_child",
                sql:
                    #"CREATE TABLE line(id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES "order"(id), qty INTEGER CHECK (qty >= 0))"#
            ),
        ]
        for n in 3..<count {
            steps.append(
                Migration(
                    String(format: "%04d_col", n),
                    sql: "ALTER TABLE \"order\" ADD COLUMN \"c \(n)\" INTEGER DEFAULT \(n)"))
        }
        steps.append(Migration(String(format: "%04d_index", count), sql: "CREATE INDEX line_order ON line(order_id)"))
        return steps
    }()

    static func historical() -> Migrator {
        var migrator = Migrator()
        for step in history { migrator.register(step) }
        return migrator
    }

    /// The combined schema, as SQLite stores it after the 200 migrations.
    static func combinedSchema() throws -> String {
        let db = try Database(inMemory: Configuration())
        try Self.historical().migrate(db)
        return try db.fetchColumn(
            String.self,
            sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'strata_%' ORDER BY rowid"
        ).joined(separator: ";\n")
    }

    @Test func twoHundredMigrationsSquashedVerifyFromEveryVersion() throws {
        let folder = TemporaryDirectory()
        let historyPath = folder.file("History")
        try MigrationHistory.record(Self.historical(), to: historyPath)
        var squashed = Migrator()
        squashed.registerBaseline(
            String(format: "%04d_baseline", Self.count), sql: try Self.combinedSchema(),
            covering: Self.history.map(\.identifier),
            originals: Self.history)
        squashed.registerMigration(
            String(format: "%04d_note", Self.count + 1), sql: "ALTER TABLE line ADD COLUMN note TEXT")
        let results = try MigrationHistory(folder: historyPath).verifyUpgrades(to: squashed, rows: 3)
        #expect(results.count == Self.count)
        #expect(results.filter { !$0.passed }.isEmpty)
    }

    @Test func aBaselineMissingAColumnFailsVerification() throws {
        let folder = TemporaryDirectory()
        let historyPath = folder.file("History")
        try MigrationHistory.record(Self.historical(), to: historyPath)
        let schema = try Self.combinedSchema().replacingOccurrences(of: ", \"c 7\" INTEGER DEFAULT 7", with: "")
        #expect(!schema.contains("c 7\""))
        var squashed = Migrator()
        squashed.registerBaseline(
            String(format: "%04d_baseline", Self.count), sql: schema, covering: Self.history.map(\.identifier),
            originals: Self.history)
        let error = try #require(throws: UpgradeVerificationError.self) {
            try MigrationHistory(folder: historyPath).verifyUpgrades(to: squashed, rows: 2)
        }
        #expect("\(error)".contains("c 7"))
    }
}
