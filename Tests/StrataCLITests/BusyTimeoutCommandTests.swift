import Foundation
import Strata
import StrataTestSupport
import Testing

/// `--busy-timeout` on every command that opens a database: milliseconds or seconds, and a note
/// on a terminal once a lock wait passes a second.
@Suite("Busy timeout on the command line")
struct BusyTimeoutCommandTests {
    private static let notice = "waiting for a lock held by another connection"

    private func lockedDatabase(_ work: TemporaryDirectory) throws -> (String, LockHolder) {
        let path = work.file("app.sqlite")
        let db = try Database(path: path)
        try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
        db.close()
        return (path, try LockHolder(path: path))
    }

    /// Every command that opens a database takes the option, in both spellings, and gives up
    /// with the usual error; without a terminal nothing is said while waiting.
    @Test func everyCommandTakesItAndGivesUp() throws {
        let work = TemporaryDirectory()
        let (db, lock) = try lockedDatabase(work)
        defer { lock.release() }
        let migrations = try migrationFolder(["0001_a.sql": "CREATE TABLE a(id INTEGER PRIMARY KEY);\n"])
        let schema = work.file("schema.sql")
        try Data("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT, extra TEXT);\n".utf8).write(
            to: URL(fileURLWithPath: schema))
        let commands: [[String]] = [
            ["plan", "--db", db, "--schema", schema],
            ["apply", "--db", db, "--schema", schema],
            ["dump", "--db", db],
            ["migrate", "--db", db, "--migrations", migrations.path],
            ["status", "--db", db, "--migrations", migrations.path],
        ]
        for command in commands {
            for timeout in ["0.1s", "100", "100ms"] {
                let r = try StrataProcess.run(command + ["--busy-timeout", timeout])
                #expect(r.exitCode == 1, "\(command[0]) \(timeout): \(r)")
                #expect(r.stderr.contains("\(db): the database is locked by another connection"), "\(command[0]): \(r)")
                #expect(!r.stderr.contains(Self.notice), "no terminal, no note")
            }
        }
        for bad in ["soon", "5m", "-1", "1e400s"] {
            let r = try StrataProcess.run(["dump", "--db", db, "--busy-timeout", bad])
            #expect(r.exitCode == 1)
            #expect(r.stderr.contains("--busy-timeout"), "\(bad): \(r)")
        }
    }

    /// On a terminal (a pseudo-terminal here) a wait longer than a second is announced once;
    /// the command goes on when the lock is released.
    @Test func aLongWaitIsAnnouncedOnATerminal() throws {
        let work = TemporaryDirectory()
        let (db, lock) = try lockedDatabase(work)
        let schema = work.file("schema.sql")
        try Data("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT, extra TEXT);\n".utf8).write(
            to: URL(fileURLWithPath: schema))

        let terminal = try PseudoTerminal()
        let output = TemporaryDirectory("strata-pty")
        let process = Process()
        process.executableURL = try ChildProcess.executable("strata")
        process.arguments = ["apply", "--db", db, "--schema", schema, "--busy-timeout", "20s"]
        process.standardOutput = try FileHandle(
            forWritingTo: URL(
                fileURLWithPath: {
                    _ = FileManager.default.createFile(atPath: output.file("stdout"), contents: nil)
                    return output.file("stdout")
                }()))
        process.standardError = terminal.secondary
        try process.run()
        // Hold the lock well past the first second of waiting, then let go.
        var said = ""
        for _ in 0..<300 where !said.contains(Self.notice) {
            usleep(10_000)
            said += terminal.readAvailable()
        }
        usleep(500_000)
        lock.release()
        BoundedWait.exit(of: process)
        said += terminal.readAvailable()
        #expect(process.terminationStatus == 0, "\(said)")
        #expect(said.components(separatedBy: Self.notice).count == 2, "said once: \(said)")
        #expect(said.contains("strata: \(db): \(Self.notice) (gives up after 20 s; change with --busy-timeout)..."))
        #expect(
            String(decoding: fileBytes(output.file("stdout")), as: UTF8.self).hasSuffix("Applied 1 change to \(db).\n"))
    }
}

/// A pseudo-terminal pair: the secondary side is a terminal for the child (isatty is true).
private final class PseudoTerminal {
    let primary: Int32
    let secondary: FileHandle

    init() throws {
        // Looked up at run time: Glibc's headers hide them from Swift (they need _XOPEN_SOURCE).
        typealias IntFunction = @convention(c) (Int32) -> Int32
        typealias NameFunction = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        let library = dlopen(nil, RTLD_NOW)
        func symbol<T>(_ name: String, _ type: T.Type) throws -> T {
            guard let address = dlsym(library, name) else { throw ChildProcess.NotFound(description: "no \(name)") }
            return unsafeBitCast(address, to: type)
        }
        let openpt = try symbol("posix_openpt", IntFunction.self)
        let grantpt = try symbol("grantpt", IntFunction.self)
        let unlockpt = try symbol("unlockpt", IntFunction.self)
        let ptsname = try symbol("ptsname", NameFunction.self)
        primary = openpt(O_RDWR | O_NOCTTY)
        guard primary >= 0, grantpt(primary) == 0, unlockpt(primary) == 0, let name = ptsname(primary) else {
            throw ChildProcess.NotFound(description: "no pseudo-terminal: errno \(errno)")
        }
        let fd = open(String(cString: name), O_RDWR | O_NOCTTY)
        guard fd >= 0 else { throw ChildProcess.NotFound(description: "cannot open \(String(cString: name))") }
        secondary = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        _ = fcntl(primary, F_SETFL, fcntl(primary, F_GETFL) | O_NONBLOCK)
    }

    /// What the child wrote so far (a terminal turns "\n" into "\r\n": undone here).
    func readAvailable() -> String {
        var bytes = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(primary, &buffer, buffer.count)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
    }

    deinit { close(primary) }
}
