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
    /// When a write failed on a full disk or an I/O error, SQLite may already have ended the
    /// transaction and left its rollback unfinished (a hot journal, the file possibly grown): this
    /// finishes it at once, so the file is as it was. ``hasHotJournal()`` tells whether that failed.
    ///
    /// ```swift
    /// defer { db.rollbackQuietly() }
    /// ```
    public func rollbackQuietly() {
        if isInTransaction { try? execute(sql: "ROLLBACK TRANSACTION") }
        finishInterruptedRollback()
    }
}

extension Database {
    /// Runs `body` with foreign key enforcement turned off, and turns it back on afterwards, on
    /// every path. `body` learns whether enforcement was on before.
    ///
    /// "It is not possible to enable or disable foreign key constraints in the middle of a
    /// multi-statement transaction": `PRAGMA foreign_keys` is a no-op inside one
    /// (<https://www.sqlite.org/foreignkeys.html#fk_enable>). Called inside a transaction, this
    /// leaves enforcement as it is; callers that rebuild tables must then check it themselves.
    ///
    /// ```swift
    /// try db.withForeignKeysOff { _ in
    ///     try db.transaction(.immediate) { /* rebuild a parent table: no ON DELETE fires */ }
    /// }
    /// ```
    public func withForeignKeysOff<T>(_ body: (_ wereOn: Bool) throws -> T) throws -> T {
        let wereOn = try foreignKeysEnabled()
        let turnOff = wereOn && !isInTransaction
        if turnOff { try execute(sql: "PRAGMA foreign_keys = OFF") }
        defer { if turnOff { try? execute(sql: "PRAGMA foreign_keys = ON") } }
        return try body(wereOn)
    }
}
