import Foundation
import Strata
import StrataTestSupport
import Testing

/// A database path that is not a regular file (a FIFO, a socket, a device, a directory, or a
/// FIFO as its -journal or -wal file) is refused at once by every command, with one line naming
/// it (issue 24): a FIFO used to hang every read-only command forever. In a batch it is one
/// failed database, and the others go on. Every run is bounded: a hang fails the test.
@Suite("Special files as databases")
struct SpecialFileCommandTests {
    static let schema = "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT);\n"

    struct Fixture {
        let dir = TemporaryDirectory("strata-special")
        var schema: String { dir.file("schema.sql") }
        var migrations: String { dir.file("migrations") }
        /// Sockets bound here, closed with the fixture.
        var sockets: [Int32] = []

        init() throws {
            try Data(SpecialFileCommandTests.schema.utf8).write(to: URL(fileURLWithPath: schema))
            try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: false)
            try Data(SpecialFileCommandTests.schema.utf8).write(
                to: URL(fileURLWithPath: migrations + "/0001_create.sql"))
        }

        /// What each command is run with, `{db}` standing for the database path.
        static let commands: [[String]] = [
            ["plan", "--db", "{db}", "--schema", "{schema}"],
            ["dump", "--db", "{db}"],
            ["status", "--db", "{db}", "--migrations", "{migrations}"],
            ["apply", "--db", "{db}", "--schema", "{schema}", "--dry-run"],
            ["migrate", "--db", "{db}", "--migrations", "{migrations}", "--dry-run"],
            ["apply", "--db", "{db}", "--schema", "{schema}"],
            ["migrate", "--db", "{db}", "--migrations", "{migrations}"],
            ["rekey", "--db", "{db}", "--new-key-env", "HOME"],
        ]

        func arguments(_ command: [String], db: String) -> [String] {
            command.map {
                $0.replacing("{db}", with: db).replacing("{schema}", with: schema)
                    .replacing("{migrations}", with: migrations)
            }
        }

