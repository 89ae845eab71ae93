import Foundation
import StrataSQLite
import Testing

@testable import StrataMigrations

/// The start-up digest (issue 28: 5,000 registered migrations under 2 ms): a run that applied
/// migrations records a digest of the registered list on the last ledger row; the next launch
/// compares that one value (one statement, no SHA-256), and anything that could make it wrong
/// sends the launch through the full checksum comparison, which refuses what it always refused.
@Suite("Migrator start-up digest")
struct MigratorStartupDigestTests {
    final class Statements: @unchecked Sendable {
        let lock = NSLock()
        var sql: [String] = []
        func append(_ text: String) { lock.withLock { sql.append(text) } }
        func take() -> [String] {
            lock.withLock {
                defer { sql = [] }
                return sql
            }
        }
    }

    /// A database whose statements are recorded.
    func tracedDatabase() throws -> (Database, Statements) {
        let statements = Statements()
        var configuration = Configuration()
        configuration.tracer = { event in statements.append(event.sql) }
        return (try Database(inMemory: configuration), statements)
    }

    func migrator(_ sql: [String]) -> Migrator {
        var migrator = Migrator()
        for (i, text) in sql.enumerated() { migrator.registerMigration(String(format: "%04d_m", i + 1), sql: text) }
        return migrator
    }

    let v = [
        "CREATE TABLE IF NOT EXISTS a(id INTEGER PRIMARY KEY)",
        "CREATE TABLE IF NOT EXISTS \"b \"\"x\"\"\"(id INTEGER)",
        "CREATE INDEX IF NOT EXISTS a_id ON a(id)",
    ]

    func digestColumn(_ db: Database) throws -> [String?] {
        try db.fetchAll(sql: "SELECT startup_digest FROM strata_migrations ORDER BY rowid").map {
            try $0.decode(String?.self, at: 0)
        }
    }

    @Test func aRunThatAppliesRecordsTheDigestAndTheNextLaunchRunsOneStatement() throws {
        let (db, statements) = try tracedDatabase()
        let m = migrator(v)
        #expect(try m.migrate(db) == ["0001_m", "0002_m", "0003_m"])
        let column = try digestColumn(db)
        #expect(column.dropLast().allSatisfy { $0 == nil }, "only the last row: \(column)")
        let last = try #require(column.last ?? nil)
        #expect(last.hasPrefix("v1:") && last.hasSuffix(":3") && last.count == 3 + 16 + 2, "\(last)")
        #expect(m.ledgerMatchesStartupDigest(m.migrations[...], in: db))
        _ = statements.take()
        #expect(try m.migrate(db) == [])
        let launch = statements.take()
        #expect(launch.count == 1, "\(launch)")
        #expect(launch.first?.contains("startup_digest") == true)
        // A migrator built again from the same texts (as at every launch) gives the same digest.
        #expect(migrator(v).startupDigest(of: migrator(v).migrations[...]) == m.startupDigest(of: m.migrations[...]))
    }

