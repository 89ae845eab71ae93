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

    /// A value handed to one other thread that alone uses it from then on.
    struct UncheckedSendable<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// Runs `body` on a thread of its own and waits for it at most `seconds`. Past that, records
    /// an issue, calls `unblock` (which must let `body` finish: it releases the lock the body
    /// waits for) and waits for the body again; returns nil. A busy wait that never ends (its
    /// deadline restarted at every retry, issue 37 item 8) then fails its test in bounded time
    /// instead of hanging the run.
    static func onAThread<T: Sendable>(
        atMost seconds: Double, _ what: String, unblock: () -> Void, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: @escaping @Sendable () -> T
    ) -> T? {
        let result = LockedValue<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }.start()
        if done.wait(timeout: .now() + seconds) == .success { return result.withLock { $0 } }
        Issue.record("\(what) still waited after \(seconds) s", sourceLocation: sourceLocation)
        unblock()
        BoundedWait.wait(for: done, "\(what), once the lock was released", sourceLocation: sourceLocation)
        return nil
    }

    /// A wait for a lock that another connection holds all along ends at the timeout, in
    /// either journal mode, retried on SQLite's schedule or woken: the deadline is set at the
    /// first retry and never moves. The waiter runs on a thread of its own, so a deadline that
    /// restarts at each retry fails the test within three timeouts and some slack, not by a hang.
    @Test(arguments: ["DELETE", "WAL"], [false, true])
    func aLockHeldThroughoutFailsTheWaitAtItsTimeout(journalMode: String, woken: Bool) throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        let holder = try Database(path: path)
        try holder.execute(sql: "PRAGMA journal_mode = \(journalMode); CREATE TABLE t(x)")
        try holder.execute(sql: journalMode == "WAL" ? "BEGIN IMMEDIATE" : "BEGIN EXCLUSIVE")
        try holder.execute(sql: "INSERT INTO t VALUES (1)")
        defer { holder.rollbackQuietly() }
        let stop = Waits()
        defer { stop.append(1) }
        if woken {
            Thread {
                guard let other = try? Database(path: path) else { return }
                while stop.all.isEmpty {
                    other.wakeConnectionsWaitingForThisFile()
                    usleep(2000)
                }
            }.start()
        }
        let timeout = 0.25
        let outcome = Self.onAThread(
            atMost: timeout * 3 + 20, "a write waiting \(timeout) s for a lock held throughout",
            unblock: { holder.rollbackQuietly() }
        ) { () -> (busy: Bool, seconds: Double, error: String) in
            let start = ContinuousClock.now
            do {
                var configuration = Configuration()
                configuration.busyTimeout = timeout
                let writer = try Database(path: path, configuration: configuration)
                try writer.execute(sql: "INSERT INTO t VALUES (2)")
                return (false, (ContinuousClock.now - start).inSeconds, "the write succeeded")
            } catch let error as SQLiteError {
                return (error.isBusy, (ContinuousClock.now - start).inSeconds, "\(error)")
            } catch {
                return (false, (ContinuousClock.now - start).inSeconds, "\(error)")
            }
        }
        guard let outcome else { return }
        #expect(outcome.busy, "\(outcome.error)")
        #expect(outcome.seconds >= timeout - 0.001, "failed before its timeout: \(outcome.seconds) s")
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
        let locked = configuration
        let problem = Self.onAThread(
            atMost: 0.3 * 3 + 20, "opening a database locked exclusively", unblock: { holder.rollbackQuietly() }
        ) { () -> String? in
            do {
                _ = try Database(path: path, configuration: locked)
                return "opening a database locked exclusively should fail"
            } catch let error as SQLiteError {
                return error.isBusy ? nil : "\(error)"
            } catch {
                return "\(error)"
            }
        }
        if case .some(.some(let message)) = problem { Issue.record("\(message)") }
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
        // Bounded, the opening included (it reads the locked file): a handler told the wrong
        // time never lets go of the lock.
        let waiting = configuration
        let outcome = Self.onAThread(
            atMost: 20, "a write whose handler releases the lock after 0.2 s",
            unblock: {
                if released.all.isEmpty {
                    released.append(-1)
                    holder.release()
                }
            }
        ) { () -> String? in
            do {
                let db = try Database(path: path, configuration: waiting)
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                return nil
            } catch {
                return "\(error)"
            }
        }
        if case .some(.some(let message)) = outcome { Issue.record("the write failed: \(message)") }
        #expect(try Database(path: path).fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 1)
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
        let write = UncheckedSendable(writer)
        let outcome = Self.onAThread(
            atMost: 0.3 * 3 + 20, "a write woken every millisecond", unblock: { holder.rollbackQuietly() }
        ) { () -> (failed: Bool, waited: Duration) in
            let start = ContinuousClock.now
            let failed = (try? write.value.execute(sql: "INSERT INTO t VALUES (2)")) == nil
            return (failed, ContinuousClock.now - start)
        }
        guard let outcome else { return }
        #expect(outcome.failed, "the write should fail at its timeout")
        #expect(outcome.waited >= .milliseconds(299), "failed before its timeout: \(outcome.waited)")
        #expect(outcome.waited < .seconds(30), "waited far past its timeout: \(outcome.waited)")
    }
}
