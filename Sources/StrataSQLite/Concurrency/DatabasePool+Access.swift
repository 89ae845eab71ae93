import Foundation

extension DatabasePool {
    // MARK: Async

    // `read` and `write` are written once, on `DatabaseWriter`, over the two primitives below.

    /// Runs `body` on a reader (`PRAGMA query_only` is on) outside any transaction: each
    /// statement sees the latest commit when it runs. `read(_:)` adds the
    /// deferred transaction that gives all of them one snapshot. Never waits for the writer.
    ///
    /// ```swift
    /// let count = try await pool.readWithoutTransaction { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") }
    /// ```
    /// When every reader is busy, the read waits for one, in submission order. A task cancelled
    /// while waiting throws `CancellationError` and `body` never runs. Writing from `body` fails
    /// with SQLITE_READONLY.
    public func readWithoutTransaction<T: Sendable>(
        _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        let path = self.path
        return try await readers.run { db in
            try DatabaseAccess.readWithoutTransaction(db, toggleQueryOnly: false, path: path, body)
        }
    }

    /// Runs `body` on the writer outside any transaction, for work that manages its own
    /// (migrations) or cannot run in one (`VACUUM`).
    ///
    /// ```swift
    /// try await pool.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
    /// ```
    /// A transaction `body` leaves open is rolled back and reported as
    /// ``DatabaseAccessError/Code/transactionLeftOpen``.
    public func writeWithoutTransaction<T: Sendable>(
        _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        let path = self.path
        return try await writer.run { db in try DatabaseAccess.writeWithoutTransaction(db, path: path, body) }
    }

    /// Refuses new accesses (they throw ``DatabaseAccessError/Code/closed``), waits until every
    /// access already submitted has finished, then closes the readers and last the writer (the
    /// last connection to close checkpoints the WAL). Closing twice is harmless.
    ///
    /// ```swift
    /// await pool.close()
    /// ```
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            closeAll { continuation.resume() }
        }
    }

    /// Marks both schedulers closing at once, so no write slips in while readers drain.
    private func closeAll(_ completion: @escaping @Sendable () -> Void) {
        let writer = self.writer
        writer.beginClose()
        readers.closeWhenDrained {
            writer.closeWhenDrained(completion)
        }
    }

    // MARK: Sync

    // Each blocking variant is `noasync` (a blocking wait must not hold a Swift concurrency
    // thread) and `@_disfavoredOverload`, as in GRDB: async code gets the async variant,
    // synchronous code the blocking one. One exception, Swift's and not ours: calls written
    // directly in top-level code (main.swift) are resolved as if that code were synchronous even
    // when it awaits, so there the blocking variant is picked and then refused; the message
    // says to call it from an async function (the concurrency guide's pool example does).

    /// The synchronous `readWithoutTransaction`: blocks the calling thread until `body` has run
    /// on a reader.
    ///
    /// ```swift
    /// let count = try pool.readWithoutTransaction { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") }
    /// ```
    /// Calling it from inside another closure of the same pool throws
    /// ``DatabaseAccessError/Code/reentrantAccess`` instead of risking a deadlock.
    @_disfavoredOverload
    @available(
        *, noasync,
        message: "use the async readWithoutTransaction(_:) from async code (in top-level code, from an async function)"
    )
    public func readWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try DatabaseAccess.checkNotReentrant(owner, path: path, "DatabasePool.readWithoutTransaction")
        let path = self.path
        return try readers.runSync { db in
            try DatabaseAccess.readWithoutTransaction(db, toggleQueryOnly: false, path: path, body)
        }
    }

    /// The synchronous `writeWithoutTransaction`: blocks the calling thread until `body` has run.
    ///
    /// ```swift
    /// try pool.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
    /// ```
    @_disfavoredOverload
    @available(
        *, noasync,
        message: "use the async writeWithoutTransaction(_:) from async code (in top-level code, from an async function)"
    )
    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try DatabaseAccess.checkNotReentrant(owner, path: path, "DatabasePool.writeWithoutTransaction")
        let path = self.path
        return try writer.runSync { db in try DatabaseAccess.writeWithoutTransaction(db, path: path, body) }
    }

    /// The synchronous `close`: blocks the calling thread until every connection is closed.
    /// Called from inside one of the pool's own closures, it only refuses new accesses (waiting
    /// would deadlock); the connections close once the running closures return.
    @_disfavoredOverload
    @available(*, noasync, message: "use the async close() from async code (in top-level code, from an async function)")
    public func close() {
        if owner.isCurrent {
            closeAll {}
            return
        }
        let semaphore = DispatchSemaphore(value: 0)
        closeAll { semaphore.signal() }
        semaphore.wait()
    }
}
