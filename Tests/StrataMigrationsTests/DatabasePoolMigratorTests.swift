import Foundation
import StrataMigrations
import StrataSQLite
import StrataTestSupport
import Testing

@Suite("Database pool and the migrator", .timeLimit(.minutes(3)))
struct DatabasePoolMigratorTests {
    /// Reads submitted right after opening see the migrated schema and data.
    @Test func poolMigratesBeforeServing() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("app.sqlite")
        let pool = try DatabasePool(path: path, migrator: sampleMigrator())
        let names = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await pool.read { db in try db.fetchColumn(String.self, sql: "SELECT name FROM player") }
                }
            }
            return try await group.reduce(into: []) { $0.append(contentsOf: $1) }
        }
        #expect(names == Array(repeating: "Ann", count: 8))
        let applied = try await pool.read { db in try sampleMigrator().appliedMigrations(db) }
        #expect(applied == ["0001_create_team", "0002_create_player", "0003_seed"])
        await pool.close()

        // Reopening applies only what is new.
        var migrator = sampleMigrator()
        migrator.registerMigration(
            "0004_add_score", sql: "ALTER TABLE player ADD COLUMN score INTEGER NOT NULL DEFAULT 0")
        let reopened = try DatabasePool(path: path, migrator: migrator)
        let scores = try await reopened.read { db in try db.fetchColumn(Int.self, sql: "SELECT score FROM player") }
        #expect(scores == [0])
        // 0003_seed did not run twice.
        #expect(try await reopened.read { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM team") } == 1)
        let finalMigrator = migrator
        let reapplied = try await reopened.read { db in try finalMigrator.appliedMigrations(db) }
        #expect(reapplied.last == "0004_add_score")
        await reopened.close()
    }

    /// A failing migration: every caller gets the migration error; earlier migrations stay applied.
    @Test func failingMigrationIsReportedToEveryCaller() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("app.sqlite")
        var migrator = sampleMigrator()
        migrator.registerMigration("0004_broken", sql: "ALTER TABLE nowhere ADD COLUMN x")
        let pool = try DatabasePool(path: path, migrator: migrator)
        var errors: [any Error] = []
        for write in [false, true, false] {
            do {
                if write {
                    try await pool.write { db in try db.execute(sql: "DELETE FROM player") }
                } else {
                    _ = try await pool.read { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") }
                }
                Issue.record("the pool served an access")
            } catch {
                errors.append(error)
            }
        }
        #expect(errors.count == 3)
        for error in errors {
            let accessError = try #require(error as? DatabaseAccessError)
            #expect(accessError.code == .preparationFailed)
            let migrationError = try #require(accessError.underlyingError as? MigrationError)
            #expect(migrationError.code == .migrationFailed)
            #expect("\(accessError)".contains("0004_broken"))
            #expect("\(accessError)".contains("no such table: nowhere"))
        }
        await pool.close()
        let db = try Database(path: path)
        #expect(try sampleMigrator().appliedMigrations(db) == ["0001_create_team", "0002_create_player", "0003_seed"])
        db.close()
    }

    @Test func inMemoryQueueWithMigrator() async throws {
        let dbQueue = try DatabaseQueue(migrator: sampleMigrator())
        #expect(try await dbQueue.read { db in try db.fetchValue(String.self, sql: "SELECT name FROM team") } == "red")
        await dbQueue.close()
    }
}
