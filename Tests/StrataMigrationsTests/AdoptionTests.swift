import Foundation
import StrataMigrations
import StrataSQLite
import StrataTestSupport
import Testing

/// Databases versioned before Strata: `PRAGMA user_version`, version tables, baselines.
@Suite("Adopting legacy version markers")
struct AdoptionTests {
    /// The schema an old app built with its own version counter, at version 2.
    private func legacyDatabase(marker: String) throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, team_id INTEGER REFERENCES team(id));
                INSERT INTO team(id, name) VALUES (5, 'legacy');
                """)
        try db.execute(sql: marker)
        return db
    }

    private func migratorWithFourth() -> Migrator {
        var migrator = sampleMigrator()
        migrator.registerMigration(
            "0004_add_score", sql: "ALTER TABLE player ADD COLUMN score INTEGER NOT NULL DEFAULT 0;")
        return migrator
    }

    @Test(arguments: [
        ("PRAGMA user_version = 2", LegacyVersion.userVersion, "PRAGMA user_version"),
        (
            "CREATE TABLE app_version(version_num TEXT NOT NULL); INSERT INTO app_version VALUES ('2')",
            LegacyVersion.table("app_version", column: "version_num"), "app_version.version_num"
        ),
        (
            "CREATE TABLE DB_SCHEMA_VERSION(id INTEGER PRIMARY KEY, version INTEGER); INSERT INTO DB_SCHEMA_VERSION VALUES (1, 2)",
            LegacyVersion.table("DB_SCHEMA_VERSION", column: "version"), "DB_SCHEMA_VERSION.version"
        ),
        (
            "CREATE TABLE app_version(version_num TEXT NOT NULL); INSERT INTO app_version VALUES ('0002_create_player')",
            LegacyVersion.table("app_version", column: "version_num"), "app_version.version_num"
        ),
    ])
    func adoptsTheFirstMigrationsThenRunsTheRest(marker: String, legacy: LegacyVersion, source: String) throws {
        let db = try legacyDatabase(marker: marker)
        var migrator = migratorWithFourth()
        migrator.legacyVersion = legacy
        let recorder = EventRecorder()
        migrator.eventHandler = recorder.handler
        #expect(try migrator.migrate(db) == ["0003_seed", "0004_add_score"], "\(source)")
        #expect(recorder.lines.first == "adopted \(source): recorded 0001_create_team, 0002_create_player as applied")
        let records = try migrator.appliedRecords(db)
        #expect(records.map(\.identifier) == ["0001_create_team", "0002_create_player", "0003_seed", "0004_add_score"])
        try #require(records.count == 4 && !migrator.migrations.isEmpty)
        #expect(records[0].durationMilliseconds == nil && records[0].checksum == migrator.migrations[0].checksum)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM team") == 2)  // legacy row + seed
        // A second run adopts nothing more and applies nothing.
        #expect(try migrator.migrate(db) == [])
    }

    @Test func freshDatabaseWithoutMarkerRunsEverything() throws {
        let db = try Database(inMemory: Configuration())
        var migrator = migratorWithFourth()
        migrator.legacyVersion = .table("app_version", column: "version_num")
        #expect(try migrator.migrate(db).count == 4)
    }

    @Test func markerBeyondTheRegisteredMigrationsIsRefused() throws {
        let db = try legacyDatabase(marker: "PRAGMA user_version = 9")
        var migrator = migratorWithFourth()
        migrator.legacyVersion = .userVersion
        let before = try snapshot(db)
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.code == .adoptionFailed)
        #expect(
            error.description
                == "PRAGMA user_version: version 9 is beyond the 4 registered migrations; nothing was migrated")
        #expect(try snapshot(db) == before)
    }

    @Test func customMapping() throws {
        let db = try legacyDatabase(marker: "PRAGMA user_version = 102")
        var migrator = migratorWithFourth()
        migrator.legacyVersion = LegacyVersion(source: .userVersion) { value, registered in
            guard case .integer(let v) = value, v > 100 else { return nil }
            return registered[Int(v) - 101]
        }
        #expect(try migrator.migrate(db) == ["0003_seed", "0004_add_score"])
    }

    @Test func baselineMarksAndThenMigrates() throws {
        let db = try legacyDatabase(marker: "SELECT 1")
        let migrator = migratorWithFourth()
        #expect(try migrator.baseline(db, at: "0002_create_player") == ["0001_create_team", "0002_create_player"])
        #expect(try migrator.pendingMigrations(db) == ["0003_seed", "0004_add_score"])
        #expect(try migrator.migrate(db) == ["0003_seed", "0004_add_score"])
        let error = try #require(throws: MigrationError.self) { try migrator.baseline(db, at: "0042_x") }
        #expect(error.description == "migration 0042_x: not registered (cannot baseline at it)")
    }

    @Test func userVersionStorage() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("notes.sqlite")
        var migrator = Migrator(storage: .userVersion)
        migrator.registerMigration("1", sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
        migrator.registerMigration("2_add_title", sql: "ALTER TABLE note ADD COLUMN title TEXT")
        do {
            let db = try Database(path: path)
            #expect(try migrator.migrate(db, upTo: "1") == ["1"])
            #expect(try db.fetchValue(Int.self, sql: "PRAGMA user_version") == 1)
            db.close()
        }
        let db = try Database(path: path)
        #expect(try migrator.migrate(db) == ["2_add_title"])
        #expect(try db.fetchValue(Int.self, sql: "PRAGMA user_version") == 2)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name LIKE 'strata%'") == 0)
        #expect(try migrator.appliedRecords(db).allSatisfy { $0.checksum == nil })

        // A failing migration leaves user_version unchanged.
        migrator.registerMigration("3_broken", sql: "ALTER TABLE note ADD COLUMN title TEXT")
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.description.hasPrefix("migration 3_broken failed: "))
        #expect(error.description.contains("duplicate column name: title"))
        #expect(try db.fetchValue(Int.self, sql: "PRAGMA user_version") == 2)

        // A newer database is refused.
        var older = Migrator(storage: .userVersion)
        older.registerMigration("1", sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
        let refused = try #require(throws: MigrationError.self) { try older.migrate(db) }
        #expect(refused.description.hasPrefix("user_version 2: applied to the database but unknown to this app"))
    }

    @Test func userVersionStorageNeedsNumbers() throws {
        var migrator = Migrator(storage: .userVersion)
        migrator.registerMigration("2_a", sql: "CREATE TABLE a(x)")
        migrator.registerMigration("1_b", sql: "CREATE TABLE b(x)")
        let db = try Database(inMemory: Configuration())
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(
            error.description
                == "migration 1_b: number 1 does not follow 2_a (user_version storage needs increasing numbers)")
        var unnumbered = Migrator(storage: .userVersion)
        unnumbered.registerMigration("create", sql: "CREATE TABLE a(x)")
        let second = try #require(throws: MigrationError.self) { try unnumbered.migrate(db) }
        #expect(
            second.description
                == "migration create: user_version storage needs identifiers that start with a positive number")
    }
}
