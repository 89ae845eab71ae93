import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata migrate --dry-run` works on a copy of the database that no one else can read: never a
/// world-readable file in the system temporary folder (issue 11, item 4).
@Suite("strata migrate --dry-run")
struct MigrateDryRunScratchTests {
    private static let files = [
        "0001_create_team.sql": "CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n",
        "0002_create_player.sql":
            "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT, team_id INTEGER REFERENCES team(id));\n",
        "0003-seed.sql": "INSERT INTO team(id, name) VALUES (1, 'red');\n",
    ]

    /// Runs `strata` with extra environment variables.
    private func strata(_ arguments: [String], environment: [String: String]) throws -> ChildProcess.Result {
        let output = TemporaryDirectory("strata-child")
        let process = Process()
        process.executableURL = try ChildProcess.executable("strata")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        for file in ["stdout", "stderr"] {
            _ = FileManager.default.createFile(atPath: output.file(file), contents: nil)
        }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output.file("stdout")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: output.file("stderr")))
        try process.run()
        return ChildProcess.result(of: process, output: output)
    }

    /// The system temporary folder is pointed at a path that does not exist: a dry run that
    /// copied the database there would fail. It must succeed, write no file anywhere, and leave
    /// the 0600 database (rollback journal or WAL) byte-identical.
    @Test func aDryRunWritesNoCopyOfTheDatabaseAnywhere() throws {
        let migrations = try migrationFolder(Self.files)
        for wal in [false, true] {
            let work = TemporaryDirectory("strata-dry-run")
            let db = work.file("app.sqlite")
            let partial = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path, "--to", "2"])
            #expect(partial.exitCode == 0, "\(partial)")
            let database = try Database(path: db)
            if wal { try database.execute(sql: "PRAGMA journal_mode = WAL") }
            try database.execute(sql: "INSERT INTO team(id, name) VALUES (7, 'kept')")
            database.close()
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: db)
            let bytes = fileBytes(db)
            let entries = try FileManager.default.contentsOfDirectory(atPath: work.path).sorted()
            let nowhere = work.file("no-temporary-folder")

            let dry = try strata(
                ["migrate", "--db", db, "--migrations", migrations.path, "--dry-run"], environment: ["TMPDIR": nowhere])
            let label = wal ? "WAL" : "rollback journal"
            #expect(dry.exitCode == 0, "\(label): \(dry)")
            #expect(
                dry.stdout == """
                    Would apply 0003-seed
                    Dry run: 1 migration would be applied to \(db) (checked on a temporary copy; the database is unchanged).

                    """, "\(label)")
            #expect(fileBytes(db) == bytes, "\(label)")
            // A read-only connection to a WAL database leaves SQLite's (empty) -wal and -shm
            // files, with the database's permissions; nothing else may appear.
            let after = try FileManager.default.contentsOfDirectory(atPath: work.path).sorted()
            #expect(
                after.filter { !["app.sqlite-wal", "app.sqlite-shm"].contains($0) } == entries,
                "\(label): a file was left beside the database")
            for name in after where name.hasPrefix("app.sqlite-") {
                let mode =
                    (try FileManager.default.attributesOfItem(atPath: work.file(name))[.posixPermissions] as? NSNumber)?
                    .intValue
                #expect(mode.map { $0 & ~0o600 } == 0, "\(label): \(name) is readable by others")
            }
            #expect(!FileManager.default.fileExists(atPath: nowhere), "\(label)")
        }
    }

    /// A migration that fails in the dry run is reported as in a real run, and leaves nothing.
    @Test func aFailingDryRunLeavesNothing() throws {
        var files = Self.files
        files["0004_orphan.sql"] = "INSERT INTO player(id, name, team_id) VALUES (3, 'Zed', 42);\n"
        let migrations = try migrationFolder(files)
        let work = TemporaryDirectory("strata-dry-run")
        let db = work.file("app.sqlite")
        _ = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path, "--to", "0003-seed"])
        let bytes = fileBytes(db)
        let nowhere = work.file("no-temporary-folder")
        let dry = try strata(
            ["migrate", "--db", db, "--migrations", migrations.path, "--dry-run"], environment: ["TMPDIR": nowhere])
        #expect(dry.exitCode == 1, "\(dry)")
        #expect(
            dry.stderr
                == "strata: migration 0004_orphan: foreign key violation: table player rowid 3 references a missing row of team; rolled back\n"
        )
        #expect(fileBytes(db) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path) == ["app.sqlite"])
    }
}
