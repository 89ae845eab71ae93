import Foundation

/// The transaction discipline shared by ``DatabaseQueue`` and ``DatabasePool``, and the
/// preparation step that runs before either serves anything.
enum DatabaseAccess {
    /// A read: a deferred transaction, so every statement of `body` sees the same snapshot.
    static func read<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try db.transaction(.deferred) { try body(db) }
    }

    /// A read outside any transaction. `PRAGMA query_only` makes the connection refuse writes
    /// meanwhile (it is permanent on a pool's readers, toggled on a queue's single connection).
    /// A transaction left open would leak into the next access: it is rolled back and reported.
    /// See <https://www.sqlite.org/pragma.html#pragma_query_only>.
    static func readWithoutTransaction<T>(
        _ db: Database, toggleQueryOnly: Bool, path: String, _ body: (Database) throws -> T
    ) throws -> T {
        if toggleQueryOnly {
            try db.execute(sql: "PRAGMA query_only = ON")
        }
        defer {
            if toggleQueryOnly { try? db.execute(sql: "PRAGMA query_only = OFF") }
        }
        return try withoutTransaction(db, path: path, "readWithoutTransaction", isWrite: false, body)
    }

    /// A write: `BEGIN IMMEDIATE` takes the write lock at once (waiting up to the busy timeout
    /// for another process), so the statements inside never fail with SQLITE_BUSY halfway.
    /// See <https://www.sqlite.org/lang_transaction.html#deferred_immediate_and_exclusive_transactions>.
    static func write<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try db.transaction(.immediate) { try body(db) }
    }

    /// A write that manages its own transactions. One left open would hold the write lock
    /// forever and leak into the next access: it is rolled back and reported.
    static func writeWithoutTransaction<T>(_ db: Database, path: String, _ body: (Database) throws -> T) throws -> T {
        try withoutTransaction(db, path: path, "writeWithoutTransaction", isWrite: true, body)
    }

    /// Runs `body`; a transaction it leaves open (or opens and then throws) is rolled back, and
    /// one left open on return is reported as ``DatabaseAccessError/Code/transactionLeftOpen``.
    /// After a failed write, a rollback SQLite left unfinished is finished too.
    private static func withoutTransaction<T>(
        _ db: Database, path: String, _ function: String, isWrite: Bool, _ body: (Database) throws -> T
    ) throws -> T {
        let result: T
        do {
            result = try body(db)
        } catch {
            if isWrite || db.isInTransaction { db.rollbackQuietly() }
            throw error
        }
        if db.isInTransaction {
            db.rollbackQuietly()
            throw DatabaseAccessError(
                code: .transactionLeftOpen, path: path,
                message: "\(function): the closure returned with a transaction open; it was rolled back")
        }
        return result
    }

    /// The error for a synchronous `function` (`read`, `write`) of `writer` called from one of
    /// its own closures: `DatabaseQueue.read called from inside a closure...`.
    static func checkNotReentrant(_ writer: some DatabaseWriter, _ function: String) throws {
        guard let writer = writer as? any OwnedQueuesWriter else { return }
        try checkNotReentrant(writer.owner, path: writer.path, "\(type(of: writer)).\(function)")
    }

    /// The error for a synchronous access made from one of the owner's own closures.
    static func checkNotReentrant(_ owner: AccessOwner, path: String, _ function: String) throws {
        if owner.isCurrent {
            throw DatabaseAccessError(
                code: .reentrantAccess, path: path,
                message: "\(function) called from inside a closure of the same queue or pool, which would "
                    + "deadlock: use the Database the closure was given")
        }
    }

    /// The error for an access submitted after `close()`.
    static func closedError(path: String, _ type: String) -> DatabaseAccessError {
        DatabaseAccessError(code: .closed, path: path, message: "\(type) is closed")
    }

    /// Runs `prepare` on `slot` (already acquired from `writer` for the preparation) on its
    /// queue, outside any transaction; then opens the gates of `schedulers`, or fails them
    /// with a ``DatabaseAccessError/Code/preparationFailed`` error wrapping the cause.
    static func startPreparation(
        on slot: ConnectionSlot, of writer: ConnectionScheduler, gating schedulers: [ConnectionScheduler],
        path: String, prepare: @escaping @Sendable (Database) throws -> Void
    ) {
        slot.queue.async {
            let failure: (any Error)?
            do {
                try slot.withDatabase { db in
                    try writeWithoutTransaction(db, path: path, prepare)
                }
                failure = nil
            } catch {
                failure = error
            }
            if let failure {
                let error = DatabaseAccessError(
                    code: .preparationFailed, path: path,
                    message: "preparing the database failed, nothing is served", underlyingError: failure)
                for scheduler in schedulers { scheduler.failGate(error) }
            } else {
                for scheduler in schedulers { scheduler.openGate() }
            }
            writer.release(slot)
        }
    }
}
