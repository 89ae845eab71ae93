import Foundation
import StrataMigrations
import StrataSQLite
import StrataSchema
import StrataTestSupport
import Testing

@Suite("Database pool and the schema engine", .timeLimit(.minutes(3)))
struct DatabasePoolSchemaTests {
    static let v1 = """
        CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        """
    static let v2 = """
        CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX player_score ON player(score);
        """

    /// The pool brings the file to the declarative schema before serving; reopening with a
    /// newer schema evolves it and keeps the rows.
    @Test func poolAppliesTheDeclarativeSchemaBeforeServing() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("app.sqlite")
        let pool = try DatabasePool(path: path, schema: Self.v1)
        try await pool.write { db in try db.execute(sql: "INSERT INTO player(name) VALUES ('Ann'), ('Bob')") }
        await pool.close()

        let evolved = try DatabasePool(path: path, schema: Self.v2)
        let scores = try await evolved.read { db in
            try db.fetchColumn(Int.self, sql: "SELECT score FROM player ORDER BY id")
        }
        #expect(scores == [0, 0])
        let index = try await evolved.read { db in
            try db.fetchValue(
                String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'player_score'")
        }
        #expect(index == "player_score")
        let journal = try await evolved.read { db in try db.fetchValue(String.self, sql: "PRAGMA journal_mode") }
        #expect(journal == "wal")
        await evolved.close()
    }

    /// The launch fast path (issue 15): a pool reopened with the same schema finds the fingerprint
    /// its first open recorded; a versioned migration run in between makes the next open plan in full.
    @Test func reopeningWithTheSameSchemaUsesTheFingerprintUntilTheMigratorChangesTheFile() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("app.sqlite")
        try await DatabasePool(path: path, schema: Self.v2).close()
        let db = try Database(path: path)
        #expect(try db.migrateSchema(to: Self.v2).isVerifiedByFingerprint)
        var migrator = Migrator()
        migrator.registerMigration("add-team", sql: "CREATE TABLE team(id INTEGER PRIMARY KEY)")
        try migrator.migrate(db)
        // The migrator's table is not in the declarative schema: planned, and refused as a drop.
        #expect(throws: SchemaError.self) { try db.migrateSchema(to: Self.v2) }
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'team'") == 1)
        // A migration that runs migrateSchema(to:) inside its own transaction records it there.
        var declarative = Migrator()
        declarative.registerMigration("add-team", sql: "CREATE TABLE team(id INTEGER PRIMARY KEY)")
        declarative.registerMigration("to-v2") { db in
            try db.migrateSchema(to: Self.v2, options: SchemaChangeOptions(allowDestructive: true))
        }
        try declarative.migrate(db)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'team'") == 0)
        #expect(try db.migrateSchema(to: Self.v2).isVerifiedByFingerprint)
        db.close()
    }

    /// A destructive change is refused by default: every access reports it, the file is unchanged.
    @Test func refusedDestructiveChangeIsReportedAndLeavesTheFileUnchanged() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("app.sqlite")
        let pool = try DatabasePool(path: path, schema: Self.v2)
        try await pool.write { db in try db.execute(sql: "INSERT INTO player(name, score) VALUES ('Ann', 7)") }
        await pool.close()

        let shrunk = try DatabasePool(path: path, schema: Self.v1)
        let error = await caughtAccessError {
            try await shrunk.read { db in try db.fetchValue(Int.self, sql: "SELECT 1") }
        }
        #expect(error?.code == .preparationFailed)
        let schemaError = try #require(error?.underlyingError as? SchemaError)
        #expect(schemaError.code == .destructiveChangesRefused)
        #expect(schemaError.destructiveChanges.contains { $0.contains("score") })
        await shrunk.close()

        let db = try Database(path: path)
        #expect(try db.fetchValue(Int.self, sql: "SELECT score FROM player") == 7)
        db.close()
    }

    @Test func inMemoryQueueWithSchema() async throws {
        let dbQueue = try DatabaseQueue(schema: Self.v2)
        try await dbQueue.write { db in try db.execute(sql: "INSERT INTO player(name) VALUES ('Ann')") }
        #expect(try await dbQueue.read { db in try db.fetchValue(Int.self, sql: "SELECT score FROM player") } == 0)
        await dbQueue.close()
    }

    @Test func invalidSchemaSQLIsReported() async throws {
        let dbQueue = try DatabaseQueue(schema: "CREATE TABLE player(id INTEGER PRIMARY KEY,)")
        let error = await caughtAccessError { try await dbQueue.write { _ in } }
        let schemaError = try #require(error?.underlyingError as? SchemaError)
        #expect(schemaError.code == .invalidSQL)
        #expect(error.map { "\($0)" }?.contains("CREATE TABLE player") == true)
        await dbQueue.close()
    }

    private func caughtAccessError<T>(_ body: () async throws -> T) async -> DatabaseAccessError? {
        do {
            _ = try await body()
            Issue.record("expected an error")
            return nil
        } catch {
            #expect(error is DatabaseAccessError, "\(error)")
            return error as? DatabaseAccessError
        }
    }
}
