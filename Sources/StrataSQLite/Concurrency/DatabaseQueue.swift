import Foundation

/// One database connection shared safely between tasks and threads: every access runs in turn,
/// in the order it was submitted.
///
/// ```swift
/// let dbQueue = try DatabaseQueue(path: "app.sqlite") { db in
///     try db.execute(sql: "CREATE TABLE IF NOT EXISTS player(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
/// }
/// try await dbQueue.write { db in
///     try db.execute(sql: "INSERT INTO player(name) VALUES (?)", arguments: ["Arthur"])
/// }
/// let count = try await dbQueue.read { db in
///     try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") ?? 0
/// }
/// ```
///
/// Use it for in-memory databases and for apps with little concurrency; a ``DatabasePool`` lets
/// reads run in parallel with each other and with the write.
///
/// ## Threads
/// SQLite calls block, so they never run on the Swift concurrency thread pool (whose threads
/// must always make progress). The connection lives on a serial `DispatchQueue`; an async access
/// suspends its task on a continuation until its turn comes, then its closure runs on that queue.
/// A custom actor executor could do the same, but an actor serves its mailbox by priority, not
/// in submission order, needs macOS 14 for a dispatch-queue executor, and offers no way to
/// withdraw a cancelled caller from its mailbox; a small FIFO scheduler (also used by
/// ``DatabasePool``) keeps writes in order and drops cancelled waiters before they run.
public final class DatabaseQueue: DatabaseWriter, OwnedQueuesWriter {
    /// The path the database was opened with (`:memory:` for an in-memory database).
    public let path: String
    /// The configuration of the connection.
    public let configuration: Configuration
    let scheduler: ConnectionScheduler
    let owner = AccessOwner()

    /// Opens (by default creating) the database at `path` on one serialized connection.
    ///
    /// The connection opens here, so a bad path or a file that is not a database throws at once.
    /// `prepare`, when given, runs next, on the connection, outside any transaction (create
    /// tables, run migrations); accesses submitted meanwhile wait for it. If it throws, every
    /// access, waiting or later, fails with a ``DatabaseAccessError`` of code
    /// ``DatabaseAccessError/Code/preparationFailed`` carrying the cause.
    public init(
        path: String, configuration: Configuration = Configuration(),
        prepare: (@Sendable (Database) throws -> Void)? = nil
    ) throws {
        self.path = path
        self.configuration = configuration
        let owner = self.owner
        let label = "strata.queue.\(configuration.label ?? FilePath.lastComponent(of: path))"
        let scheduler = ConnectionScheduler(
            capacity: 1, gated: prepare != nil,
            closedError: { DatabaseAccess.closedError(path: path, "DatabaseQueue") },
            makeSlot: { _ in
                ConnectionSlot(label: label, owner: owner) { try Database(path: path, configuration: configuration) }
            })
        self.scheduler = scheduler
        let slot = scheduler.acquireForPreparation()
        do {
            try slot.queue.sync { try slot.withDatabase { _ in } }
        } catch {
            scheduler.release(slot)
            throw error
        }
        if let prepare {
            DatabaseAccess.startPreparation(
                on: slot, of: scheduler, gating: [scheduler], path: path, prepare: prepare)
        } else {
            scheduler.release(slot)
        }
    }

    /// Opens a private in-memory database on one serialized connection.
    ///
    /// ```swift
    /// let dbQueue = try DatabaseQueue()
    /// ```
    public convenience init(
        configuration: Configuration = Configuration(), prepare: (@Sendable (Database) throws -> Void)? = nil
    ) throws {
        try self.init(path: ":memory:", configuration: configuration, prepare: prepare)
    }

    // MARK: Async

    // `read` and `write` are written once, on `DatabaseWriter`, over the two primitives below.

