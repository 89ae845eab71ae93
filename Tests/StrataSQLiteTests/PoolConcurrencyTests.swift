import Foundation
import StrataTestSupport
import Testing

@testable import StrataSQLite

@Suite("Pool concurrency", .timeLimit(.minutes(3)))
struct PoolConcurrencyTests {
    /// 8 reader tasks and 1 writer task on one pool (4 readers, so reads also wait for each
    /// other): every read sees exactly the state after some prefix of the transfers.
    @Test func eightReadersAndOneWriterSeeOnlyWholeTransfers() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("bank.sqlite"), prepare: Bank.create)
        let transferTotal = 2_000
        let readsPerTask = 300
        let readCount = try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for n in 0..<transferTotal {
                    try await pool.write { db in try Bank.apply(n, db) }
                }
                return 0
            }
            for _ in 0..<8 {
                group.addTask {
                    var lastCount = 0
                    for _ in 0..<readsPerTask {
                        let (balances, count) = try await pool.read { db in
                            (try Bank.balances(db), try Bank.transferCount(db))
                        }
                        #expect(balances.reduce(0, +) == Bank.total)
                        #expect(balances == Bank.serialBalances(after: count), "snapshot after \(count) transfers")
                        #expect(count >= lastCount, "a later read went back in time")
                        lastCount = count
                    }
                    return readsPerTask
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(readCount == 8 * readsPerTask)
        let (balances, count) = try await pool.read { db in (try Bank.balances(db), try Bank.transferCount(db)) }
        #expect(count == transferTotal)
        #expect(balances == Bank.serialBalances(after: transferTotal))
        #expect(pool.readers.slotCount <= 4)
        await pool.close()
    }

    /// The synchronous API from plain threads: 4 writing threads and 4 reading threads.
    @Test func synchronousAccessFromManyThreads() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("bank.sqlite"), prepare: Bank.create)
        let perThread = 250
        let failures = LockedValue<[String]>([])
        try await BoundedWait.offThePool("8 threads doing \(perThread) transfers or reads each") {
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                do {
                    for i in 0..<perThread {
                        if thread < 4 {
                            try pool.write { db in try Bank.apply(thread * perThread + i, db) }
                        } else {
                            let sum = try pool.read { db in try Bank.balances(db).reduce(0, +) }
                            if sum != Bank.total { failures.withLock { $0.append("sum \(sum)") } }
                        }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        // Transfers add up the same in any order, so the threads' interleaving does not matter.
        let balances = try await pool.read { db in try Bank.balances(db) }
        #expect(balances == Bank.serialBalances(after: 4 * perThread))
        await pool.close()
    }

    /// A read that starts while a write is halfway through sees the state before the write,
    /// and does not wait for it.
    @Test func readDuringWriteSeesThePreviousSnapshot() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("bank.sqlite"), prepare: Bank.create)
        let halfway = Signal()
        let barrier = Barrier()
        let write = Task {
            try await pool.write { db in
                try db.execute(sql: "UPDATE account SET balance = balance - 500 WHERE id = 0")
                halfway.signal()
                barrier.block()
                try db.execute(sql: "UPDATE account SET balance = balance + 500 WHERE id = 1")
            }
        }
        await halfway.wait()
        let seen = try await pool.read { db in try Bank.balances(db) }
        barrier.open()
        try await write.value
        #expect(seen == Array(repeating: Bank.initialBalance, count: Bank.accountCount))
        let after = try await pool.read { db in try Bank.balances(db) }
        try #require(after.count == Bank.accountCount)
        #expect(after[0] == Bank.initialBalance - 500)
        #expect(after[1] == Bank.initialBalance + 500)
        #expect(after.reduce(0, +) == Bank.total)
        await pool.close()
    }

    /// Writes waiting for the writer run in the order they were submitted.
    @Test func writesRunInSubmissionOrder() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("order.sqlite")) { db in
            try db.execute(sql: "CREATE TABLE log(n INTEGER)")
        }
        let started = Signal()
        let barrier = Barrier()
        let blocker = Task {
            try await pool.write { _ in
                started.signal()
                barrier.block()
            }
        }
        await started.wait()
        var tasks: [Task<Void, any Error>] = []
        for n in 0..<20 {
            tasks.append(
                Task {
                    try await pool.write { db in try db.execute(sql: "INSERT INTO log VALUES (?)", arguments: [n]) }
                })
            try await eventually("write \(n) queued") { pool.writer.waitingCount == n + 1 }
        }
        barrier.open()
        try await blocker.value
        for task in tasks { try await task.value }
        let order = try await pool.read { db in try db.fetchColumn(Int.self, sql: "SELECT n FROM log ORDER BY rowid") }
        #expect(order == Array(0..<20))
        await pool.close()
    }

    /// Readers are opened only when reads need them, and never more than the maximum.
    @Test func readersOpenLazilyUpToTheMaximum() async throws {
        let directory = TemporaryDirectory()
        var poolConfiguration = PoolConfiguration()
        poolConfiguration.maximumReaderCount = 2
        let pool = try DatabasePool(path: directory.file("lazy.sqlite"), poolConfiguration: poolConfiguration)
        #expect(pool.readers.slotCount == 0)
        _ = try await pool.read { db in try db.fetchValue(Int.self, sql: "SELECT 1") }
        #expect(pool.readers.slotCount == 1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask { _ = try await pool.read { db in try db.fetchValue(Int.self, sql: "SELECT 1") } }
            }
            try await group.waitForAll()
        }
        #expect(pool.readers.slotCount <= 2)
        await pool.close()
    }
}
