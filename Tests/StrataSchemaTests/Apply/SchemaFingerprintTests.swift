import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// The launch fast path of `migrateSchema(to:)` (issue 15): an unchanged launch returns at once,
/// and nothing (a change behind Strata's back, a restored backup, another planner version, an
/// edited or forged fingerprint row) can make it skip a plan that was needed.
@Suite("Launch fast path: schema fingerprint")
struct SchemaFingerprintTests {
    static let v1 = """
        CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE book(id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES author(id), title TEXT NOT NULL);
        CREATE INDEX book_author ON book(author_id);
        CREATE VIEW titles AS SELECT title FROM book;
        """
    static let v2 = v1 + "\nCREATE INDEX book_title ON book(title);"

    func open(_ path: String) throws -> Database { try Database(path: path) }

    /// The schema and every row, without Strata's fingerprint table (which a plan may write).
    func userState(_ db: Database) throws -> DatabaseContents {
        var snapshot = try DatabaseContents(db)
        snapshot.schema.removeAll { $0.contains(SchemaFingerprint.tableName) }
        snapshot.rows[SchemaFingerprint.tableName] = nil
        return snapshot
    }

    func fingerprintRow(_ db: Database) throws -> [SQLValue]? {
        try db.fetchOne(sql: "SELECT desired, schema_version, master FROM \(SchemaFingerprint.tableName)")?.values
    }

    @Test func xxh64MatchesTheReferenceVectors() {
        // From the xxHash specification's test vectors and the Python `xxhash` documentation.
        #expect(XXH64.hash("") == 0xEF46_DB37_51D8_E999)
        #expect(XXH64.hash("abc") == 0x44BC_2CF5_AD77_0999)
        #expect(XXH64.hash("Nobody inspects the spammish repetition") == 0xFBCE_A83C_8A37_8BF1)
    }

    @Test func anUnchangedLaunchTakesTheFastPathAndStillReportsTheSchema() throws {
        let dir = TemporaryDirectory()
        let db = try open(dir.file("app.sqlite"))
        let first = try db.migrateSchema(to: Self.v1)
        #expect(!first.isEmpty && !first.isVerifiedByFingerprint)
        #expect(try fingerprintRow(db) != nil)
        let second = try db.migrateSchema(to: Self.v1)
        #expect(second.isEmpty && second.isVerifiedByFingerprint)
        // The fast path's plan still tells the truth about the schema.
        #expect(second.desired == (try DatabaseSchema(sql: Self.v1)))
        #expect(second.base == (try DatabaseSchema.read(from: db)))
        // A new connection (an app launch) too.
        db.close()
        #expect(try open(dir.file("app.sqlite")).migrateSchema(to: Self.v1).isVerifiedByFingerprint)
    }

