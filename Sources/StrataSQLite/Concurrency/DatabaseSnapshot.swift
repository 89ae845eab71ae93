import Foundation

/// A fixed state of a ``DatabasePool``'s database: a read transaction kept open on a connection
/// of its own, so every read sees the database as it was when the snapshot was made, whatever
/// is committed afterwards.
///
/// ```swift
/// func compare(in pool: DatabasePool) async throws {
///     let before = try pool.makeSnapshot()
///     try await pool.write { db in try db.execute(sql: "DELETE FROM note") }
///     let count = try await before.read { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM note") }
///     print(count ?? 0)   // the count before the DELETE
///     await before.close()
/// }
/// ```
///
/// - WAL only: snapshots come from a ``DatabasePool``, whose database is in WAL mode, where a
///   read transaction never blocks the writer. (In a rollback journal a reader's shared lock
///   would keep every writer from committing, which is why ``DatabaseQueue`` has none.)
/// - While a snapshot is open, checkpoints cannot go past the state it reads: the `-wal` file
///   keeps growing. Close snapshots when done (releasing the object closes it too).
/// - Reads run one at a time on the snapshot's connection (`PRAGMA query_only`). A statement
///   that would end the transaction (COMMIT, ROLLBACK, BEGIN, SAVEPOINT) is refused with
///   SQLITE_AUTH; writing fails with SQLITE_READONLY.
/// - After ``close()``, reads throw ``DatabaseAccessError/Code/closed``.
public final class DatabaseSnapshot: Sendable {
    /// The path of the database file.
    public let path: String
    private let scheduler: ConnectionScheduler
    private let owner: AccessOwner

    init(path: String, configuration: Configuration, refusingCheckpoints: Bool = false) throws {
        self.path = path
        let owner = AccessOwner()
        self.owner = owner
        let name = configuration.label ?? FilePath.lastComponent(of: path)
        scheduler = ConnectionScheduler(
            capacity: 1, gated: false,
            closedError: { DatabaseAccess.closedError(path: path, "DatabaseSnapshot") }
        ) { _ in
            ConnectionSlot(label: "strata.snapshot.\(name)", owner: owner) {
                let db = try DatabasePool.openReader(
                    path: path, configuration: configuration, refusingCheckpoints: refusingCheckpoints)
                do {
                    try Self.beginSnapshot(db)
                } catch {
                    db.close()
                    throw error
                }
                return db
            }
        }
        // The connection opens (and the snapshot is taken) now, on the calling thread.
        do {
            try scheduler.runSync { _ in }
        } catch {
            scheduler.closeWhenDrained {}
            throw error
        }
    }

    deinit { scheduler.closeWhenDrained {} }

    /// Opens a deferred transaction and reads the schema, which starts the read transaction:
    /// from here on the connection sees this state only. https://www.sqlite.org/isolation.html
    static func beginSnapshot(_ db: Database) throws {
        try db.execute(sql: "BEGIN DEFERRED")
        do {
            _ = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master")
        } catch {
            db.rollbackQuietly()
            throw error
        }
    }

    /// Runs `body` on the snapshot: it sees the database as it was when the snapshot was made.
    ///
    /// ```swift
    /// let names = try await snapshot.read { db in try db.fetchColumn(String.self, sql: "SELECT name FROM player") }
    /// ```
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let path = self.path
        return try await scheduler.run { db in try Self.read(db, path: path, body) }
    }

    /// The synchronous ``read(_:)``: blocks the calling thread until `body` has run.
    @_disfavoredOverload
    @available(*, noasync, message: "use the async read(_:) from async code")
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try DatabaseAccess.checkNotReentrant(owner, path: path, "DatabaseSnapshot.read")
        let path = self.path
        return try scheduler.runSync { db in try Self.read(db, path: path, body) }
    }

    /// Closes the snapshot's connection once the reads already submitted have run; later reads
    /// throw ``DatabaseAccessError/Code/closed``. Closing twice is harmless.
    ///
    /// ```swift
    /// await snapshot.close()
    /// ```
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            scheduler.closeWhenDrained { continuation.resume() }
        }
    }

    private static func read<T>(_ db: Database, path: String, _ body: (Database) throws -> T) throws -> T {
        guard db.isInTransaction else {
            throw DatabaseAccessError(
                code: .transactionLeftOpen, path: path, message: "the snapshot's read transaction is no longer open")
        }
        return try db.checkingTransactionControl({ _ in false }) { try body(db) }
    }
}

extension DatabasePool {
    /// A snapshot of the database as the last commit left it: reads on it never see later
    /// commits. It has a connection of its own (not one of the pool's readers).
    ///
    /// ```swift
    /// let snapshot = try pool.makeSnapshot()
    /// ```
    ///
    /// Made from inside a closure of the pool's writer, the snapshot sees the last commit, not
    /// the transaction in progress. Throws ``DatabaseAccessError/Code/closed`` when the pool is
    /// closed, and the preparation's error when it failed.
    public func makeSnapshot() throws -> DatabaseSnapshot {
        if writer.isClosing { throw DatabaseAccess.closedError(path: path, "DatabasePool") }
        // Not before the preparation (migrations) is done: wait for the gate on a reader,
        // unless called from one of the pool's own closures (the gate is open then).
        if !owner.isCurrent { try readers.runSync { _ in } }
        return try DatabaseSnapshot(
            path: path, configuration: configuration, refusingCheckpoints: isWALResetMitigationActive)
    }

