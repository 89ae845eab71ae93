import Foundation
import Strata
import StrataTestSupport
import Testing

/// Rebuilds must never lose a row, whatever conflict clause the new definition carries, and the
/// data conditions checked when planning must still hold when a generated migration runs on a
/// database its author never saw. Run through `strata` as a user runs it.
@Suite("Rebuild data safety")
struct RebuildDataSafetyCommandTests {
    struct ConflictCase: CustomStringConvertible, Sendable {
        var name: String
        var live: String
        var rows: String
        var desired: String
        /// SQLite's words for the refused row, in the user's table's name.
        var expected: String
        var description: String { name }
    }

    /// Desired definitions whose conflict clauses would make `INSERT … SELECT` replace or skip rows.
    static let conflictCases: [ConflictCase] = [
        ConflictCase(
            name: "UNIQUE ON CONFLICT REPLACE",
            live: "CREATE TABLE account(id INTEGER PRIMARY KEY, email TEXT);",
            rows: "INSERT INTO account VALUES (1, 'a@x'), (2, 'a@x'), (3, 'b@x');",
            desired: "CREATE TABLE account(id INTEGER PRIMARY KEY, email TEXT UNIQUE ON CONFLICT REPLACE);",
            expected: "UNIQUE constraint failed: account.email"),
        ConflictCase(
            name: "UNIQUE ON CONFLICT IGNORE",
            live: "CREATE TABLE account(id INTEGER PRIMARY KEY, email TEXT);",
            rows: "INSERT INTO account VALUES (1, 'a@x'), (2, 'a@x'), (3, 'b@x');",
            desired: "CREATE TABLE account(id INTEGER PRIMARY KEY, email TEXT UNIQUE ON CONFLICT IGNORE);",
            expected: "UNIQUE constraint failed: account.email"),
        ConflictCase(
            name: "table-level UNIQUE (a, b) ON CONFLICT REPLACE",
            live: "CREATE TABLE pair(a TEXT, b TEXT);",
            rows: "INSERT INTO pair VALUES ('x', 'y'), ('x', 'y'), ('x', 'z');",
            desired: "CREATE TABLE pair(a TEXT, b TEXT, UNIQUE (a, b) ON CONFLICT REPLACE);",
            expected: "UNIQUE constraint failed: pair.a, pair.b"),
        ConflictCase(
            name: "PRIMARY KEY ON CONFLICT REPLACE, WITHOUT ROWID",
            live: "CREATE TABLE kv(k TEXT, v TEXT);",
            rows: "INSERT INTO kv VALUES ('a', '1'), ('a', '2'), ('b', '3');",
            desired: "CREATE TABLE kv(k TEXT PRIMARY KEY ON CONFLICT REPLACE, v TEXT) WITHOUT ROWID;",
            expected: "UNIQUE constraint failed: kv.k"),
        ConflictCase(
            name: "PRIMARY KEY ON CONFLICT IGNORE, WITHOUT ROWID",
            live: "CREATE TABLE kv(k TEXT, v TEXT);",
            rows: "INSERT INTO kv VALUES ('a', '1'), ('a', '2'), ('b', '3');",
            desired: "CREATE TABLE kv(k TEXT PRIMARY KEY ON CONFLICT IGNORE, v TEXT) WITHOUT ROWID;",
            expected: "UNIQUE constraint failed: kv.k"),
        ConflictCase(
            name: "text PRIMARY KEY ON CONFLICT IGNORE on a rowid table",
            live: "CREATE TABLE kv(k TEXT, v TEXT);",
            rows: "INSERT INTO kv VALUES ('a', '1'), ('a', '2'), ('b', '3');",
            desired: "CREATE TABLE kv(k TEXT PRIMARY KEY ON CONFLICT IGNORE, v TEXT);",
            expected: "UNIQUE constraint failed: kv.k"),
        ConflictCase(
            name: "CHECK on a table whose rows break it (OR IGNORE would skip them)",
            live: "CREATE TABLE score(id INTEGER PRIMARY KEY, points INTEGER);",
            rows: "INSERT INTO score VALUES (1, 5), (2, -3);",
            desired: "CREATE TABLE score(id INTEGER PRIMARY KEY, points INTEGER CHECK (points >= 0));",
            expected: "CHECK constraint failed"),  // SQLite before 3.34 names the table, later the expression
    ]