    /// Runs `body` with `PRAGMA query_only` on, outside any transaction (see
    /// `readWithoutTransaction(_:)`); `read(_:)` adds the
    /// deferred transaction.
    ///
    /// ```swift
    /// let version = try await dbQueue.readWithoutTransaction { db in try db.fetchValue(Int.self, sql: "PRAGMA user_version") }
    /// ```
    /// A task cancelled while waiting for its turn throws `CancellationError`; `body` never runs.
    public func readWithoutTransaction<T: Sendable>(
        _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        let path = self.path
        return try await scheduler.run { db in
            try DatabaseAccess.readWithoutTransaction(db, toggleQueryOnly: true, path: path, body)
        }
    }

    /// Runs `body` outside any transaction, for work that manages its own or cannot run in one.
    ///
    /// ```swift
    /// try await dbQueue.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
    /// ```
    /// A transaction `body` leaves open is rolled back and reported as
    /// ``DatabaseAccessError/Code/transactionLeftOpen``.
    public func writeWithoutTransaction<T: Sendable>(
        _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        let path = self.path
        return try await scheduler.run { db in try DatabaseAccess.writeWithoutTransaction(db, path: path, body) }
    }

    /// Refuses new accesses (they throw ``DatabaseAccessError/Code/closed``), waits until every
    /// access already submitted has finished, then closes the connection. Closing twice is harmless.
    ///
    /// ```swift
    /// await dbQueue.close()
    /// ```
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            scheduler.closeWhenDrained { continuation.resume() }
        }
    }

    // MARK: Sync

    // Each blocking variant is `noasync` (a blocking wait must not hold a Swift concurrency
    // thread) and `@_disfavoredOverload`, as in GRDB: async code gets the async variant,
    // synchronous code the blocking one. One exception, Swift's and not ours: calls written
    // directly in top-level code (main.swift) are resolved as if that code were synchronous even
    // when it awaits, so there the blocking variant is picked and then refused; the message
    // says to call it from an async function (the concurrency guide's pool example does).

    /// The synchronous `readWithoutTransaction`: blocks the calling thread until `body` has run.
    ///
    /// ```swift
    /// let version = try dbQueue.readWithoutTransaction { db in try db.fetchValue(Int.self, sql: "PRAGMA user_version") }
    /// ```
    /// Calling it from inside another closure of the same queue throws
    /// ``DatabaseAccessError/Code/reentrantAccess`` instead of deadlocking.
    @_disfavoredOverload
    @available(
        *, noasync,
        message: "use the async readWithoutTransaction(_:) from async code (in top-level code, from an async function)"
    )
    public func readWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try DatabaseAccess.checkNotReentrant(owner, path: path, "DatabaseQueue.readWithoutTransaction")
        let path = self.path
        return try scheduler.runSync { db in
            try DatabaseAccess.readWithoutTransaction(db, toggleQueryOnly: true, path: path, body)
        }
    }

    /// The synchronous `writeWithoutTransaction`: blocks the calling thread until `body` has run.
    ///
    /// ```swift
    /// try dbQueue.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
    /// ```
    @_disfavoredOverload
    @available(
        *, noasync,
        message: "use the async writeWithoutTransaction(_:) from async code (in top-level code, from an async function)"
    )
    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try DatabaseAccess.checkNotReentrant(owner, path: path, "DatabaseQueue.writeWithoutTransaction")
        let path = self.path
        return try scheduler.runSync { db in try DatabaseAccess.writeWithoutTransaction(db, path: path, body) }
    }

    /// The synchronous `close`: blocks the calling thread until the connection is closed.
    /// Called from inside one of the queue's own closures, it only refuses new accesses (waiting
    /// would deadlock); the connection closes when that closure returns.
    @_disfavoredOverload
    @available(*, noasync, message: "use the async close() from async code (in top-level code, from an async function)")
    public func close() {
        if owner.isCurrent {
            scheduler.closeWhenDrained {}
            return
        }
        let semaphore = DispatchSemaphore(value: 0)
        scheduler.closeWhenDrained { semaphore.signal() }
        semaphore.wait()
    }
}
