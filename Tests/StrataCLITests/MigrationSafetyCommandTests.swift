import Foundation
import Strata
import StrataTestSupport
import Testing

/// Runs `strata arguments...`, killing it after `timeout` seconds (a hang is a failure, not a stuck test run).
private func strata(_ arguments: [String], timeout: TimeInterval = 60) throws -> ChildProcess.Result {
    let output = TemporaryDirectory("strata-child")
    let process = try ChildProcess.launch("strata", arguments, output: output)
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning, Date() < deadline { usleep(10_000) }
    if process.isRunning {
        process.terminate()
        Issue.record("strata \(arguments.joined(separator: " ")) still ran after \(Int(timeout)) s; killed")
    }
    return ChildProcess.result(of: process, output: output)
}

/// A fake secret, kept in files outside the migrations folder: it must never be printed.
private let secret = "STRATA-FAKE-SECRET-9f3c2a7e41"

/// A migrations folder with `0001_create.sql`, a folder `outside` next to it holding secrets,
/// a database where 0001 is applied (with a row), and a schema file.
private final class Workspace {
    let root = TemporaryDirectory("strata-safety")
    var folder: String { root.file("migrations") }
    var outside: String { root.file("outside") }
    var database: String { root.file("app.sqlite") }
    var schema: String { root.file("schema.sql") }

    init() throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try fm.createDirectory(atPath: outside, withIntermediateDirectories: false)
        try write("CREATE TABLE a(x);\n", to: folder + "/0001_create.sql")
        try write("API_TOKEN=\(secret)\nDB_PASSWORD=hunter2-\(secret)\n", to: outside + "/secrets.env")
        try write("-- \(secret)\nCREATE TABLE pwned(x);\n", to: outside + "/valid.sql")
        try write("CREATE TABLE a(x);\nCREATE TABLE b(y);\n", to: schema)
        let r = try strata(["migrate", "--db", database, "--migrations", folder])
        precondition(r.status == 0, "\(r)")
        let db = try Database(path: database)
        try db.execute(sql: "INSERT INTO a VALUES ('kept')")
        db.close()
    }

    func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    func symlink(_ name: String, to destination: String) throws {
        try FileManager.default.createSymbolicLink(atPath: folder + "/" + name, withDestinationPath: destination)
    }

    func mkfifo(_ path: String) {
        precondition(Foundation.mkfifo(path, 0o600) == 0, "mkfifo \(path)")
    }

    /// Every migration command on this workspace.
    var commands: [[String]] {
        [
            ["migrate", "--db", database, "--migrations", folder],
            ["migrate", "--dry-run", "--db", database, "--migrations", folder],
            ["status", "--db", database, "--migrations", folder],
            ["check", "--migrations", folder, "--schema", schema],
            ["new", "--migrations", folder, "--schema", schema, "--name", "add b"],
        ]
    }
}

/// An entry of the migrations folder that leads outside it or is not a file.
private struct HostileEntry: Sendable, CustomTestStringConvertible {
    var name: String
    var entry: String
    /// Words the one-line refusal must contain after the entry's name.
    var reason: String
    var make: @Sendable (Workspace) throws -> Void
    var testDescription: String { name }
}

