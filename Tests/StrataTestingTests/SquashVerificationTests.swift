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

    /// A history that leaves rows in every kind of table (in its first migration: the versions of
    /// the history hold generated rows, which later fixed keys would collide with): rowid tables (with and without an
    /// INTEGER PRIMARY KEY, rowids with gaps), WITHOUT ROWID with one column, two columns and a
    /// composite key, and hostile names.
    static let rowsHistory: [Migration] = [
        Migration(
            "0001_tables",
            sql: #"""
                CREATE TABLE plain(id INTEGER PRIMARY KEY, label TEXT, data BLOB);
                CREATE TABLE loose(a TEXT, b INTEGER);
                CREATE TABLE single(k TEXT PRIMARY KEY) WITHOUT ROWID;
                CREATE TABLE pair(k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID;
                CREATE TABLE "it's ""odd"" é"("b ""x""" TEXT, "ä" INTEGER, c BLOB, PRIMARY KEY ("ä", "b ""x""")) WITHOUT ROWID;
                INSERT INTO plain VALUES (1, 'it''s', X'00FF'), (4, '', X''), (9, NULL, NULL);
                INSERT INTO loose(rowid, a, b) VALUES (3, 'x', 1), (10, 'y', NULL);
                INSERT INTO single VALUES ('s1'), ('');
                INSERT INTO pair VALUES ('a', 'one'), ('b', NULL), ('', '');
                INSERT INTO "it's ""odd"" é" VALUES ('q"', 2, X'01'), ('r', 1, NULL);
                """#),
        Migration("0002_index", sql: "CREATE INDEX pair_v ON pair(v)"),
    ]

    static let rowsSchema = #"""
        CREATE TABLE plain(id INTEGER PRIMARY KEY, label TEXT, data BLOB);
        CREATE TABLE loose(a TEXT, b INTEGER);
        CREATE TABLE single(k TEXT PRIMARY KEY) WITHOUT ROWID;
        CREATE TABLE pair(k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID;
        CREATE TABLE "it's ""odd"" é"("b ""x""" TEXT, "ä" INTEGER, c BLOB, PRIMARY KEY ("ä", "b ""x""")) WITHOUT ROWID;
        """#

    static let rowsInserts: [String: String] = [
        "plain": "INSERT INTO plain VALUES (1, 'it''s', X'00FF'), (4, '', X''), (9, NULL, NULL);",
        "loose": "INSERT INTO loose(rowid, a, b) VALUES (3, 'x', 1), (10, 'y', NULL);",
        "single": "INSERT INTO single VALUES ('s1'), ('');",
        "pair": "INSERT INTO pair VALUES ('a', 'one'), ('b', NULL), ('', '');",
        "odd": #"INSERT INTO "it's ""odd"" é" VALUES ('q"', 2, X'01'), ('r', 1, NULL);"#,
        "index": "CREATE INDEX pair_v ON pair(v);",
    ]

    /// The history squashed into a hand-written baseline holding the rows of `tables` only.
    static func verifyRows(
        keeping tables: [String], editing edit: (String) -> String = { $0 }
    ) throws
        -> [VersionVerification]
    {
        let folder = TemporaryDirectory()
        let historyPath = folder.file("History")
        var historical = Migrator()
        for step in rowsHistory { historical.register(step) }
        try MigrationHistory.record(historical, to: historyPath)
        let sql = rowsSchema + "\n" + tables.map { edit(rowsInserts[$0] ?? "") }.joined(separator: "\n")
        var squashed = Migrator()
        squashed.registerBaseline(
            "0002_baseline", sql: sql, covering: rowsHistory.map(\.identifier), originals: rowsHistory)
        return try MigrationHistory(folder: historyPath).upgradeReport(to: squashed, rows: 2)
    }

    /// The kit compares what the baseline gives a new install with what the originals give,
    /// every row of every table (issue 37 items 4 and 8: a baseline without the rows of the
    /// WITHOUT ROWID tables passed verification, since no version's upgrade runs the baseline).
    @Test func aBaselineMissingTheRowsOfWithoutRowIDTablesFailsVerification() throws {
        let all = ["plain", "loose", "single", "pair", "odd", "index"]
        let complete = try Self.verifyRows(keeping: all)
        #expect(complete.allSatisfy { $0.passed }, "\(complete.map { $0.summary })")

        for missing in ["single", "pair", "odd", "loose"] {
            let results = try Self.verifyRows(keeping: all.filter { $0 != missing })
            let failure = try #require(results.compactMap(\.failure).first, "without the rows of \(missing)")
            #expect(failure.kind == .row, "\(failure)")
            #expect(failure.version == 2, "the version of the last covered migration: \(failure)")
            #expect(failure.message.contains("0002_baseline"), "\(failure)")
            let table = missing == "odd" ? "it's \"odd\" é" : missing
            #expect(failure.table == table, "\(failure)")
            #expect(failure.message.contains("is missing from the baseline's"), "\(failure)")
        }
        // One value changed (a blob's bytes, a rowid), one row too many: also caught.
        let changed = try Self.verifyRows(keeping: all) { $0.replacingOccurrences(of: "X'00FF'", with: "X'00FE'") }
        #expect(changed.compactMap(\.failure).first?.table == "plain")
        let moved = try Self.verifyRows(keeping: all) { $0.replacingOccurrences(of: "(10, 'y'", with: "(11, 'y'") }
        #expect(moved.compactMap(\.failure).first?.table == "loose")
        let extra = try Self.verifyRows(keeping: all) {
            $0.replacingOccurrences(of: "('s1'), ('')", with: "('s1'), (''), ('s2')")
        }
        #expect(extra.compactMap(\.failure).first?.message.contains("is not in the originals'") == true)
    }
}