        /// Binds a Unix domain socket at `path`.
        mutating func makeSocket(_ path: String) throws {
            #if canImport(Glibc)
            let stream = Int32(SOCK_STREAM.rawValue)
            #else
            let stream = SOCK_STREAM
            #endif
            let fd = socket(AF_UNIX, stream, 0)
            try #require(fd >= 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                buffer.copyBytes(from: bytes)
            }
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            try #require(rc == 0, "bind \(path): errno \(errno)")
            sockets.append(fd)
        }

        func closeSockets() { for fd in sockets { close(fd) } }
    }

    @Test func everyCommandRefusesAPathThatIsNotARegularFileAtOnce() throws {
        var f = try Fixture()
        defer { f.closeSockets() }
        let fifo = f.dir.file("pipe.sqlite")
        #expect(mkfifo(fifo, 0o600) == 0)
        let socketPath = f.dir.file("sock.sqlite")
        try f.makeSocket(socketPath)
        let device = f.dir.file("device.sqlite")  // a symbolic link to /dev/null: followed
        try FileManager.default.createSymbolicLink(atPath: device, withDestinationPath: "/dev/null")
        let directory = f.dir.file("folder.sqlite")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let cases: [(path: String, phrase: String)] = [
            (fifo, "not a regular file (a FIFO)"), (socketPath, "not a regular file (a socket)"),
            (device, "not a regular file (a character device)"), (directory, "not a regular file (a directory)"),
            ("/dev/null", "not a regular file (a character device)"),
        ]
        for (path, phrase) in cases {
            for command in Fixture.commands {
                let arguments = f.arguments(command, db: path)
                let r = try ChildProcess.strata(arguments, seconds: 30)
                let label = "\(command[0]) \(arguments.contains("--dry-run") ? "--dry-run " : "")on \(path)"
                #expect(!r.timedOut, "\(label) hung: \(r)")
                #expect(r.result.status == 1, "\(label): \(r)")
                #expect(
                    r.result.stderr == "strata: \(path): \(phrase); a database is a regular file\n", "\(label): \(r)")
                #expect(r.result.stdout.isEmpty, "\(label): \(r)")
            }
        }
        // Nothing was created beside them, and the FIFO is still a FIFO.
        #expect(filesIn(f.dir.path).filter { $0.hasSuffix("-journal") || $0.hasSuffix("-wal") }.isEmpty)
        var st = stat()
        #expect(lstat(fifo, &st) == 0 && st.st_mode & S_IFMT == S_IFIFO)
    }

    @Test func aFIFOAsTheJournalOrTheWALIsRefusedToo() throws {
        let f = try Fixture()
        for suffix in ["-journal", "-wal"] {
            let db = f.dir.file("app\(suffix).sqlite")
            let seeded = try Database(path: db)
            try seeded.execute(sql: SpecialFileCommandTests.schema)
            seeded.close()
            #expect(mkfifo(db + suffix, 0o600) == 0)
            let before = fileBytes(db)
            for command in Fixture.commands {
                let r = try ChildProcess.strata(f.arguments(command, db: db), seconds: 30)
                let label = "\(command[0]) with a FIFO \(suffix)"
                #expect(!r.timedOut, "\(label) hung: \(r)")
                #expect(r.result.status == 1, "\(label): \(r)")
                #expect(
                    r.result.stderr
                        == "strata: \(db): not a regular file: its \(suffix == "-wal" ? "write-ahead log" : "rollback journal") \(db + suffix) is a FIFO, which SQLite would block or fail on\n",
                    "\(label): \(r)")
            }
            #expect(fileBytes(db) == before)
        }
    }

    @Test func aFIFOInABatchIsOneFailedDatabaseAndTheOthersGoOn() throws {
        let f = try Fixture()
        /// A folder of tenants: a.sqlite and c.sqlite (empty files: empty databases), b.sqlite a FIFO.
        func tenants(_ name: String) throws -> String {
            let folder = f.dir.file(name)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            for name in ["a", "c"] { try Data().write(to: URL(fileURLWithPath: "\(folder)/\(name).sqlite")) }
            #expect(mkfifo("\(folder)/b.sqlite", 0o600) == 0)
            return folder
        }
        for (index, (command, done)) in [
            (["apply", "--schema", f.schema, "--dry-run"], "would apply 1 change; unchanged"),
            (
                ["migrate", "--migrations", f.migrations, "--dry-run"],
                "would apply 1 migration (0001_create); unchanged"
            ),
            (["apply", "--schema", f.schema], "applied 1 change"),
            (["migrate", "--migrations", f.migrations], "applied 1 migration (0001_create)"),
        ].enumerated() {
            let folder = try tenants("tenants\(index)")
            let r = try ChildProcess.strata(
                command + ["--db", "\(folder)/*.sqlite", "--continue-on-error", "--jobs", "2"], seconds: 60)
            #expect(!r.timedOut, "\(command) hung: \(r)")
            #expect(r.result.status == 1, "\(command): \(r)")
            #expect(
                r.result.stdout == """
                    \(folder)/a.sqlite: \(done)
                    \(folder)/b.sqlite: FAILED: not a regular file (a FIFO); a database is a regular file
                    \(folder)/c.sqlite: \(done)
                    3 databases: 2 succeeded, 1 failed

                    """, "\(command): \(r)")
            #expect(r.result.stderr == "strata: 3 databases: 1 failed\n", "\(command): \(r)")
        }
        // Without --continue-on-error: the FIFO fails, nothing hangs, what follows is skipped.
        let folder = try tenants("stopping")
        let batch = try ChildProcess.strata(
            ["apply", "--db", "\(folder)/*.sqlite", "--schema", f.schema, "--jobs", "1"], seconds: 60)
        #expect(!batch.timedOut && batch.result.status == 1, "\(batch)")
        #expect(batch.result.stdout.hasSuffix("3 databases: 1 succeeded, 1 failed, 1 skipped\n"), "\(batch)")
    }
}
