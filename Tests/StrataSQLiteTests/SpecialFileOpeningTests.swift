import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

/// `Database(path:)` refuses a path that is not a regular file before SQLite opens it (issue 24):
/// a FIFO blocked the open (read-only) or the first read (read-write) forever.
@Suite("Opening something that is not a regular file")
struct SpecialFileOpeningTests {
    /// Runs `body` on its own thread and waits at most `seconds`: a hang fails the test instead
    /// of stalling the run (the thread is then left blocked).
    func bounded<T: Sendable>(
        seconds: Double = 20, _ body: @escaping @Sendable () throws -> T
    ) throws -> Result<T, any Error> {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        Thread.detachNewThread {
            box.set(Result { try body() })
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success, let result = box.get() else {
            Issue.record("still running after \(seconds) s")
            throw Hang()
        }
        return result
    }

    @Test func aFIFOADeviceOrADirectoryIsRefusedAtOnceInEveryOpenMode() throws {
        let dir = TemporaryDirectory("strata-special-open")
        let fifo = dir.file("pipe.sqlite")
        #expect(mkfifo(fifo, 0o600) == 0)
        let folder = dir.file("folder.sqlite")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let linkToDevice = dir.file("null.sqlite")
        try FileManager.default.createSymbolicLink(atPath: linkToDevice, withDestinationPath: "/dev/null")
        let cases: [(String, String)] = [
            (fifo, "a FIFO"), (folder, "a directory"), (linkToDevice, "a character device"),
            ("/dev/null", "a character device"), ("file:\(fifo)?mode=ro", "a FIFO"),
            ("file://localhost\(dir.path)/pipe%2Esqlite", "a FIFO"),
        ]
        for (path, kind) in cases {
            for mode in [Configuration.OpenMode.readOnly, .readWrite, .readWriteCreate] {
                var settings = Configuration()
                settings.openMode = mode
                settings.uriFilenames = path.hasPrefix("file:")
                let configuration = settings
                let outcome = try bounded { try Database(path: path, configuration: configuration).close() }
                guard case .failure(let error as SQLiteError) = outcome else {
                    Issue.record("\(path), \(mode): opened, or failed otherwise: \(outcome)")
                    continue
                }
                #expect(error.resultCode == .SQLITE_CANTOPEN, "\(path), \(mode): \(error)")
                #expect(
                    error.message == "not a regular file (\(kind)); a database is a regular file: \(path)",
                    "\(path), \(mode): \(error)")
                #expect(error.culprit == path)
            }
        }
    }

    @Test func aFIFOBesideTheDatabaseIsRefused() throws {
        let dir = TemporaryDirectory("strata-special-open")
        let path = dir.file("app.sqlite")
        let db = try Database(path: path)
        try db.execute(sql: "CREATE TABLE t(x)")
        db.close()
        for suffix in ["-journal", "-wal", "-shm"] {
            #expect(mkfifo(path + suffix, 0o600) == 0)
            let outcome = try bounded { try Database(path: path).close() }
            guard case .failure(let error as SQLiteError) = outcome else {
                Issue.record("\(suffix): opened, or failed otherwise: \(outcome)")
                continue
            }
            #expect(error.resultCode == .SQLITE_CANTOPEN)
            #expect(error.message.hasPrefix("not a regular file: its "), "\(error)")
            #expect(error.message.contains("\(path + suffix) is a FIFO"), "\(error)")
            #expect(error.message.hasSuffix(": \(path)"), "\(error)")
            #expect(unlink(path + suffix) == 0)
        }
        // A regular file, and a symbolic link to one, still open.
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.sqlite"), withDestinationPath: path)
        #expect(try Database(path: dir.file("link.sqlite")).fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 0)
    }
}

private struct Hang: Error {}

private final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Result<T, any Error>?
    func set(_ result: Result<T, any Error>) { lock.withLock { value = result } }
    func get() -> Result<T, any Error>? { lock.withLock { value } }
}
