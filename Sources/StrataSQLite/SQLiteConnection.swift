import CSQLite

/// Owns one `sqlite3*` handle and closes it when the last user goes away.
///
/// This is the thin internal layer between Strata and SQLite's connection handle: a ``Database``
/// and every ``Statement`` it made hold it, so the handle outlives its last statement.
final class SQLiteConnection {
    let pointer: OpaquePointer
    /// The path (or URI) the connection was opened with, for error messages.
    let path: String
    let publicStatementArguments: Bool
    private(set) var isClosed = false
    /// What SQLite's authorizer callback asks (see `Database.setAuthorizer` and
    /// `Database.checkingTransactionControl`), kept alive here as the callback's context.
    let authorizer = AuthorizerState()
    /// Transaction observers, tracer, functions and collations (see `ConnectionHooks`).
    let hooks = ConnectionHooks()
    /// The per-statement instruction limit, when ``Configuration/statementInstructionLimit`` is set.
    var instructionBudget: InstructionBudget?
    /// The busy handler's state (nil with a zero ``Configuration/busyTimeout``).
    var busyWait: BusyWait?
    /// The database file, the key under which connections of this process waiting for its lock
    /// are woken (`LockWaiters`); nil in memory.
    var lockFile: String?
    /// How many waiting connections the last release of the lock woke (see
    /// `Database.connectionsWokenAtLastRelease`).
    var wokenAtLastRelease = 0

    init(pointer: OpaquePointer, path: String, publicStatementArguments: Bool) {
        self.pointer = pointer
        self.path = path
        self.publicStatementArguments = publicStatementArguments
    }

    /// Closes the handle. `sqlite3_close_v2` defers the close until statements still alive are
    /// finalized, leaving a "zombie" connection meanwhile (https://www.sqlite.org/c3ref/close.html).
    /// Strata never calls SQLite on a closed connection: see ``checkOpen(_:)``.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        sqlite3_close_v2(pointer)
    }

    deinit { close() }

    /// Throws SQLITE_MISUSE, naming the database, when the connection was closed.
    func checkOpen(_ sql: String?) throws {
        if isClosed {
            throw SQLiteError(
                resultCode: .SQLITE_MISUSE, message: "connection to \(path) is closed", sql: sql)
        }
    }

    /// The error for a failed call that returned `code`, with SQLite's message for it.
    func error(code: Int32, sql: String?, arguments: StatementArguments? = nil) -> SQLiteError {
        // With extended result codes on, sqlite3_extended_errcode is the code of the last failed
        // call; use it when it refines `code` (same low byte). https://www.sqlite.org/c3ref/errcode.html
        let extended = sqlite3_extended_errcode(pointer)
        let resolved = (extended & 0xFF) == (code & 0xFF) ? extended : code
        var message = String(cString: sqlite3_errmsg(pointer))
        if let budget = instructionBudget, budget.isExhausted, (resolved & 0xFF) == SQLITE_INTERRUPT {
            message = budget.message
        }
        if let denial = authorizer.denial {
            authorizer.denial = nil
            if (resolved & 0xFF) == SQLITE_AUTH { message = denial }
        }
        return SQLiteError(
            resultCode: ResultCode(rawValue: resolved), message: message, sql: sql,
            arguments: arguments, publicStatementArguments: publicStatementArguments)
    }
}

/// A handle that interrupts a connection's running statement from any thread or task.
///
/// ```swift
/// let handle = db.interruptHandle
/// DispatchQueue.global().asyncAfter(deadline: .now() + 1) { handle.interrupt() }
/// try db.execute(sql: "SELECT ... long query ...")   // throws SQLITE_INTERRUPT
/// ```
///
/// Unlike ``Database``, the handle is `Sendable`: `sqlite3_interrupt` is the one SQLite call that
/// is safe from another thread, as long as the connection is open, which the handle's lock
/// guarantees. See <https://www.sqlite.org/c3ref/interrupt.html>.
public final class InterruptHandle: Sendable {
    /// The connection's handle, only touched under the lock (and nil once it closes).
    private let state: UnsafeSendableLockedValue<OpaquePointer?>

    init(pointer: OpaquePointer) { state = UnsafeSendableLockedValue(pointer) }

    /// Makes the statement running on the connection stop with SQLITE_INTERRUPT. Does nothing
    /// once the connection is closed, and nothing to statements started after the running ones end.
    public func interrupt() {
        state.withLock { pointer in
            if let pointer { sqlite3_interrupt(pointer) }
        }
    }

    func invalidate() { state.withLock { $0 = nil } }
}
