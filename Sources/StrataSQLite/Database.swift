import CSQLite
import Foundation

/// Owns one `sqlite3*` handle and closes it when the last user goes away.
final class SQLiteConnection {
    let pointer: OpaquePointer
    let publicStatementArguments: Bool
    private(set) var isClosed = false

    init(pointer: OpaquePointer, publicStatementArguments: Bool) {
        self.pointer = pointer
        self.publicStatementArguments = publicStatementArguments
    }

    /// Closes the handle. `sqlite3_close_v2` defers the close until statements still alive are
    /// finalized (https://www.sqlite.org/c3ref/close.html).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        sqlite3_close_v2(pointer)
    }

    deinit { close() }

    func error(code: Int32, sql: String?, arguments: StatementArguments? = nil) -> SQLiteError {
        // The extended code is the connection's last error when it matches the primary code.
        let extended = sqlite3_extended_errcode(pointer)
        let resolved = (extended & 0xFF) == (code & 0xFF) ? extended : code
        let message = String(cString: sqlite3_errmsg(pointer))
        return SQLiteError(
            resultCode: ResultCode(rawValue: resolved), message: message, sql: sql,
            arguments: arguments, publicStatementArguments: publicStatementArguments)
    }
}

/// A handle that can interrupt a connection's running statement from any thread.
///
/// ```swift
/// let handle = db.interruptHandle
/// Task.detached { try await Task.sleep(for: .seconds(1)); handle.interrupt() }
/// ```
/// See <https://www.sqlite.org/c3ref/interrupt.html>.
public final class InterruptHandle: Sendable {
    private let state: LockedValue<OpaquePointer?>

    init(pointer: OpaquePointer) { state = LockedValue(pointer) }

    /// Makes the statement running on the connection stop with SQLITE_INTERRUPT. Does nothing
    /// once the connection is closed.
    public func interrupt() {
        state.withLock { pointer in
            if let pointer { sqlite3_interrupt(pointer) }
        }
    }

    func invalidate() { state.withLock { $0 = nil } }
}

/// A connection to an SQLite database: a file or an in-memory database.
///
/// ```swift
/// let db = try Database(path: "app.sqlite")
/// try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
/// try db.execute(sql: "INSERT INTO player(name) VALUES (?)", arguments: ["Arthur"])
/// let names = try db.fetchAll(sql: "SELECT name FROM player").map { try $0[0] as String }
/// ```
///
/// A `Database` is not `Sendable`: the compiler keeps it in one task or thread at a time. To share
/// a database between tasks, use `DatabaseQueue` or `DatabasePool`, which serialize access.
/// Foreign keys are on and a busy timeout is set on every connection (see ``Configuration``).
public final class Database {
    /// The path (or URI, or `:memory:`) the connection was opened with.
    public let path: String
    /// The configuration the connection was opened with.
    public let configuration: Configuration
    let connection: SQLiteConnection
    private var statementCache: [String: Statement] = [:]
    private var savepointCounter = 0
    /// A `Sendable` handle that interrupts this connection from another thread.
    public let interruptHandle: InterruptHandle
    /// What SQLite features this connection may use (see ``Configuration/capabilityLimit``).
    public let capabilities: SQLiteCapabilities

    /// Opens (and by default creates) the database at `path`.
    ///
    /// Opening a file that is not a database, or a database locked by another process, fails here
    /// with SQLITE_NOTADB or SQLITE_BUSY rather than at the first query.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        self.path = path
        self.configuration = configuration
        var flags: Int32
        switch configuration.openMode {
        case .readOnly: flags = SQLITE_OPEN_READONLY
        case .readWrite: flags = SQLITE_OPEN_READWRITE
        case .readWriteCreate: flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        // Multi-thread mode: the connection is never used by two threads at once (it is not
        // Sendable), so SQLite's per-connection mutex is not needed.
        // https://www.sqlite.org/threadsafe.html
        flags |= SQLITE_OPEN_NOMUTEX
        if configuration.uriFilenames { flags |= SQLITE_OPEN_URI }

        var pointer: OpaquePointer?
        let rc = sqlite3_open_v2(path, &pointer, flags, nil)
        guard let pointer else {
            throw SQLiteError(resultCode: .SQLITE_NOMEM, message: "cannot allocate a connection for \(path)")
        }
        let connection = SQLiteConnection(pointer: pointer, publicStatementArguments: configuration.publicStatementArguments)
        if rc != SQLITE_OK {
            let error = connection.error(code: rc, sql: nil)
            connection.close()
            throw SQLiteError(
                resultCode: error.extendedResultCode, message: "\(error.message ?? "cannot open"): \(path)")
        }
        self.connection = connection
        self.interruptHandle = InterruptHandle(pointer: pointer)
        var version = SQLiteVersion.runtime
        if let limit = configuration.capabilityLimit, limit < version { version = limit }
        self.capabilities = SQLiteCapabilities(version: version)

        do {
            sqlite3_extended_result_codes(pointer, 1)
            sqlite3_busy_timeout(pointer, Int32(max(0, configuration.busyTimeout) * 1000))
            // Read the schema now, so a file that is not a database (SQLITE_NOTADB) or a
            // database locked exclusively (SQLITE_BUSY) is reported by `init`.
            try execute(sql: "SELECT count(*) FROM sqlite_master")
            if configuration.openMode != .readOnly || configuration.foreignKeysEnabled {
                try execute(sql: "PRAGMA foreign_keys = \(configuration.foreignKeysEnabled ? "ON" : "OFF")")
            }
            for sql in configuration.setupSQL { try execute(sql: sql) }
        } catch let error as SQLiteError {
            close()
            throw SQLiteError(
                resultCode: error.extendedResultCode,
                message: "\(error.message ?? "cannot open"): \(path)", sql: error.sql)
        }
    }

