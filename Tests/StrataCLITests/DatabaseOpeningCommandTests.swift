import Foundation
import Strata
import StrataTestSupport
import Testing

/// Every command that opens a database goes through the one opener (`DatabaseOpener`, issue 27
/// item 8): a missing file is refused, planned against an empty database or created, as each
/// command always did, and a path that is not a database file is an error naming it. Nothing is
/// left behind where nothing was to be written.
@Suite("The one database opener, through every command")
struct DatabaseOpeningCommandTests {
    struct Fixture {
        let dir = TemporaryDirectory("strata-open")
        var missing: String { dir.file("missing.sqlite") }
        let schema: String
        let migrations: String
        let key: String

        init() throws {
            schema = dir.file("schema.sql")
            try Data("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);\n".utf8)
                .write(to: URL(fileURLWithPath: schema))
            migrations = dir.file("migrations")
            try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: false)
            try Data("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);\n".utf8)
                .write(to: URL(fileURLWithPath: migrations + "/0001_note.sql"))
            key = dir.file("new.key")
            try Data("secret\n".utf8).write(to: URL(fileURLWithPath: key))
        }
    }

    private func run(_ arguments: [String]) throws -> ChildProcess.Result {
        let bounded = try ChildProcess.strata(arguments, seconds: 120)
        #expect(!bounded.timedOut, "\(arguments): \(bounded)")
        return bounded.result
    }

    /// Commands that read: a missing file is refused with one line naming it, and not created.
    @Test func readersRefuseAMissingFile() throws {
        let f = try Fixture()
        let commands: [[String]] = [
            ["dump", "--db", f.missing],
            ["status", "--db", f.missing, "--migrations", f.migrations],
            ["rekey", "--db", f.missing, "--new-key-file", f.key],
        ]
        for arguments in commands {
            let result = try run(arguments)
            #expect(result.exitCode == 1, "\(arguments): \(result)")
            #expect(result.stderr == "strata: \(f.missing): no such database file\n", "\(arguments)")
            #expect(result.stdout == "", "\(arguments)")
            #expect(!FileManager.default.fileExists(atPath: f.missing), "\(arguments) created the file")
        }
        let lint = try run(["lint", "--db", f.missing, "--to", f.schema])
        #expect(lint.exitCode == 1, "\(lint)")
        #expect(lint.stderr == "strata: \(f.missing): no such database\n")
        #expect(!FileManager.default.fileExists(atPath: f.missing))
    }

    /// Commands that only plan or dry-run work on an empty database instead, and create nothing.
    @Test func plannersUseAnEmptyDatabaseAndCreateNothing() throws {
        let f = try Fixture()
        let plan = try run(["plan", "--db", f.missing, "--schema", f.schema])
        #expect(plan.exitCode == 0, "\(plan)")
        #expect(plan.stdout == "- create table note\n")
        #expect(plan.stderr == "note: \(f.missing) does not exist; planning against an empty database\n")
        let dryApply = try run(["apply", "--dry-run", "--db", f.missing, "--schema", f.schema])
        #expect(dryApply.exitCode == 0, "\(dryApply)")
        #expect(dryApply.stdout.contains("CREATE TABLE note"))
        let dryMigrate = try run(["migrate", "--dry-run", "--db", f.missing, "--migrations", f.migrations])
        #expect(dryMigrate.exitCode == 0, "\(dryMigrate)")
        #expect(dryMigrate.stdout.hasPrefix("Would apply 0001_note\n"))
        #expect(!FileManager.default.fileExists(atPath: f.missing))
    }

    /// Commands that write create the missing file.
    @Test func writersCreateTheFile() throws {
        let f = try Fixture()
        let applied = f.dir.file("applied.sqlite")
        let apply = try run(["apply", "--db", applied, "--schema", f.schema])
        #expect(apply.exitCode == 0, "\(apply)")
        let migrated = f.dir.file("migrated.sqlite")
        let migrate = try run(["migrate", "--db", migrated, "--migrations", f.migrations])
        #expect(migrate.exitCode == 0, "\(migrate)")
        for path in [applied, migrated] {
            let db = try Database(path: path)
            defer { db.close() }
            #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'note'") == 1)
        }
    }

    /// A directory where the database should be: every command that opens it fails with one line
    /// naming it, exit 1, and writes nothing into it.
    @Test func aDirectoryIsNamedByEveryCommand() throws {
        let f = try Fixture()
        let folder = f.dir.file("folder.sqlite")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let commands: [[String]] = [
            ["dump", "--db", folder],
            ["plan", "--db", folder, "--schema", f.schema],
            ["apply", "--db", folder, "--schema", f.schema],
            ["apply", "--dry-run", "--db", folder, "--schema", f.schema],
            ["migrate", "--db", folder, "--migrations", f.migrations],
            ["migrate", "--dry-run", "--db", folder, "--migrations", f.migrations],
            ["status", "--db", folder, "--migrations", f.migrations],
            ["lint", "--db", folder, "--to", f.schema],
        ]
        for arguments in commands {
            let result = try run(arguments)
            #expect(result.exitCode == 1, "\(arguments): \(result)")
            #expect(result.stderr.hasPrefix("strata: \(folder): "), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "\(arguments)")
        }
    }
}
