import Foundation
import StrataMigrations
import StrataSQLite
import StrataTestSupport
import Testing

/// The ledger row of a migration is written inside the migration's transaction, before its
/// COMMIT (issue 24, item 9): when writing it fails, the migration is rolled back with it, in both
/// transaction modes and whatever the migration's body (SQL, closure, declarative schema). A
/// temporary trigger on the ledger table that RAISEs makes the write fail (temporary: it lives on
/// the migrating connection only, outside the file and the schema the engine reads); a ledger
/// written after COMMIT would leave the migration applied and unrecorded, and these tests fail.
@Suite("A failed ledger write rolls the migration back")
struct LedgerWriteFailureTests {
    enum Body: String, CaseIterable, Sendable {
        case sql, closure, schema
    }

    struct Case: Sendable, CustomStringConvertible {
        var mode: Migrator.TransactionMode
        var body: Body
        var description: String { "\(mode), \(body)" }
    }

    static let cases: [Case] = [Migrator.TransactionMode.perMigration, .singleTransaction].flatMap { mode in
        Body.allCases.map { Case(mode: mode, body: $0) }
    }

    static let first = "CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL);"

    static func migrator(_ c: Case) -> Migrator {
        var migrator = Migrator()
        migrator.transactionMode = c.mode
        migrator.registerMigration("0001_create_team", sql: first)
        switch c.body {
        case .sql:
            migrator.registerMigration(
                "0002_create_player",
                sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO player VALUES (1, 'Ann');")
        case .closure:
            migrator.registerMigration("0002_create_player") { db in
                try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT)")
                try db.execute(sql: "INSERT INTO player VALUES (1, 'Ann')")
                try db.execute(sql: "UPDATE team SET name = name || '!'")
            }
        case .schema:
            migrator.registerMigration(
                "0002_create_player",
                schema: first
                    + "\nCREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT);\nCREATE INDEX player_name ON player(name);"
            )
        }
        migrator.registerMigration("0003_seed", sql: "INSERT INTO team(name) VALUES ('late');")
        return migrator
    }

    @Test(arguments: cases)
    func aLedgerWriteThatFailsRollsTheMigrationBack(_ c: Case) throws {
        let dir = TemporaryDirectory("ledger-failure")
        let path = dir.file("app.sqlite")
        let migrator = Self.migrator(c)
        do {
            let db = try Database(path: path)
            try migrator.migrate(db, upTo: "0001_create_team")
            try db.execute(sql: "INSERT INTO team(name) VALUES ('Reds')")
            db.close()
        }
        let bytes = fileBytes(path)

        let db = try Database(path: path)
        try db.execute(
            sql: """
                CREATE TEMP TRIGGER refuse_ledger_write BEFORE INSERT ON main.strata_migrations
                BEGIN SELECT RAISE(ABORT, 'the ledger refuses this row'); END
                """)
        let before = try snapshot(db)
        let error = try #require(throws: MigrationError.self, "\(c)") { try migrator.migrate(db) }
        #expect(error.migrations.first == "0002_create_player", "\(c): \(error)")
        #expect(error.description.contains("the ledger refuses this row"), "\(c): \(error)")
        #expect(!db.isInTransaction)
        #expect(try snapshot(db) == before, "\(c)")
        #expect(try migrator.appliedMigrations(db) == ["0001_create_team"])
        db.close()
        #expect(fileBytes(path) == bytes, "\(c): the file changed")
    }
}
