import Foundation
import StrataMigrations
import StrataSQLite
import StrataTestSupport
import Testing

@Suite("Migration error shape: code, culprit, cause")
struct MigrationErrorShapeTests {
    @Test func failedMigrationNamesItselfAndKeepsTheSQLiteError() throws {
        let db = try Database(inMemory: Configuration())
        var migrator = Migrator()
        migrator.registerMigration("0001_ok", sql: "CREATE TABLE a(x);")
        migrator.registerMigration("0002_broken", sql: "INSERT INTO nowhere VALUES (1);")
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.code == .migrationFailed)
        let shaped = try #require(error as any Error as? any StrataError)
        #expect(shaped.culprit == "0002_broken")
        #expect((shaped.underlyingError as? SQLiteError)?.code == .SQLITE_ERROR)
    }

    @Test func malformedFolderNamesTheFile() throws {
        let dir = TemporaryDirectory()
        try "SELECT 1;".write(toFile: dir.file("create_b.sql"), atomically: true, encoding: .utf8)
        let error = try #require(throws: MigrationError.self) { try MigrationDirectory(path: dir.path) }
        #expect(error.code == .invalidMigrationFile)
        #expect(error.culprit == "create_b.sql")
    }
}
