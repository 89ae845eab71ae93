import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

/// `Configuration.busyWaitHandler`: told how long a statement has waited for a lock, on the
/// same schedule as SQLite's own busy timeout.
@Suite("Busy wait handler")
struct BusyWaitHandlerTests {
    private final class Waits: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Double] = []
        func append(_ value: Double) {
            lock.lock()
            values.append(value)
            lock.unlock()
        }
        var all: [Double] {
            lock.lock()
            defer { lock.unlock() }
            return values
        }
    }

    @Test func reportsEachRetryUntilTheTimeout() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        let holder = try Database(path: path)
        try holder.execute(sql: "CREATE TABLE t(x); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1)")
        defer { holder.rollbackQuietly() }

        let waits = Waits()
        var configuration = Configuration()
        configuration.busyTimeout = 0.3
        configuration.busyWaitHandler = { waits.append($0) }
        do {
            _ = try Database(path: path, configuration: configuration)
            Issue.record("opening a database locked exclusively should fail")
        } catch let error as SQLiteError {
            #expect(error.isBusy, "\(error)")
        }
        let values = waits.all
        // Seconds on the clock since the first retry: at least SQLite's sleeps, more when the
        // machine is slow to wake the thread.
        #expect((values.first ?? 0) >= 0.001 && (values.first ?? 1) < 0.3, "SQLite's first sleep is 1 ms: \(values)")
        #expect((values.last ?? 0) >= 0.299, "the last retry ends at the timeout: \(values)")
        #expect(values.count <= 13, "SQLite's schedule sleeps 1, 2, 5, 10... ms, 12 sleeps in 300 ms: \(values)")
        #expect(values == values.sorted() && Set(values).count == values.count, "increasing: \(values)")

        // No wait at all with a zero timeout; the handler is not called.
        let none = Waits()
        configuration.busyTimeout = 0
        configuration.busyWaitHandler = { none.append($0) }
        #expect(throws: SQLiteError.self) { _ = try Database(path: path, configuration: configuration) }
        #expect(none.all.isEmpty)
    }

    @Test func theWaitEndsWhenTheLockIsFree() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        do {
            let setup = try Database(path: path)
            try setup.execute(sql: "CREATE TABLE t(x)")
        }
        let holder = try LockHolder(path: path)
        let waits = Waits()
        let released = Waits()
        var configuration = Configuration()
        configuration.busyTimeout = 30
        configuration.busyWaitHandler = { seconds in
            waits.append(seconds)
            if seconds >= 0.2, released.all.isEmpty {  // let go while being waited on
                released.append(seconds)
                holder.release()
            }
        }
        let db = try Database(path: path, configuration: configuration)
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 1)
        #expect((waits.all.last ?? 0) < 1, "stopped waiting once the lock was released: \(waits.all)")
    }

    /// A connection of this process that releases the lock wakes the connections waiting for
    /// the same file, which retry at once instead of at their next poll.
    @Test func aConnectionOfThisProcessWakesTheWaitersOfItsFile() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        let holder = try Database(path: path)
        try holder.execute(sql: "PRAGMA journal_mode = WAL; CREATE TABLE t(x)")
        #expect(holder.wakeConnectionsWaitingForThisFile() == 0, "nobody waits")
        try holder.execute(sql: "BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")

        let waits = Waits()
        let done = DispatchSemaphore(value: 0)
        let failure = Waits()
        let thread = Thread {
            defer { done.signal() }
            do {
                var configuration = Configuration()
                configuration.busyTimeout = 60
                configuration.busyWaitHandler = { waits.append($0) }
                let writer = try Database(path: path, configuration: configuration)
                try writer.execute(sql: "INSERT INTO t VALUES (2)")
            } catch {
                failure.append(1)
                Issue.record("the waiting write failed: \(error)")
            }
        }
        thread.start()
        // Wait (bounded) until the writer is in its busy handler.
        var waiting = 0
        for _ in 0..<3000 where waiting == 0 {
            waiting = holder.connectionsWaitingForThisFile
            if waiting == 0 { usleep(10_000) }
        }
        #expect(waiting == 1, "the writer waits for the lock")
        // Woken while the lock is still held: it retries, fails, and waits again. (Between two
        // sleeps it is briefly out of its handler, so a wake may find nobody: try again.)
        var woken = 0
        for _ in 0..<1000 where woken == 0 {
            woken = holder.wakeConnectionsWaitingForThisFile()
            if woken == 0 { usleep(1000) }
        }
        #expect(woken == 1, "one connection woken")
        #expect(holder.waitForWokenConnectionsToRetry(atMost: 60), "the woken writer left its busy handler")
        // The COMMIT (`execute(sql:)` leaving the transaction) wakes it again, and it writes.
        try holder.execute(sql: "COMMIT")
        #expect(done.wait(timeout: .now() + 60) == .success, "the write finished")
        #expect(failure.all.isEmpty)
        #expect(try holder.fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 2)
        #expect(holder.connectionsWaitingForThisFile == 0)
        // An in-memory database has no file to share: nothing to wake.
        #expect(try Database(inMemory: Configuration()).wakeConnectionsWaitingForThisFile() == 0)
    }

    /// Being woken never stretches the timeout or cuts it short: it is kept on the clock, not in
    /// retries, so a writer woken every millisecond still fails at its timeout.
    @Test func wakingAWaiterOftenKeepsItsTimeout() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        let holder = try Database(path: path)
        try holder.execute(
            sql: "PRAGMA journal_mode = WAL; CREATE TABLE t(x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")
        defer { holder.rollbackQuietly() }
        let stop = Waits()
        let waker = Thread {
            // Any connection to the file wakes its waiters.
            guard let other = try? Database(path: path) else { return }
            while stop.all.isEmpty {
                other.wakeConnectionsWaitingForThisFile()
                usleep(1000)
            }
        }
        waker.start()
        defer { stop.append(1) }
        var configuration = Configuration()
        configuration.busyTimeout = 0.3
        let writer = try Database(path: path, configuration: configuration)
        let start = ContinuousClock.now
        #expect(throws: SQLiteError.self) { try writer.execute(sql: "INSERT INTO t VALUES (2)") }
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(299), "failed before its timeout: \(waited)")
        #expect(waited < .seconds(30), "waited far past its timeout: \(waited)")
    }
}
