import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata migrate` and `strata status`, run as a user runs them.
@Suite("strata migrate and status")
struct MigrateCommandTests {
    private static let files = [
        "0001_create_team.sql": "CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n",
        "0002_create_player.sql":
            "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT, team_id INTEGER REFERENCES team(id));\n",
        "0003-seed.sql": "INSERT INTO team(id, name) VALUES (1, 'red');\n",
    ]

    private func normalized(_ text: String) -> String {
        text.replacingOccurrences(of: #"\(\d+ ms\)"#, with: "(N ms)", options: .regularExpression)
    }

    @Test func migrateAppliesThenNothing() throws {
        let migrations = try migrationFolder(Self.files)
        let work = TemporaryDirectory()
        let db = work.file("app.sqlite")
        let first = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path])
        #expect(first.exitCode == 0, "\(first)")
        #expect(
            normalized(first.stdout) == """
                Applied 0001_create_team (N ms)
                Applied 0002_create_player (N ms)
                Applied 0003-seed (N ms)
                Applied 3 migrations to \(db).

                """)
        #expect(first.stderr == "")
        let second = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path])
        #expect(second.exitCode == 0)
        #expect(second.stdout == "Nothing to migrate: \(db) is up to date.\n")
        let database = try Database(path: db)
        #expect(
            try database.fetchColumn(String.self, sql: "SELECT identifier FROM strata_migrations")
                == ["0001_create_team", "0002_create_player", "0003-seed"])
    }

    @Test func migrateToAndDryRun() throws {
        let migrations = try migrationFolder(Self.files)
        let work = TemporaryDirectory()
        let db = work.file("app.sqlite")
        let partial = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path, "--to", "2"])
        #expect(partial.exitCode == 0, "\(partial)")
        #expect(
            normalized(partial.stdout).hasSuffix("Applied 0002_create_player (N ms)\nApplied 2 migrations to \(db).\n"))

        let bytes = fileBytes(db)
        let dry = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path, "--dry-run"])
        #expect(dry.exitCode == 0, "\(dry)")
        #expect(
            dry.stdout == """
                Would apply 0003-seed
                Dry run: 1 migration would be applied to \(db) (checked on a temporary copy; the database is unchanged).

                """)
        #expect(fileBytes(db) == bytes)

        let missing = work.file("missing.sqlite")
        let dryFresh = try StrataProcess.run(["migrate", "--db", missing, "--migrations", migrations.path, "--dry-run"])
        #expect(dryFresh.exitCode == 0, "\(dryFresh)")
        #expect(!FileManager.default.fileExists(atPath: missing), "a dry run creates no file")

        let badTarget = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path, "--to", "9"])
        #expect(badTarget.exitCode == 1)
        #expect(badTarget.stderr == "strata: 9: no migration with this identifier or number in \(migrations.path)\n")
    }

    @Test func failingMigrationExits1AndLeavesTheDatabase() throws {
        var files = Self.files
        files["0004_orphan.sql"] = "INSERT INTO player(id, name, team_id) VALUES (3, 'Zed', 42);\n"
        let migrations = try migrationFolder(files)
        let work = TemporaryDirectory()
        let db = work.file("app.sqlite")
        _ = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path, "--to", "0003-seed"])
        let bytes = fileBytes(db)
        let result = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path])
        #expect(result.exitCode == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "strata: migration 0004_orphan: foreign key violation: table player rowid 3 references a missing row of team; rolled back\n"
        )
        #expect(fileBytes(db) == bytes)
    }

    @Test func badFolderIsReportedWithTheFileName() throws {
        var files = Self.files
        files["0005_skipped.sql"] = "SELECT 1;"
        let migrations = try migrationFolder(files)
        let work = TemporaryDirectory()
        let result = try StrataProcess.run([
            "migrate", "--db", work.file("app.sqlite"), "--migrations", migrations.path,
        ])
        #expect(result.exitCode == 1)
        #expect(
            result.stderr == "strata: 0005_skipped.sql: gap in the numbering (after 0003-seed.sql, expected number 4)\n"
        )
        #expect(!FileManager.default.fileExists(atPath: work.file("app.sqlite")))
    }

    @Test func newerDatabaseIsRefused() throws {
        var files = Self.files
        files["0004_add_color.sql"] = "ALTER TABLE team ADD COLUMN color TEXT;\n"
        let newer = try migrationFolder(files)
        let older = try migrationFolder(Self.files)
        let work = TemporaryDirectory()
        let db = work.file("app.sqlite")
        _ = try StrataProcess.run(["migrate", "--db", db, "--migrations", newer.path])
        let bytes = fileBytes(db)
        let result = try StrataProcess.run(["migrate", "--db", db, "--migrations", older.path])
        #expect(result.exitCode == 1)
        #expect(
            result.stderr
                == "strata: 0004_add_color: applied to the database but unknown to this app (migrated by a newer version?); nothing was migrated\n"
        )
        #expect(fileBytes(db) == bytes)

        let status = try StrataProcess.run(["status", "--db", db, "--migrations", older.path])
        #expect(status.exitCode == 1)
        #expect(status.stdout.hasSuffix("Unknown (1):\n  0004_add_color: applied, but no file in \(older.path)\n"))
        #expect(
            status.stderr
                == "strata: \(db): 0004_add_color applied but missing from \(older.path) (strata migrate would refuse)\n"
        )
    }

    @Test func statusListsAppliedPendingAndEdited() throws {
        let migrations = try migrationFolder(Self.files)
        let work = TemporaryDirectory()
        let db = work.file("app.sqlite")
        _ = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path, "--to", "2"])
        let clean = try StrataProcess.run(["status", "--db", db, "--migrations", migrations.path])
        #expect(clean.exitCode == 0, "\(clean)")
        let lines = clean.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 7)
        #expect(lines[0] == "Database: \(db)")
        #expect(lines[1] == "Migrations: \(migrations.path) (3 files)")
        #expect(lines[2] == "Applied (2):")
        #expect(lines[3].hasPrefix("  0001_create_team applied 20") && lines[3].hasSuffix(" ms"))
        #expect(lines[4].hasPrefix("  0002_create_player applied 20"))
        #expect(Array(lines[5...]) == ["Pending (1):", "  0003-seed"])

        try Data("CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);\n".utf8)
            .write(to: URL(fileURLWithPath: migrations.file("0001_create_team.sql")))
        let edited = try StrataProcess.run(["status", "--db", db, "--migrations", migrations.path])
        #expect(edited.exitCode == 1)
        #expect(
            edited.stdout.contains(
                "Checksum mismatches (1):\n  0001_create_team: edited after it was applied (checksum "))
        #expect(
            edited.stderr
                == "strata: \(db): 0001_create_team edited after being applied (strata migrate would refuse)\n")

        let missing = try StrataProcess.run([
            "status", "--db", work.file("none.sqlite"), "--migrations", migrations.path,
        ])
        #expect(missing.exitCode == 1)
        #expect(missing.stderr == "strata: \(work.file("none.sqlite")): no such database file\n")
    }
}