    /// Opens a private in-memory database, gone when the connection closes.
    public convenience init(inMemory configuration: Configuration = Configuration()) throws {
        try self.init(path: ":memory:", configuration: configuration)
    }

    deinit {
        statementCache.removeAll()
        interruptHandle.invalidate()
    }

    /// Closes the connection. Later calls fail with SQLITE_MISUSE. Closing twice is harmless.
    public func close() {
        statementCache.removeAll()
        interruptHandle.invalidate()
        connection.close()
    }

    /// True once ``close()`` has been called.
    public var isClosed: Bool { connection.isClosed }

    @usableFromInline var handle: OpaquePointer { connection.pointer }

    private func checkOpen(_ sql: String?) throws {
        if connection.isClosed {
            throw SQLiteError(resultCode: .SQLITE_MISUSE, message: "connection to \(path) is closed", sql: sql)
        }
    }

    // MARK: Statements

    /// Compiles one statement. Trailing text after the first statement (other than
    /// whitespace and comments) is an error: use ``execute(sql:arguments:)`` for scripts.
    public func makeStatement(sql: String) throws -> Statement {
        try checkOpen(sql)
        var stmt: OpaquePointer?
        var tailOffset = 0
        let rc = sql.withCString { cSQL -> Int32 in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v2(handle, cSQL, -1, &stmt, &tail)
            if let tail { tailOffset = cSQL.distance(to: tail) }
            return rc
        }
        if rc != SQLITE_OK {
            sqlite3_finalize(stmt)
            throw connection.error(code: rc, sql: sql)
        }
        guard let stmt else {
            throw SQLiteError(resultCode: .SQLITE_MISUSE, message: "no SQL statement in the text", sql: sql)
        }
        let rest = String(decoding: sql.utf8.dropFirst(tailOffset), as: UTF8.self)
        if !Database.isBlankSQL(rest) {
            sqlite3_finalize(stmt)
            throw SQLiteError(
                resultCode: .SQLITE_MISUSE,
                message: "more than one statement: use execute(sql:) to run several", sql: sql)
        }
        return Statement(handle: stmt, connection: connection, sql: sql)
    }

