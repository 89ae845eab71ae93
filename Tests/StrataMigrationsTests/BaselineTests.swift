import Foundation
import StrataMigrations
import StrataSQLite
import StrataTestSupport
import Testing

/// The history a baseline replaces: four migrations, hostile names included.
private let originals: [Migration] = [
    Migration("0001_create_player", sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL)"),
    Migration("0002_add_score", sql: "ALTER TABLE player ADD COLUMN score INTEGER NOT NULL DEFAULT 0"),
    Migration("0003 \"select\"", sql: #"CREATE TABLE "select"("order" TEXT, "it's" INTEGER)"#),
    Migration("0004_seed", sql: "INSERT INTO player(name) VALUES ('seed')"),
]
private let coveredIdentifiers = originals.map(\.identifier)
private let baselineSQL = """
    CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE "select"("order" TEXT, "it's" INTEGER);
    INSERT INTO player(name) VALUES ('seed');
    """
private let after = Migration("0005_index", sql: "CREATE INDEX player_name ON player(name)")

private func historicalMigrator(through count: Int) -> Migrator {
    var migrator = Migrator()
    for migration in originals.prefix(count) { migrator.register(migration) }
    return migrator
}

private func squashedMigrator(originals available: [Migration] = [], oldestSupported: String? = nil) -> Migrator {
    var migrator = Migrator()
    migrator.registerBaseline(
        "baseline_0004", sql: baselineSQL, covering: coveredIdentifiers, originals: available,
        oldestSupported: oldestSupported)
    migrator.register(after)
    return migrator
}

/// The schema as the app sees it (columns, types, defaults, indexes) and every row, without the ledger.
private func appState(_ db: Database) throws -> [String] {
    var lines: [String] = []
    let tables = try db.fetchColumn(
        String.self,
        sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'strata_%' ORDER BY name")
    for table in tables {
        for row in try db.fetchAll(
            sql: "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)", arguments: [table])
        {
            lines.append("\(table) column \(row.values.map(\.sqlLiteral).joined(separator: " "))")
        }
        for row in try db.fetchAll(
            sql: "SELECT * FROM \"\(table.replacingOccurrences(of: "\"", with: "\"\""))\" ORDER BY rowid")
        {
            lines.append("\(table) row \(row.values.map(\.sqlLiteral).joined(separator: " "))")
        }
    }
    lines += try db.fetchColumn(
        String.self,
        sql: "SELECT name || ' ' || tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
    return lines
}

private func ledger(_ db: Database) throws -> [String] {
    try db.fetchColumn(String.self, sql: "SELECT identifier FROM strata_migrations ORDER BY rowid")
}

/// The state a database reaches through the original history then `after`.
private func referenceState() throws -> [String] {
    let db = try Database(inMemory: Configuration())
    var migrator = historicalMigrator(through: originals.count)
    migrator.register(after)
    try migrator.migrate(db)
    return try appState(db)
}

@Suite("Migrator baselines")
struct BaselineTests {
    @Test func freshDatabaseRunsTheBaselineAndRecordsWhatItCovers() throws {
        let db = try Database(inMemory: Configuration())
        let migrator = squashedMigrator()
        #expect(try migrator.pendingMigrations(db) == ["baseline_0004", "0005_index"])
        #expect(try migrator.migrate(db) == ["baseline_0004", "0005_index"])
        #expect(try ledger(db) == ["baseline_0004", "0005_index"])
        #expect(try migrator.recordedCoverage(of: "baseline_0004", in: db) == coveredIdentifiers)
        #expect(try migrator.recordedCoverage(of: "0005_index", in: db) == nil)
        #expect(try appState(db) == (try referenceState()))
        #expect(try migrator.hasCompletedMigrations(db))
        #expect(try migrator.migrate(db) == [])
        let status = try migrator.status(db)
        #expect(status.unknown.isEmpty && status.checksumMismatches.isEmpty && status.pending.isEmpty)
    }

    @Test func databaseThatAppliedEveryCoveredMigrationSkipsTheBaseline() throws {
        let db = try Database(inMemory: Configuration())
        try historicalMigrator(through: 4).migrate(db)
        let ledgerBefore = try db.fetchAll(sql: "SELECT * FROM strata_migrations ORDER BY rowid").map(\.values)
        let migrator = squashedMigrator()
        let status = try migrator.status(db)
        #expect(status.pending == ["0005_index"])
        #expect(status.unknown.isEmpty)
        #expect(status.applied.map(\.identifier) == coveredIdentifiers)
        #expect(try migrator.migrate(db) == ["0005_index"])
        // The covered rows stay as they were (checksums accepted), and no baseline row is added.
        let ledgerAfter = try db.fetchAll(sql: "SELECT * FROM strata_migrations ORDER BY rowid").map(\.values)
        #expect(Array(ledgerAfter.prefix(4)) == ledgerBefore)
        #expect(try ledger(db) == coveredIdentifiers + ["0005_index"])
        #expect(try appState(db) == (try referenceState()))
        #expect(try migrator.migrate(db) == [])
        #expect(try migrator.hasCompletedMigrations(db))
        #expect(try migrator.schemaDrift(db).isEmpty)
    }

    @Test func coveredChecksumsOnOldLedgersAreAcceptedWithoutOriginals() throws {
        let db = try Database(inMemory: Configuration())
        try historicalMigrator(through: 4).migrate(db)
        try db.execute(sql: "UPDATE strata_migrations SET checksum = 'recorded by an older rule'")
        let before = try DatabaseContents(db)
        let migrator = squashedMigrator()
        #expect(try migrator.status(db).checksumMismatches.isEmpty)
        #expect(try migrator.migrate(db) == ["0005_index"])
        #expect(before.rows["player"] == (try DatabaseContents(db)).rows["player"])
    }

    @Test func anEditedOriginalIsStillDetected() throws {
        let db = try Database(inMemory: Configuration())
        try historicalMigrator(through: 2).migrate(db)
        var edited = originals
        edited[1] = Migration("0002_add_score", sql: "ALTER TABLE player ADD COLUMN score INTEGER")
        let before = try DatabaseContents(db)
        let error = try #require(throws: MigrationError.self) { try squashedMigrator(originals: edited).migrate(db) }
        #expect(error.code == .checksumMismatch)
        #expect(error.migrations == ["0002_add_score"])
        #expect(try DatabaseContents(db) == before)
    }

    @Test(arguments: 1...3)
    func databaseStoppedInTheMiddleRunsTheRemainingOriginals(appliedCount: Int) throws {
        let db = try Database(inMemory: Configuration())
        try historicalMigrator(through: appliedCount).migrate(db)
        let migrator = squashedMigrator(originals: originals)
        let remaining = Array(coveredIdentifiers[appliedCount...])
        #expect(try migrator.pendingMigrations(db) == remaining + ["0005_index"])
        #expect(try migrator.migrate(db) == remaining + ["0005_index"])
        #expect(try ledger(db) == coveredIdentifiers + ["0005_index"])
        #expect(try appState(db) == (try referenceState()))
        #expect(try migrator.migrate(db) == [])
    }

    @Test func stoppedInTheMiddleWithOnlyTheLastOriginalAvailable() throws {
        // 0004 is in the archive: a database at 0003 goes on, one at 0002 is refused.
        let migrator = squashedMigrator(originals: [originals[3]])
        let atThree = try Database(inMemory: Configuration())
        try historicalMigrator(through: 3).migrate(atThree)
        #expect(try migrator.migrate(atThree) == ["0004_seed", "0005_index"])
        #expect(try appState(atThree) == (try referenceState()))

        let atTwo = try Database(inMemory: Configuration())
        try historicalMigrator(through: 2).migrate(atTwo)
        let before = try DatabaseContents(atTwo)
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(atTwo) }
        #expect(error.code == .unsupportedHistory)
        #expect(error.message.contains("stopped at 0002_add_score"))
        #expect(error.message.contains("the oldest version this app supports is 0003 \"select\""))
        #expect(error.message.contains("0003 \"select\""))
        #expect(try DatabaseContents(atTwo) == before)
    }

    @Test func stoppedInTheMiddleWithoutOriginalsIsRefusedNamingTheOldestSupported() throws {
        let db = try Database(inMemory: Configuration())
        try historicalMigrator(through: 1).migrate(db)
        try db.execute(sql: "INSERT INTO player(name) VALUES ('kept')")
        let before = try DatabaseContents(db)
        for migrator in [squashedMigrator(), squashedMigrator(oldestSupported: "0002_add_score")] {
            let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
            #expect(error.code == .unsupportedHistory)
            #expect(error.migrations == ["0001_create_player", "baseline_0004"])
            #expect(error.message.contains("stopped at 0001_create_player"))
            #expect(error.message.contains("nothing was migrated"))
            #expect(try DatabaseContents(db) == before)
        }
        let error = try #require(throws: MigrationError.self) {
            try squashedMigrator(oldestSupported: "0002_add_score").migrate(db)
        }
        #expect(error.message.contains("the oldest version this app supports is 0002_add_score"))
        let defaultError = try #require(throws: MigrationError.self) { try squashedMigrator().migrate(db) }
        #expect(defaultError.message.contains("the oldest version this app supports is 0004_seed"))
    }

    /// A ledger that lacks only the first migration the baseline covers holds that migration's
    /// tables and every later covered one: it is not a fresh database (issue 37 item 8: a check
    /// of the first covered identifier alone ran the baseline over it). The missing original is
    /// pending: run when it is available, else the database is refused, unchanged.
    @Test func aLedgerLackingOnlyTheFirstCoveredMigrationIsNotFresh() throws {
        let db = try Database(inMemory: Configuration())
        try historicalMigrator(through: originals.count).migrate(db)
        try db.execute(sql: "DELETE FROM strata_migrations WHERE identifier = ?", arguments: [coveredIdentifiers[0]])
        let before = try DatabaseContents(db)

        let migrator = squashedMigrator()
        let status = try migrator.status(db)
        #expect(status.pending == [coveredIdentifiers[0], "0005_index"], "\(status.pending)")
        #expect(status.applied.map(\.identifier) == Array(coveredIdentifiers.dropFirst()))
        #expect(try migrator.pendingMigrations(db) == [coveredIdentifiers[0], "0005_index"])
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.code == .unsupportedHistory, "\(error)")
        #expect(error.message.contains(coveredIdentifiers[0]), "\(error)")
        #expect(try DatabaseContents(db) == before)

        // With the first original available, it is what runs, never the baseline.
        let withOriginal = squashedMigrator(originals: [originals[0]])
        #expect(try withOriginal.pendingMigrations(db) == [coveredIdentifiers[0], "0005_index"])
        try db.execute(sql: "DROP TABLE player")  // so that the original can run again
        #expect(try withOriginal.migrate(db) == [coveredIdentifiers[0], "0005_index"])
        #expect(try ledger(db) == Array(coveredIdentifiers.dropFirst()) + [coveredIdentifiers[0], "0005_index"])
        #expect(
            try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") == 0, "the baseline's seed row is not there"
        )
    }

    @Test func failingBaselineLeavesTheDatabaseUnchanged() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("app.sqlite"))
        try db.execute(sql: "CREATE TABLE unrelated(x); INSERT INTO unrelated VALUES (1)")
        let before = try DatabaseContents(db)
        var migrator = Migrator()
        migrator.registerBaseline(
            "baseline", sql: "CREATE TABLE a(x); CREATE TABLE unrelated(y)", covering: ["0001", "0002"])
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.code == .migrationFailed)
        #expect(error.migrations == ["baseline"])
        #expect(error.message.contains("unrelated"))
        #expect(try DatabaseContents(db) == before)
    }

    @Test func failingRemainingOriginalRollsBackOnlyItself() throws {
        let db = try Database(inMemory: Configuration())
        try historicalMigrator(through: 2).migrate(db)
        var broken = originals
        broken[3] = Migration("0004_seed", sql: "INSERT INTO player(missing) VALUES (1)")
        let error = try #require(throws: MigrationError.self) { try squashedMigrator(originals: broken).migrate(db) }
        #expect(error.migrations == ["0004_seed"])
        #expect(try ledger(db) == Array(coveredIdentifiers.prefix(3)))
        let after = try DatabaseContents(db)
        #expect(after.rows["player"] == [])
    }

    @Test func singleTransactionModeRunsRemainingOriginalsOrNothing() throws {
        let db = try Database(inMemory: Configuration())
        try historicalMigrator(through: 2).migrate(db)
        var migrator = squashedMigrator(originals: originals)
        migrator.transactionMode = .singleTransaction
        #expect(try migrator.migrate(db) == Array(coveredIdentifiers[2...]) + ["0005_index"])
        #expect(try appState(db) == (try referenceState()))
    }

    @Test func userVersionStorageRefusesABaseline() throws {
        let db = try Database(inMemory: Configuration())
        var migrator = Migrator(storage: .userVersion)
        migrator.registerBaseline("1", sql: "CREATE TABLE a(x)", covering: ["0"])
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.code == .invalidRequest)
        #expect(error.message.contains("user_version"))
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 0)
    }

    @Test func coveredIdentifierWithALineBreakIsRefused() throws {
        let db = try Database(inMemory: Configuration())
        var migrator = Migrator()
        migrator.registerBaseline("b", sql: "CREATE TABLE a(x)", covering: ["one\ntwo"])
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.code == .invalidRequest)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 0)
    }

    @Test func twoHundredMigrationHistorySquashedGivesTheSameDatabase() throws {
        // 200 migrations: a table, then a column per step, then rows.
        var history: [Migration] = [Migration("0001", sql: "CREATE TABLE t(id INTEGER PRIMARY KEY)")]
        for n in 2...200 {
            history.append(
                Migration(String(format: "%04d", n), sql: "ALTER TABLE t ADD COLUMN \"c \(n)\" TEXT DEFAULT 'v\(n)'"))
        }
        let old = try Database(inMemory: Configuration())
        var historical = Migrator()
        for migration in history { historical.register(migration) }
        try historical.migrate(old)
        try old.execute(sql: "INSERT INTO t(id) VALUES (1)")
        // The baseline: the combined schema, as SQLite stores it.
        let schema = try old.fetchColumn(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = 't'")
        var squashed = Migrator()
        squashed.registerBaseline(
            "0200_baseline", sql: schema.joined(separator: ";\n"), covering: history.map(\.identifier))
        squashed.registerMigration("0201", sql: "CREATE INDEX t_c2 ON t(\"c 2\")")
        #expect(try squashed.migrate(old) == ["0201"])
        let fresh = try Database(inMemory: Configuration())
        #expect(try squashed.migrate(fresh) == ["0200_baseline", "0201"])
        try fresh.execute(sql: "INSERT INTO t(id) VALUES (1)")
        #expect(try appState(fresh) == (try appState(old)))
        #expect(try squashed.migrate(old) == [])
        #expect(try squashed.migrate(fresh) == [])
    }
}

@Suite("Migrator baselines: historical versions")
struct BaselineHistoryTests {
    @Test func migrateUpToACoveredMigrationRunsTheOriginals() throws {
        let db = try Database(inMemory: Configuration())
        let migrator = squashedMigrator(originals: originals)
        #expect(try migrator.migrate(db, upTo: "0002_add_score") == ["0001_create_player", "0002_add_score"])
        #expect(try ledger(db) == ["0001_create_player", "0002_add_score"])
        #expect(try migrator.migrate(db) == ["0003 \"select\"", "0004_seed", "0005_index"])
        #expect(try appState(db) == (try referenceState()))

        let without = try Database(inMemory: Configuration())
        let error = try #require(throws: MigrationError.self) {
            try squashedMigrator().migrate(without, upTo: "0002_add_score")
        }
        #expect(error.code == .invalidRequest)
        #expect(error.message.contains("0001_create_player is not available"))
        #expect(try without.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 0)
    }
}
