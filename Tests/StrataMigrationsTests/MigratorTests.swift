import Foundation
import StrataMigrations
import StrataSQLite
import StrataTestSupport
import Testing

@Suite("Migrator", .timeLimit(.minutes(3)))
struct MigratorTests {
    @Test func ledgerSurvivesReopenAndSecondRunAppliesNothing() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        let migrator = sampleMigrator()
        do {
            let db = try Database(path: path)
            #expect(try migrator.pendingMigrations(db) == ["0001_create_team", "0002_create_player", "0003_seed"])
            #expect(try migrator.migrate(db) == ["0001_create_team", "0002_create_player", "0003_seed"])
            db.close()
        }
        let db = try Database(path: path)
        #expect(try migrator.appliedMigrations(db) == ["0001_create_team", "0002_create_player", "0003_seed"])
        #expect(try migrator.hasCompletedMigrations(db))
        let records = try migrator.appliedRecords(db)
        try #require(migrator.migrations.count > 1)
        #expect(records.map(\.checksum) == [migrator.migrations[0].checksum, migrator.migrations[1].checksum, nil])
        #expect(records.allSatisfy { $0.appliedAt?.hasSuffix("Z") == true && $0.durationMilliseconds != nil })
        let before = try snapshot(db)
        #expect(try migrator.migrate(db) == [])
        #expect(try snapshot(db) == before)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") == 1)
    }

    @Test func ledgerTableHasTheDocumentedColumns() throws {
        let db = try Database(inMemory: Configuration())
        try sampleMigrator().migrate(db)
        let columns = try db.fetchColumn(String.self, sql: "SELECT name FROM pragma_table_info('strata_migrations')")
        // The documented four, and the start-up digest a run that applied migrations adds.
        #expect(columns == ["identifier", "checksum", "applied_at", "duration_ms", "startup_digest"])
    }

    @Test func failingMigrationRollsBackOnlyItselfAndLeavesTheLedger() throws {
        var migrator = sampleMigrator()
        migrator.registerMigration(
            "0004_broken",
            sql: """
                ALTER TABLE player ADD COLUMN score INTEGER;
                INSERT INTO nowhere VALUES (1);
                """)
        let recorder = EventRecorder()
        migrator.eventHandler = recorder.handler
        let db = try Database(inMemory: Configuration())
        try migrator.migrate(db, upTo: "0003_seed")
        let before = try snapshot(db)

        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.code == .migrationFailed)
        #expect(error.migrations == ["0004_broken"])
        #expect(error.description.hasPrefix("migration 0004_broken failed: "))
        #expect(error.description.contains("no such table: nowhere"))
        #expect(error.description.hasSuffix("; rolled back"))
        #expect(try snapshot(db) == before)
        #expect(try migrator.pendingMigrations(db) == ["0004_broken"])
        #expect(try db.foreignKeysEnabled(), "foreign keys restored after a failure")
        #expect(recorder.lines.last == error.description)
    }

    @Test func earlierMigrationsOfTheSameRunStayApplied() throws {
        var migrator = sampleMigrator()
        migrator.registerMigration("0004_broken") { db in
            try db.execute(sql: "CREATE TABLE temp_work(x)")
            throw CocoaError(.fileNoSuchFile)
        }
        let db = try Database(inMemory: Configuration())
        #expect(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(try migrator.appliedMigrations(db) == ["0001_create_team", "0002_create_player", "0003_seed"])
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'temp_work'") == 0)
    }

    @Test func singleTransactionModeAppliesNothingOnFailure() throws {
        var migrator = sampleMigrator()
        migrator.transactionMode = .singleTransaction
        migrator.registerMigration("0004_broken", sql: "CREATE TABLE ok(x); SELECT * FROM missing;")
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        let db = try Database(path: path)
        try db.execute(sql: "CREATE TABLE existing(x); INSERT INTO existing VALUES (42)")
        db.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))

        let reopened = try Database(path: path)
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(reopened) }
        #expect(error.description.hasPrefix("migration 0004_broken failed: "))
        #expect(error.description.hasSuffix("all 4 pending migrations rolled back"))
        #expect(try migrator.appliedMigrations(reopened) == [])
        reopened.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "file bytes unchanged")
    }

    @Test func singleTransactionModeAppliesAll() throws {
        var migrator = sampleMigrator()
        migrator.transactionMode = .singleTransaction
        let db = try Database(inMemory: Configuration())
        #expect(try migrator.migrate(db).count == 3)
        #expect(try migrator.hasCompletedMigrations(db))
    }

    @Test func newForeignKeyViolationRollsBackAndNamesTheRow() throws {
        var migrator = sampleMigrator()
        migrator.registerMigration("0004_orphan", sql: "INSERT INTO player(id, name, team_id) VALUES (7, 'Bob', 99);")
        let db = try Database(inMemory: Configuration())
        try migrator.migrate(db, upTo: "0003_seed")
        let before = try snapshot(db)
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.code == .foreignKeyViolation)
        #expect(
            error.description
                == "migration 0004_orphan: foreign key violation: table player rowid 7 references a missing row of team; rolled back"
        )
        #expect(error.foreignKeyViolations.map(\.rowid) == [7])
        #expect(try snapshot(db) == before)
    }

    /// A WITHOUT ROWID table has no rowid to tell its violations apart: a new one beside an
    /// old one in the same table is still caught, and named by its primary key.
    @Test func newViolationInAWithoutRowIDTableBesideAnOldOneIsCaught() throws {
        var migrator = Migrator()
        migrator.registerMigration(
            "0001_create",
            sql: """
                CREATE TABLE team(code TEXT PRIMARY KEY) WITHOUT ROWID;
                CREATE TABLE member(team TEXT REFERENCES team(code), name TEXT, PRIMARY KEY(team, name)) WITHOUT ROWID;
                """)
        migrator.registerMigration("0002_orphan", sql: "INSERT INTO member VALUES ('zz', 'Bob');")
        let db = try Database(inMemory: Configuration())
        try migrator.migrate(db, upTo: "0001_create")
        try db.execute(
            sql: "PRAGMA foreign_keys = OFF; INSERT INTO member VALUES ('aa', 'Old'); PRAGMA foreign_keys = ON")
        let rows = { try db.fetchAll(sql: "SELECT * FROM member ORDER BY team, name").map(\.values) }
        let before = try rows()
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.code == .foreignKeyViolation)
        #expect(
            error.description.contains(
                "table member row with team = 'zz', name = 'Bob' references a missing row of team"))
        #expect(error.foreignKeyViolations.map(\.primaryKey.count) == [2])
        #expect(try rows() == before)
        #expect(try migrator.appliedMigrations(db) == ["0001_create"])
    }

    @Test func preexistingViolationsDoNotFailAMigration() throws {
        let db = try Database(inMemory: Configuration())
        var migrator = sampleMigrator()
        migrator.registerMigration(
            "0004_add_score", sql: "ALTER TABLE player ADD COLUMN score INTEGER NOT NULL DEFAULT 0;")
        try migrator.migrate(db, upTo: "0003_seed")
        try db.execute(
            sql:
                "PRAGMA foreign_keys = OFF; INSERT INTO player(id, name, team_id) VALUES (5, 'Old', 42); PRAGMA foreign_keys = ON"
        )
        #expect(try migrator.migrate(db) == ["0004_add_score"])
    }

    @Test func tableRebuildWithForeignKeysRunsWithForeignKeysOff() throws {
        // Dropping a parent table inside a migration would cascade or fail with foreign keys on.
        var migrator = sampleMigrator()
        migrator.registerMigration(
            "0004_rebuild_team",
            sql: """
                CREATE TABLE team_new(id INTEGER PRIMARY KEY, name TEXT NOT NULL, color TEXT);
                INSERT INTO team_new(id, name) SELECT id, name FROM team;
                DROP TABLE team;
                ALTER TABLE team_new RENAME TO team;
                """)
        let db = try Database(inMemory: Configuration())
        try migrator.migrate(db)
        #expect(try db.fetchValue(String.self, sql: "SELECT name FROM team WHERE id = 1") == "red")
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") == 1)
        #expect(try db.foreignKeysEnabled())
    }

    @Test func migrateUpToStopsAndRefusesGoingBack() throws {
        let migrator = sampleMigrator()
        let db = try Database(inMemory: Configuration())
        #expect(try migrator.migrate(db, upTo: "0002_create_player") == ["0001_create_team", "0002_create_player"])
        #expect(try migrator.pendingMigrations(db) == ["0003_seed"])
        try migrator.migrate(db)
        let back = try #require(throws: MigrationError.self) { try migrator.migrate(db, upTo: "0001_create_team") }
        #expect(
            back.description
                == "migration 0002_create_player: already applied, so the database is beyond 0001_create_team")
        let missing = try #require(throws: MigrationError.self) { try migrator.migrate(db, upTo: "0009_nope") }
        #expect(missing.description == "migration 0009_nope: not registered (cannot migrate up to it)")
    }

    @Test func refusesToRunInsideATransaction() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "BEGIN")
        let error = try #require(throws: MigrationError.self) { try sampleMigrator().migrate(db) }
        #expect(error.code == .invalidRequest)
        #expect(error.description == ":memory:: migrations must run outside a transaction (one is open)")
        try db.execute(sql: "ROLLBACK")
    }

    @Test func migrationThatCommitsIsReported() throws {
        var migrator = Migrator()
        migrator.registerMigration("1_commit", sql: "CREATE TABLE a(x); COMMIT;")
        let db = try Database(inMemory: Configuration())
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.description.hasPrefix("migration 1_commit: its `COMMIT` would end the migration's transaction"))
        // Refused before anything ran: nothing was committed.
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'a'") == 0)
    }

    @Test func eventsAndProgress() throws {
        var migrator = Migrator()
        migrator.registerMigration("0001_create", sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, done INTEGER)")
        migrator.register(
            Migration(
                "0002_fill",
                reportingProgress: { db, progress in
                    for i in 1...3 {
                        try db.execute(sql: "INSERT INTO item(done) VALUES (0)")
                        progress.report(completed: i, total: 3)
                    }
                }))
        let recorder = EventRecorder()
        migrator.eventHandler = recorder.handler
        let db = try Database(inMemory: Configuration())
        try migrator.migrate(db)
        let lines = recorder.lines.map {
            $0.replacingOccurrences(of: #"in \d+ ms"#, with: "in N ms", options: .regularExpression)
        }
        #expect(
            lines == [
                "migration 0001_create started", "migration 0001_create finished in N ms",
                "migration 0002_fill started",
                "migration 0002_fill progress 1/3", "migration 0002_fill progress 2/3",
                "migration 0002_fill progress 3/3",
                "migration 0002_fill finished in N ms",
            ])
    }

    @Test func duplicateIdentifierStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            var migrator = Migrator()
            migrator.registerMigration("0001_a", sql: "CREATE TABLE a(x)")
            migrator.registerMigration("0001_a", sql: "CREATE TABLE b(x)")
        }
    }
}