    @Test func anEditedMigrationMissesTheDigestAndIsStillRefused() throws {
        let db = try Database(inMemory: Configuration())
        try migrator(v).migrate(db)
        let edited = migrator([v[0], v[1].replacing("id INTEGER", with: "id INTEGER, name TEXT"), v[2]])
        #expect(!edited.ledgerMatchesStartupDigest(edited.migrations[...], in: db))
        #expect {
            try edited.migrate(db)
        } throws: { ($0 as? MigrationError)?.code == .checksumMismatch }
        // An edit the checksum ignores (blanks at line ends) misses the digest, then passes the
        // full comparison: nothing to do, nothing refused.
        let blanks = migrator([v[0] + "   \n", v[1], v[2]])
        #expect(!blanks.ledgerMatchesStartupDigest(blanks.migrations[...], in: db))
        #expect(try blanks.migrate(db) == [])
        // A one-byte change anywhere in any text, or in an identifier, changes the digest.
        let base = migrator(v).startupDigest(of: migrator(v).migrations[...])
        for i in v.indices {
            var texts = v
            texts[i] += " "  // a blank the checksum ignores: the digest does not
            #expect(migrator(texts).startupDigest(of: migrator(texts).migrations[...]) != base, "text \(i)")
        }
        var renamed = Migrator()
        for (i, text) in v.enumerated() { renamed.registerMigration(String(format: "%04d_n", i + 1), sql: text) }
        #expect(renamed.startupDigest(of: renamed.migrations[...]) != base)
        // A closure migration in place of SQL text with the same identifier: another digest.
        var closure = migrator(Array(v.prefix(2)))
        closure.registerMigration("0003_m") { db in try db.execute(sql: v[2]) }
        #expect(closure.startupDigest(of: closure.migrations[...]) != base)
    }

    @Test func rowsAddedOrRemovedMissTheDigest() throws {
        let db = try Database(inMemory: Configuration())
        let m = migrator(v)
        try m.migrate(db)
        // A newer app version's migration, written without a digest (or by an older Strata).
        try db.execute(sql: "INSERT INTO strata_migrations(identifier, checksum) VALUES ('0004_newer', 'y')")
        #expect(!m.ledgerMatchesStartupDigest(m.migrations[...], in: db))
        #expect {
            try m.migrate(db)
        } throws: { ($0 as? MigrationError)?.code == .unknownMigrations }
        try db.execute(sql: "DELETE FROM strata_migrations WHERE identifier = '0004_newer'")
        #expect(m.ledgerMatchesStartupDigest(m.migrations[...], in: db), "the same ledger again")
        // A row removed: the count differs, the launch goes the long way and applies it again.
        try db.execute(sql: "DELETE FROM strata_migrations WHERE identifier = '0001_m'")
        #expect(!m.ledgerMatchesStartupDigest(m.migrations[...], in: db))
        #expect(try m.migrate(db) == ["0001_m"])
        // A newer app version that recorded its own digest: an older one does not match it.
        let newer = migrator(v + ["CREATE TABLE IF NOT EXISTS c(id INTEGER)"])
        let fresh = try Database(inMemory: Configuration())
        try newer.migrate(fresh)
        #expect(newer.ledgerMatchesStartupDigest(newer.migrations[...], in: fresh))
        #expect(!m.ledgerMatchesStartupDigest(m.migrations[...], in: fresh))
        #expect {
            try m.migrate(fresh)
        } throws: { ($0 as? MigrationError)?.code == .unknownMigrations }
        // A migrator that targets an earlier migration does not match a digest of the whole list.
        #expect(!newer.ledgerMatchesStartupDigest(newer.migrations[...1], in: fresh))
    }

    @Test func aLedgerWithoutTheColumnOrWithAnotherRowLastIsCheckedInFull() throws {
        // An older Strata's ledger: no startup_digest column. The shortcut answers false, the
        // full comparison true; a run that applies adds the column.
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE strata_migrations(identifier TEXT PRIMARY KEY NOT NULL, checksum TEXT, applied_at TEXT, duration_ms INTEGER);
                """)
        let m = migrator(v)
        try db.execute(sql: v[0])
        try db.execute(
            sql: "INSERT INTO strata_migrations(identifier, checksum) VALUES ('0001_m', ?)",
            arguments: [m.migrations[0].checksum])
        #expect(!m.ledgerMatchesStartupDigest(m.migrations[...0], in: db))
        #expect(m.isLedgerExactly(m.migrations[...0], in: db))
        #expect(try m.migrate(db) == ["0002_m", "0003_m"])
        #expect(m.ledgerMatchesStartupDigest(m.migrations[...], in: db))
        let columns = try db.fetchColumn(String.self, sql: "SELECT name FROM pragma_table_info('strata_migrations')")
        #expect(columns == ["identifier", "checksum", "applied_at", "duration_ms", "startup_digest"])
    }

    @Test func aBaselineOverAnOldLedgerGetsItsDigestOnceItApplies() throws {
        let (db, statements) = try tracedDatabase()
        let originals = migrator(v)
        try originals.migrate(db)
        var squashed = Migrator()
        squashed.registerBaseline("0003_baseline", sql: v.joined(separator: ";\n"), covering: originals.identifiers)
        squashed.registerMigration("0004_after", sql: "CREATE TABLE IF NOT EXISTS after(id INTEGER)")
        #expect(!squashed.ledgerMatchesStartupDigest(squashed.migrations[...], in: db))
        #expect(try squashed.migrate(db) == ["0004_after"])
        #expect(squashed.ledgerMatchesStartupDigest(squashed.migrations[...], in: db))
        _ = statements.take()
        #expect(try squashed.migrate(db) == [])
        #expect(statements.take().count == 1)
        // Another covered list is another registration.
        var other = Migrator()
        other.registerBaseline(
            "0003_baseline", sql: v.joined(separator: ";\n"), covering: Array(originals.identifiers.prefix(2)) + ["x"])
        other.registerMigration("0004_after", sql: "CREATE TABLE IF NOT EXISTS after(id INTEGER)")
        #expect(!other.ledgerMatchesStartupDigest(other.migrations[...], in: db))
    }

    /// A ledger written before the squash takes the shortcut only when it is exactly the covered
    /// identifiers, in order, then the later migrations with their current checksums (issue 37
    /// item 8: each half of that comparison was caught by one case at most). Every other old
    /// ledger goes through the full status, which runs what is pending and refuses what it
    /// always refused; none of them is taken for "nothing to do".
    @Test func anOldLedgerTakesTheShortcutOnlyWhenItIsExactlyTheCoveredListThenTheRest() throws {
        func squashed(after sql: String = "CREATE TABLE IF NOT EXISTS after(id INTEGER)") -> Migrator {
            var squashed = Migrator()
            squashed.registerBaseline(
                "0003_baseline", sql: v.joined(separator: ";\n"), covering: migrator(v).identifiers)
            squashed.registerMigration("0004_after", sql: sql)
            return squashed
        }
        /// A database migrated through the originals and 0004 before the squash, then `edit`ed.
        func oldLedger(_ edit: String? = nil) throws -> Database {
            let db = try Database(inMemory: Configuration())
            var originals = migrator(v)
            originals.registerMigration("0004_after", sql: "CREATE TABLE IF NOT EXISTS after(id INTEGER)")
            try originals.migrate(db)
            if let edit { try db.execute(sql: edit) }
            return db
        }
        // Exactly the covered list then the rest: the shortcut, nothing to do.
        let exact = try oldLedger()
        #expect(squashed().ledgerHoldsExactly(squashed().migrations[...], in: exact))
        #expect(try squashed().migrate(exact) == [])

        // A later migration edited since: refused, not skipped.
        let edited = try oldLedger()
        let changed = squashed(after: "CREATE TABLE IF NOT EXISTS after(id INTEGER, note TEXT)")
        #expect(!changed.ledgerHoldsExactly(changed.migrations[...], in: edited))
        let mismatch = try #require(throws: MigrationError.self) { try changed.migrate(edited) }
        #expect(mismatch.code == .checksumMismatch, "\(mismatch)")

        // A later migration unknown to this app after the rest: refused.
        let newer = try oldLedger(
            "INSERT INTO strata_migrations(identifier, checksum) VALUES ('0005_from_a_newer_app', 'x')")
        #expect(!squashed().ledgerHoldsExactly(squashed().migrations[...], in: newer))
        let unknown = try #require(throws: MigrationError.self) { try squashed().migrate(newer) }
        #expect(unknown.code == .unknownMigrations, "\(unknown)")

        // A later migration not applied yet: it runs.
        let behind = try oldLedger("DELETE FROM strata_migrations WHERE identifier = '0004_after'")
        #expect(!squashed().ledgerHoldsExactly(squashed().migrations[...], in: behind))
        #expect(try squashed().migrate(behind) == ["0004_after"])

        // A covered migration missing from the ledger (another identifier in its place): the
        // covered part is not the baseline's, so the full status decides (an unknown identifier,
        // refused), even though the rest matches.
        let replaced = try oldLedger(
            "UPDATE strata_migrations SET identifier = '0003_other' WHERE identifier = '0003_m'")
        #expect(!squashed().ledgerHoldsExactly(squashed().migrations[...], in: replaced))
        let other = try #require(throws: MigrationError.self) { try squashed().migrate(replaced) }
        #expect(other.code == .unknownMigrations || other.code == .unsupportedHistory, "\(other)")
    }
}
