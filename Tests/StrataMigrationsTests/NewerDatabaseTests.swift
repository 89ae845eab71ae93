import Foundation
import StrataMigrations
import StrataSQLite
import StrataSchema
import StrataTestSupport
import Testing

/// An older app version meeting a database a newer version migrated
/// (`Migrator.newerDatabasePolicy`, Sources/StrataMigrations/Migrator+NewerDatabase.swift):
/// opened normally, read-only, or refused, and the file's bytes never changed by the opening.
@Suite("Newer databases")
struct NewerDatabaseTests {
    /// The app's first two versions: a note table, then a folder table.
    static let v1 = "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT);"
    static let v2 = "CREATE TABLE folder(id INTEGER PRIMARY KEY, name TEXT NOT NULL);"

    /// The older build: the first two migrations, opening newer files when it can.
    static func olderBuild() -> Migrator {
        var migrator = Migrator()
        migrator.registerMigration("0001_create_note", sql: v1)
        migrator.registerMigration("0002_create_folder", sql: v2)
        migrator.newerDatabasePolicy = .openWhenCompatible
        return migrator
    }

    /// The newer build: the older one's migrations, then `newer` (identifier, SQL) pairs.
    static func newerBuild(_ newer: [(String, String)]) -> Migrator {
        var migrator = olderBuild()
        migrator.newerDatabasePolicy = .refuse
        for (identifier, sql) in newer { migrator.registerMigration(identifier, sql: sql) }
        return migrator
    }

    /// A database file at `path` with a note and a folder, then migrated by the newer build.
    static func makeNewerFile(_ path: String, _ newer: [(String, String)]) throws {
        let db = try Database(path: path)
        defer { db.close() }
        try olderBuild().migrate(db)
        try db.execute(sql: "INSERT INTO note(id, title, body) VALUES (1, 'first', 'hello')")
        try db.execute(sql: "INSERT INTO folder(id, name) VALUES (1, 'inbox')")
        try newerBuild(newer).migrate(db)
    }

    @Test func additiveNewerMigrationsOpenNormallyAndTheOldBuildReadsAndWrites() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        let newer = [
            ("0003_add_pinned", "ALTER TABLE note ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;"),
            (
                "0004_add_tag",
                "CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT); CREATE INDEX note_title ON note(title);"
            ),
        ]
        try Self.makeNewerFile(path, newer)
        let before = fileBytes(path)

        let db = try Database(path: path)
        defer { db.close() }
        let outcome = try Self.olderBuild().migrateReportingOutcome(db)
        #expect(fileBytes(path) == before, "opening wrote to the newer file")
        #expect(outcome.access == .readWrite)
        #expect(outcome.isNewerDatabase)
        #expect(outcome.applied == [])
        #expect(outcome.newerMigrations == ["0003_add_pinned", "0004_add_tag"])
        #expect(outcome.version == "0002_create_folder")
        #expect(outcome.databaseVersion == "0004_add_tag")
        #expect(outcome.readOnlyReason == nil)
        #expect(Set(outcome.findings.map(\.code)) == [.addColumn, .addTable, .addIndex])
        #expect(outcome.findings.allSatisfy { $0.level == .safe })
        #expect(outcome.message.contains("opened read-write"))

