import CSQLite
import Foundation

/// A connection to an SQLite database: a file or an in-memory database.
///
/// ```swift
/// let db = try Database(path: "app.sqlite")
/// try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
/// try db.execute(sql: "INSERT INTO player(name) VALUES (?)", arguments: ["Arthur"])
/// let names = try db.fetchColumn(String.self, sql: "SELECT name FROM player")
/// ```
///
/// Foreign keys are on and a busy timeout is set on every connection (see ``Configuration``).
///
/// ## Concurrency
///
/// A `Database` is deliberately **not** `Sendable` (the conformance is marked unavailable): the
/// compiler refuses to let two tasks or threads reach the same connection, so Strata can open
/// connections in SQLite's multi-thread mode without a per-connection mutex. A value that is
/// not `Sendable` may still be *moved* to another isolation domain when the compiler can prove
/// the sender no longer uses it (`sending`). To share a database between tasks, put it behind
/// something that serializes access, such as `DatabaseQueue` or `DatabasePool`. Only
/// ``interruptHandle`` is meant for other threads.
///
/// See <https://www.sqlite.org/threadsafe.html>.
public final class Database {
    /// The path (or URI, or `:memory:`) the connection was opened with.
    public let path: String
    /// The configuration the connection was opened with.
    public let configuration: Configuration
    let connection: SQLiteConnection
    var statementCache: [String: Statement] = [:]
    /// Primary keys and INSERT statements of the record methods (see `RecordSchemaCache`).
    var recordCache = RecordSchemaCache()
    private var savepointCounter = 0
    /// Whether the connection uses a key (see ``isEncrypted``).
    var hasKey = false
    /// The key the connection uses now, for its backups (see ``backup(toPath:replacingExisting:)``).
    var currentKey: (@Sendable () throws -> EncryptionKey)?
    /// A `Sendable` handle that interrupts this connection from another thread.
    public let interruptHandle: InterruptHandle
    /// What SQLite features this connection may use (see ``Configuration/capabilityLimit``).
    public let capabilities: SQLiteCapabilities
    /// ``sqliteAdvisories``: read at open from the once-per-process table (a lookup).
    let advisories: [SQLiteAdvisory]

    /// Opens (and by default creates) the database at `path`.
    ///
    /// ```swift
    /// let db = try Database(path: "/var/data/app.sqlite")
    /// ```
    ///
    /// Opening a file that is not a database, or a database locked exclusively by another
    /// connection, fails here with SQLITE_NOTADB or SQLITE_BUSY rather than at the first query;
    /// the error message ends with the path. A path (or `-journal`, `-wal` or `-shm` file) that
    /// is not a regular file (a FIFO, a socket, a device, a directory) fails at once with
    /// SQLITE_CANTOPEN, before SQLite opens anything. See <https://www.sqlite.org/c3ref/open.html>.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        self.path = path
        self.configuration = configuration
        do { try SQLiteVersion.checkSupported(.runtime) } catch let error as SQLiteError {
            throw SQLiteError(resultCode: error.extendedResultCode, message: "\(error.message): \(path)", culprit: path)
        }
        // Refused before the file is opened (and created): a key the library cannot apply must
        // never leave a plaintext database behind.
        if configuration.encryptionKey != nil, !SQLiteEncryption.isAvailable {
            throw SQLiteEncryption.unavailableError(path)
        }
        // The key is asked for before the file is opened: its errors leave nothing behind.
        let key = try configuration.encryptionKey.map { provide in try provide() }
        try key?.validate(path)
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

        // A FIFO would block the open (or the first read) forever, a device reads as an empty
        // database: anything but a regular file is refused before SQLite touches it.
        try Database.checkRegularFiles(path)

        var pointer: OpaquePointer?
        let rc = sqlite3_open_v2(
            Database.nameForOpening(path, uriFilenames: configuration.uriFilenames), &pointer, flags, nil)
        // "If the database is opened successfully or not, a database connection handle is usually
        // returned in *ppDb; the only exception is that if SQLite is unable to allocate memory."
        guard let pointer else {
            throw SQLiteError(
                resultCode: .SQLITE_NOMEM, message: "cannot allocate a connection for \(path)", culprit: path)
        }
        let connection = SQLiteConnection(
            pointer: pointer, path: path, publicStatementArguments: configuration.publicStatementArguments)
        if rc != SQLITE_OK {
            let error = connection.error(code: rc, sql: nil)
            connection.close()
            throw SQLiteError(
                resultCode: error.extendedResultCode, message: "\(error.message): \(path)", culprit: path)
        }
        self.connection = connection
        self.interruptHandle = InterruptHandle(pointer: pointer)
        var version = SQLiteVersion.runtime
        if let limit = configuration.capabilityLimit, limit < version { version = limit }
        self.capabilities = SQLiteCapabilities(version: version)
        // The known defects of this SQLite (version and compile options), computed once per
        // process (SQLiteAdvisory.runtime): here a lookup.
        self.advisories = SQLiteAdvisory.runtime

