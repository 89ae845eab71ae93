import Foundation
import StrataMigrations
import StrataSQLite
import StrataTestSupport
import Testing

/// An SQL migration that tries to end, restart or reach outside the transaction it runs in.
struct TransactionControlCase: Sendable, CustomTestStringConvertible {
    var name: String
    var sql: String
    /// The offending statement as the refusal quotes it.
    var statement: String
    var testDescription: String { name }
}

let transactionControlCases: [TransactionControlCase] = [
    TransactionControlCase(
        name: "bare columns named trigger and begin, then COMMIT",
        sql: "CREATE TABLE t(trigger TEXT, begin INTEGER);\nCOMMIT;\nCREATE TABLE u(x);", statement: "COMMIT"),
    TransactionControlCase(
        name: "a quoted trigger column and a 'BEGIN' default, then COMMIT",
        sql: #"CREATE TABLE t("trigger" TEXT, x DEFAULT 'BEGIN'); COMMIT; CREATE TABLE u(x);"#, statement: "COMMIT"),
    TransactionControlCase(
        name: "a view with columns named trigger and begin, then END",
        sql: "CREATE VIEW v AS SELECT 1 AS trigger, 2 AS begin;\nEND;\nCREATE TABLE u(x);", statement: "END"),
    TransactionControlCase(
        name: "a table named trigger with a column begin, then END TRANSACTION",
        sql: "CREATE TABLE trigger(begin);\nEND TRANSACTION;\nINSERT INTO trigger VALUES (1);",
        statement: "END TRANSACTION"),
    TransactionControlCase(
        name: "an index over columns trigger and begin, then lowercase commit",
        sql:
            "CREATE TABLE t(trigger, begin); CREATE INDEX t_i ON t(trigger, begin); INSERT INTO t VALUES (1, 2); commit;",
        statement: "commit"),
    TransactionControlCase(
        name: "tables and columns named commit, end and begin, then COMMIT TRANSACTION",
        sql:
            #"CREATE TABLE "commit"("end" TEXT, "begin" TEXT); INSERT INTO "commit" VALUES ('COMMIT;', 'END;'); COMMIT TRANSACTION;"#,
        statement: "COMMIT TRANSACTION"),
    TransactionControlCase(
        name: "COMMIT in comments and string literals before a real one",
        sql:
            "-- COMMIT;\nCREATE TABLE t(x DEFAULT 'COMMIT;'); /* ROLLBACK; END; */ INSERT INTO a VALUES ('END;');\ncommit;",
        statement: "commit"),
    TransactionControlCase(
        name: "a trigger whose body has CASE ... END and 'END' strings, then COMMIT",
        sql: """
            CREATE TABLE log(msg TEXT);
            CREATE TRIGGER a_log AFTER INSERT ON a BEGIN
              INSERT INTO log(msg) SELECT CASE WHEN NEW.x = 'END;' THEN 'end' ELSE 'COMMIT;' END;
            END;
            INSERT INTO a VALUES ('fires the trigger');
            COMMIT;
            INSERT INTO log VALUES ('after');
            """,
        statement: "COMMIT"),
    TransactionControlCase(
        name: "a trigger named begin, then ROLLBACK",
        sql: #"CREATE TRIGGER "begin" AFTER INSERT ON a BEGIN SELECT 1; END; INSERT INTO a VALUES (2); ROLLBACK;"#,
        statement: "ROLLBACK"),
    TransactionControlCase(
        name: "lowercase rollback transaction",
        sql: "insert into a values ('x'); rollback transaction;", statement: "rollback transaction"),
    TransactionControlCase(
        name: "END without a semicolon at the end of the file",
        sql: "INSERT INTO a VALUES ('x');\nEND", statement: "END"),
    TransactionControlCase(
        name: "COMMIT split over two lines",
        sql: "INSERT INTO a VALUES ('x');\nCOMMIT\n  TRANSACTION;", statement: "COMMIT TRANSACTION"),
    TransactionControlCase(
        name: "BEGIN at the start",
        sql: "BEGIN; CREATE TABLE t(x); COMMIT;", statement: "BEGIN"),
    TransactionControlCase(
        name: "BEGIN IMMEDIATE in the middle",
        sql: "INSERT INTO a VALUES (1); BEGIN IMMEDIATE TRANSACTION; INSERT INTO a VALUES (2);",
        statement: "BEGIN IMMEDIATE TRANSACTION"),
    TransactionControlCase(
        name: "RELEASE of a savepoint the migration did not open",
        sql: "INSERT INTO a VALUES (1); RELEASE strata_savepoint_1;", statement: "RELEASE strata_savepoint_1"),
    TransactionControlCase(
        name: "ROLLBACK TO a savepoint the migration did not open",
        sql: "INSERT INTO a VALUES (1); ROLLBACK TRANSACTION TO SAVEPOINT outer_sp;",
        statement: "ROLLBACK TRANSACTION TO SAVEPOINT outer_sp"),
    TransactionControlCase(
        name: "RELEASE of its own savepoint twice",
        sql: "SAVEPOINT s; INSERT INTO a VALUES (1); RELEASE s; INSERT INTO a VALUES (2); RELEASE SAVEPOINT s;",
        statement: "RELEASE SAVEPOINT s"),
    TransactionControlCase(
        name: "ROLLBACK TO an inner savepoint already released with its outer one",
        sql: "SAVEPOINT one; SAVEPOINT two; INSERT INTO a VALUES (1); RELEASE one; ROLLBACK TO two;",
        statement: "ROLLBACK TO two"),
    TransactionControlCase(
        name: "ROLLBACK after a legitimate ROLLBACK TO",
        sql: "SAVEPOINT s; INSERT INTO a VALUES (1); ROLLBACK TO s; ROLLBACK;", statement: "ROLLBACK"),
]

/// The migrator refuses transaction control that would end or escape a migration's transaction,
/// whatever words the SQL around it uses, and leaves the database exactly as it was.
@Suite("Transaction control in migrations")
struct TransactionControlTests {
    /// A file database where `0001_create` was applied and `a` holds a row.
    static func database(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("db.sqlite")
        let db = try Database(path: path)
        defer { db.close() }
        var migrator = Migrator()
        migrator.registerMigration("0001_create", sql: "CREATE TABLE a(x);")
        try migrator.migrate(db)
        try db.execute(sql: "INSERT INTO a VALUES ('kept')")
        return path
    }

    static func migrator(_ sql: String) -> Migrator {
        var migrator = Migrator()
        migrator.registerMigration("0001_create", sql: "CREATE TABLE a(x);")
        migrator.registerMigration("0002_sneaky", sql: sql)
        migrator.registerMigration("0003_after", sql: "CREATE TABLE after_sneaky(x);")
        return migrator
    }

    @Test(arguments: transactionControlCases, [Migrator.TransactionMode.perMigration, .singleTransaction])
    func refused(_ c: TransactionControlCase, mode: Migrator.TransactionMode) throws {
        let dir = TemporaryDirectory("strata-txn-control")
        let path = try Self.database(dir)
        let bytes = fileBytes(path)
        let before = try {
            let db = try Database(path: path)
            defer { db.close() }
            return try DatabaseContents(db)
        }()

        var migrator = Self.migrator(c.sql)
        migrator.transactionMode = mode
        let db = try Database(path: path)
        defer { db.close() }
        let error = try #require(throws: MigrationError.self, "\(c.name)") { try migrator.migrate(db) }
        #expect(error.code == .migrationFailed, "\(c.name)")
        #expect(error.migrations == ["0002_sneaky"], "\(c.name)")
        #expect(
            error.description.hasPrefix("migration 0002_sneaky: its `\(c.statement)` "),
            "\(c.name): \(error.description)")
        #expect(error.description.contains("rolled back"), "\(c.name): \(error.description)")
        #expect(!error.description.contains("\n"), "\(c.name): \(error.description)")
        #expect(!db.isInTransaction, "\(c.name)")
        #expect(try DatabaseContents(db) == before, "\(c.name): the database changed")
        #expect(
            try db.fetchColumn(String.self, sql: "SELECT identifier FROM strata_migrations") == ["0001_create"],
            "\(c.name)")
        db.close()
        #expect(fileBytes(path) == bytes, "\(c.name): the file changed")
    }

    /// The same words, and savepoints the migration opens and closes itself, are fine.
    @Test func acceptedLookAlikes() throws {
        let accepted = [
            "bare identifiers": """
            CREATE TABLE t(trigger TEXT, begin INTEGER, "end" TEXT, "commit" TEXT, "rollback" TEXT);
            CREATE VIEW v AS SELECT trigger, begin AS release, "end" AS savepoint FROM t;
            INSERT INTO t VALUES ('BEGIN;', 1, 'END;', 'COMMIT;', 'ROLLBACK;');
            """,
            "a trigger with CASE ... END": """
            CREATE TABLE log(msg TEXT DEFAULT 'COMMIT; END;');
            CREATE TRIGGER a_log AFTER INSERT ON a BEGIN
              INSERT INTO log(msg) SELECT CASE WHEN NEW.x IS NULL THEN 'end' ELSE 'commit' END;
            END;
            INSERT INTO a VALUES (NULL);
            """,
            "its own savepoints": """
            SAVEPOINT inner; INSERT INTO a VALUES ('undone'); ROLLBACK TO inner; RELEASE inner;
            SAVEPOINT "Outer"; SAVEPOINT nested; INSERT INTO a VALUES ('kept'); RELEASE outer;
            SAVEPOINT left_open; INSERT INTO a VALUES ('also kept');
            """,
        ]
        for (name, sql) in accepted {
            let dir = TemporaryDirectory("strata-txn-ok")
            let path = try Self.database(dir)
            let db = try Database(path: path)
            defer { db.close() }
            #expect(try Self.migrator(sql).migrate(db) == ["0002_sneaky", "0003_after"], "\(name)")
            #expect(!db.isInTransaction, "\(name)")
        }
        let dir = TemporaryDirectory("strata-txn-ok")
        let db = try Database(path: try Self.database(dir))
        defer { db.close() }
        try Self.migrator(try #require(accepted["its own savepoints"])).migrate(db)
        #expect(
            try db.fetchColumn(String.self, sql: "SELECT x FROM a ORDER BY rowid") == ["kept", "kept", "also kept"])
    }

    /// A closure migration cannot commit either: SQLite refuses to compile the statement, and the
    /// migration fails even when the closure ignores that error.
    @Test func closuresCannotEndTheTransaction() throws {
        let bodies: [(String, @Sendable (Database) throws -> Void)] = [
            (
                "COMMIT",
                { db in
                    try db.execute(sql: "INSERT INTO a VALUES ('half')")
                    try db.execute(sql: "COMMIT")
                }
            ),
            (
                "COMMIT",
                { db in
                    try db.execute(sql: "INSERT INTO a VALUES ('half')")
                    try? db.execute(sql: "COMMIT")
                    try db.execute(sql: "INSERT INTO a VALUES ('other half')")
                }
            ),
            (
                "ROLLBACK",
                { db in
                    try db.execute(sql: "INSERT INTO a VALUES ('half')")
                    _ = try db.makeStatement(sql: "ROLLBACK")
                }
            ),
        ]
        for (statement, body) in bodies {
            let dir = TemporaryDirectory("strata-txn-closure")
            let path = try Self.database(dir)
            let bytes = fileBytes(path)
            var migrator = Migrator()
            migrator.registerMigration("0001_create", sql: "CREATE TABLE a(x);")
            migrator.registerMigration("0002_closure", migrate: body)
            let db = try Database(path: path)
            let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
            #expect(error.description.hasPrefix("migration 0002_closure: its `\(statement)` "), "\(error)")
            #expect(try db.fetchColumn(String.self, sql: "SELECT x FROM a") == ["kept"])
            db.close()
            #expect(fileBytes(path) == bytes)
        }

        // Nested transactions and savepoints through the Database API are the closure's own.
        var migrator = Migrator()
        migrator.registerMigration("0001_create", sql: "CREATE TABLE a(x);")
        migrator.registerMigration("0002_nested") { db in
            try db.transaction { try db.execute(sql: "INSERT INTO a VALUES ('nested')") }
            try? db.savepoint {
                try db.execute(sql: "INSERT INTO a VALUES ('undone')")
                throw CancellationError()
            }
        }
        let db = try Database(inMemory: Configuration())
        #expect(try migrator.migrate(db) == ["0001_create", "0002_nested"])
        #expect(try db.fetchColumn(String.self, sql: "SELECT x FROM a") == ["nested"])
    }
}
