import CSQLite
import Foundation

extension Database {
    /// One question SQLite's authorizer asks while it compiles a statement: may the statement
    /// do ``action`` on these objects?
    ///
    /// ```swift
    /// db.setAuthorizer { request in
    ///     request.action == .attach ? .deny : .allow
    /// }
    /// ```
    /// See <https://www.sqlite.org/c3ref/set_authorizer.html>.
    public struct AuthorizationRequest: Sendable, Hashable, CustomStringConvertible {
        /// What the statement does.
        public var action: Action
        /// The third argument of the callback: for most actions the object's name (the table of
        /// ``Action/read``, ``Action/insert``, ``Action/createTable``...; the file of ``Action/attach``;
        /// the pragma of ``Action/pragma``; nil for ``Action/function``).
        public var first: String?
        /// The fourth argument: the column of ``Action/read`` and ``Action/update``, the table of
        /// ``Action/createIndex`` and ``Action/createTrigger``, the module of
        /// ``Action/createVirtualTable``, the function's name for ``Action/function``, the
        /// pragma's argument for ``Action/pragma``.
        public var second: String?
        /// The schema (`main`, `temp`, an attached name) the object is in, when there is one.
        public var database: String?
        /// The innermost trigger or view whose code asks, nil for the statement's own SQL.
        public var accessor: String?

        /// A request from its parts.
        public init(
            action: Action, first: String? = nil, second: String? = nil, database: String? = nil,
            accessor: String? = nil
        ) {
            self.action = action
            self.first = first
            self.second = second
            self.database = database
            self.accessor = accessor
        }

        /// `createTable(t, -, main, -)`.
        public var description: String {
            "\(action)(" + [first, second, database, accessor].map { $0 ?? "-" }.joined(separator: ", ") + ")"
        }

        /// An authorizer action code (`SQLITE_CREATE_TABLE`, `SQLITE_READ`...).
        /// See <https://www.sqlite.org/c3ref/c_alter_table.html>.
        public struct Action: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            /// The numeric code.
            public let rawValue: Int32
            /// The action with this code: `Action(rawValue: 2)` is ``createTable``.
            public init(rawValue: Int32) { self.rawValue = rawValue }

            public static let createIndex = Action(rawValue: SQLITE_CREATE_INDEX)
            public static let createTable = Action(rawValue: SQLITE_CREATE_TABLE)
            public static let createTempIndex = Action(rawValue: SQLITE_CREATE_TEMP_INDEX)
            public static let createTempTable = Action(rawValue: SQLITE_CREATE_TEMP_TABLE)
            public static let createTempTrigger = Action(rawValue: SQLITE_CREATE_TEMP_TRIGGER)
            public static let createTempView = Action(rawValue: SQLITE_CREATE_TEMP_VIEW)
            public static let createTrigger = Action(rawValue: SQLITE_CREATE_TRIGGER)
            public static let createView = Action(rawValue: SQLITE_CREATE_VIEW)
            public static let delete = Action(rawValue: SQLITE_DELETE)
            public static let dropIndex = Action(rawValue: SQLITE_DROP_INDEX)
            public static let dropTable = Action(rawValue: SQLITE_DROP_TABLE)
            public static let dropTempIndex = Action(rawValue: SQLITE_DROP_TEMP_INDEX)
            public static let dropTempTable = Action(rawValue: SQLITE_DROP_TEMP_TABLE)
            public static let dropTempTrigger = Action(rawValue: SQLITE_DROP_TEMP_TRIGGER)
            public static let dropTempView = Action(rawValue: SQLITE_DROP_TEMP_VIEW)
            public static let dropTrigger = Action(rawValue: SQLITE_DROP_TRIGGER)
            public static let dropView = Action(rawValue: SQLITE_DROP_VIEW)
            public static let insert = Action(rawValue: SQLITE_INSERT)
            public static let pragma = Action(rawValue: SQLITE_PRAGMA)
            public static let read = Action(rawValue: SQLITE_READ)
            public static let select = Action(rawValue: SQLITE_SELECT)
            public static let transaction = Action(rawValue: SQLITE_TRANSACTION)
            public static let update = Action(rawValue: SQLITE_UPDATE)
            public static let attach = Action(rawValue: SQLITE_ATTACH)
            public static let detach = Action(rawValue: SQLITE_DETACH)
            public static let alterTable = Action(rawValue: SQLITE_ALTER_TABLE)
            public static let reindex = Action(rawValue: SQLITE_REINDEX)
            public static let analyze = Action(rawValue: SQLITE_ANALYZE)
            public static let createVirtualTable = Action(rawValue: SQLITE_CREATE_VTABLE)
            public static let dropVirtualTable = Action(rawValue: SQLITE_DROP_VTABLE)
            public static let function = Action(rawValue: SQLITE_FUNCTION)
            public static let savepoint = Action(rawValue: SQLITE_SAVEPOINT)
            public static let recursive = Action(rawValue: SQLITE_RECURSIVE)

