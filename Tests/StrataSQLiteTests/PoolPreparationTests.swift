import Foundation
import StrataTestSupport
import Testing

@testable import StrataSQLite

@Suite("Pool preparation", .timeLimit(.minutes(3)))
struct PoolPreparationTests {
    /// Reads and writes submitted while `prepare` runs wait for it, then see what it created.
    @Test func prepareFinishesBeforeTheFirstAccess() async throws {
        let directory = TemporaryDirectory()
        let events = LockedValue<[String]>([])
        let barrier = Barrier()
        let pool = try DatabasePool(path: directory.file("prepare.sqlite")) { db in
            barrier.block()
            try Bank.create(db)
            events.withLock { $0.append("prepared") }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let sum = try await pool.read { db in
                        events.withLock { $0.append("read") }
                        return try Bank.balances(db).reduce(0, +)
                    }
                    #expect(sum == Bank.total)
                }
            }
            group.addTask {
                try await pool.write { db in
                    events.withLock { $0.append("write") }
                    try Bank.apply(0, db)
                }
            }
            try await eventually("accesses queued behind prepare") {
                pool.readers.waitingCount == 8 && pool.writer.waitingCount == 1
            }
            barrier.open()
            try await group.waitForAll()
        }
        let log = events.withLock { $0 }
        #expect(log.first == "prepared")
        #expect(log.count == 10)
        await pool.close()
    }

    /// A failing `prepare` is reported to every waiting caller and every later one; no closure runs.
    @Test func failingPrepareIsReportedToEveryCaller() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("broken.sqlite")
        let barrier = Barrier()
        let ran = LockedValue(0)
        let pool = try DatabasePool(path: path) { db in
            barrier.block()
            try db.execute(sql: "CREATE TABLE t(a)")
            throw PlannedFailure(reason: "migration 2 is broken")
        }
        let errors = await withTaskGroup(of: (any Error)?.self) { group in
            for index in 0..<6 {
                group.addTask {
                    await caughtError {
                        if index % 2 == 0 {
                            try await pool.read { _ in ran.withLock { $0 += 1 } }
                        } else {
                            try await pool.write { _ in ran.withLock { $0 += 1 } }
                        }
                    }
                }
            }
            try? await eventually("accesses queued behind prepare") {
                pool.readers.waitingCount == 3 && pool.writer.waitingCount == 3
            }
            barrier.open()
            var errors: [(any Error)?] = []
            for await error in group { errors.append(error) }
            return errors
        }
        let later = await caughtError { try await pool.read { _ in ran.withLock { $0 += 1 } } }
        #expect(errors.count == 6)
        for error in errors + [later] {
            let accessError = try #require(error as? DatabaseAccessError)
            #expect(accessError.code == .preparationFailed)
            #expect(accessError.path == path)
            #expect(accessError.underlyingError is PlannedFailure)
            #expect("\(accessError)".contains("migration 2 is broken"))
            #expect("\(accessError)".hasPrefix(path))
        }
        #expect(ran.withLock { $0 } == 0)
        // prepare runs outside any transaction: what it did before throwing stays.
        await pool.close()
        let db = try Database(path: path)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 't'") == 1)
        db.close()
    }

    /// Synchronous callers get the preparation error too.
    @Test func failingPrepareIsReportedToSynchronousCallers() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("broken.sqlite")) { _ in
            throw PlannedFailure(reason: "no schema")
        }
        let error = await caughtError {
            try await BoundedWait.offThePool("a synchronous write to a pool whose preparation fails") {
                try pool.write { _ in }
            }
        }
        let accessError = try #require(error as? DatabaseAccessError)
        #expect(accessError.code == .preparationFailed)
        #expect("\(accessError)".contains("planned failure: no schema"))
        await pool.close()
    }

    /// A `prepare` that leaves a transaction open is rolled back and counts as a failure.
    @Test func prepareLeavingATransactionOpenFails() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("open.sqlite")) { db in
            try db.execute(sql: "BEGIN; CREATE TABLE t(a)")
        }
        let error = await caughtError { try await pool.read { db in try db.fetchValue(Int.self, sql: "SELECT 1") } }
        let accessError = try #require(error as? DatabaseAccessError)
        #expect(accessError.code == .preparationFailed)
        let cause = try #require(accessError.underlyingError as? DatabaseAccessError)
        #expect(cause.code == .transactionLeftOpen)
        #expect(cause.message.contains("rolled back"))
        await pool.close()
    }
}
