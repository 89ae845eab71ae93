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
        #expect(values.first == 0.001, "SQLite's first sleep is 1 ms")
        #expect(values.last == 0.3, "the last retry ends at the timeout: \(values)")
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
}
