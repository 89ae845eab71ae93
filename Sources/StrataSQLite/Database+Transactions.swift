import CSQLite

/// The kind of transaction to begin. See <https://www.sqlite.org/lang_transaction.html>.
///
/// ```swift
/// try db.transaction(.immediate) { ... }
/// ```
public enum TransactionKind: String, Sendable, Hashable {
    /// Takes locks on first read or write.
    case deferred = "DEFERRED"
    /// Takes the write lock at once: later writes in it never fail with SQLITE_BUSY.
    case immediate = "IMMEDIATE"
    /// Like immediate; in rollback-journal mode also keeps readers out.
    case exclusive = "EXCLUSIVE"
}

extension Database {
    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    /// Called inside a transaction, it runs in a savepoint instead (so calls nest).
    ///
    /// ```swift
    /// try db.transaction(.immediate) {
    ///     try db.execute(sql: "UPDATE account SET balance = balance - 10 WHERE id = 1")
    ///     try db.execute(sql: "UPDATE account SET balance = balance + 10 WHERE id = 2")
    /// }
    /// ```
    @discardableResult
    public func transaction<T>(_ kind: TransactionKind = .deferred, _ body: () throws -> T) throws -> T {
        if isInTransaction { return try savepoint(body) }
        try execute(sql: "BEGIN \(kind.rawValue) TRANSACTION")
        let result: T
        do {
            result = try body()
        } catch {
            rollbackQuietly()
            throw error
        }
        do {
            try execute(sql: "COMMIT TRANSACTION")
        } catch {
            // A failed COMMIT (deferred foreign key violation, busy) leaves the transaction open.
            rollbackQuietly()
            throw error
        }
        return result
    }

    /// Runs `body` in a savepoint: released when it returns, rolled back to when it throws.
    /// Works inside or outside a transaction. See <https://www.sqlite.org/lang_savepoint.html>.
    ///
    /// ```swift
    /// try db.transaction {
    ///     try db.execute(sql: "INSERT INTO log(msg) VALUES ('kept')")
    ///     try? db.savepoint {
    ///         try db.execute(sql: "INSERT INTO log(msg) VALUES ('undone')")
    ///         throw CancellationError()
    ///     }
    /// }
    /// ```
    @discardableResult
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        let name = nextSavepointName()
        try execute(sql: "SAVEPOINT \(name)")
        let result: T
        do {
            result = try body()
        } catch {
            // The savepoint may be gone if SQLite rolled back the whole transaction (for
            // example on SQLITE_FULL); then there is nothing left to undo.
            if isInTransaction {
                try? execute(sql: "ROLLBACK TRANSACTION TO SAVEPOINT \(name)")
                try? execute(sql: "RELEASE SAVEPOINT \(name)")
            }
            throw error
        }
        do {
            try execute(sql: "RELEASE SAVEPOINT \(name)")
        } catch {
            // Releasing the outermost savepoint commits, and can fail like COMMIT (deferred
            // foreign key violation, busy): undo the savepoint's work rather than leave it open.
            if isInTransaction {
                try? execute(sql: "ROLLBACK TRANSACTION TO SAVEPOINT \(name)")
                try? execute(sql: "RELEASE SAVEPOINT \(name)")
            }
            throw error
        }
        return result
    }

    /// Rolls back the open transaction, if any, ignoring errors (used on failure paths).
    ///
    /// ```swift
    /// defer { db.rollbackQuietly() }
    /// ```
    public func rollbackQuietly() {
        if isInTransaction { try? execute(sql: "ROLLBACK TRANSACTION") }
    }
}