    @Test(arguments: conflictCases)
    func conflictClausesNeverDropRows(_ c: ConflictCase) throws {
        let dir = TemporaryDirectory("strata-conflict")
        let db = dir.file("app.sqlite")
        do {
            let database = try Database(path: db)
            try database.execute(sql: c.live + c.rows)
            database.close()
        }
        let schema = dir.file("schema.sql")
        try Data(c.desired.utf8).write(to: URL(fileURLWithPath: schema))
        let before = fileBytes(db)
        let apply = try StrataProcess.run(["apply", "--db", db, "--schema", schema])
        #expect(apply.exitCode == 1, "\(c): \(apply)")
        #expect(apply.stdout == "", "\(c)")
        #expect(apply.stderr.contains(c.expected), "\(c): \(apply.stderr)")
        #expect(apply.stderr.contains("the existing rows do not fit the new definition"), "\(c): \(apply.stderr)")
        #expect(apply.stderr.contains("database is unchanged"), "\(c): \(apply.stderr)")
        #expect(!apply.stderr.contains("strata_tmp"), "\(c): \(apply.stderr)")
        #expect(apply.stderr.split(separator: "\n").count == 1, "\(c): \(apply.stderr)")
        #expect(fileBytes(db) == before, "\(c): the database file changed")
    }

    /// A generated rebuild whose rows collide under the new UNIQUE ... ON CONFLICT REPLACE: the
    /// migration fails naming the user's table (never the rebuild's temporary one), nothing lost.
    @Test func generatedRebuildWithConflictClauseFailsInTheUsersTerms() throws {
        let migrations = try migrationFolder([
            "0001_create_account.sql": "CREATE TABLE account(id INTEGER PRIMARY KEY, email TEXT);\n"
        ])
        let dir = TemporaryDirectory("strata-guard")
        let schema = dir.file("schema.sql")
        try Data("CREATE TABLE account(id INTEGER PRIMARY KEY, email TEXT UNIQUE ON CONFLICT REPLACE);\n".utf8)
            .write(to: URL(fileURLWithPath: schema))
        let new = try StrataProcess.run([
            "new", "--migrations", migrations.path, "--schema", schema, "--name", "unique",
        ])
        #expect(new.exitCode == 0, "\(new)")
        let db = dir.file("app.sqlite")
        #expect(
            try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path, "--to", "1"]).exitCode == 0)
        do {
            let database = try Database(path: db)
            try database.execute(sql: "INSERT INTO account VALUES (1, 'a@x'), (2, 'a@x')")
            database.close()
        }
        let before = fileBytes(db)
        let migrate = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path])
        #expect(migrate.exitCode == 1, "\(migrate)")
        #expect(migrate.stderr.contains("UNIQUE constraint failed: account.email"), "\(migrate.stderr)")
        #expect(!migrate.stderr.contains("strata_tmp"), "\(migrate.stderr)")
        #expect(fileBytes(db) == before)
    }

    /// A migration written by `strata new` on an empty scratch database runs on a device whose
    /// rows break a condition the preflight could not see: the migration's own guards refuse it.
    @Test func generatedMigrationChecksTheDataItRunsOn() throws {
        let migrations = try migrationFolder([
            "0001_create_item.sql": "CREATE TABLE item(id INTEGER, name TEXT);\n"
        ])
        let dir = TemporaryDirectory("strata-guard")
        let schema = dir.file("schema.sql")
        try Data("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n".utf8)
            .write(to: URL(fileURLWithPath: schema))
        let new = try StrataProcess.run(["new", "--migrations", migrations.path, "--schema", schema, "--name", "keys"])
        #expect(new.exitCode == 0, "\(new)")

        struct DataCase {
            var rows: String
            var expected: String
        }
        let cases = [
            DataCase(
                rows: "INSERT INTO item VALUES (1, 'a'), (NULL, 'b');",
                expected: "table item: column id becomes the INTEGER PRIMARY KEY but rows hold NULL"),
            DataCase(
                rows: "INSERT INTO item VALUES (1, 'a'), (2, NULL);",
                expected: "table item: column name becomes NOT NULL but rows hold NULL and it has no DEFAULT"),
        ]
        for c in cases {
            let db = dir.file("app-\(UUID().uuidString).sqlite")
            let first = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path, "--to", "1"])
            #expect(first.exitCode == 0, "\(first)")
            do {
                let database = try Database(path: db)
                try database.execute(sql: c.rows)
                database.close()
            }
            let before = fileBytes(db)
            let migrate = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path])
            #expect(migrate.exitCode == 1, "\(c.rows): \(migrate)")
            #expect(migrate.stderr.contains(c.expected), "\(c.rows): \(migrate.stderr)")
            #expect(fileBytes(db) == before, "\(c.rows): the database changed")
        }
    }
}
