import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata history`, `strata verify` and `strata lint`.
@Suite("History, verify and lint commands")
struct LifecycleCommandTests {
    private func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    static let migrations = [
        "0001_create.sql": "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL, done INTEGER);",
        "0002_tag.sql": """
        CREATE TABLE tag(id INTEGER PRIMARY KEY, note_id INTEGER NOT NULL REFERENCES note(id), name TEXT);
        ALTER TABLE note ADD COLUMN due TEXT;
        """,
    ]

    @Test func historyThenVerifyPassesAndCatchesALossyMigration() throws {
        let folder = try migrationFolder(Self.migrations)
        let out = TemporaryDirectory("history")
        let history = out.file("history")
        let first = try StrataProcess.run(["history", "--migrations", folder.path, "--out", history])
        #expect(first.exitCode == 0, "\(first)")
        #expect(first.stdout == "\(history): 2 versions, 2 files written\n")
        let again = try StrataProcess.run(["history", "--migrations", folder.path, "--out", history])
        #expect(again.stdout == "\(history): 2 versions, unchanged\n", "stable text")

        let ok = try StrataProcess.run(["verify", "--history", history, "--migrations", folder.path, "--rows", "8"])
        #expect(ok.exitCode == 0, "\(ok)")
        let lines = ok.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("version 1 (0001_create): ok, ") == true, "\(ok.stdout)")

        // A third migration that loses note.body's values.
        try write(
            """
            CREATE TABLE note2(id INTEGER PRIMARY KEY, body TEXT NOT NULL, done INTEGER, due TEXT);
            INSERT INTO note2 SELECT id, '', done, due FROM note;
            DROP TABLE note;
            ALTER TABLE note2 RENAME TO note;
            """, to: folder.file("0003_rebuild.sql"))
        let bad = try StrataProcess.run([
            "verify", "--history", history, "--migrations", folder.path, "--rows", "8", "--format", "json",
        ])
        #expect(bad.exitCode == 1, "\(bad)")
        #expect(bad.stderr.contains("version 1: table note, row id="), "\(bad.stderr)")
        #expect(bad.stderr.contains("column body was"))
        let document = try json(bad.stdout)
        #expect(document["passed"] as? Bool == false)
        let versions = try #require(document["versions"] as? [[String: Any]])
        #expect(versions.count == 2)
        let failure = try #require(versions.first?["failure"] as? [String: Any])
        #expect(failure["kind"] as? String == "row")
        #expect(failure["table"] as? String == "note")
    }

    @Test func verifyOlderVersionsPrintsTheMatrix() throws {
        var steps = Self.migrations
        steps["0003_unique_body.sql"] = "CREATE UNIQUE INDEX note_body ON note(body);"
        let folder = try migrationFolder(steps)
        let out = TemporaryDirectory("history")
        let history = out.file("history")
        #expect(try StrataProcess.run(["history", "--migrations", folder.path, "--out", history]).exitCode == 0)
        let run = try StrataProcess.run([
            "verify", "--history", history, "--migrations", folder.path, "--rows", "6", "--older-versions",
        ])
        #expect(run.exitCode == 0, "\(run)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6, "\(run.stdout)")
        #expect(
            lines[3].hasPrefix("version 1 (0001_create) opening head: opens read-only: breaking add-unique note_body"),
            "\(run.stdout)")
        #expect(lines[4].hasPrefix("version 2 (0002_tag) opening head: opens read-only: "), "\(run.stdout)")
        #expect(lines[5] == "version 3 (0003_unique_body) opening head: is head", "\(run.stdout)")
        let json = try StrataProcess.run([
            "verify", "--history", history, "--migrations", folder.path, "--rows", "6", "--older-versions", "--format",
            "json",
        ])
        let document = try self.json(json.stdout)
        let older = try #require(document["olderVersions"] as? [[String: Any]])
        #expect(older.map { $0["verdict"] as? String } == ["opens read-only", "opens read-only", "is head"])
        let plain = try StrataProcess.run([
            "verify", "--history", history, "--migrations", folder.path, "--format", "json",
        ])
        #expect(try self.json(plain.stdout)["olderVersions"] == nil, "absent without the flag")
        let schemaOnly = try StrataProcess.run([
            "verify", "--history", history, "--schema", folder.file("0001_create.sql"), "--older-versions",
        ])
        #expect(schemaOnly.exitCode == 1, "\(schemaOnly)")
        #expect(schemaOnly.stderr.contains("--older-versions needs --migrations DIR"), "\(schemaOnly.stderr)")
    }

    @Test func historyAddAndVerifyASchema() throws {
        let dir = TemporaryDirectory("history")
        let v1 = dir.file("v1.sql")
        let head = dir.file("schema.sql")
        try write("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);", to: v1)
        try write("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT, due TEXT);", to: head)
        let history = dir.file("history")
        let add = try StrataProcess.run(["history", "add", "--schema", v1, "--release", "1", "--out", history])
        #expect(add.exitCode == 0, "\(add)")
        #expect(add.stdout == "\(history)/0001.sql: written\n")
        let verify = try StrataProcess.run(["verify", "--history", history, "--schema", head])
        #expect(verify.exitCode == 0, "\(verify)")
        #expect(verify.stdout.hasPrefix("version 1: ok, 12 rows checked"), "\(verify.stdout)")
        // Bad input: named.
        let missing = try StrataProcess.run(["verify", "--history", dir.file("nope"), "--schema", head])
        #expect(missing.exitCode == 1)
        #expect(missing.stderr == "strata: \(dir.file("nope")): no such history folder\n")
        let both = try StrataProcess.run(["verify", "--history", history])
        #expect(both.exitCode == 1)
        #expect(both.stderr.contains("give exactly one of --migrations DIR and --schema FILE"))
    }

    @Test func lintClassifiesAndExitsByLevel() throws {
        let dir = TemporaryDirectory("lint")
        let old = dir.file("old.sql")
        let new = dir.file("new.sql")
        try write(
            """
            CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT, old TEXT, n INTEGER);
            CREATE VIEW v AS SELECT id, body FROM note;
            """, to: old)
        try write(
            """
            CREATE TABLE note(
              id INTEGER PRIMARY KEY,
              text TEXT, -- @renamed from=body
              n INTEGER,
              due TEXT,
              rank INTEGER NOT NULL
            );
            CREATE VIEW v AS SELECT id FROM note;
            CREATE TABLE tag(id TEXT PRIMARY KEY NOT NULL, title TEXT UNIQUE);
            """, to: new)
        let r = try StrataProcess.run(["lint", "--schema", old, "--to", new, "--format", "json"])
        #expect(r.exitCode == 2, "\(r)")
        #expect(r.stderr.hasPrefix("strata: \(new): "), "\(r.stderr)")
        let document = try json(r.stdout)
        let findings = try #require(document["findings"] as? [[String: Any]])
        let codes = findings.compactMap { $0["code"] as? String }
        #expect(
            Set(codes) == [
                "data-condition", "add-table", "rename-column", "add-column", "add-not-null-without-default",
                "drop-column", "change-view",
            ],
            "\(codes)")
        let rename = try #require(findings.first { $0["code"] as? String == "rename-column" })
        #expect(rename["object"] as? String == "note.text")
        #expect(rename["level"] as? String == "breaking")
        #expect((rename["saferSequence"] as? String)?.hasPrefix("Expand and contract") == true)

        // Only safe changes: exit 0 (and 2 with --fail-on safe).
        try write(
            "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT, old TEXT, n INTEGER, due TEXT);\nCREATE VIEW v AS SELECT id, body FROM note;",
            to: new)
        let safe = try StrataProcess.run(["lint", "--from", old, "--to", new])
        #expect(safe.exitCode == 0, "\(safe)")
        #expect(
            safe.stdout
                == "safe add-column note.due: new nullable column\n1 finding: 0 breaking, 0 data-dependent, 1 safe\n")
        #expect(try StrataProcess.run(["lint", "--from", old, "--to", new, "--fail-on", "safe"]).exitCode == 2)

        // The sync policy: a new table's UNIQUE column is breaking.
        try write(
            "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT, old TEXT, n INTEGER);\nCREATE VIEW v AS SELECT id, body FROM note;\nCREATE TABLE tag(id TEXT PRIMARY KEY NOT NULL, title TEXT UNIQUE);",
            to: new)
        #expect(try StrataProcess.run(["lint", "--schema", old, "--to", new]).exitCode == 0)
        let sync = try StrataProcess.run(["lint", "--schema", old, "--to", new, "--policy", "sync"])
        #expect(sync.exitCode == 2)
        #expect(sync.stdout.contains("breaking sync-unique tag.title: "), "\(sync.stdout)")

        // Errors: exit 1, naming the file.
        let missing = try StrataProcess.run(["lint", "--schema", dir.file("nope.sql"), "--to", new])
        #expect(missing.exitCode == 1)
        #expect(missing.stderr == "strata: \(dir.file("nope.sql")): no such schema file\n")
        #expect(try StrataProcess.run(["lint", "--to", new]).exitCode == 1)
    }

    @Test func lintFromADatabaseAndAHistoryAndPlanJSON() throws {
        let dir = TemporaryDirectory("lint")
        let db = dir.file("app.sqlite")
        let schema = dir.file("schema.sql")
        try write("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);", to: schema)
        #expect(try StrataProcess.run(["apply", "--db", db, "--schema", schema]).exitCode == 0)
        let before = fileBytes(db)
        try write("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);", to: schema)
        let r = try StrataProcess.run(["lint", "--db", db, "--to", schema])
        #expect(r.exitCode == 2, "\(r)")
        #expect(r.stdout.contains("breaking set-not-null note.body: "))
        #expect(r.stdout.contains("data-dependent data-condition note: "), "\(r.stdout)")
        #expect(fileBytes(db) == before, "lint never writes the database")

        let history = dir.file("history")
        try write("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);", to: dir.file("v1.sql"))
        #expect(
            try StrataProcess.run([
                "history", "add", "--schema", dir.file("v1.sql"), "--release", "1", "--out", history,
            ])
            .exitCode == 0)
        let fromHistory = try StrataProcess.run(["lint", "--history", history, "--to", schema, "--fail-on", "breaking"])
        #expect(fromHistory.exitCode == 2)
        #expect(fromHistory.stdout == r.stdout)

        let plan = try StrataProcess.run(["plan", "--db", db, "--schema", schema, "--format", "json"])
        #expect(plan.exitCode == 0, "\(plan)")
        let document = try json(plan.stdout)
        let compatibility = try #require(document["compatibility"] as? [String: Any])
        #expect(compatibility["policy"] as? String == "previous-version")
        let codes = (compatibility["findings"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
        #expect(codes == ["set-not-null", "data-condition"])
    }

    /// Every code of the lint, a change that gives it and a near miss that does not, through the CLI.
    @Test(arguments: CompatibilityLintCases.cases) func everyCodeThroughTheCLI(_ c: CompatibilityLintCases.Case) throws
    {
        let (major, minor) = c.minimumSQLiteVersion
        guard SQLiteVersion.runtime >= SQLiteVersion(major, minor) else { return }
        let dir = TemporaryDirectory("lint")
        func codes(_ old: String, _ new: String) throws -> [String] {
            try write(old, to: dir.file("old.sql"))
            try write(new, to: dir.file("new.sql"))
            let r = try StrataProcess.run([
                "lint", "--schema", dir.file("old.sql"), "--to", dir.file("new.sql"), "--policy", c.policy.rawValue,
                "--fail-on", "safe", "--format", "json",
            ])
            #expect(r.exitCode == 0 || r.exitCode == 2, "\(r)")
            let findings = try json(r.stdout)["findings"] as? [[String: Any]] ?? []
            #expect((r.exitCode == 2) == !findings.isEmpty, "exit 2 exactly when there is a finding (--fail-on safe)")
            return findings.compactMap { $0["code"] as? String }
        }
        #expect(try codes(c.old, c.positive).contains(c.code.rawValue))
        #expect(try !codes(c.negativeOld ?? c.old, c.negative).contains(c.code.rawValue))
    }
}