            private static let names: [Int32: String] = [
                SQLITE_CREATE_INDEX: "createIndex", SQLITE_CREATE_TABLE: "createTable",
                SQLITE_CREATE_TEMP_INDEX: "createTempIndex", SQLITE_CREATE_TEMP_TABLE: "createTempTable",
                SQLITE_CREATE_TEMP_TRIGGER: "createTempTrigger", SQLITE_CREATE_TEMP_VIEW: "createTempView",
                SQLITE_CREATE_TRIGGER: "createTrigger", SQLITE_CREATE_VIEW: "createView", SQLITE_DELETE: "delete",
                SQLITE_DROP_INDEX: "dropIndex", SQLITE_DROP_TABLE: "dropTable", SQLITE_DROP_TEMP_INDEX: "dropTempIndex",
                SQLITE_DROP_TEMP_TABLE: "dropTempTable", SQLITE_DROP_TEMP_TRIGGER: "dropTempTrigger",
                SQLITE_DROP_TEMP_VIEW: "dropTempView", SQLITE_DROP_TRIGGER: "dropTrigger", SQLITE_DROP_VIEW: "dropView",
                SQLITE_INSERT: "insert", SQLITE_PRAGMA: "pragma", SQLITE_READ: "read", SQLITE_SELECT: "select",
                SQLITE_TRANSACTION: "transaction", SQLITE_UPDATE: "update", SQLITE_ATTACH: "attach",
                SQLITE_DETACH: "detach", SQLITE_ALTER_TABLE: "alterTable", SQLITE_REINDEX: "reindex",
                SQLITE_ANALYZE: "analyze", SQLITE_CREATE_VTABLE: "createVirtualTable",
                SQLITE_DROP_VTABLE: "dropVirtualTable", SQLITE_FUNCTION: "function", SQLITE_SAVEPOINT: "savepoint",
                SQLITE_RECURSIVE: "recursive",
            ]