    @Test func theTableIsStratasOwn() throws {
        let dir = TemporaryDirectory()
        let db = try open(dir.file("app.sqlite"))
        try db.migrateSchema(to: Self.v1)
        // Introspection ignores it, a destructive plan does not drop it, a desired schema may not declare it.
        #expect(try DatabaseSchema.read(from: db).table(named: SchemaFingerprint.tableName) == nil)
        let other = "CREATE TABLE other(id INTEGER PRIMARY KEY);"
        let plan = try db.migrateSchema(to: other, options: SchemaChangeOptions(allowDestructive: true))
        #expect(!plan.statements.contains { $0.contains(SchemaFingerprint.tableName) })
        #expect(try db.migrateSchema(to: other).isVerifiedByFingerprint)
        #expect(throws: SchemaError.self) {
            try DatabaseSchema(sql: "CREATE TABLE \(SchemaFingerprint.tableName)(id INTEGER PRIMARY KEY);")
        }
    }

    @Test func anEmptyFullPlanRecordsTheFingerprintToo() throws {
        let dir = TemporaryDirectory()
        let db = try open(dir.file("app.sqlite"))
        try db.execute(sql: Self.v1)  // created without Strata
        let first = try db.migrateSchema(to: Self.v1)
        #expect(first.isEmpty && !first.isVerifiedByFingerprint)
        #expect(try db.migrateSchema(to: Self.v1).isVerifiedByFingerprint)
    }

    @Test func aSchemaChangedBehindStratasBackIsPlanned() throws {
        let dir = TemporaryDirectory()
        let db = try open(dir.file("app.sqlite"))
        try db.migrateSchema(to: Self.v1)
        try db.execute(sql: "CREATE INDEX sneaky ON author(name)")
        let plan = try db.migrateSchema(to: Self.v1)
        #expect(!plan.isVerifiedByFingerprint)
        #expect(plan.steps.map(\.kind) == [.dropIndex])
        #expect(try DatabaseSchema.read(from: db) == (try DatabaseSchema(sql: Self.v1)))
    }

    @Test func aSchemaVersionSetBackByHandIsCaughtBySqliteMasterDigest() throws {
        let dir = TemporaryDirectory()
        let db = try open(dir.file("app.sqlite"))
        try db.migrateSchema(to: Self.v1)
        let version = try #require(try db.fetchValue(Int.self, sql: "PRAGMA schema_version"))
        try db.execute(sql: "DROP VIEW titles; CREATE VIEW titles AS SELECT id FROM book")
        try db.execute(sql: "PRAGMA schema_version = \(version)")
        #expect(try db.fetchValue(Int.self, sql: "PRAGMA schema_version") == version)
        db.close()
        let reopened = try open(dir.file("app.sqlite"))
        let plan = try reopened.migrateSchema(to: Self.v1)
        #expect(!plan.isVerifiedByFingerprint)
        #expect(plan.steps.map(\.kind) == [.dropView, .createView])
        #expect(try DatabaseSchema.read(from: reopened) == (try DatabaseSchema(sql: Self.v1)))
    }

    @Test func aRowCopiedFromAnotherFileWithTheSameSchemaVersionIsNotBelieved() throws {
        let dir = TemporaryDirectory()
        let a = try open(dir.file("a.sqlite"))
        try a.migrateSchema(to: Self.v1)
        let row = try #require(try fingerprintRow(a))
        let version = try #require(try a.fetchValue(Int.self, sql: "PRAGMA schema_version"))
        // Another file with another schema, the row and schema_version copied over.
        let b = try open(dir.file("b.sqlite"))
        try b.migrateSchema(to: "CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT);")
        try b.execute(
            sql: "UPDATE \(SchemaFingerprint.tableName) SET desired = ?, schema_version = ?, master = ?",
            arguments: [row[0], row[1], row[2]])
        try b.execute(sql: "PRAGMA schema_version = \(version)")
        let before = try userState(b)
        let plan = try b.migrateSchema(to: Self.v1, options: SchemaChangeOptions(allowDestructive: true))
        #expect(!plan.isVerifiedByFingerprint && !plan.isEmpty)
        #expect(try userState(b) != before)
        #expect(try DatabaseSchema.read(from: b) == (try DatabaseSchema(sql: Self.v1)))
    }

    @Test func aRestoredBackupIsPlannedForTheCurrentText() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        var db = try open(path)
        try db.migrateSchema(to: Self.v1)
        try db.execute(sql: "INSERT INTO author(name) VALUES ('Ann')")
        db.close()
        try FileManager.default.copyItem(atPath: path, toPath: dir.file("backup.sqlite"))
        db = try open(path)
        try db.migrateSchema(to: Self.v2)
        #expect(try db.migrateSchema(to: Self.v2).isVerifiedByFingerprint)
        db.close()
        // The backup comes back: its row describes v1, not v2.
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: dir.file("backup.sqlite"), toPath: path)
        db = try open(path)
        let plan = try db.migrateSchema(to: Self.v2)
        #expect(!plan.isVerifiedByFingerprint)
        #expect(plan.steps.map(\.object) == ["book_title"])
        #expect(try db.fetchValue(String.self, sql: "SELECT name FROM author") == "Ann")
        #expect(try db.migrateSchema(to: Self.v2).isVerifiedByFingerprint)
    }

    @Test func anotherPlannerVersionOrSqliteVersionOrOptionsIsAnotherFingerprint() throws {
        let dir = TemporaryDirectory()
        let db = try open(dir.file("app.sqlite"))
        try db.migrateSchema(to: Self.v1)
        let current = SchemaFingerprint(sql: Self.v1, options: SchemaChangeOptions(), db: db)
        #expect(current.matches(db))
        #expect(
            !SchemaFingerprint(
                sql: Self.v1, options: SchemaChangeOptions(), db: db,
                plannerVersion: SchemaFingerprint.plannerVersion + 1
            ).matches(db))
        #expect(
            !SchemaFingerprint(
                sql: Self.v1, options: SchemaChangeOptions(), db: db,
                plannerVersion: SchemaFingerprint.plannerVersion - 1
            ).matches(db))
        #expect(!SchemaFingerprint(sql: Self.v1, options: SchemaChangeOptions(exactNames: true), db: db).matches(db))
        #expect(!SchemaFingerprint(sql: Self.v1 + " ", options: SchemaChangeOptions(), db: db).matches(db))
        #expect(
            !SchemaFingerprint(sql: Self.v1, options: SchemaChangeOptions(useNativeAlter: false), db: db).matches(db))
        // Allowing destructive changes or not makes no difference to a database that needs none.
        #expect(
            SchemaFingerprint(sql: Self.v1, options: SchemaChangeOptions(allowDestructive: true), db: db).matches(db))
        #expect(
            !SchemaFingerprint(sql: Self.v1, options: SchemaChangeOptions(renames: [.table("a", to: "b")]), db: db)
                .matches(db))
        var limited = Configuration()
        limited.capabilityLimit = SQLiteVersion(3, 26, 0)
        let old = try Database(path: dir.file("app.sqlite"), configuration: limited)
        #expect(!SchemaFingerprint(sql: Self.v1, options: SchemaChangeOptions(), db: old).matches(old))
        // A full plan runs for the other options, and records them.
        let plan = try db.migrateSchema(to: Self.v1, options: SchemaChangeOptions(useNativeAlter: false))
        #expect(plan.isEmpty && !plan.isVerifiedByFingerprint)
        #expect(
            try db.migrateSchema(to: Self.v1, options: SchemaChangeOptions(useNativeAlter: false))
                .isVerifiedByFingerprint)
    }

    @Test(arguments: [
        "DROP TABLE strata_schema_fingerprint",
        "DELETE FROM strata_schema_fingerprint",
        "UPDATE strata_schema_fingerprint SET desired = desired + 1",
        "UPDATE strata_schema_fingerprint SET master = master + 1",
        "UPDATE strata_schema_fingerprint SET schema_version = schema_version - 1",
        "UPDATE strata_schema_fingerprint SET desired = NULL",
    ])
    func aMissingOrEditedFingerprintRunsTheFullPlan(_ edit: String) throws {
        let dir = TemporaryDirectory()
        let db = try open(dir.file("app.sqlite"))
        try db.migrateSchema(to: Self.v1)
        try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
        try? db.execute(sql: edit)  // NOT NULL refuses the last one: then the row is intact
        let plan = try db.migrateSchema(to: Self.v1)
        if edit.contains("NULL") {
            #expect(plan.isVerifiedByFingerprint)
        } else {
            #expect(!plan.isVerifiedByFingerprint && plan.isEmpty)
            // The full plan recorded a fresh row.
            #expect(try db.migrateSchema(to: Self.v1).isVerifiedByFingerprint)
        }
    }

    @Test func aHandInsertedRowWithoutTheTrueDigestIsNotBelieved() throws {
        let dir = TemporaryDirectory()
        let db = try open(dir.file("app.sqlite"))
        try db.execute(sql: "CREATE TABLE author(id INTEGER PRIMARY KEY)")
        let fingerprint = SchemaFingerprint(sql: Self.v1, options: SchemaChangeOptions(), db: db)
        try db.execute(
            sql: """
                CREATE TABLE strata_schema_fingerprint(id INTEGER PRIMARY KEY, desired, schema_version, master, planner_version, sqlite_version);
                """)
        let version = try #require(try db.fetchValue(Int64.self, sql: "PRAGMA schema_version"))
        try db.execute(
            sql: "INSERT INTO strata_schema_fingerprint VALUES (1, ?, ?, 0, 1, '')",
            arguments: [fingerprint.desired, version])
        let plan = try db.migrateSchema(to: Self.v1, options: SchemaChangeOptions(allowDestructive: true))
        #expect(!plan.isVerifiedByFingerprint && !plan.isEmpty)
        #expect(try DatabaseSchema.read(from: db) == (try DatabaseSchema(sql: Self.v1)))
    }

    @Test func aFailedApplyRecordsNothing() throws {
        let dir = TemporaryDirectory()
        let db = try open(dir.file("app.sqlite"))
        try db.migrateSchema(to: Self.v1)
        let row = try fingerprintRow(db)
        try db.execute(sql: "INSERT INTO author(id, name) VALUES (1, 'Ann'), (2, 'Ann')")
        let unique = Self.v1.replacingOccurrences(of: "name TEXT NOT NULL", with: "name TEXT NOT NULL UNIQUE")
        let before = try DatabaseContents(db)
        #expect(throws: SchemaError.self) { try db.migrateSchema(to: unique) }
        #expect(try DatabaseContents(db) == before)
        #expect(try fingerprintRow(db) == row)
        #expect(throws: SchemaError.self) { try db.migrateSchema(to: unique) }
        // A refused destructive change records nothing either.
        #expect(throws: SchemaError.self) {
            try db.migrateSchema(to: "CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);")
        }
        #expect(try DatabaseContents(db) == before)
    }

    @Test func theRowIsWrittenInTheApplyingTransaction() throws {
        let dir = TemporaryDirectory()
        let db = try open(dir.file("app.sqlite"))
        // Inside the caller's transaction (a migration): rolled back with it.
        #expect(throws: CancellationError.self) {
            try db.transaction {
                try db.migrateSchema(to: Self.v1)
                #expect(try fingerprintRow(db) != nil)
                throw CancellationError()
            } as Void
        }
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 0)
    }

    @Test func aReadOnlyDatabaseStillMigratesToAnUnchangedSchema() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        try open(path).execute(sql: Self.v1)
        var configuration = Configuration()
        configuration.openMode = .readOnly
        let db = try Database(path: path, configuration: configuration)
        let plan = try db.migrateSchema(to: Self.v1)
        #expect(plan.isEmpty && !plan.isVerifiedByFingerprint)
        #expect(
            try open(path).fetchValue(
                Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'strata_schema_fingerprint'") == 0)
    }

    @Test func recordingAfterAnEmptyPlanNeverWaitsForAnotherWriter() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        try open(path).execute(sql: Self.v1)  // rollback journal: readers go on beside a writer's RESERVED lock
        let other = try open(path)
        try other.execute(sql: "BEGIN IMMEDIATE")
        var configuration = Configuration()
        configuration.busyTimeout = 60
        let db = try Database(path: path, configuration: configuration)
        let start = Date()
        let plan = try db.migrateSchema(to: Self.v1)
        #expect(Date().timeIntervalSince(start) < 30, "waited for the lock")
        #expect(plan.isEmpty && !plan.isVerifiedByFingerprint)
        #expect(db.busyTimeoutMilliseconds == 60_000, "the busy handler is installed again")
        try other.execute(sql: "ROLLBACK")
        // Once the lock is free, the next call records it.
        #expect(!(try db.migrateSchema(to: Self.v1)).isVerifiedByFingerprint)
        #expect(try db.migrateSchema(to: Self.v1).isVerifiedByFingerprint)
    }

    /// Skipping the recording without waiting must not leave the connection without its busy
    /// handler: a later write still waits for the lock (here until the handler, called while it
    /// waits, has the other process let go) instead of failing at once.
    @Test func theConnectionStillWaitsForLocksAfterARecordingSkipped() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        try open(path).execute(sql: "PRAGMA journal_mode = WAL; " + Self.v1)  // WAL: reads go on beside the lock
        let holder = try LockHolder(path: path)
        let released = LockedValue(false)
        var configuration = Configuration()
        configuration.busyTimeout = 60
        configuration.busyWaitHandler = { seconds in
            guard seconds >= 0.05 else { return }
            let first = released.withLock { done in
                defer { done = true }
                return !done
            }
            if first { holder.release() }
        }
        let db = try Database(path: path, configuration: configuration)
        let plan = try db.migrateSchema(to: Self.v1)
        #expect(plan.isEmpty && !plan.isVerifiedByFingerprint, "the lock is held: not recorded")
        #expect(!released.withLock { $0 }, "the recording did not wait")
        try db.execute(sql: "CREATE TABLE waited(x); DROP TABLE waited")
        #expect(released.withLock { $0 }, "the write waited until the lock was released")
    }
}

/// The Swift DSL's `migrateSchema(to:)` goes through the same fingerprint: an unchanged database
/// is decided "nothing to do" without a plan.
@Suite("Launch fast path through the DSL")
struct DSLFingerprintTests {
    @Test func unchangedDefinitionTakesTheFastPath() throws {
        let dir = TemporaryDirectory("strata-dsl-fingerprint")
        let path = dir.file("db.sqlite")
        let schema = SchemaDefinition { s in
            s.table("player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
            }
        }
        let db = try Database(path: path)
        defer { db.close() }
        let first = try db.migrateSchema(to: schema)
        #expect(!first.isEmpty && !first.isVerifiedByFingerprint)
        let second = try db.migrateSchema(to: schema)
        #expect(second.isEmpty && second.isVerifiedByFingerprint)
        // A changed definition is planned in full.
        let changed = SchemaDefinition { s in
            s.table("player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("score", .integer)
            }
        }
        let third = try db.migrateSchema(to: changed)
        #expect(third.steps.map(\.kind) == [.addColumn])
    }
}