        // The older build reads and writes as it always did; the newer column gets its default.
        #expect(try db.fetchValue(String.self, sql: "SELECT title FROM note WHERE id = 1") == "first")
        try db.execute(sql: "INSERT INTO note(title, body) VALUES ('second', 'from the old build')")
        try db.execute(sql: "UPDATE folder SET name = 'archive' WHERE id = 1")
        try db.execute(sql: "DELETE FROM note WHERE id = 1")
        #expect(try db.fetchValue(Int.self, sql: "SELECT pinned FROM note WHERE title = 'second'") == 0)
        // The ledger is left as the newer build wrote it: the newer build still sees itself.
        #expect(try Self.newerBuild(newer).migrate(db) == [])
        // Plain migrate(_:) opens it the same way (applies nothing, throws nothing).
        #expect(try Self.olderBuild().migrate(db) == [])
    }

    @Test func theDefaultStillRefusesANewerDatabase() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        try Self.makeNewerFile(path, [("0003_add_tag", "CREATE TABLE tag(name TEXT);")])
        let before = fileBytes(path)
        var older = Self.olderBuild()
        older.newerDatabasePolicy = .refuse
        #expect(Migrator().newerDatabasePolicy == .refuse)
        let db = try Database(path: path)
        defer { db.close() }
        let error = try #require(throws: MigrationError.self) { try older.migrateReportingOutcome(db) }
        #expect(error.code == .unknownMigrations)
        #expect(error.migrations == ["0003_add_tag"])
        #expect(fileBytes(path) == before)
    }

    @Test(arguments: [
        (
            "0003_drop_body",
            "CREATE TABLE note_new(id INTEGER PRIMARY KEY, title TEXT NOT NULL); INSERT INTO note_new SELECT id, title FROM note; DROP TABLE note; ALTER TABLE note_new RENAME TO note;",
            CompatibilityFinding.Code.dropColumn, "note.body"
        ),
        ("0003_rename_folder", "ALTER TABLE folder RENAME TO collection;", .dropTable, "folder"),
        ("0003_drop_folder", "DROP TABLE folder;", .dropTable, "folder"),
        (
            "0003_nullable_title",
            "CREATE TABLE note_new(id INTEGER PRIMARY KEY, title TEXT, body TEXT); INSERT INTO note_new SELECT * FROM note; DROP TABLE note; ALTER TABLE note_new RENAME TO note;",
            .dropNotNull, "note.title"
        ),
    ])
    func aBreakingNewerMigrationIsRefusedNamingBothVersionsAndTheChange(
        identifier: String, sql: String, code: CompatibilityFinding.Code, object: String
    ) throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        try Self.makeNewerFile(path, [(identifier, sql), ("0004_add_tag", "CREATE TABLE tag(name TEXT);")])
        let before = fileBytes(path)
        let db = try Database(path: path)
        let error = try #require(throws: MigrationError.self) { try Self.olderBuild().migrateReportingOutcome(db) }
        db.close()
        #expect(error.code == .incompatibleNewerDatabase)
        #expect(error.migrations.prefix(2) == ["0004_add_tag", "0002_create_folder"])
        #expect(error.culprit == "0004_add_tag")
        let finding = try #require(error.compatibilityFinding)
        #expect(finding.code == code)
        #expect(finding.object == object)
        #expect(error.message.hasPrefix("0004_add_tag: "))
        #expect(error.message.contains("this version ends at 0002_create_folder"))
        #expect(error.message.contains("\(code.rawValue) \(object)"), "\(error.message)")
        #expect(error.message.hasSuffix("nothing was changed"))
        #expect(fileBytes(path) == before, "the refusal changed the file")
    }

    @Test func aChangeThatBreaksOnlyWritesOpensReadOnlyAndRefusesEveryWriteClearly() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        try Self.makeNewerFile(path, [("0003_unique_folder_name", "CREATE UNIQUE INDEX folder_name ON folder(name);")])
        let before = fileBytes(path)

        let db = try Database(path: path)
        defer { db.close() }
        let outcome = try Self.olderBuild().migrateReportingOutcome(db)
        #expect(outcome.access == .readOnly)
        #expect(outcome.newerMigrations == ["0003_unique_folder_name"])
        #expect(outcome.readOnlyReason?.code == .addUnique)
        #expect(outcome.readOnlyReason?.object == "folder_name")
        #expect(outcome.message.contains("opened read-only"))
        // Reads work.
        #expect(try db.fetchValue(String.self, sql: "SELECT name FROM folder") == "inbox")
        #expect(try db.fetchAll(sql: "SELECT * FROM note").count == 1)

        let writes = [
            "INSERT INTO folder(name) VALUES ('x')",
            "UPDATE note SET title = 'changed'",
            "DELETE FROM note",
            "CREATE TABLE extra(x)",
            "CREATE INDEX note_body ON note(body)",
            "DROP INDEX folder_name",
            "ALTER TABLE note ADD COLUMN extra TEXT",
            "PRAGMA user_version = 7",
            "PRAGMA main.application_id = 7",
            "REPLACE INTO folder(id, name) VALUES (1, 'y')",
            "INSERT INTO main.strata_migrations(identifier) VALUES ('0099_fake')",
        ]
        for sql in writes {
            let error = try #require(throws: SQLiteError.self, "\(sql)") { try db.execute(sql: sql) }
            #expect(error.resultCode == .SQLITE_AUTH, "\(sql): \(error)")
            #expect(error.message.hasPrefix("\(path): read-only for this version of the app"), "\(error.message)")
            #expect(error.message.contains("0003_unique_folder_name"), "\(error.message)")
            #expect(error.message.contains("add-unique folder_name"), "\(error.message)")
        }
        // Connection settings, transactions and the temp schema are not writes to the file.
        try db.execute(sql: "PRAGMA foreign_keys = ON")
        try db.execute(sql: "CREATE TEMP TABLE scratch(x); INSERT INTO scratch VALUES (1); DROP TABLE scratch")
        // Attached databases are not the file: they stay writable. A temp trigger writing main is refused.
        try db.execute(sql: "ATTACH ':memory:' AS aux; CREATE TABLE aux.t(x); INSERT INTO aux.t VALUES (1); DETACH aux")
        try db.execute(sql: "CREATE TEMP TABLE log(x)")
        let trigger = try #require(throws: SQLiteError.self) {
            try db.execute(
                sql:
                    "CREATE TEMP TRIGGER log_to_main AFTER INSERT ON log BEGIN INSERT INTO note(title) VALUES ('t'); END; INSERT INTO log VALUES (1)"
            )
        }
        #expect(trigger.resultCode == .SQLITE_AUTH && trigger.message.contains("read-only"), "\(trigger)")
        try db.transaction(.immediate) { _ = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM note") }
        #expect(try db.fetchValue(Int.self, sql: "PRAGMA user_version") == 0)
        #expect(fileBytes(path) == before, "a refused write reached the file")
    }

    @Test func aPoolOpenedByTheOlderBuildRefusesWritesOnItsWriter() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        try Self.makeNewerFile(path, [("0003_title_check", "CREATE TABLE tag(name TEXT CHECK (length(name) > 0));")])
        try Self.makeNewerFileAddingCheck(path)
        let pool = try DatabasePool(path: path, migrator: Self.olderBuild())
        let outcome = try await Self.olderBuild().migrateReportingOutcome(pool)
        #expect(outcome.access == .readOnly)
        #expect(outcome.readOnlyReason?.code == .addCheck)
        #expect(try await pool.read { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM note") } == 1)
        let error = await #expect(throws: (any Error).self) {
            try await pool.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('x')") }
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("read-only for this version of the app"))
        #expect(try await pool.read { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM note") } == 1)
    }

    /// Adds a newer migration that puts a CHECK on the older build's `note.title` (a rebuild).
    static func makeNewerFileAddingCheck(_ path: String) throws {
        let db = try Database(path: path)
        defer { db.close() }
        var newer = newerBuild([("0003_title_check", "CREATE TABLE tag(name TEXT CHECK (length(name) > 0));")])
        newer.registerMigration(
            "0004_note_title_check",
            sql: """
                CREATE TABLE note_new(id INTEGER PRIMARY KEY, title TEXT NOT NULL CHECK (title <> ''), body TEXT);
                INSERT INTO note_new SELECT * FROM note; DROP TABLE note; ALTER TABLE note_new RENAME TO note;
                """)
        try newer.migrate(db)
    }

    @Test func theUsualLaunchDoesNoExtraWork() throws {
        let db = try Database(inMemory: Configuration())
        try Self.olderBuild().migrate(db)
        var plain = Self.olderBuild()
        plain.newerDatabasePolicy = .refuse
        func statements(_ body: () throws -> Void) rethrows -> [String] {
            let seen = LockedValue<[String]>([])
            db.trace { event in seen.withLock { $0.append(event.sql) } }
            defer { db.trace(nil) }
            try body()
            return seen.withLock { $0 }
        }
        let refusing = try statements { _ = try plain.migrate(db) }
        let opening = try statements { _ = try Self.olderBuild().migrateReportingOutcome(db) }
        #expect(opening == refusing)
        #expect(!opening.isEmpty)
        let outcome = try Self.olderBuild().migrateReportingOutcome(db)
        #expect(!outcome.isNewerDatabase && outcome.access == .readWrite && outcome.applied.isEmpty)
    }

    // MARK: Hostile files

    @Test func aLedgerWithEditedChecksumsIsStillRefused() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        try Self.makeNewerFile(path, [("0003_add_tag", "CREATE TABLE tag(name TEXT);")])
        do {
            let db = try Database(path: path)
            try db.execute(
                sql: "UPDATE strata_migrations SET checksum = 'forged' WHERE identifier = '0001_create_note'")
            db.close()
        }
        let before = fileBytes(path)
        let db = try Database(path: path)
        defer { db.close() }
        let error = try #require(throws: MigrationError.self) { try Self.olderBuild().migrateReportingOutcome(db) }
        #expect(error.code == .checksumMismatch)
        #expect(error.migrations == ["0001_create_note"])
        #expect(fileBytes(path) == before)
    }

    @Test func aLedgerAheadOfATamperedSchemaIsJudgedByTheSchema() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        // The ledger claims a harmless newer migration; the schema lost a table the old build reads.
        try Self.makeNewerFile(path, [("0003_add_tag", "CREATE TABLE tag(name TEXT);")])
        do {
            let db = try Database(path: path)
            try db.execute(sql: "DROP TABLE folder")
            db.close()
        }
        let before = fileBytes(path)
        let db = try Database(path: path)
        let error = try #require(throws: MigrationError.self) { try Self.olderBuild().migrateReportingOutcome(db) }
        db.close()
        #expect(error.code == .incompatibleNewerDatabase)
        #expect(error.compatibilityFinding?.code == .dropTable)
        #expect(error.compatibilityFinding?.object == "folder")
        #expect(fileBytes(path) == before)
    }

    @Test func aForgedNewerRowOverTheSameSchemaOpensNormally() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        try Self.makeNewerFile(path, [])
        do {
            let db = try Database(path: path)
            try db.execute(
                sql:
                    "INSERT INTO strata_migrations(identifier, checksum) VALUES ('9999_forged', 'x'), ('hostile''; DROP TABLE note; --', NULL)"
            )
            db.close()
        }
        let before = fileBytes(path)
        let db = try Database(path: path)
        defer { db.close() }
        let outcome = try Self.olderBuild().migrateReportingOutcome(db)
        #expect(fileBytes(path) == before)
        #expect(outcome.access == .readWrite)
        #expect(outcome.newerMigrations == ["9999_forged", "hostile'; DROP TABLE note; --"])
        #expect(outcome.findings.isEmpty)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM note") == 1)
    }

    @Test func aDivergentHistoryIsRefusedAndNothingRuns() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        // Another branch: the file lacks this build's 0002 but holds a migration it does not know.
        do {
            let db = try Database(path: path)
            var other = Migrator()
            other.registerMigration("0001_create_note", sql: Self.v1)
            other.registerMigration("0002_other_branch", sql: "CREATE TABLE other(x);")
            try other.migrate(db)
            db.close()
        }
        let before = fileBytes(path)
        let db = try Database(path: path)
        defer { db.close() }
        let error = try #require(throws: MigrationError.self) { try Self.olderBuild().migrateReportingOutcome(db) }
        #expect(error.code == .unknownMigrations)
        #expect(error.migrations == ["0002_other_branch", "0002_create_folder"])
        #expect(error.message.contains("diverges"))
        #expect(fileBytes(path) == before)
    }

    @Test func userVersionStorageOpensANewerFileToo() throws {
        let db = try Database(inMemory: Configuration())
        var newer = Migrator(storage: .userVersion)
        newer.registerMigration("1", sql: Self.v1)
        newer.registerMigration("2", sql: "ALTER TABLE note ADD COLUMN color TEXT;")
        try newer.migrate(db)
        var older = Migrator(storage: .userVersion)
        older.registerMigration("1", sql: Self.v1)
        older.newerDatabasePolicy = .openWhenCompatible
        let outcome = try older.migrateReportingOutcome(db)
        #expect(outcome.access == .readWrite)
        #expect(outcome.newerMigrations == ["user_version 2"])
        #expect(outcome.findings.map(\.code) == [.addColumn])
    }

    @Test func anOlderBuildWhoseMigrationsFailOnAnEmptyDatabaseIsRefusedNamingIt() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        try Self.makeNewerFile(path, [("0003_add_tag", "CREATE TABLE tag(name TEXT);")])
        let before = fileBytes(path)
        var older = Migrator()
        older.registerMigration("0001_create_note", sql: Self.v1)
        older.registerMigration("0002_create_folder") { db in
            // Passes on the real file's history, fails when replayed on an empty database.
            if try db.fetchValue(Int.self, sql: "SELECT count(*) FROM note") == 0 {
                throw EmptyDatabaseFailure()
            }
            try db.execute(sql: Self.v2)
        }
        older.newerDatabasePolicy = .openWhenCompatible
        let db = try Database(path: path)
        defer { db.close() }
        let error = try #require(throws: MigrationError.self) { try older.migrateReportingOutcome(db) }
        #expect(error.code == .incompatibleNewerDatabase)
        #expect(error.culprit == "0002_create_folder")
        #expect(fileBytes(path) == before)
    }

    // MARK: - A restore point taken before the upgrade from this version

    /// The older build's file (a note and a folder), then upgraded by the newer build behind the
    /// airbag (a restore point taken before the upgrade from 0002_create_folder); returns the
    /// contents before the upgrade.
    static func makeNewerFileWithRestorePoint(_ path: String, _ newer: [(String, String)]) throws -> DatabaseContents {
        let db = try Database(path: path)
        defer { db.close() }
        try olderBuild().migrate(db)
        try db.execute(sql: "INSERT INTO note(id, title, body) VALUES (1, 'first', 'hello')")
        try db.execute(sql: "INSERT INTO folder(id, name) VALUES (1, 'inbox')")
        let before = try DatabaseContents(db)
        let outcome = try newerBuild(newer).migrate(db, safety: UpgradeSafety())
        #expect(outcome.kind == .upgraded)
        #expect(outcome.restorePoint?.fromVersion == "0002_create_folder")
        return before
    }

    @Test func aNewerFileThisVersionCannotReadIsRestoredFromTheRestorePointTakenBeforeTheUpgrade() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        let before = try Self.makeNewerFileWithRestorePoint(path, [("0003_drop_folder", "DROP TABLE folder;")])
        let db = try Database(path: path)
        defer { db.close() }
        let outcome = try Self.olderBuild().migrateReportingOutcome(db)
        let restored = try #require(outcome.restored, "\(outcome.message)")
        #expect(restored.isExact)
        #expect(outcome.access == .readWrite)
        #expect(outcome.newerMigrations == ["0003_drop_folder"])
        #expect(outcome.databaseVersion == "0002_create_folder")
        #expect(outcome.message.contains("restored to 0002_create_folder"), "\(outcome.message)")
        #expect(try DatabaseContents(db) == before)
        // The app goes on as usual: it writes, and the next launch is the usual one.
        try db.execute(sql: "INSERT INTO folder(name) VALUES ('archive')")
        let next = try Self.olderBuild().migrateReportingOutcome(db)
        #expect(next.restored == nil && !next.isNewerDatabase && next.applied.isEmpty)
        let status = try UpgradeStatus(forDatabaseAt: path)
        #expect(status.lastUpgrade?.phase == .restored)
        #expect(status.lastUpgrade?.restoredBecause?.contains("an older version of the app") == true)
    }

    @Test(.enabled(if: SQLiteVersion.runtime >= SQLiteVersion(3, 35, 5), "ALTER TABLE DROP COLUMN needs SQLite 3.35.5"))
    func rowsWrittenByTheNewerVersionAreCarriedBackWhenTheyFit() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        _ = try Self.makeNewerFileWithRestorePoint(path, [("0003_drop_body", "ALTER TABLE note DROP COLUMN body;")])
        do {
            let db = try Database(path: path)
            defer { db.close() }
            try db.execute(sql: "INSERT INTO note(id, title) VALUES (2, 'written by the newer version')")
        }
        let db = try Database(path: path)
        defer { db.close() }
        let outcome = try Self.olderBuild().migrateReportingOutcome(db)
        let restored = try #require(outcome.restored, "\(outcome.message)")
        #expect(!restored.isExact)
        #expect(restored.carriedForward == ["note"])
        let notes = try DatabaseContents(db).rows["note"]
        #expect(notes == [[1, 1, "first", "hello"], [2, 2, "written by the newer version", .null]])  // rowid first
        #expect(try db.fetchValue(String.self, sql: "SELECT name FROM folder") == "inbox")
        #expect(try Self.olderBuild().status(db).pending.isEmpty)
    }

    @Test func aRestoreThatWouldLoseRowsIsNotUsedAndTheRefusalSaysWhy() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        _ = try Self.makeNewerFileWithRestorePoint(
            path, [("0003_drop_folder", "DROP TABLE folder; CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT);")])
        do {
            let db = try Database(path: path)
            defer { db.close() }
            try db.execute(sql: "INSERT INTO tag(name) VALUES ('only in the newer version')")
        }
        let bytes = fileBytes(path)
        let db = try Database(path: path)
        let error = try #require(throws: MigrationError.self) { try Self.olderBuild().migrateReportingOutcome(db) }
        db.close()
        #expect(error.code == .incompatibleNewerDatabase)
        #expect(error.message.contains("was not used"), "\(error.message)")
        #expect(error.message.contains("table tag"), "\(error.message)")
        #expect(error.message.hasSuffix("nothing was changed"))
        #expect(fileBytes(path) == bytes, "the refused restore changed the file")
    }

    @Test func aConfirmedUpgradeKeepsNoRestorePointSoTheNewerFileIsRefused() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        _ = try Self.makeNewerFileWithRestorePoint(path, [("0003_drop_folder", "DROP TABLE folder;")])
        try UpgradeSafety.confirmUpgrade(ofDatabaseAt: path)
        #expect(try RestorePoint.all(forDatabaseAt: path).isEmpty)
        let bytes = fileBytes(path)
        let db = try Database(path: path)
        let error = try #require(throws: MigrationError.self) { try Self.olderBuild().migrateReportingOutcome(db) }
        db.close()
        #expect(error.code == .incompatibleNewerDatabase)
        #expect(!error.message.contains("restore point"), "\(error.message)")
        #expect(fileBytes(path) == bytes)
    }

    struct EmptyDatabaseFailure: Error {}
}