            /// The Swift name (`createTable`), or `action 99` for a code this version does not know.
            public var description: String { Self.names[rawValue] ?? "action \(rawValue)" }
        }
    }

    /// What an authorizer answers.
    public enum AuthorizationDecision: Sendable, Hashable {
        /// Go on (`SQLITE_OK`).
        case allow
        /// Fail the statement's compilation with SQLITE_AUTH, "not authorized" (`SQLITE_DENY`).
        case deny
        /// Compile on, but read the column as NULL (for ``AuthorizationRequest/Action/read``) or
        /// skip the action; for other actions SQLite treats it as ``deny`` (`SQLITE_IGNORE`).
        case ignore
    }

    /// Installs `authorizer`, asked about every action of every statement this connection
    /// compiles from now on (nil removes it). Answering ``AuthorizationDecision/deny`` makes
    /// `makeStatement` / `execute` fail with SQLITE_AUTH.
    ///
    /// ```swift
    /// // A read-only view of the database: SELECT statements only.
    /// db.setAuthorizer { request in
    ///     switch request.action {
    ///     case .select, .read, .function: return .allow
    ///     default: return .deny
    ///     }
    /// }
    /// ```
    ///
    /// The authorizer is asked while statements are *compiled*, including statements SQLite
    /// recompiles after a schema change and statements that virtual table modules (FTS, R*Tree)
    /// compile while they run; it is not asked while rows are processed. Statements compiled
    /// before the call (the statement cache included) are recompiled at their next step, so the
    /// new authorizer sees them too. The checks of ``checkingTransactionControl(_:_:)`` stay in
    /// force beside it: a statement must pass both. See <https://www.sqlite.org/c3ref/set_authorizer.html>.
    public func setAuthorizer(_ authorizer: ((AuthorizationRequest) -> AuthorizationDecision)?) {
        guard !isClosed else { return }
        connection.authorizer.custom = authorizer
        installAuthorizer()
    }

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
    /// statement must pass every check in force, and the authorizer of ``setAuthorizer(_:)`` too.
    /// See <https://www.sqlite.org/c3ref/set_authorizer.html>.
    public func checkingTransactionControl<T>(
        _ allow: @escaping (TransactionControl) -> Bool, _ body: () throws -> T
    ) throws -> T {
        try checkOpen(nil)
        connection.authorizer.transactionChecks.append(allow)
        // Installing again (also when nested) expires the statements compiled so far.
        installAuthorizer()
        defer {
            connection.authorizer.transactionChecks.removeLast()
            if !isClosed { installAuthorizer() }
        }
        return try body()
    }

    /// Makes the connection refuse `PRAGMA wal_checkpoint` (SQLITE_AUTH, naming the reason) and
    /// turns its automatic checkpoints off: a pool's reader under the WAL-reset mitigation (see
    /// `DatabasePool.openReader`). See <https://sqlite.org/wal.html#walresetbug>.
    func refuseCheckpoints() {
        guard !isClosed else { return }
        sqlite3_wal_autocheckpoint(handle, 0)
        connection.authorizer.refusesCheckpoints = true
        installAuthorizer()
    }

    /// Whether the connection refuses checkpoints (``refuseCheckpoints()``).
    var refusesCheckpoints: Bool { connection.authorizer.refusesCheckpoints }

    /// Makes the connection refuse every statement that writes the `main` database (SQLITE_AUTH,
    /// with `message` as SQLite's message), or stop refusing (nil): the migrator's read-only
    /// opening of a database a newer app version migrated (`Migrator.newerDatabasePolicy`).
    ///
    /// Refused: INSERT, UPDATE and DELETE on a table of `main` (triggers and the statements of
    /// virtual-table modules included, since SQLite asks while it compiles them), CREATE, DROP
    /// and ALTER of its objects, REINDEX and ANALYZE, and the pragmas that write its header
    /// (`user_version`, `application_id`, `schema_version` with a value, `incremental_vacuum`).
    /// Left alone: reads, transactions, the `temp` schema and attached databases, connection
    /// settings (`foreign_keys`, `journal_mode`...). `VACUUM` asks the authorizer nothing and
    /// rewrites the file with the same content; it is not refused.
    package func refuseWrites(_ message: String?) {
        guard !isClosed else { return }
        connection.authorizer.refusedWrites = message
        installAuthorizer()
    }

    /// The message writes are refused with (``refuseWrites(_:)``), nil when they are not.
    package var writeRefusal: String? { connection.authorizer.refusedWrites }

    /// Installs the one C callback that serves both kinds of checks and the observation's
    /// tracking (tables a fetch reads, tables a statement writes), or removes it when there is
    /// none. Each call expires the statements compiled so far, so they are checked again.
    func installAuthorizer() {
        let state = connection.authorizer
        guard
            state.custom != nil || !state.transactionChecks.isEmpty || state.isTracking || state.refusesCheckpoints
                || state.refusedWrites != nil
        else {
            // "Only a single authorizer can be in place on a database connection at a time. Each
            // call to sqlite3_set_authorizer overrides the previous call. Disable the authorizer
            // by installing a NULL callback." https://www.sqlite.org/c3ref/set_authorizer.html
            sqlite3_set_authorizer(handle, nil, nil)
            return
        }
        // The context is the connection's `AuthorizerState`, which lives as long as the
        // connection; the callback is removed on close.
        sqlite3_set_authorizer(
            handle,
            { context, code, first, second, database, accessor in
                guard let context else { return SQLITE_DENY }
                let state = Unmanaged<AuthorizerState>.fromOpaque(context).takeUnretainedValue()
                if let refusal = state.refusedWrites, AuthorizerState.writesMain(code, first, second, database) {
                    state.denial = refusal
                    return SQLITE_DENY
                }
                if state.refusesCheckpoints {
                    // "SQLITE_PRAGMA: Pragma Name, 1st arg or NULL"; compared before any String is made.
                    if code == SQLITE_PRAGMA, let first, strcasecmp(first, "wal_checkpoint") == 0 {
                        state.denial = AuthorizerState.checkpointRefusal
                        return SQLITE_DENY
                    }
                    if state.custom == nil && state.transactionChecks.isEmpty && !state.isTracking { return SQLITE_OK }
                }
                if state.custom == nil && state.transactionChecks.isEmpty && !state.isTracking { return SQLITE_OK }
                let arg1 = first.map { String(cString: $0) }
                let arg2 = second.map { String(cString: $0) }
                if !state.transactionChecks.isEmpty,
                    let control = TransactionControl(action: code, operation: arg1, name: arg2),
                    !state.transactionChecks.allSatisfy({ $0(control) })
                {
                    // "SQLITE_DENY: abort the SQL statement with an error."
                    return SQLITE_DENY
                }
                var decision = SQLITE_OK
                if let custom = state.custom {
                    let request = AuthorizationRequest(
                        action: AuthorizationRequest.Action(rawValue: code), first: arg1, second: arg2,
                        database: database.map { String(cString: $0) }, accessor: accessor.map { String(cString: $0) })
                    switch custom(request) {
                    case .allow: break
                    case .deny: return SQLITE_DENY
                    case .ignore: decision = SQLITE_IGNORE
                    }
                }
                return state.isTracking ? state.track(code, arg1, arg2, decision) : decision
            },
            Unmanaged.passUnretained(state).toOpaque())
    }
}

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

