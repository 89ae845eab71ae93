import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata plan`, `apply` and `dump` with user tables whose names look internal (issue 11,
/// item 8): `strata_notes`, and `docs_stat` beside an FTS5 table `docs` (FTS5 has no `_stat`
/// shadow table). They are created, changed (rows kept) and dumped; real shadow tables and the
/// `strata_migrations` ledger are not.
@Suite("User tables with internal-looking names on the command line")
struct UserTableNamesCommandTests {
    static let v1 = """
        CREATE TABLE strata_notes(id INTEGER PRIMARY KEY, body TEXT);
        CREATE VIRTUAL TABLE docs USING fts5(title, body);
        CREATE TABLE docs_stat(id INTEGER PRIMARY KEY, hits INTEGER);

        """
    static let v2 = """
        CREATE TABLE strata_notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL DEFAULT '');
        CREATE VIRTUAL TABLE docs USING fts5(title, body);
        CREATE TABLE docs_stat(id INTEGER PRIMARY KEY, hits INTEGER NOT NULL DEFAULT 0 CHECK (hits >= 0));

        """

    @Test func createdChangedAndDumped() throws {
        let dir = TemporaryDirectory("strata-cli-names")
        let db = dir.file("app.sqlite")
        let schema1 = dir.file("v1.sql")
        let schema2 = dir.file("v2.sql")
        try Data(Self.v1.utf8).write(to: URL(fileURLWithPath: schema1))
        try Data(Self.v2.utf8).write(to: URL(fileURLWithPath: schema2))

        let plan = try ChildProcess.strata(["plan", "--db", db, "--schema", schema1])
        #expect(plan.status == 0, "\(plan)")
        #expect(
            plan.stdout == "- create table strata_notes\n- create virtual table docs\n- create table docs_stat\n",
            "\(plan)")
        let apply = try ChildProcess.strata(["apply", "--db", db, "--schema", schema1])
        #expect(apply.status == 0, "\(apply)")
        #expect(apply.stdout.hasSuffix("Applied 3 changes to \(db).\n"), "\(apply)")
        #expect(try ChildProcess.strata(["plan", "--db", db, "--schema", schema1]).stdout == "No changes.\n")

        // The ledger of the migrator is Strata's: never dumped, never dropped.
        do {
            let database = try Database(path: db)
            defer { database.close() }
            try database.execute(
                sql: """
                    CREATE TABLE strata_migrations(identifier TEXT PRIMARY KEY NOT NULL, checksum TEXT, applied_at TEXT, duration_ms INTEGER);
                    INSERT INTO strata_migrations VALUES ('0001', NULL, NULL, NULL);
                    INSERT INTO strata_notes VALUES (1, 'keep'), (2, NULL);
                    INSERT INTO docs_stat VALUES (10, 4);
                    INSERT INTO docs(rowid, title, body) VALUES (3, 'a', 'needle');
                    """)
        }
        let dump = try ChildProcess.strata(["dump", "--db", db])
        #expect(dump.status == 0, "\(dump)")
        #expect(
            dump.stdout == """
                CREATE TABLE strata_notes(id INTEGER PRIMARY KEY, body TEXT);

                CREATE VIRTUAL TABLE docs USING fts5(title, body);

                CREATE TABLE docs_stat(id INTEGER PRIMARY KEY, hits INTEGER);

                """, "\(dump)")

        let change = try ChildProcess.strata(["plan", "--db", db, "--schema", schema2])
        #expect(change.status == 0, "\(change)")
        #expect(change.stdout.contains("- rebuild table strata_notes: "), "\(change)")
        #expect(change.stdout.contains("- rebuild table docs_stat: "), "\(change)")
        #expect(!change.stdout.contains("docs_data") && !change.stdout.contains("strata_migrations"), "\(change)")
        let applied = try ChildProcess.strata(["apply", "--db", db, "--schema", schema2])
        #expect(applied.status == 0, "\(applied)")
        #expect(try ChildProcess.strata(["plan", "--db", db, "--schema", schema2]).stdout == "No changes.\n")

        let database = try Database(path: db)
        defer { database.close() }
        #expect(
            try database.fetchAll(sql: "SELECT * FROM strata_notes ORDER BY id").map(\.values) == [
                [1, "keep"], [2, ""],
            ])
        #expect(try database.fetchAll(sql: "SELECT * FROM docs_stat").map(\.values) == [[10, 4]])
        #expect(try database.fetchColumn(String.self, sql: "SELECT identifier FROM strata_migrations") == ["0001"])
        #expect(try database.fetchValue(Int.self, sql: "SELECT rowid FROM docs WHERE docs MATCH 'needle'") == 3)
    }
}
