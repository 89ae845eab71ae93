import Foundation
import StrataMigrations
import StrataSQLite
import Testing

/// A closure migration has no checksum: its identifier is its identity. What happens when its
/// code changes after it was applied (documented in the Migrations article).
@Suite("Closure migration identity")
struct ClosureMigrationIdentityTests {
    private func migrator(noteColumn: String) -> Migrator {
        var migrator = Migrator()
        migrator.registerMigration("0001_create_note", sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);")
        migrator.registerMigration("0002_add_column") { db in
            try db.execute(sql: "ALTER TABLE note ADD COLUMN \(noteColumn) TEXT")
        }
        return migrator
    }

    @Test func changedClosureCodeIsNotDetectedButTheSchemaDriftIs() throws {
        let db = try Database(inMemory: Configuration())
        let before = migrator(noteColumn: "title")
        try before.migrate(db)
        #expect(try before.status(db).unverifiable == ["0002_add_column"], "no checksum to compare")
        #expect(try before.schemaDrift(db) == [])

        // The closure's code changes after the database applied it.
        let after = migrator(noteColumn: "subject")
        let status = try after.status(db)
        #expect(status.checksumMismatches.isEmpty, "a code change cannot be seen: no checksum")
        #expect(status.pending.isEmpty, "the identifier says it is applied: it does not run again")
        #expect(status.unverifiable == ["0002_add_column"])
        #expect(try after.migrate(db) == [])
        // What the database has and what the migrations now produce differ: drift says so.
        #expect(
            try after.schemaDrift(db) == [
                "table note: column subject is missing", "table note: column title is not expected",
            ])
        #expect(try after.changesRequiringErase(db) == (try after.schemaDrift(db)))
    }

    @Test func sqlMigrationsAreVerifiable() throws {
        let db = try Database(inMemory: Configuration())
        var migrator = Migrator()
        migrator.registerMigration("0001_create_note", sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);")
        try migrator.migrate(db)
        #expect(try migrator.status(db).unverifiable == [])
        // An out-of-band change is drift.
        try db.execute(sql: "CREATE INDEX note_body ON note(body)")
        #expect(try migrator.schemaDrift(db) == ["index note_body is not expected"])
    }
}