private let hostileEntries: [HostileEntry] = [
    HostileEntry(
        name: "a relative symlink to a secrets file outside", entry: "0002_x.sql",
        reason: "outside the migrations folder",
        make: { try $0.symlink("0002_x.sql", to: "../outside/secrets.env") }),
    HostileEntry(
        name: "an absolute symlink to a secrets file outside", entry: "0002_x.sql",
        reason: "outside the migrations folder",
        make: { try $0.symlink("0002_x.sql", to: $0.outside + "/secrets.env") }),
    HostileEntry(
        name: "a symlink to valid SQL outside", entry: "0002_x.sql", reason: "outside the migrations folder",
        make: { try $0.symlink("0002_x.sql", to: "../outside/valid.sql") }),
    HostileEntry(
        name: "a symlink through a symlinked subfolder", entry: "0002_x.sql", reason: "outside the migrations folder",
        make: {
            try $0.symlink("sub", to: "../outside")
            try $0.symlink("0002_x.sql", to: "sub/secrets.env")
        }),
    HostileEntry(
        name: "a symlink to /dev/zero", entry: "0002_zero.sql", reason: "outside the migrations folder",
        make: { try $0.symlink("0002_zero.sql", to: "/dev/zero") }),
    HostileEntry(
        name: "a symlink to a directory outside", entry: "0002_dir.sql", reason: "outside the migrations folder",
        make: { try $0.symlink("0002_dir.sql", to: "../outside") }),
    HostileEntry(
        name: "a symlink to a FIFO outside", entry: "0002_pipe.sql", reason: "outside the migrations folder",
        make: {
            $0.mkfifo($0.outside + "/pipe")
            try $0.symlink("0002_pipe.sql", to: "../outside/pipe")
        }),
    HostileEntry(
        name: "a FIFO in the folder", entry: "0002_pipe.sql", reason: "not a regular file (a FIFO)",
        make: { $0.mkfifo($0.folder + "/0002_pipe.sql") }),
    HostileEntry(
        name: "a symlink to a FIFO in the folder", entry: "0002_pipe.sql", reason: "not a regular file (a FIFO)",
        make: {
            $0.mkfifo($0.folder + "/pipe")
            try $0.symlink("0002_pipe.sql", to: "pipe")
        }),
    HostileEntry(
        name: "a directory named like a migration", entry: "0002_dir.sql", reason: "not a regular file (a directory)",
        make: {
            try FileManager.default.createDirectory(
                atPath: $0.folder + "/0002_dir.sql", withIntermediateDirectories: false)
        }),
    HostileEntry(
        name: "a dangling symlink", entry: "0002_gone.sql", reason: "a symbolic link that cannot be resolved",
        make: { try $0.symlink("0002_gone.sql", to: "../outside/missing.sql") }),
    HostileEntry(
        name: "a symlink loop", entry: "0002_loop.sql", reason: "a symbolic link that cannot be resolved",
        make: { try $0.symlink("0002_loop.sql", to: "0002_loop.sql") }),
]

@Suite("Migration safety on the command line")
struct MigrationSafetyCommandTests {
    // MARK: Item 9: folders that reach outside themselves

