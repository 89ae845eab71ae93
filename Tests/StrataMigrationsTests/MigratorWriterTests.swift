import StrataMigrations
import StrataSQLite
import StrataTestSupport
import Testing

/// Migrating through a `DatabaseQueue` or a `DatabasePool`.
@Suite("Migrator on a DatabaseWriter", .timeLimit(.minutes(3)))
struct MigratorWriterTests {
    @Test func migratesAPoolAsynchronously() async throws {
        let dir = TemporaryDirectory()
        let pool = try DatabasePool(path: dir.file("app.sqlite"))
        let migrator = sampleMigrator()
        #expect(try await migrator.migrate(pool) == ["0001_create_team", "0002_create_player", "0003_seed"])
        #expect(try await migrator.migrate(pool) == [])
        let names = try await pool.read { db in try db.fetchColumn(String.self, sql: "SELECT name FROM team") }
        #expect(names == ["red"])
        await pool.close()
    }

    @Test func migratesAQueueSynchronously() throws {
        let queue = try DatabaseQueue()
        let migrator = sampleMigrator()
        #expect(try migrator.migrate(queue).count == 3)
        #expect(try queue.read { db in try migrator.hasCompletedMigrations(db) })
        queue.close()
    }
}
