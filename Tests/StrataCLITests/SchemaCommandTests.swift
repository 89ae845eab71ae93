import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata plan`, `apply` and `dump`, run as a user runs them: stdout, stderr, exit code, and
/// the database file before and after.
@Suite("strata plan, apply and dump")
struct SchemaCommandTests {
    static let v1 = "CREATE TABLE user(id INTEGER PRIMARY KEY, name TEXT, nickname TEXT);\n"
    static let v2 = """
        CREATE TABLE user(
          id INTEGER PRIMARY KEY,
          full_name TEXT NOT NULL DEFAULT '', -- @renamed from=name
          nickname TEXT,
          email TEXT
        );
        CREATE INDEX user_email ON user(email);
        """

    struct Fixture {
        let dir = TemporaryDirectory("strata-cli")
        var db: String { dir.file("app.sqlite") }
        func schema(_ text: String, named name: String = "schema.sql") throws -> String {
            let path = dir.file(name)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        func seed() throws {
            let database = try Database(path: db)
            defer { database.close() }
            try database.execute(sql: SchemaCommandTests.v1)
            try database.execute(sql: "INSERT INTO user VALUES (1, 'Ann', 'a'), (2, NULL, 'b')")
        }
    }

    @Test func applyCreatesThenPlanSaysNoChanges() throws {
        let f = Fixture()
        let schema = try f.schema(Self.v1)
        let apply = try StrataProcess.run(["apply", "--db", f.db, "--schema", schema])
        #expect(apply.exitCode == 0, "\(apply)")
        #expect(apply.stdout == "- create table user\nApplied 1 change to \(f.db).\n")
        let plan = try StrataProcess.run(["plan", "--db", f.db, "--schema", schema])
        #expect(plan.exitCode == 0)
        #expect(plan.stdout == "No changes.\n")
        #expect(plan.stderr == "")
        let again = try StrataProcess.run(["apply", "--db", f.db, "--schema", schema])
        #expect(again.exitCode == 0)
        #expect(again.stdout == "No changes.\n")
    }

    @Test func planThenApplyKeepsEveryRow() throws {
        let f = Fixture()
        try f.seed()
        let schema = try f.schema(Self.v2)
        let before = fileBytes(f.db)
        let plan = try StrataProcess.run(["plan", "--db", f.db, "--schema", schema])
        #expect(plan.exitCode == 0, "\(plan)")
        #expect(plan.stdout.contains("- rename column user.name to full_name\n"))
        #expect(plan.stdout.contains("- rebuild table user: column full_name expected"))
        // Each step that touches rows ends with its estimate (issue 29), and a total line follows.
        #expect(plan.stdout.contains("(then its indexes: user_email) (≈ 2 rows, ≈ "), "\(plan.stdout)")
        #expect(plan.stdout.contains("\nEstimated: ≈ 2 rows, ≈ "), "\(plan.stdout)")
        #expect(fileBytes(f.db) == before, "plan wrote to the database")

        let apply = try StrataProcess.run([
            "apply", "--db", f.db, "--schema", schema, "--backup", f.dir.file("backup.sqlite"),
        ])
        #expect(apply.exitCode == 0, "\(apply)")
        #expect(apply.stderr == "Backed up \(f.db) to \(f.dir.file("backup.sqlite")).\n")
        let db = try Database(path: f.db)
        #expect(
            try db.fetchAll(sql: "SELECT id, full_name, nickname, email FROM user ORDER BY id").map(\.values)
                == [[1, "Ann", "a", nil], [2, "", "b", nil]])
        let backup = try Database(path: f.dir.file("backup.sqlite"))
        #expect(
            try backup.fetchAll(sql: "SELECT * FROM user ORDER BY id").map(\.values) == [
                [1, "Ann", "a"], [2, nil, "b"],
            ])
    }

    @Test func planFormats() throws {
        let f = Fixture()
        try f.seed()
        let schema = try f.schema(Self.v2)
        let sql = try StrataProcess.run(["plan", "--db", f.db, "--schema", schema, "--format", "sql"])
        #expect(sql.exitCode == 0)
        #expect(sql.stdout.hasPrefix("PRAGMA foreign_keys = OFF;\nBEGIN IMMEDIATE;\n"))
        #expect(sql.stdout.hasSuffix("COMMIT;\nPRAGMA foreign_keys = ON;\n"))
        let json = try StrataProcess.run(["plan", "--db", f.db, "--schema", schema, "--format", "json"])
        #expect(json.exitCode == 0)
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(document?["changes"] as? Bool == true)
        let steps = document?["steps"] as? [[String: Any]] ?? []
        #expect(steps.map { $0["kind"] as? String } == ["rename column", "rebuild table"])
        #expect(steps.allSatisfy { $0["statements"] is [String] && $0["destructive"] is Bool })
    }

    @Test func dryRunWritesNothing() throws {
        let f = Fixture()
        try f.seed()
        let schema = try f.schema(Self.v2)
        let before = fileBytes(f.db)
        let dry = try StrataProcess.run(["apply", "--db", f.db, "--schema", schema, "--dry-run"])
        #expect(dry.exitCode == 0, "\(dry)")
        #expect(dry.stdout.contains("ALTER TABLE \"user\" RENAME COLUMN \"name\" TO \"full_name\";"))
        #expect(fileBytes(f.db) == before)
        let missing = f.dir.file("missing.sqlite")
        let dryMissing = try StrataProcess.run(["apply", "--db", missing, "--schema", schema, "--dry-run"])
        #expect(dryMissing.exitCode == 0)
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func destructiveChangesExitThreeAndListEachOne() throws {
        let f = Fixture()
        try f.seed()
        let schema = try f.schema("CREATE TABLE other(x);\n")
        let before = fileBytes(f.db)
        for command in ["plan", "apply"] {
            let result = try StrataProcess.run([command, "--db", f.db, "--schema", schema])
            #expect(result.exitCode == 3, "\(result)")
            #expect(result.stdout == "")
            #expect(
                result.stderr == """
                    strata: \(f.db): refused 1 destructive change (pass --allow-destructive to apply):
                      - drop table user (2 rows)

                    """)
            #expect(fileBytes(f.db) == before)
        }
        let allowed = try StrataProcess.run(["apply", "--db", f.db, "--schema", schema, "--allow-destructive"])
        #expect(allowed.exitCode == 0, "\(allowed)")
        #expect(allowed.stdout.contains("- [destructive] drop table user"))
    }

    /// Each error: exit 1, one line on stderr naming the culprit first, the database unchanged.
    @Test func errorsNameTheCulpritAndChangeNothing() throws {
        let f = Fixture()
        try f.seed()
        let before = fileBytes(f.db)
        let garbage = f.dir.file("garbage.sqlite")
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: garbage))
        let cases: [(String, [String], String)] = [
            (
                "missing schema file", ["plan", "--db", f.db, "--schema", f.dir.file("nope.sql")],
                "strata: \(f.dir.file("nope.sql")): no such schema file\n"
            ),
            (
                "invalid SQL",
                [
                    "apply", "--db", f.db, "--schema",
                    try f.schema("CREATE TABLE user(id INTEGER PRIMARY KEY,, x);", named: "bad.sql"),
                ],
                "strata: \(f.dir.file("bad.sql")): statement 1 `CREATE TABLE user(id INTEGER PRIMARY KEY,, x);`: near \",\": syntax error\n"
            ),
            (
                "not a database", ["apply", "--db", garbage, "--schema", try f.schema(Self.v1)],
                "strata: \(garbage): not an SQLite database (file is not a database); if it is encrypted, give its key with --key-file or --key-env\n"
            ),
            (
                "rename hint naming nothing",
                [
                    "apply", "--db", f.db, "--schema",
                    try f.schema(
                        "CREATE TABLE user(id INTEGER PRIMARY KEY, a TEXT -- @renamed from=zzz\n, name TEXT, nickname TEXT);",
                        named: "hint.sql"),
                ],
                "strata: \(f.db): column user.a: `-- @renamed from=zzz` names no column of table user\n"
            ),
            (
                "preflight",
                [
                    "apply", "--db", f.db, "--schema",
                    try f.schema(
                        "CREATE TABLE user(id INTEGER PRIMARY KEY, name TEXT, nickname TEXT, age INTEGER NOT NULL);",
                        named: "pre.sql"),
                ],
                "strata: \(f.db): table user: cannot add column age NOT NULL without a DEFAULT: the table has 2 rows\n"
            ),
            (
                "dump of a missing database", ["dump", "--db", f.dir.file("none.sqlite")],
                "strata: \(f.dir.file("none.sqlite")): no such database file\n"
            ),
        ]
        for (name, arguments, stderr) in cases {
            let result = try StrataProcess.run(arguments)
            #expect(result.exitCode == 1, "\(name): \(result)")
            #expect(result.stderr == stderr, "\(name)")
            #expect(result.stdout == "", "\(name)")
            #expect(fileBytes(f.db) == before, "\(name): database changed")
        }
        #expect(!FileManager.default.fileExists(atPath: f.dir.file("none.sqlite")))
    }

    @Test func lockedDatabaseFailsAfterTheBusyTimeout() throws {
        let f = Fixture()
        try f.seed()
        let holder = try Database(path: f.db)
        try holder.execute(sql: "BEGIN EXCLUSIVE")
        defer { holder.rollbackQuietly() }
        let schema = try f.schema(Self.v2)
        let result = try StrataProcess.run(["apply", "--db", f.db, "--schema", schema])
        #expect(result.exitCode == 1, "\(result)")
        #expect(result.stderr.hasPrefix("strata: \(f.db): the database is locked"), "\(result)")
    }

    @Test func dumpPrintsAValidDesiredSchema() throws {
        let f = Fixture()
        try f.seed()
        let apply = try StrataProcess.run(["apply", "--db", f.db, "--schema", try f.schema(Self.v2)])
        #expect(apply.exitCode == 0, "\(apply)")
        let dump = try StrataProcess.run(["dump", "--db", f.db])
        #expect(dump.exitCode == 0)
        #expect(dump.stdout.contains("CREATE INDEX user_email ON user(email);"))
        let replan = try StrataProcess.run([
            "plan", "--db", f.db, "--schema", try f.schema(dump.stdout, named: "dumped.sql"),
        ])
        #expect(replan.stdout == "No changes.\n", "\(replan)")
    }

    @Test func renameOptions() throws {
        let f = Fixture()
        try f.seed()
        let schema = try f.schema("CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, nick TEXT);")
        let result = try StrataProcess.run([
            "apply", "--db", f.db, "--schema", schema, "--rename-table", "user:person", "--rename-column",
            "person.nickname:nick",
        ])
        #expect(result.exitCode == 0, "\(result)")
        let db = try Database(path: f.db)
        #expect(
            try db.fetchAll(sql: "SELECT * FROM person ORDER BY id").map(\.values) == [
                [1, "Ann", "a"], [2, nil, "b"],
            ])
        let bad = try StrataProcess.run(["plan", "--db", f.db, "--schema", schema, "--rename-column", "nodot"])
        #expect(bad.exitCode == 1)
        #expect(bad.stderr.contains("--rename-column nodot: expected TABLE.OLD:NEW"), "\(bad)")
    }
}
