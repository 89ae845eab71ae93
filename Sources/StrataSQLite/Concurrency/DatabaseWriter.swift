/// What ``DatabaseQueue`` and ``DatabasePool`` have in common: reads, writes and closing, from
/// async code or from synchronous code. Write code against it to accept either.
///
/// ```swift
/// func playerCount(in writer: some DatabaseWriter) async throws -> Int {
///     try await writer.read { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") ?? 0 }
/// }
/// ```
///
/// A writer provides the primitives: `readWithoutTransaction(_:)` runs a closure on a
/// read-only connection, `writeWithoutTransaction(_:)` on the writer, each in turn; `read`
/// and `write` are written once on top of them, here, with their transactions (as GRDB's
/// `DatabaseWriter` writes `write` over `writeWithoutTransaction`).
public protocol DatabaseWriter: AnyObject, Sendable {
    /// The path the database was opened with.
    var path: String { get }

    /// Runs `body` on a read-only connection outside any transaction: each statement sees the
    /// database as it is when it runs. Prefer `read(_:)`, whose statements all see one
    /// snapshot. A transaction `body` leaves open is rolled back and reported as
    /// ``DatabaseAccessError/Code/transactionLeftOpen``.
    ///
    /// ```swift
    /// let version = try await writer.readWithoutTransaction { db in try db.fetchValue(Int.self, sql: "PRAGMA user_version") }
    /// ```
    func readWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T
    /// Synchronous `readWithoutTransaction(_:)`: blocks the calling thread. Not for async code.
    @_disfavoredOverload
    func readWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T

    /// Runs `body` on the writer outside any transaction, for work that manages its own
    /// (migrations, `VACUUM`). A transaction left open is rolled back and reported.
    func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T
    /// Synchronous `writeWithoutTransaction(_:)`: blocks the calling thread. Not for async code.
    @_disfavoredOverload
    func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T

    /// Refuses new accesses, waits for those already submitted, then closes every connection.
    func close() async
    /// Synchronous `close()`: blocks the calling thread. Not for async code.
    @_disfavoredOverload
    func close()
}

extension DatabaseWriter {
    // MARK: Async

    /// Runs `body` in a deferred transaction on a read-only connection: every statement sees
    /// the same snapshot, which holds either all of a write or none of it. Writing from `body`
    /// fails with SQLITE_READONLY (`PRAGMA query_only`). A ``DatabasePool`` reads on its readers
    /// while the writer writes; a ``DatabaseQueue`` reads on its one connection, in turn.
    ///
    /// ```swift
    /// let names = try await writer.read { db in try db.fetchColumn(String.self, sql: "SELECT name FROM player") }
    /// ```
    /// A task cancelled while waiting for its turn throws `CancellationError`; `body` never runs.
    /// See <https://www.sqlite.org/lang_transaction.html>.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await readWithoutTransaction { db in try DatabaseAccess.read(db, body) }
    }

    /// Runs `body` on the writer in an immediate transaction (`BEGIN IMMEDIATE`): committed when
    /// it returns, rolled back when it throws. Writes run one at a time, in submission order.
    ///
    /// ```swift
    /// try await writer.write { db in
    ///     try db.execute(sql: "UPDATE account SET balance = balance - 10 WHERE id = 1")
    ///     try db.execute(sql: "UPDATE account SET balance = balance + 10 WHERE id = 2")
    /// }
    /// ```
    /// A task cancelled while waiting for the writer throws `CancellationError`; `body` never runs.
    /// See <https://www.sqlite.org/lang_transaction.html>.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writeWithoutTransaction { db in try DatabaseAccess.write(db, body) }
    }

    // MARK: Sync

    // Each blocking variant is `noasync` (a blocking wait must not hold a Swift concurrency
    // thread) and `@_disfavoredOverload`, as in GRDB: async code gets the async variant,
    // synchronous code the blocking one. One exception, Swift's and not ours: calls written
    // directly in top-level code (main.swift) are resolved as if that code were synchronous even
    // when it awaits, so there the blocking variant is picked and then refused; the message
    // says to call it from an async function (the concurrency guide's pool example does).

    /// The synchronous `read`: blocks the calling thread until `body` has run.
    ///
    /// ```swift
    /// let count = try writer.read { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") }
    /// ```
    /// Calling it from inside another closure of the same queue or pool throws
    /// ``DatabaseAccessError/Code/reentrantAccess`` instead of deadlocking.
    @_disfavoredOverload
    @available(
        *, noasync, message: "use the async read(_:) from async code (in top-level code, from an async function)"
    )
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try DatabaseAccess.checkNotReentrant(self, "read")
        return try readWithoutTransaction { db in try DatabaseAccess.read(db, body) }
    }

    /// The synchronous `write`: blocks the calling thread until `body` has run and committed.
    ///
    /// ```swift
    /// try writer.write { db in try db.execute(sql: "DELETE FROM player") }
    /// ```
    @_disfavoredOverload
    @available(
        *, noasync, message: "use the async write(_:) from async code (in top-level code, from an async function)"
    )
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try DatabaseAccess.checkNotReentrant(self, "write")
        return try writeWithoutTransaction { db in try DatabaseAccess.write(db, body) }
    }
}

/// A writer whose closures run on queues it owns: its synchronous accesses refuse to run from
/// inside one of its own closures (``DatabaseAccess/checkNotReentrant(_:_:)``).
protocol OwnedQueuesWriter: DatabaseWriter {
    var owner: AccessOwner { get }
}
