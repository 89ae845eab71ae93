import Foundation
import Strata
import StrataTestSupport
import Testing

/// `--format json` on every command that reports something, and `strata status`'s drift report.
@Suite("JSON output")
struct JSONOutputCommandTests {
    private static let files = [
        "0001_create_team.sql": "CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n",
        "0002_create_player.sql":
            "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT, team_id INTEGER REFERENCES team(id));\n",
        "0003-seed.sql": "INSERT INTO team(id, name) VALUES (1, 'red');\n",
    ]

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func migrateJSONForOneDatabase() throws {
        let migrations = try migrationFolder(Self.files)
        let work = TemporaryDirectory()
        let db = work.file("app.sqlite")
        let r = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path, "--format", "json"])
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stderr == "")
        let document = try json(r.stdout)
        #expect(document["dryRun"] as? Bool == false)
        let entries = try #require(document["databases"] as? [[String: Any]])
        try #require(entries.count == 1)
        #expect(entries[0]["database"] as? String == db)
        #expect(entries[0]["result"] as? String == "ok")
        let applied = entries[0]["applied"] as? [[String: Any]] ?? []
        #expect(applied.map { $0["identifier"] as? String } == ["0001_create_team", "0002_create_player", "0003-seed"])
        #expect(applied.allSatisfy { $0["durationMilliseconds"] is Int })
        #expect(
            document["summary"] as? [String: Int] == [
                "databases": 1, "succeeded": 1, "failed": 0, "refused": 0, "skipped": 0, "duplicates": 0,
            ])

        // A failure: the document all the same, the error in it and on stderr as in text mode.
        try write(
            "INSERT INTO player(id, name, team_id) VALUES (3, 'Zed', 42);\n", to: migrations.file("0004_orphan.sql"))
        let bytes = fileBytes(db)
        let failed = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path, "--format", "json"])
        #expect(failed.exitCode == 1)
        let message =
            "migration 0004_orphan: foreign key violation: table player rowid 3 references a missing row of team; rolled back"
        #expect(failed.stderr == "strata: \(message)\n")
        let entry = try #require((try json(failed.stdout)["databases"] as? [[String: Any]])?.first)
        #expect(entry["result"] as? String == "failed")
        #expect(entry["error"] as? String == message)
        #expect(entry["applied"] as? [Any] != nil)
        #expect(fileBytes(db) == bytes)
    }

    @Test func checkAndDumpJSON() throws {
        let migrations = try migrationFolder(Self.files)
        let work = TemporaryDirectory()
        let schema = work.file("schema.sql")
        try write(
            """
            CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT, team_id INTEGER REFERENCES team(id));
            """, to: schema)
        let ok = try StrataProcess.run([
            "check", "--migrations", migrations.path, "--schema", schema, "--format", "json",
        ])
        #expect(ok.exitCode == 0, "\(ok)")
        let okDocument = try json(ok.stdout)
        #expect(okDocument["matches"] as? Bool == true)
        #expect(okDocument["differences"] as? [String] == [])
        #expect(okDocument["files"] as? Int == 3)

        try write("CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL, color TEXT);\n", to: schema)
        let differs = try StrataProcess.run([
            "check", "--migrations", migrations.path, "--schema", schema, "--format", "json",
        ])
        #expect(differs.exitCode == 1)
        #expect(differs.stderr.hasPrefix("strata: \(schema): differs from the schema the 3 migrations"))
        let differsDocument = try json(differs.stdout)
        #expect(differsDocument["matches"] as? Bool == false)
        #expect(
            differsDocument["differences"] as? [String] == [
                "table team: column color is missing", "table player is not expected",
            ])

        let db = work.file("app.sqlite")
        let database = try Database(path: db)
        try database.execute(
            sql: """
                CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);
                CREATE INDEX note_body ON note(body);
                CREATE VIEW short_note AS SELECT id FROM note WHERE length(body) < 10;
                CREATE TRIGGER note_touch AFTER UPDATE ON note BEGIN SELECT 1; END;
                CREATE VIRTUAL TABLE note_search USING fts5(body);
                """)
        database.close()
        let dump = try StrataProcess.run(["dump", "--db", db, "--format", "json"])
        #expect(dump.exitCode == 0, "\(dump)")
        let dumpDocument = try json(dump.stdout)
        #expect(dumpDocument["database"] as? String == db)
        let objects = dumpDocument["objects"] as? [[String: String]] ?? []
        #expect(
            objects.map { [$0["type"] ?? "-", $0["name"] ?? "-", $0["table"] ?? "-"] } == [
                ["table", "note", "note"], ["virtual table", "note_search", "note_search"],
                ["index", "note_body", "note"],
                ["view", "short_note", "short_note"], ["trigger", "note_touch", "note"],
            ])
        #expect(objects.first?["sql"] == "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
        // The same statements as the text dump.
        let text = try StrataProcess.run(["dump", "--db", db])
        #expect(objects.allSatisfy { $0["sql"].map(text.stdout.contains) == true })
    }

    @Test func planJSONWhenRefusedAndApplyJSON() throws {
        let work = TemporaryDirectory()
        let db = work.file("app.sqlite")
        let database = try Database(path: db)
        try database.execute(
            sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT, old TEXT); INSERT INTO note VALUES (1, 'a', 'b')"
        )
        database.close()
        let schema = work.file("schema.sql")
        try write("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);\n", to: schema)
        let bytes = fileBytes(db)

        let text = try StrataProcess.run(["plan", "--db", db, "--schema", schema])
        let refused = try StrataProcess.run(["plan", "--db", db, "--schema", schema, "--format", "json"])
        #expect(refused.exitCode == 3)
        #expect(refused.stderr == text.stderr, "the same refusal on stderr")
        #expect(refused.stderr.hasPrefix("strata: \(db): refused 1 destructive change"))
        let document = try json(refused.stdout)
        #expect(document["changes"] as? Bool == true)
        #expect(document["refused"] as? [String] == ["drop column note.old (1 row)"])
        #expect(document["destructive"] as? [String] == ["drop column note.old (1 row)"])
        let steps = document["steps"] as? [[String: Any]] ?? []
        #expect(steps.contains { $0["destructive"] as? Bool == true }, "the steps --allow-destructive would run")

        let allowed = try StrataProcess.run([
            "plan", "--db", db, "--schema", schema, "--format", "json", "--allow-destructive",
        ])
        #expect(allowed.exitCode == 0)
        #expect(try json(allowed.stdout)["refused"] as? [String] == [])

        let apply = try StrataProcess.run(["apply", "--db", db, "--schema", schema, "--format", "json"])
        #expect(apply.exitCode == 3)
        let entry = try #require((try json(apply.stdout)["databases"] as? [[String: Any]])?.first)
        #expect(entry["result"] as? String == "refused")
        #expect(entry["refused"] as? [String] == ["drop column note.old (1 row)"])
        #expect(fileBytes(db) == bytes)

        let applied = try StrataProcess.run([
            "apply", "--db", db, "--schema", schema, "--format", "json", "--allow-destructive",
        ])
        #expect(applied.exitCode == 0, "\(applied)")
        let appliedEntry = try #require((try json(applied.stdout)["databases"] as? [[String: Any]])?.first)
        #expect(appliedEntry["result"] as? String == "ok")
        let plan = appliedEntry["plan"] as? [String: Any]
        #expect(plan?["changes"] as? Bool == true)
        #expect((plan?["steps"] as? [[String: Any]])?.isEmpty == false)
    }

    /// `strata status` compares the live schema with what the applied migrations produce.
    @Test func statusReportsDrift() throws {
        let migrations = try migrationFolder(Self.files)
        let work = TemporaryDirectory()
        let db = work.file("app.sqlite")
        _ = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path, "--to", "2"])
        let clean = try StrataProcess.run(["status", "--db", db, "--migrations", migrations.path, "--format", "json"])
        #expect(clean.exitCode == 0, "\(clean)")
        let cleanDocument = try json(clean.stdout)
        let cleanDrift = cleanDocument["drift"] as? [String: Any]
        #expect(cleanDrift?["checked"] as? Bool == true)
        #expect(cleanDrift?["matches"] as? Bool == true)
        #expect(cleanDrift?["differences"] as? [String] == [])
        #expect(
            (cleanDocument["applied"] as? [[String: Any]])?.map { $0["checksum"] as? String } == [
                "verified", "verified",
            ])
        #expect(cleanDocument["pending"] as? [String] == ["0003-seed"])
        #expect(cleanDocument["migrateWouldRefuse"] as? Bool == false)

        // Out of band: `strata apply` adds a column and an index behind the migrations' back.
        let schema = work.file("schema.sql")
        try write(
            """
            CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL, color TEXT);
            CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT, team_id INTEGER REFERENCES team(id));
            CREATE INDEX player_team ON player(team_id);
            """, to: schema)
        #expect(try StrataProcess.run(["apply", "--db", db, "--schema", schema]).exitCode == 0)
        let drifted = try StrataProcess.run(["status", "--db", db, "--migrations", migrations.path])
        #expect(drifted.exitCode == 0, "drift is reported, it is not an error: \(drifted)")
        #expect(
            drifted.stdout.hasSuffix(
                """
                Pending (1):
                  0003-seed
                Drift (2): the schema differs from what the applied migrations produce:
                  - table team: column color is not expected
                  - index player_team is not expected

                """), "\(drifted.stdout)")
        let driftedDocument = try json(
            try StrataProcess.run(
                ["status", "--db", db, "--migrations", migrations.path, "--format", "json"]).stdout)
        let drift = driftedDocument["drift"] as? [String: Any]
        #expect(drift?["checked"] as? Bool == true)
        #expect(drift?["matches"] as? Bool == false)
        #expect(
            drift?["differences"] as? [String] == [
                "table team: column color is not expected", "index player_team is not expected",
            ])
    }

    /// Migrations recorded without a checksum (an app's closure migrations) are shown as not
    /// verifiable; drift is not checked when applied migrations cannot be replayed.
    @Test func statusShowsCodeMigrations() throws {
        let migrations = try migrationFolder(Self.files)
        let work = TemporaryDirectory()
        let db = work.file("app.sqlite")
        _ = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path, "--to", "2"])
        let database = try Database(path: db)
        // The app applied 0003-seed and 0004_backfill as Swift closures: no checksum recorded.
        try database.execute(
            sql: """
                INSERT INTO team(id, name) VALUES (1, 'red');
                INSERT INTO strata_migrations(identifier, checksum, applied_at, duration_ms)
                    VALUES ('0003-seed', NULL, '2026-01-01T00:00:00.000Z', 1), ('0004_backfill', NULL, '2026-01-01T00:00:00.000Z', 2);
                """)
        database.close()
        let bytes = fileBytes(db)
        let text = try StrataProcess.run(["status", "--db", db, "--migrations", migrations.path])
        #expect(text.exitCode == 1)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "  0003-seed applied 2026-01-01T00:00:00.000Z in 1 ms (not verifiable: recorded without a checksum, as a code migration is)"
            ))
        #expect(
            lines.contains(
                "  0004_backfill: applied, but no file in \(migrations.path) (not verifiable: recorded without a checksum, as a code migration is)"
            ))
        #expect(!text.stdout.contains("Drift"), "the Unknown section says why drift is not checked")
        #expect(
            text.stderr
                == "strata: \(db): 0004_backfill applied but missing from \(migrations.path) (strata migrate would refuse)\n"
        )

        let r = try StrataProcess.run(["status", "--db", db, "--migrations", migrations.path, "--format", "json"])
        #expect(r.exitCode == 1)
        let document = try json(r.stdout)
        #expect(
            (document["applied"] as? [[String: Any]])?.map { $0["checksum"] as? String } == [
                "verified", "verified", "not verifiable",
            ])
        let unknown = document["unknown"] as? [[String: Any]] ?? []
        #expect(unknown.map { $0["identifier"] as? String } == ["0004_backfill"])
        #expect(unknown.map { $0["hasChecksum"] as? Bool } == [false])
        let drift = document["drift"] as? [String: Any]
        #expect(drift?["checked"] as? Bool == false)
        #expect(
            drift?["reason"] as? String
                == "applied migrations are missing from \(migrations.path): they cannot be replayed")
        #expect(document["migrateWouldRefuse"] as? Bool == true)
        #expect(fileBytes(db) == bytes, "status writes nothing")
    }

    /// A database whose first migration changed a table made before the migrations existed:
    /// replaying them on an empty database fails, and status says drift was not checked, why.
    @Test func statusWhenTheMigrationsCannotBeReplayed() throws {
        let migrations = try migrationFolder(["0001_add_note.sql": "ALTER TABLE legacy ADD COLUMN note TEXT;\n"])
        let work = TemporaryDirectory()
        let db = work.file("app.sqlite")
        let database = try Database(path: db)
        try database.execute(sql: "CREATE TABLE legacy(id INTEGER PRIMARY KEY)")
        database.close()
        #expect(try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path]).exitCode == 0)
        let text = try StrataProcess.run(["status", "--db", db, "--migrations", migrations.path])
        #expect(text.exitCode == 0, "\(text)")
        let last = text.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(
            last.hasPrefix(
                "Drift: not checked (the applied migrations fail on an empty database: migration 0001_add_note failed: "
            ), "\(text)")
        let document = try json(
            try StrataProcess.run(["status", "--db", db, "--migrations", migrations.path, "--format", "json"]).stdout)
        let drift = document["drift"] as? [String: Any]
        #expect(drift?["checked"] as? Bool == false)
        #expect(drift?["matches"] == nil)
        #expect((drift?["reason"] as? String)?.hasPrefix("the applied migrations fail on an empty database") == true)
    }
}
