import Foundation
import StrataSQLite
import Testing

@testable import StrataMigrations

/// The start-up shortcut (issue 15): one query decides "nothing to do" only when the ledger is
/// exactly the registered list with the current checksums; anything else is checked in full.
@Suite("Migrator start-up shortcut")
struct MigratorStartupShortcutTests {
    func migrator(_ sql: [String]) -> Migrator {
        var migrator = Migrator()
        for (i, text) in sql.enumerated() { migrator.registerMigration(String(format: "%04d_m", i + 1), sql: text) }
        return migrator
    }

    let v = ["CREATE TABLE a(id INTEGER PRIMARY KEY)", "CREATE TABLE b(id INTEGER PRIMARY KEY)"]

    @Test func anUpToDateLedgerIsDecidedByOneQuery() throws {
        let db = try Database(inMemory: Configuration())
        let m = migrator(v)
        #expect(try m.migrate(db) == ["0001_m", "0002_m"])
        #expect(m.isLedgerExactly(m.migrations[...], in: db))
        #expect(try m.migrate(db) == [])
        #expect(!m.isLedgerExactly(m.migrations[...0], in: db))  // a row beyond the target
    }

    @Test func anEditedMigrationIsStillRefused() throws {
        let db = try Database(inMemory: Configuration())
        try migrator(v).migrate(db)
        let edited = migrator([v[0], "CREATE TABLE b(id INTEGER PRIMARY KEY, name TEXT)"])
        #expect(!edited.isLedgerExactly(edited.migrations[...], in: db))
        #expect(throws: MigrationError.self) { try edited.migrate(db) }
    }

    @Test func anUnknownOrReorderedOrHandEditedLedgerGoesThroughTheFullCheck() throws {
        let db = try Database(inMemory: Configuration())
        let m = migrator(v)
        try m.migrate(db)
        // Reordered rows: not the shortcut, but the full check finds nothing wrong.
        try db.execute(sql: "UPDATE strata_migrations SET rowid = rowid + 10 WHERE identifier = '0001_m'")
        #expect(!m.isLedgerExactly(m.migrations[...], in: db))
        #expect(try m.migrate(db) == [])
        // A checksum edited by hand is refused.
        try db.execute(sql: "UPDATE strata_migrations SET checksum = 'x' WHERE identifier = '0002_m'")
        #expect(throws: MigrationError.self) { try m.migrate(db) }
        try db.execute(
            sql: "UPDATE strata_migrations SET checksum = ? WHERE identifier = '0002_m'",
            arguments: [m.migrations[1].checksum])
        // A migration this app does not know is refused.
        try db.execute(sql: "INSERT INTO strata_migrations(identifier, checksum) VALUES ('0003_newer', 'y')")
        #expect(throws: MigrationError.self) { try m.migrate(db) }
    }
}
