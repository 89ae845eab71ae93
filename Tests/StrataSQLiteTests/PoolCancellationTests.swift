import Foundation
import StrataTestSupport
import Testing

@testable import StrataSQLite

@Suite("Pool: cancelled tasks", .timeLimit(.minutes(3)))
struct PoolCancellationTests {
    /// A write cancelled while it waits for the writer throws CancellationError and never runs;
    /// the writes around it are unaffected.
    @Test func cancelledWaitingWriteNeverRuns() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("cancel.sqlite")) { db in
            try db.execute(sql: "CREATE TABLE log(n INTEGER)")
        }
        let started = Signal()
        let barrier = Barrier()
        let blocker = Task {
            try await pool.write { db in
                started.signal()
                barrier.block()
                try db.execute(sql: "INSERT INTO log VALUES (1)")
            }
        }
        await started.wait()
        let ran = LockedValue(false)
        let cancelled = Task {
            try await pool.write { db in
                ran.withLock { $0 = true }
                try db.execute(sql: "INSERT INTO log VALUES (2)")
            }
        }
        try await eventually("write queued") { pool.writer.waitingCount == 1 }
        let next = Task {
            try await pool.write { db in try db.execute(sql: "INSERT INTO log VALUES (3)") }
        }
        try await eventually("second write queued") { pool.writer.waitingCount == 2 }
        cancelled.cancel()
        let result = await cancelled.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(pool.writer.waitingCount == 1)
        barrier.open()
        try await blocker.value
        try await next.value
        #expect(ran.withLock { $0 } == false)
        let log = try await pool.read { db in try db.fetchColumn(Int.self, sql: "SELECT n FROM log ORDER BY rowid") }
        #expect(log == [1, 3])
        await pool.close()
    }

    /// A read cancelled while every reader is busy throws CancellationError and never runs.
    @Test func cancelledWaitingReadNeverRuns() async throws {
        let directory = TemporaryDirectory()
        var poolConfiguration = PoolConfiguration()
        poolConfiguration.maximumReaderCount = 1
        let pool = try DatabasePool(path: directory.file("cancel.sqlite"), poolConfiguration: poolConfiguration)
        let started = Signal()
        let barrier = Barrier()
        let blocker = Task {
            try await pool.read { db in
                started.signal()
                barrier.block()
                return try db.fetchValue(Int.self, sql: "SELECT 1")
            }
        }
        await started.wait()
        let ran = LockedValue(false)
        let cancelled = Task { try await pool.read { _ in ran.withLock { $0 = true } } }
        try await eventually("read queued") { pool.readers.waitingCount == 1 }
        cancelled.cancel()
        let result = await cancelled.result
        #expect(throws: CancellationError.self) { try result.get() }
        barrier.open()
        #expect(try await blocker.value == 1)
        _ = try await pool.read { _ in }
        #expect(ran.withLock { $0 } == false)
        await pool.close()
    }

    /// A task already cancelled when it asks is refused at once.
    @Test func alreadyCancelledTaskIsRefused() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("cancel.sqlite"))
        let ran = LockedValue(false)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pool.write { _ in ran.withLock { $0 = true } }
        }
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(ran.withLock { $0 } == false)
        await pool.close()
    }
}
