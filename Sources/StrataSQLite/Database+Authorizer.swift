import CSQLite

/// A statement that controls transactions, as SQLite's compiler reports it to the authorizer:
/// `BEGIN`, `COMMIT` (or `END`), `ROLLBACK`, `SAVEPOINT`, `RELEASE`, `ROLLBACK TO`.
///
/// SQLite parses the statement, so the words around it cannot disguise it: a column named
/// `begin`, `'COMMIT;'` in a string or `END` closing a `CASE` are not transaction control.
/// See <https://www.sqlite.org/c3ref/c_alter_table.html> (`SQLITE_TRANSACTION`, `SQLITE_SAVEPOINT`).
///
/// ```swift
/// TransactionControl(kind: .release, savepoint: "s")   // RELEASE s
/// ```
public struct TransactionControl: Hashable, Sendable, CustomStringConvertible {
    /// What the statement does.
    public enum Kind: String, Hashable, Sendable {
        /// `BEGIN [DEFERRED | IMMEDIATE | EXCLUSIVE] [TRANSACTION]`.
        case begin = "BEGIN"
        /// `COMMIT` or `END`, with or without `TRANSACTION`.
        case commit = "COMMIT"
        /// `ROLLBACK [TRANSACTION]` (without `TO`).
        case rollback = "ROLLBACK"
        /// `SAVEPOINT name`.
        case savepoint = "SAVEPOINT"
        /// `RELEASE [SAVEPOINT] name`.
        case release = "RELEASE"
        /// `ROLLBACK [TRANSACTION] TO [SAVEPOINT] name`.
        case rollbackToSavepoint = "ROLLBACK TO"
    }

    /// What the statement does.
    public let kind: Kind
    /// The savepoint's name (unquoted) for `SAVEPOINT`, `RELEASE` and `ROLLBACK TO`; nil otherwise.
    public let savepoint: String?

    /// A transaction control statement.
    public init(kind: Kind, savepoint: String? = nil) {
        self.kind = kind
        self.savepoint = savepoint
    }

    /// `COMMIT`, `RELEASE s`, ...
    public var description: String { savepoint.map { "\(kind.rawValue) \($0)" } ?? kind.rawValue }

    /// The statement SQLite's authorizer reports with `action`, `arg1` and `arg2`, or nil for
    /// other actions. "SQLITE_TRANSACTION: operation (BEGIN, COMMIT or ROLLBACK);
    /// SQLITE_SAVEPOINT: operation (BEGIN, RELEASE or ROLLBACK), savepoint name."
    init?(action: Int32, operation: String?, name: String?) {
        switch (action, operation) {
        case (SQLITE_TRANSACTION, "BEGIN"): self.init(kind: .begin)
        case (SQLITE_TRANSACTION, "COMMIT"): self.init(kind: .commit)
        case (SQLITE_TRANSACTION, "ROLLBACK"): self.init(kind: .rollback)
        case (SQLITE_SAVEPOINT, "BEGIN"): self.init(kind: .savepoint, savepoint: name)
        case (SQLITE_SAVEPOINT, "RELEASE"): self.init(kind: .release, savepoint: name)
        case (SQLITE_SAVEPOINT, "ROLLBACK"): self.init(kind: .rollbackToSavepoint, savepoint: name)
        default: return nil
        }
    }
}

/// The transaction control checks in force on a connection, innermost last.
final class AuthorizerChecks {
    var checks: [(TransactionControl) -> Bool] = []

    /// True when every check allows `control`.
    func allows(_ control: TransactionControl) -> Bool {
        checks.allSatisfy { $0(control) }
    }
}

extension Database {
    /// Runs `body` while every statement compiled on this connection that controls transactions
    /// is first shown to `allow`: when it returns false, SQLite refuses to compile the statement
    /// (SQLITE_AUTH, "not authorized"), so it never runs. Other statements are not affected.
    ///
    /// ```swift
    /// // Nothing inside may end the transaction the caller opened.
    /// try db.checkingTransactionControl({ $0.kind != .commit && $0.kind != .rollback }) {
    ///     try db.execute(sql: script)
    /// }
    /// ```
    ///
    /// The check sees each statement once, when it is compiled (``makeStatement(sql:)``,
    /// ``execute(sql:arguments:)`` compiles a script one statement at a time), or recompiled
    /// after a schema change; installing it makes SQLite recompile statements prepared earlier
    /// (cached ones included) before their next run, so they are checked too. Calls nest: a
    /// statement must pass every check in force. It is built on SQLite's authorizer, which this
    /// method owns on the connection. See <https://www.sqlite.org/c3ref/set_authorizer.html>.
    public func checkingTransactionControl<T>(
        _ allow: @escaping (TransactionControl) -> Bool, _ body: () throws -> T
    ) throws -> T {
        try checkOpen(nil)
        authorizerChecks.checks.append(allow)
        // Installing again (also when nested) expires the statements compiled so far.
        installAuthorizer(true)
        defer {
            authorizerChecks.checks.removeLast()
            if authorizerChecks.checks.isEmpty, !isClosed { installAuthorizer(false) }
        }
        return try body()
    }

    private func installAuthorizer(_ on: Bool) {
        guard on else {
            // "Disable the authorizer by installing a NULL callback."
            sqlite3_set_authorizer(handle, nil, nil)
            return
        }
        // The context is the connection's `AuthorizerChecks`, which lives as long as the
        // Database; the callback is removed before the last check goes away.
        let context = Unmanaged.passUnretained(authorizerChecks).toOpaque()
        sqlite3_set_authorizer(
            handle,
            { context, action, arg1, arg2, _, _ in
                guard let context, action == SQLITE_TRANSACTION || action == SQLITE_SAVEPOINT else { return SQLITE_OK }
                let checks = Unmanaged<AuthorizerChecks>.fromOpaque(context).takeUnretainedValue()
                let control = TransactionControl(
                    action: action, operation: arg1.map { String(cString: $0) }, name: arg2.map { String(cString: $0) })
                guard let control else { return SQLITE_OK }
                // "SQLITE_DENY: abort the SQL statement with an error."
                return checks.allows(control) ? SQLITE_OK : SQLITE_DENY
            },
            context)
    }
}
