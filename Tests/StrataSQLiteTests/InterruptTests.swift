import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@Suite("Interrupting a running statement")
struct InterruptTests {
    /// A query that never ends on its own.
    static let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

    @Test func interruptFromAnotherThread() throws {
        let db = try Database(inMemory: Configuration())
        let handle = db.interruptHandle
        let stop = LockedValue(false)
        let finished = DispatchSemaphore(value: 0)
        // Interrupt again and again until the query has stopped: a single early interrupt, sent
        // before the query starts, would be forgotten (SQLite clears it when no statement runs).
        let thread = Thread {
            while !stop.withLock({ $0 }) {
                handle.interrupt()
                usleep(2_000)
            }
            finished.signal()
        }
        thread.start()
        let error = try #require(throws: SQLiteError.self) { try db.fetchValue(Int.self, sql: Self.endless) }
        stop.withLock { $0 = true }
        BoundedWait.wait(for: finished, "the interrupting thread stops")
        #expect(error.resultCode == .SQLITE_INTERRUPT)
        #expect(error.message == "interrupted")
        #expect(error.description == "SQLITE_INTERRUPT (9): interrupted - while executing `\(Self.endless)`")
        // The connection is still usable afterwards.
        #expect(try db.fetchValue(Int.self, sql: "SELECT 1") == 1)
    }

    @Test func interruptRollsBackTheTransaction() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(x)")
        let handle = db.interruptHandle
        let stop = LockedValue(false)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            while !stop.withLock({ $0 }) {
                handle.interrupt()
                usleep(2_000)
            }
            finished.signal()
        }.start()
        let error = try #require(throws: SQLiteError.self) {
            try db.transaction {
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                // Interrupts land here or on the INSERT: either way the transaction is undone.
                try db.execute(sql: "INSERT INTO t " + Self.endless.replacingOccurrences(of: "count(*)", with: "x"))
            }
        }
        stop.withLock { $0 = true }
        BoundedWait.wait(for: finished, "the interrupting thread stops")
        #expect(error.resultCode == .SQLITE_INTERRUPT)
        #expect(!db.isInTransaction)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 0)
    }

    /// A handle kept past `close()` must not reach another connection, even one that SQLite
    /// allocates at the same address: its statements run to the end.
    @Test func interruptAfterCloseDoesNothing() throws {
        var stale = [InterruptHandle]()
        for _ in 0..<20 {
            let db = try Database(inMemory: Configuration())
            stale.append(db.interruptHandle)
            db.close()
        }
        let db = try Database(inMemory: Configuration())
        defer { db.close() }
        for handle in stale { handle.interrupt() }
        // A statement that steps many times: an interrupt pending on this connection would stop it.
        let count = try db.fetchValue(
            Int.self,
            sql:
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) SELECT count(*) FROM n"
        )
        #expect(count == 100000)
    }
}