    /// From a closure of the writer run by `writeWithoutTransaction`, outside any transaction:
    /// starts a read on a reader that sees the database as it is now (the last commit), and
    /// returns once that read's snapshot is taken. The writer then goes on writing while
    /// `body` runs, concurrently, on the reader; the later writes are not visible to it.
    ///
    /// ```swift
    /// try await pool.writeWithoutTransaction { db in
    ///     try db.execute(sql: "INSERT INTO note(body) VALUES ('milk')")
    ///     pool.asyncConcurrentRead { result in
    ///         let count = try? result.get().fetchValue(Int.self, sql: "SELECT count(*) FROM note")
    ///         print(count ?? 0)   // counts 'milk' but not 'eggs'
    ///     }
    ///     try db.execute(sql: "INSERT INTO note(body) VALUES ('eggs')")
    /// }
    /// ```
    ///
    /// `body` receives the error instead of a connection when the call is not made on the
    /// writer, or inside a transaction (``DatabaseAccessError/Code/transactionLeftOpen``: the
    /// uncommitted state could not be read), or when no reader can be had (closed pool).
    /// The writer waits for a free reader. See <https://www.sqlite.org/isolation.html>.
    public func asyncConcurrentRead(_ body: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        if let error = concurrentReadMisuse() {
            body(.failure(error))
            return
        }
        let established = DispatchSemaphore(value: 0)
        let readers = self.readers
        readers.enqueue(id: readers.makeID(), checkingCancellation: false) { granted in
            switch granted {
            case .failure(let error):
                established.signal()
                body(.failure(error))
            case .success(let slot):
                slot.queue.async {
                    var signalled = false
                    do {
                        try slot.withDatabase { db in
                            try DatabaseSnapshot.beginSnapshot(db)
                            established.signal()
                            signalled = true
                            defer { db.rollbackQuietly() }
                            try db.checkingTransactionControl({ _ in false }) { body(.success(db)) }
                        }
                    } catch {
                        if !signalled {
                            established.signal()
                            body(.failure(error))
                        }
                    }
                    readers.release(slot)
                }
            }
        }
        established.wait()
    }

    /// ``asyncConcurrentRead(_:)`` with a result: from a closure of the writer run by
    /// `writeWithoutTransaction`, outside any transaction, starts `body` on a reader that sees
    /// the database as it is now, and returns once that snapshot is taken.
    ///
    /// ```swift
    /// let future = try await pool.writeWithoutTransaction { db in
    ///     try db.execute(sql: "DELETE FROM note")
    ///     let count = pool.concurrentRead { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM note") ?? 0 }
    ///     try db.execute(sql: "INSERT INTO note(body) VALUES ('milk')")
    ///     return count
    /// }
    /// print(try await future.value)   // 0: the state right after the DELETE
    /// ```
    public func concurrentRead<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) -> DatabaseFuture<T> {
        let future = DatabaseFuture<T>()
        asyncConcurrentRead { result in
            future.complete(Result { try body(try result.get()) })
        }
        return future
    }

    /// Why a concurrent read cannot start here, if it cannot.
    private func concurrentReadMisuse() -> (any Error)? {
        guard let slot = ConnectionSlot.current, writerSlot.withLock({ $0 }) == ObjectIdentifier(slot) else {
            return DatabaseAccessError(
                code: .reentrantAccess, path: path,
                message: "concurrentRead must be called from a writeWithoutTransaction closure of this pool")
        }
        if readers.isGatePending {
            return DatabaseAccessError(
                code: .reentrantAccess, path: path,
                message: "concurrentRead called while the pool is being prepared: readers wait for the preparation")
        }
        if slot.openedDatabase?.isInTransaction ?? false {
            return DatabaseAccessError(
                code: .transactionLeftOpen, path: path,
                message: "concurrentRead called inside a transaction: a reader cannot see uncommitted changes; "
                    + "call it from writeWithoutTransaction, outside any transaction")
        }
        return nil
    }
}

/// The result of ``DatabasePool/concurrentRead(_:)``, available once the read has run.
///
/// ```swift
/// let count = try await future.value
/// ```
public final class DatabaseFuture<Value: Sendable>: Sendable {
    private let state = LockedValue<(result: Result<Value, any Error>?, waiters: [@Sendable () -> Void])>(
        (nil, []))

    init() {}

    func complete(_ result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [@Sendable () -> Void] in
            state.result = result
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter() }
    }

    /// Calls `handler` once the result is known (at once when it already is).
    private func whenDone(_ handler: @escaping @Sendable () -> Void) {
        let done = state.withLock { state -> Bool in
            if state.result != nil { return true }
            state.waiters.append(handler)
            return false
        }
        if done { handler() }
    }

    /// The read's value, or its error, once it has run.
    public var value: Value {
        get async throws {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                whenDone { continuation.resume() }
            }
            guard let result = state.withLock({ $0.result }) else { preconditionFailure("completed without result") }
            return try result.get()
        }
    }

    /// Blocks the calling thread until the read has run, then returns its value or throws its
    /// error. Not for async code; calling it on the writer waits for the reader, which never
    /// waits for the writer.
    @available(*, noasync, message: "use the async value from async code")
    public func wait() throws -> Value {
        let semaphore = DispatchSemaphore(value: 0)
        whenDone { semaphore.signal() }
        semaphore.wait()
        guard let result = state.withLock({ $0.result }) else { preconditionFailure("completed without result") }
        return try result.get()
    }
}
