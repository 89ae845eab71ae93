import Foundation
import StrataMigrations
import StrataSQLite
import StrataTestSupport
import Testing

/// Refusals before anything runs: newer databases, edited migrations; development mode.
@Suite("Migrator safety")
struct MigratorSafetyTests {
    @Test func newerDatabaseIsRefusedAndNothingRuns() throws {
        var newer = sampleMigrator()
        newer.registerMigration("0004_add_tags", sql: "CREATE TABLE tag(name TEXT)")
        newer.registerMigration("0005_add_color", sql: "ALTER TABLE team ADD COLUMN color TEXT")
        let db = try Database(inMemory: Configuration())
        try newer.migrate(db)

        var older = Migrator()
        older.registerMigration("0001_create_team", sql: try #require(newer.migrations.first?.sql))
        older.registerMigration("0002_create_player", sql: try #require(newer.migrations.dropFirst().first?.sql))
        older.registerMigration("0003_other", sql: "CREATE TABLE other(x)")  // pending, must not run
        let before = try snapshot(db)
        let error = try #require(throws: MigrationError.self) { try older.migrate(db) }
        #expect(error.code == .unknownMigrations)
        #expect(error.migrations == ["0003_seed", "0004_add_tags", "0005_add_color"])
        #expect(
            error.description
                == "0003_seed, 0004_add_tags, 0005_add_color: applied to the database but unknown to this app (migrated by a newer version?); nothing was migrated"
        )
        #expect(try snapshot(db) == before)
        #expect(try older.status(db).unknown == ["0003_seed", "0004_add_tags", "0005_add_color"])

        older.refusesUnknownMigrations = false
        #expect(try older.migrate(db) == ["0003_other"])
    }

    @Test func editedMigrationIsAnErrorByDefault() throws {
        let db = try Database(inMemory: Configuration())
        try sampleMigrator().migrate(db)
        var edited = Migrator()
        edited.registerMigration("0001_create_team", sql: "CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);")
        edited.registerMigration(
            "0002_create_player", sql: try #require(sampleMigrator().migrations.dropFirst().first?.sql))
        edited.registerMigration("0003_seed") { _ in }
        edited.registerMigration("0004_new", sql: "CREATE TABLE new(x)")
        let before = try snapshot(db)

        let error = try #require(throws: MigrationError.self) { try edited.migrate(db) }
        #expect(error.code == .checksumMismatch)
        #expect(error.migrations == ["0001_create_team"])
        #expect(error.description.hasPrefix("0001_create_team: edited after it was applied (checksum "))
        #expect(error.description.hasSuffix("; nothing was migrated"))
        #expect(try snapshot(db) == before)
        #expect(try edited.status(db).checksumMismatches.map(\.identifier) == ["0001_create_team"])
    }

    @Test func editedMigrationCanBeAWarning() throws {
        let db = try Database(inMemory: Configuration())
        try sampleMigrator().migrate(db)
        var edited = Migrator()
        edited.registerMigration("0001_create_team", sql: "CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);")
        edited.registerMigration(
            "0002_create_player", sql: try #require(sampleMigrator().migrations.dropFirst().first?.sql))
        edited.registerMigration("0003_seed") { _ in }
        edited.registerMigration("0004_new", sql: "CREATE TABLE new(x)")
        edited.checksumMismatchPolicy = .warn
        let recorder = EventRecorder()
        edited.eventHandler = recorder.handler
        #expect(try edited.migrate(db) == ["0004_new"])
        let warning = try #require(recorder.all.first)
        guard case .checksumMismatch(let id, let recorded, let current) = warning else {
            Issue.record("expected a checksum warning first, got \(warning)")
            return
        }
        #expect(id == "0001_create_team")
        #expect(recorded == sampleMigrator().migrations.first?.checksum)
        #expect(current == edited.migrations.first?.checksum)
    }

    @Test func developmentModeErasesAndLogsWhatChanged() throws {
        let db = try Database(inMemory: Configuration())
        try sampleMigrator().migrate(db)
        try db.execute(sql: "INSERT INTO team(name) VALUES ('blue')")

        var edited = Migrator()
        edited.registerMigration(
            "0001_create_team", sql: "CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT, color TEXT);")
        edited.registerMigration(
            "0002_create_player", sql: try #require(sampleMigrator().migrations.dropFirst().first?.sql))
        edited.eraseDatabaseOnChange = true
        let recorder = EventRecorder()
        edited.eventHandler = recorder.handler
        try edited.migrate(db)
        #expect(
            recorder.lines.first
                == "erasing the database (development mode): migration 0003_seed was removed (applied, no longer registered); migration 0001_create_team was edited after it was applied"
        )
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM team") == 0)
        #expect(
            try db.fetchColumn(String.self, sql: "SELECT name FROM pragma_table_info('team')") == [
                "id", "name", "color",
            ])
        #expect(try edited.appliedMigrations(db) == ["0001_create_team", "0002_create_player"])
        #expect(try db.foreignKeysEnabled())
    }

    @Test func developmentModeDetectsAnEditedClosureThroughTheSchema() throws {
        let db = try Database(inMemory: Configuration())
        var original = Migrator()
        original.registerMigration("1_create") { db in
            try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
        }
        try original.migrate(db)

        var edited = Migrator()
        edited.registerMigration("1_create") { db in
            try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        }
        edited.eraseDatabaseOnChange = true
        #expect(
            try edited.changesRequiringErase(db) == [
                "table note: column body expected `body TEXT NOT NULL`, found `body TEXT`"
            ])
        let recorder = EventRecorder()
        edited.eventHandler = recorder.handler
        try edited.migrate(db)
        #expect(
            recorder.lines.first
                == "erasing the database (development mode): table note: column body expected `body TEXT NOT NULL`, found `body TEXT`"
        )
        #expect(try edited.changesRequiringErase(db) == [])
    }

    @Test func developmentModeLeavesAConsistentDatabaseAlone() throws {
        let db = try Database(inMemory: Configuration())
        var migrator = sampleMigrator()
        try migrator.migrate(db)
        try db.execute(sql: "INSERT INTO team(name) VALUES ('blue')")
        migrator.eraseDatabaseOnChange = true
        let recorder = EventRecorder()
        migrator.eventHandler = recorder.handler
        #expect(try migrator.migrate(db) == [])
        #expect(recorder.lines.isEmpty)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM team") == 2)
    }
}
