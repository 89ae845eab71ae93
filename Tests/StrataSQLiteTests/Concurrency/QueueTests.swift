import Foundation
import StrataTestSupport
import Testing

@testable import StrataSQLite

@Suite("Database queue", .timeLimit(.minutes(3)))
struct QueueTests {
    @Test func inMemoryQueueReadsAndWrites() async throws {
        let dbQueue = try DatabaseQueue(prepare: Bank.create)
        #expect(dbQueue.path == ":memory:")
        try await dbQueue.write { db in try Bank.apply(0, db) }
        let (balances, count) = try await dbQueue.read { db in (try Bank.balances(db), try Bank.transferCount(db)) }
        #expect(count == 1)
        #expect(balances == Bank.serialBalances(after: 1))
        await dbQueue.close()
    }

    /// Concurrent tasks on one queue: every access runs alone, so the invariant always holds.
    @Test func concurrentTasksAreSerialized() async throws {
        let dbQueue = try DatabaseQueue(prepare: Bank.create)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for i in 0..<200 {
                        try await dbQueue.write { db in try Bank.apply(task * 200 + i, db) }
                    }
                }
                group.addTask {
                    for _ in 0..<200 {
                        let sum = try await dbQueue.read { db in try Bank.balances(db).reduce(0, +) }
                        #expect(sum == Bank.total)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await dbQueue.read { db in try Bank.balances(db) } == Bank.serialBalances(after: 800))
        await dbQueue.close()
    }

    @Test func readIsReadOnlyAndWriteIsNot() async throws {
        let dbQueue = try DatabaseQueue(prepare: Bank.create)
        let error = await caughtError { try await dbQueue.read { db in try db.execute(sql: "DELETE FROM account") } }
        #expect((error as? SQLiteError)?.resultCode == .SQLITE_READONLY)
        // query_only is switched back off after the read.
        try await dbQueue.write { db in try db.execute(sql: "DELETE FROM account WHERE id = 0") }
        #expect(try await dbQueue.read { db in try Bank.balances(db).count } == Bank.accountCount - 1)
        await dbQueue.close()
    }

    @Test func synchronousAPIAndClose() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("queue.sqlite")
        let dbQueue = try DatabaseQueue(path: path, prepare: Bank.create)
        try dbQueue.write { db in try Bank.apply(0, db) }
        try dbQueue.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
        #expect(try dbQueue.read { db in try Bank.transferCount(db) } == 1)
        #expect {
            try dbQueue.write { _ in try dbQueue.read { _ in } }
        } throws: { error in
            (error as? DatabaseAccessError)?.message.hasPrefix("DatabaseQueue.read called from inside") == true
        }
        dbQueue.close()
        #expect {
            try dbQueue.read { db in try Bank.transferCount(db) }
        } throws: { error in
            "\(error)" == "\(path): DatabaseQueue is closed"
        }
    }

    @Test func failingPrepareIsReported() async throws {
        let dbQueue = try DatabaseQueue { _ in throw PlannedFailure(reason: "bad setup") }
        let error = await caughtError { try await dbQueue.write { _ in } }
        let accessError = try #require(error as? DatabaseAccessError)
        #expect(accessError.code == .preparationFailed)
        #expect(
            "\(accessError)"
                == ":memory:: preparing the database failed, nothing is served (planned failure: bad setup)"
        )
        await dbQueue.close()
    }

    @Test func cancelledWaitingAccessNeverRuns() async throws {
        let dbQueue = try DatabaseQueue(prepare: Bank.create)
        let started = Signal()
        let barrier = Barrier()
        let blocker = Task {
            try await dbQueue.write { db in
                started.signal()
                barrier.block()
                try Bank.apply(0, db)
            }
        }
        await started.wait()
        let ran = LockedValue(false)
        let cancelled = Task { try await dbQueue.read { _ in ran.withLock { $0 = true } } }
        try await eventually("read queued") { dbQueue.scheduler.waitingCount == 1 }
        cancelled.cancel()
        let result = await cancelled.result
        #expect(throws: CancellationError.self) { try result.get() }
        barrier.open()
        try await blocker.value
        #expect(try await dbQueue.read { db in try Bank.transferCount(db) } == 1)
        #expect(ran.withLock { $0 } == false)
        await dbQueue.close()
    }
}