/// The authorizer's state on a connection: the closure of `Database.setAuthorizer` and the
/// transaction control checks of `Database.checkingTransactionControl`, innermost last.
final class AuthorizerState {
    var custom: ((Database.AuthorizationRequest) -> Database.AuthorizationDecision)?
    var transactionChecks: [(TransactionControl) -> Bool] = []
    /// The tables and columns read by the statements compiled while a ``ValueObservation``
    /// fetch runs (nil when no fetch is tracked). See `Database.trackingReads`.
    var readRegion: DatabaseRegion?
    /// Whether the tables statements write are noted (while transaction observers are registered).
    var tracksWrites = false
    /// The tables written by the statement being compiled, taken by the `Statement` made from it.
    var compiledWrites: Set<String> = []
    /// The columns each UPDATE of the statement being compiled (its triggers' included) writes,
    /// by lowercased table and column names, taken with ``compiledWrites``.
    var compiledUpdates: [String: Set<String>] = [:]
    /// True between the DROP TABLE / DROP VIEW request of a statement being compiled and the
    /// DELETE request that follows it.
    var isCompilingDrop = false

    var isTracking: Bool { tracksWrites || readRegion != nil }

    /// True on a pool's reader under the WAL-reset mitigation: `PRAGMA wal_checkpoint` is denied.
    var refusesCheckpoints = false
    /// The message of the last denial that has one (taken by `SQLiteConnection.error`).
    var denial: String?
    /// Set while the connection refuses writes to `main` (`Database.refuseWrites(_:)`): the message.
    var refusedWrites: String?