    /// A compiled statement reused across calls with the same SQL text (a cache keyed by the text).
    public func cachedStatement(sql: String) throws -> Statement {
        if let statement = statementCache[sql] {
            statement.reset()
            return statement
        }
        let statement = try makeStatement(sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Empties the statement cache (statements are finalized once no longer referenced).
    public func clearStatementCache() { statementCache.removeAll() }

    /// Runs one or several statements separated by semicolons. Positional arguments are consumed
    /// by the statements in order; named arguments are available to all of them.
    public func execute(sql: String, arguments: StatementArguments = StatementArguments()) throws {
        try checkOpen(sql)
        var remainingPositional = arguments.positional[...]
        let utf8 = Array(sql.utf8CString)
        try utf8.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var cursor = base
            while cursor.pointee != 0 {
                var stmt: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let rc = sqlite3_prepare_v2(handle, cursor, -1, &stmt, &tail)
                let consumed = tail.map { cursor.distance(to: $0) } ?? strlen(cursor)
                let text = String(
                    decoding: UnsafeRawBufferPointer(start: cursor, count: consumed), as: UTF8.self)
                if rc != SQLITE_OK {
                    sqlite3_finalize(stmt)
                    throw connection.error(code: rc, sql: text.trimmingWhitespace())
                }
                if let tail { cursor = tail } else { cursor = cursor.advanced(by: consumed) }
                guard let stmt else { continue }  // whitespace or comment only
                let statement = Statement(handle: stmt, connection: connection, sql: text.trimmingWhitespace())
                var args = StatementArguments()
                args.named = arguments.named
                let positionalCount = statement.parameterCount
                if positionalCount > 0 {
                    let take = min(positionalCount, remainingPositional.count)
                    // Only parameters without a name consume positional values.
                    args.positional = Array(remainingPositional.prefix(take))
                    if arguments.named.isEmpty || !args.positional.isEmpty {
                        remainingPositional = remainingPositional.dropFirst(take)
                    }
                }
                if statement.parameterCount > 0 || !args.positional.isEmpty {
                    try statement.bind(args)
                }
                try statement.runToCompletion()
            }
        }
        if !remainingPositional.isEmpty {
            throw SQLiteError(
                resultCode: .SQLITE_RANGE,
                message: "wrong number of arguments: \(remainingPositional.count) value(s) left unused",
                sql: sql, arguments: arguments, publicStatementArguments: configuration.publicStatementArguments)
        }
    }

    /// True when `sql` holds only whitespace, comments and semicolons.
    static func isBlankSQL(_ sql: String) -> Bool {
        var chars = Substring(sql)
        while let c = chars.first {
            if c.isWhitespace || c == ";" {
                chars.removeFirst()
            } else if chars.hasPrefix("--") {
                if let nl = chars.firstIndex(of: "\n") { chars = chars[chars.index(after: nl)...] } else { return true }
            } else if chars.hasPrefix("/*") {
                if let end = chars.range(of: "*/") { chars = chars[end.upperBound...] } else { return true }
            } else {
                return false
            }
        }
        return true
    }

    // MARK: Fetching

    /// All rows of a query, copied. The statement is taken from the cache.
    public func fetchAll(sql: String, arguments: StatementArguments = StatementArguments()) throws -> [Row] {
        try cachedStatement(sql: sql).fetchAll(arguments: arguments)
    }

    /// The first row of a query, or nil.
    public func fetchOne(sql: String, arguments: StatementArguments = StatementArguments()) throws -> Row? {
        try cachedStatement(sql: sql).fetchOne(arguments: arguments)
    }

    /// The first column of the first row converted to `T`, or nil when there is no row.
    ///
    /// ```swift
    /// let count = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") ?? 0
    /// ```
    public func fetchValue<T: SQLValueConvertible>(
        _ type: T.Type = T.self, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> T? {
        guard let row = try fetchOne(sql: sql, arguments: arguments) else { return nil }
        return try row.decode(T.self, at: 0)
    }

    /// The first column of every row converted to `T`.
    public func fetchColumn<T: SQLValueConvertible>(
        _ type: T.Type = T.self, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> [T] {
        var result = [T]()
        try cachedStatement(sql: sql).forEachRow(arguments: arguments) { row in
            result.append(try row.decode(T.self, at: 0))
        }
        return result
    }

    /// A lazy cursor over a query's rows, on a fresh (uncached) statement.
    public func fetchCursor(sql: String, arguments: StatementArguments = StatementArguments()) throws -> RowCursor {
        try makeStatement(sql: sql).fetchCursor(arguments: arguments)
    }

    // MARK: State

    /// Rows changed by the most recent INSERT, UPDATE or DELETE (`sqlite3_changes64`).
    public var changes: Int { Int(sqlite3_changes64(handle)) }
    /// Rows changed since the connection opened (`sqlite3_total_changes64`).
    public var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }
    /// The rowid of the most recent successful INSERT (`sqlite3_last_insert_rowid`).
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// True while a transaction is open (`sqlite3_get_autocommit` is 0).
    public var isInTransaction: Bool { !connection.isClosed && sqlite3_get_autocommit(handle) == 0 }
    /// True when the connection cannot write (opened read-only, or the file is read-only).
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Interrupts the statement running on this connection. Call it from another thread through
    /// ``interruptHandle``; calling it here affects the next statement only if one is running.
    public func interrupt() { interruptHandle.interrupt() }

    /// Whether foreign key enforcement is on (`PRAGMA foreign_keys`).
    public func foreignKeysEnabled() throws -> Bool {
        try fetchValue(Bool.self, sql: "PRAGMA foreign_keys") ?? false
    }

    /// The version of the SQLite library (the real one, not lowered by ``Configuration/capabilityLimit``).
    public var sqliteVersion: SQLiteVersion { SQLiteVersion.runtime }

    // MARK: Backup

    /// Copies the whole database into `destination` with SQLite's online backup API: a consistent
    /// snapshot even while other connections write. See <https://www.sqlite.org/backup.html>.
    public func backup(to destination: Database) throws {
        try checkOpen(nil)
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.connection.error(code: sqlite3_errcode(destination.handle), sql: nil)
        }
        let rc = sqlite3_backup_step(backup, -1)
        let finish = sqlite3_backup_finish(backup)
        if rc != SQLITE_DONE { throw destination.connection.error(code: rc, sql: nil) }
        if finish != SQLITE_OK { throw destination.connection.error(code: finish, sql: nil) }
    }

    /// Writes a consistent copy of the database to a new file at `path` (replacing it).
    public func backup(toPath path: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        let destination = try Database(path: path)
        defer { destination.close() }
        try backup(to: destination)
    }

    func nextSavepointName() -> String {
        savepointCounter += 1
        return "strata_savepoint_\(savepointCounter)"
    }
}