        do {
            sqlite3_extended_result_codes(pointer, 1)
            // The key first: nothing may read the file before it is set.
            if let key { try applyKey(key, provider: configuration.encryptionKey) }
            strata_db_config_dqs(pointer, configuration.acceptsDoubleQuotedStringLiterals ? 1 : 0)
            installBusyTimeout()
            try applySafetySettings()
            // Read the schema now, so a file that is not a database (SQLITE_NOTADB) or a
            // database locked exclusively (SQLITE_BUSY) is reported by `init`.
            do {
                try execute(sql: "SELECT count(*) FROM sqlite_master")
            } catch let error as SQLiteError where error.resultCode == .SQLITE_NOTADB && hasKey {
                // The key is checked here: a wrong one makes page 1 unreadable.
                throw Database.wrongKeyError(path)
            }
            if hasKey { try keepTemporaryDataInMemory() }
            // "Foreign key constraints are disabled by default (for backwards compatibility), so
            // must be enabled separately for each database connection."
            // https://www.sqlite.org/foreignkeys.html#fk_enable
            try execute(sql: "PRAGMA foreign_keys = \(configuration.foreignKeysEnabled ? "ON" : "OFF")")
            try applyHooksConfiguration()
            for sql in configuration.setupSQL { try execute(sql: sql) }
        } catch let error as SQLiteError {
            close()
            let message = error.message
            throw SQLiteError(
                resultCode: error.extendedResultCode,
                message: message.hasSuffix(": \(path)") ? message : "\(message): \(path)", sql: error.sql,
                culprit: path)
        }
    }

    /// Opens a private in-memory database, gone when the connection closes.
    ///
    /// ```swift
    /// let db = try Database(inMemory: Configuration())
    /// ```
    public convenience init(inMemory configuration: Configuration = Configuration()) throws {
        try self.init(path: ":memory:", configuration: configuration)
    }

    deinit {
        clearStatementCache()  // statements are finalized before the connection closes
        interruptHandle.invalidate()
    }

    /// Closes the connection. Later calls fail with SQLITE_MISUSE ("connection to PATH is
    /// closed"). Closing twice is harmless. See <https://www.sqlite.org/c3ref/close.html>.
    ///
    /// ```swift
    /// db.close()
    /// ```
    public func close() {
        endObservations()
        clearStatementCache()
        interruptHandle.invalidate()
        connection.close()
    }

    /// True once ``close()`` has been called.
    public var isClosed: Bool { connection.isClosed }

    var handle: OpaquePointer { connection.pointer }

    func checkOpen(_ sql: String?) throws { try connection.checkOpen(sql) }

    // MARK: State

    /// Rows changed by the most recent INSERT, UPDATE or DELETE (`sqlite3_changes64`, or
    /// `sqlite3_changes` on SQLite before 3.37); 0 once closed.
    ///
    /// ```swift
    /// try db.execute(sql: "DELETE FROM player")
    /// print(db.changes)
    /// ```
    /// See <https://www.sqlite.org/c3ref/changes.html>.
    public var changes: Int { isClosed ? 0 : Int(connection.changes()) }

    /// Rows changed since the connection opened (`sqlite3_total_changes64`, or
    /// `sqlite3_total_changes` before 3.37); 0 once closed.
    /// See <https://www.sqlite.org/c3ref/total_changes.html>.
    public var totalChanges: Int { isClosed ? 0 : Int(connection.totalChanges()) }

    /// The rowid of the most recent successful INSERT (`sqlite3_last_insert_rowid`); 0 once closed.
    ///
    /// ```swift
    /// try db.execute(sql: "INSERT INTO player(name) VALUES ('Arthur')")
    /// let id = db.lastInsertRowID
    /// ```
    /// See <https://www.sqlite.org/c3ref/last_insert_rowid.html>.
    public var lastInsertRowID: Int64 { isClosed ? 0 : sqlite3_last_insert_rowid(handle) }

    /// True while a transaction is open (`sqlite3_get_autocommit` is 0).
    /// See <https://www.sqlite.org/c3ref/get_autocommit.html>.
    public var isInTransaction: Bool { !isClosed && sqlite3_get_autocommit(handle) == 0 }

    /// True when the connection cannot write: opened read-only (or `mode=ro`), or the file is
    /// read-only. See <https://www.sqlite.org/c3ref/db_readonly.html>.
    public var isReadOnly: Bool { isClosed || sqlite3_db_readonly(handle, "main") == 1 }

    /// Interrupts the statement running on this connection. From another thread, use
    /// ``interruptHandle`` (a `Database` cannot be sent there).
    /// See <https://www.sqlite.org/c3ref/interrupt.html>.
    public func interrupt() { interruptHandle.interrupt() }

    /// Whether foreign key enforcement is on (`PRAGMA foreign_keys`).
    ///
    /// ```swift
    /// #expect(try db.foreignKeysEnabled())
    /// ```
    public func foreignKeysEnabled() throws -> Bool {
        try fetchValue(Bool.self, sql: "PRAGMA foreign_keys") ?? false
    }

    /// The version of the SQLite library (the real one, not lowered by ``Configuration/capabilityLimit``).
    public var sqliteVersion: SQLiteVersion { SQLiteVersion.runtime }

    func nextSavepointName() -> String {
        savepointCounter += 1
        return "strata_savepoint_\(savepointCounter)"
    }
}

// A connection must stay in one isolation domain at a time: see "Concurrency" above. Marking the
// conformance unavailable turns any attempt to declare or require it into a compile-time error.
@available(
    *, unavailable,
    message: "a Database is used by one task at a time; share it through a DatabaseQueue or DatabasePool"
)
extension Database: Sendable {}