    @Test(arguments: hostileEntries)
    private func entriesOutsideTheFolderAreRefusedByName(_ h: HostileEntry) throws {
        let w = try Workspace()
        try h.make(w)
        let bytes = fileBytes(w.database)
        let listing = try FileManager.default.contentsOfDirectory(atPath: w.folder).sorted()
        for command in w.commands {
            let r = try strata(command, timeout: 20)
            let label = "\(h.name), \(command[0]) \(command[1])"
            #expect(r.status == 1, "\(label): \(r)")
            #expect(r.stderr.hasPrefix("strata: \(h.entry): \(h.reason)"), "\(label): \(r.stderr)")
            #expect(r.stderr.filter { $0 == "\n" }.count == 1, "\(label): \(r.stderr)")
            #expect(!r.stdout.contains(secret) && !r.stderr.contains(secret), "\(label): the secret was printed")
            #expect(!r.stdout.contains("hunter2") && !r.stderr.contains("hunter2"), "\(label): the secret was printed")
        }
        #expect(fileBytes(w.database) == bytes, "\(h.name): the database changed")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: w.folder).sorted() == listing,
            "\(h.name): a file was written")
    }

    /// A symlink that stays inside the folder (to a file in a real subfolder) is a migration like any other.
    @Test func aSymlinkInsideTheFolderIsAccepted() throws {
        let w = try Workspace()
        try FileManager.default.createDirectory(atPath: w.folder + "/library", withIntermediateDirectories: false)
        try w.write("CREATE TABLE b(y);\n", to: w.folder + "/library/add_b.sql")
        try w.symlink("0002_add_b.sql", to: "library/add_b.sql")
        let r = try strata(["migrate", "--db", w.database, "--migrations", w.folder])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.hasPrefix("Applied 0002_add_b ("), "\(r)")
        let check = try strata(["check", "--migrations", w.folder, "--schema", w.schema])
        #expect(check.status == 0, "\(check)")
    }

    /// Errors quote at most 200 characters of the failing statement, never the rest of the file.
    @Test func failingStatementsAreQuotedShort() throws {
        let padding = String(repeating: "x", count: 300)
        let files = [
            "a syntax error in a long statement": "INSERT INTO a VALUES ('\(padding) \(secret)') garbage;\n",
            "an unterminated string": "CREATE TABLE b(y);\nINSERT INTO a VALUES ('\(padding) \(secret)\n\nmore text\n",
            "an unterminated quoted identifier": "SELECT \"\(padding) \(secret)\n",
            "text that is not SQL at all": "API_TOKEN=\(padding)\(secret)\n",
            "a runtime error in a long statement": "INSERT INTO missing_table VALUES ('\(padding)', '\(secret)');\n",
        ]
        for (name, text) in files {
            let w = try Workspace()
            try w.write(text, to: w.folder + "/0002_broken.sql")
            let bytes = fileBytes(w.database)
            for command in w.commands where command[0] != "status" {
                let r = try strata(command)
                let label = "\(name), \(command[0]) \(command[1])"
                #expect(r.status == 1, "\(label): \(r)")
                #expect(r.stderr.hasPrefix("strata: migration 0002_broken failed: "), "\(label): \(r.stderr)")
                #expect(r.stderr.filter { $0 == "\n" }.count == 1, "\(label): \(r.stderr)")
                #expect(r.stderr.count < 700, "\(label): \(r.stderr.count) characters")
                #expect(!r.stderr.contains(secret) && !r.stdout.contains(secret), "\(label): \(r.stderr)")
            }
            #expect(fileBytes(w.database) == bytes, "\(name): the database changed")
        }
    }

    /// `check` and `new` read a schema file too: SQLite quotes an unterminated string whole, which
    /// there is the rest of the file; the error stays one short line.
    @Test func schemaFileErrorsAreQuotedShort() throws {
        let w = try Workspace()
        let padding = String(repeating: "x", count: 500)
        try w.write("CREATE TABLE a(x);\nCREATE TABLE b(y DEFAULT '\(padding)\n\(secret)\n", to: w.schema)
        for command in w.commands where ["check", "new"].contains(command[0]) {
            let r = try strata(command)
            #expect(r.status == 1, "\(command[0]): \(r)")
            #expect(r.stderr.hasPrefix("strata: \(w.schema): "), "\(command[0]): \(r.stderr)")
            #expect(r.stderr.contains("unrecognized token"), "\(command[0]): \(r.stderr)")
            #expect(r.stderr.filter { $0 == "\n" }.count == 1, "\(command[0]): \(r.stderr)")
            #expect(!r.stderr.contains(secret) && !r.stdout.contains(secret), "\(command[0]): \(r.stderr)")
        }
    }

    // MARK: Item 5: transaction control in a migration file

    @Test func transactionControlInAFileIsRefused() throws {
        let files = [
            (
                "CREATE TABLE t(trigger TEXT, begin INTEGER);\nCOMMIT;\nCREATE TABLE u(x);\nINSERT INTO missing VALUES (1);\n",
                "COMMIT"
            ),
            (
                "CREATE VIEW v AS SELECT 1 AS trigger, 2 AS begin;\nend transaction;\nINSERT INTO missing VALUES (1);\n",
                "end transaction"
            ),
            ("CREATE TABLE trigger(begin);\nEND;\nINSERT INTO missing VALUES (1);\n", "END"),
            ("INSERT INTO a VALUES ('half');\nRELEASE outer_sp;\n", "RELEASE outer_sp"),
            ("BEGIN;\nINSERT INTO a VALUES ('half');\nCOMMIT;\n", "BEGIN"),
        ]
        for (text, statement) in files {
            let w = try Workspace()
            try w.write(text, to: w.folder + "/0002_sneaky.sql")
            try w.write("CREATE TABLE after_sneaky(x);\n", to: w.folder + "/0003_after.sql")
            let bytes = fileBytes(w.database)
            for command in w.commands where command[0] == "migrate" {
                let r = try strata(command)
                #expect(r.status == 1, "\(statement): \(r)")
                #expect(r.stdout == "", "\(statement): \(r)")
                #expect(
                    r.stderr.hasPrefix("strata: migration 0002_sneaky: its `\(statement)` "),
                    "\(statement): \(r.stderr)")
                #expect(
                    r.stderr.hasSuffix("; rolled back\n") && r.stderr.filter { $0 == "\n" }.count == 1,
                    "\(statement): \(r.stderr)")
            }
            #expect(fileBytes(w.database) == bytes, "\(statement): the database changed")
            let db = try Database(path: w.database)
            defer { db.close() }
            #expect(try db.fetchColumn(String.self, sql: "SELECT identifier FROM strata_migrations") == ["0001_create"])
            #expect(
                try db.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master ORDER BY name")
                    == ["a", "strata_migrations", "sqlite_autoindex_strata_migrations_1"].sorted())
        }
    }
}
