import Foundation
import StrataTestSupport
import Testing

@testable import StrataSQLite

@Suite("Closing a pool", .timeLimit(.minutes(3)))
struct PoolCloseTests {
    /// `close()` lets the access in flight finish, then closes every connection (the WAL file
    /// goes away only when the last one closes); later accesses fail with a clear error.
    @Test func closeWaitsForWorkInFlightThenRefusesAccess() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("close.sqlite")
        let pool = try DatabasePool(path: path, prepare: Bank.create)
        for _ in 0..<4 {  // open a few readers
            async let a = pool.read { db in try Bank.transferCount(db) }
            async let b = pool.read { db in try Bank.transferCount(db) }
            _ = try await (a, b)
        }
        #expect(pool.readers.slotCount >= 1)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))

        let started = Signal()
        let barrier = Barrier()
        let inFlight = Task {
            try await pool.write { db in
                started.signal()
                barrier.block()
                try Bank.apply(0, db)
                return "committed"
            }
        }
        await started.wait()
        let closing = Task { await pool.close() }
        try await eventually("close begun") { pool.readers.isClosing }  // marked after the writer
        let refused = await caughtError { try await pool.read { db in try Bank.transferCount(db) } }
        barrier.open()
        #expect(try await inFlight.value == "committed")
        await closing.value

        let error = try #require(refused as? DatabaseAccessError)
        #expect(error.code == .closed)
        #expect("\(error)" == "\(path): DatabasePool is closed")
        let writeError = await caughtError { try await pool.write { _ in } }
        #expect((writeError as? DatabaseAccessError)?.code == .closed)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "a connection is still open")

        let db = try Database(path: path)
        #expect(try Bank.transferCount(db) == 1)
        db.close()
        await pool.close()  // closing twice is harmless
    }

    /// The synchronous close, and synchronous access after it.
    @Test func synchronousCloseThenAccess() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("close.sqlite")
        let pool = try DatabasePool(path: path, prepare: Bank.create)
        let error = await caughtError {
            try await BoundedWait.offThePool("synchronous reads and closes of a pool") {
                _ = try pool.read { db in try Bank.transferCount(db) }
                pool.close()
                pool.close()
                _ = try pool.read { db in try Bank.transferCount(db) }
            }
        }
        let accessError = try #require(error as? DatabaseAccessError)
        #expect(accessError.code == .closed)
        #expect(accessError.message == "DatabasePool is closed")
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    /// Closing from inside one of the pool's closures does not deadlock: the pool closes when
    /// the closure returns.
    @Test func closeFromInsideAClosure() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("close.sqlite")
        let pool = try DatabasePool(path: path, prepare: Bank.create)
        try await pool.write { db in
            try Bank.apply(1, db)
            pool.close()
        }
        await pool.close()
        let error = await caughtError { try await pool.write { _ in } }
        #expect((error as? DatabaseAccessError)?.code == .closed)
        let db = try Database(path: path)
        #expect(try Bank.transferCount(db) == 1)
        db.close()
    }
}