    /// True when the authorizer request (`code`, its first argument, its database) writes the
    /// `main` database: a row, an object, or a pragma that writes the header.
    /// "SQLITE_ALTER_TABLE: Database Name, Table Name"; the other actions give the database as
    /// the callback's fifth argument. https://www.sqlite.org/c3ref/c_alter_table.html
    static func writesMain(
        _ code: Int32, _ first: UnsafePointer<CChar>?, _ second: UnsafePointer<CChar>?,
        _ database: UnsafePointer<CChar>?
    ) -> Bool {
        func isMain(_ name: UnsafePointer<CChar>?) -> Bool { name.map { strcasecmp($0, "main") == 0 } ?? true }
        switch code {
        case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE, SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE,
            SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW, SQLITE_CREATE_VTABLE, SQLITE_DROP_INDEX, SQLITE_DROP_TABLE,
            SQLITE_DROP_TRIGGER, SQLITE_DROP_VIEW, SQLITE_DROP_VTABLE, SQLITE_REINDEX, SQLITE_ANALYZE:
            return isMain(database)
        case SQLITE_ALTER_TABLE:
            return isMain(first)
        case SQLITE_PRAGMA:
            // "SQLITE_PRAGMA: Pragma Name, 1st arg or NULL"; unqualified, a pragma acts on main.
            guard let first, isMain(database) else { return false }
            if strcasecmp(first, "incremental_vacuum") == 0 { return true }
            guard second != nil else { return false }
            return strcasecmp(first, "user_version") == 0 || strcasecmp(first, "application_id") == 0
                || strcasecmp(first, "schema_version") == 0
        default:
            return false
        }
    }
    static let checkpointRefusal =
        "not authorized: a DatabasePool reader does not checkpoint (SQLite's WAL-reset bug: only the writer "
        + "checkpoints on this SQLite; see https://sqlite.org/wal.html#walresetbug); checkpoint with pool.write"

    /// Notes what a compiled statement reads or writes, and returns the authorizer's answer.
    ///
    /// While transaction observers are registered, `DELETE` on an ordinary table is answered
    /// SQLITE_IGNORE: "If an authorizer callback returns SQLITE_IGNORE for an SQLITE_DELETE action
    /// code, then the DELETE operation will proceed but the truncate optimization will be bypassed
    /// and rows will be deleted one by one", so the update hook sees each row.
    /// https://www.sqlite.org/lang_delete.html#truncateopt. (SQLite's own tables are left alone:
    /// DROP asks for DELETE on `sqlite_master`, and IGNORE there would skip the DROP.)
    func track(_ code: Int32, _ table: String?, _ column: String?, _ decision: Int32) -> Int32 {
        guard let table else { return decision }
        switch code {
        case SQLITE_READ:
            // "SQLITE_READ: Table Name, Column Name"; the column is empty for a read of the
            // table without a column (`count(*)`), which counts as the whole table.
            if readRegion != nil { readRegion?.insertRead(table: table, column: column) }
        case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE:
            guard tracksWrites else { break }
            let name = table.asciiLowercasedKey
            if name.hasPrefix("sqlite_") { break }
            compiledWrites.insert(name)
            if code == SQLITE_UPDATE {
                // "SQLITE_UPDATE: Table Name, Column Name": one request per column SET writes.
                compiledUpdates[name, default: []].insert((column ?? "").asciiLowercasedKey)
            }
            if code == SQLITE_DELETE {
                // DROP TABLE and DROP VIEW ask for DELETE on the dropped object after the DROP
                // itself, and skip the drop on IGNORE: leave that one alone.
                if isCompilingDrop {
                    isCompilingDrop = false
                    return decision
                }
                if decision == SQLITE_OK { return SQLITE_IGNORE }
            }
        case SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_VTABLE:
            isCompilingDrop = true
            compiledWrites.insert(Self.schemaChange)
        case SQLITE_CREATE_TABLE, SQLITE_ALTER_TABLE, SQLITE_CREATE_TEMP_TABLE, SQLITE_CREATE_TRIGGER,
            SQLITE_CREATE_TEMP_TRIGGER:
            // A table may have changed between rowid and WITHOUT ROWID, its primary key, or a
            // trigger may now REPLACE rows: forget what was known.
            compiledWrites.insert(Self.schemaChange)
        default:
            break
        }
        return decision
    }

    /// The marker of a compiled DDL statement in `compiledWrites`.
    static let schemaChange = "sqlite_schema_change"
}
