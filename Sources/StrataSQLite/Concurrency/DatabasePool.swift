import Foundation

/// A database file shared by many tasks: one writer connection and up to N reader connections,
/// in WAL mode, so reads run in parallel with each other and with the write.
///
/// ```swift
/// let pool = try DatabasePool(path: "app.sqlite") { db in
///     try db.execute(sql: "CREATE TABLE IF NOT EXISTS player(id INTEGER PRIMARY KEY, score INTEGER NOT NULL)")
/// }
/// try await pool.write { db in
///     try db.execute(sql: "INSERT INTO player(score) VALUES (?)", arguments: [100])
/// }
/// let best = try await pool.read { db in
///     try db.fetchValue(Int.self, sql: "SELECT max(score) FROM player")
/// }
/// await pool.close()
/// ```
///
/// - Writes run one at a time on the writer, each in `BEGIN IMMEDIATE`, in the order they were
///   submitted.
/// - Reads run on readers, each in a deferred transaction: a consistent snapshot that never
///   shows half of a write, and never waits for the writer. Readers are opened lazily, with
///   `PRAGMA query_only = ON`.
/// - A `prepare` closure (or migrations, with StrataMigrations) runs on the writer before any
///   read or write is served.
/// - Another process writing the same file is waited for up to ``Configuration/busyTimeout``.
/// - On SQLite versions with the WAL-reset bug (``SQLiteAdvisory/walReset``), only the writer
///   checkpoints: readers refuse `PRAGMA wal_checkpoint` (``PoolConfiguration/walResetMitigation``,
///   ``isWALResetMitigationActive``).
///
/// See <https://www.sqlite.org/wal.html>. SQLite work never blocks the Swift concurrency thread
/// pool: each connection lives on its own serial `DispatchQueue`, and async callers suspend on a
/// continuation until their turn (see ``DatabaseQueue`` for why this beats an actor executor).
public final class DatabasePool: DatabaseWriter, OwnedQueuesWriter {
    /// The path of the database file.
    public let path: String
    /// The configuration of every connection (readers also get `PRAGMA query_only = ON`).
    public let configuration: Configuration
    /// The pool's own settings: reader count, `synchronous`.
    public let poolConfiguration: PoolConfiguration
    let writer: ConnectionScheduler
    let readers: ConnectionScheduler
    let owner = AccessOwner()
    /// The writer's slot, once created: `concurrentRead` checks it runs there.
    let writerSlot = LockedValue<ObjectIdentifier?>(nil)

    /// Opens (by default creating) the database at `path`, switches it to WAL mode and sets
    /// `PRAGMA synchronous` on the writer.
    ///
    /// The writer connection opens here, so a bad path, a file that is not a database, or a
    /// database that cannot use WAL (``DatabaseAccessError/Code/walUnavailable``) throws at once.
    /// `prepare`, when given, runs next on the writer, outside any transaction; reads and writes
    /// submitted meanwhile wait for it. If it throws, every access, waiting or later, fails with
    /// a ``DatabaseAccessError`` of code ``DatabaseAccessError/Code/preparationFailed``.
    ///
    /// ```swift
    /// var poolConfiguration = PoolConfiguration()
    /// poolConfiguration.maximumReaderCount = 8
    /// let pool = try DatabasePool(path: "app.sqlite", poolConfiguration: poolConfiguration)
    /// ```
    public init(
        path: String, configuration: Configuration = Configuration(),
        poolConfiguration: PoolConfiguration = PoolConfiguration(),
        prepare: (@Sendable (Database) throws -> Void)? = nil
    ) throws {
        guard poolConfiguration.maximumReaderCount >= 1 else {
            throw DatabaseAccessError(
                code: .invalidConfiguration, path: path,
                message: "maximumReaderCount must be at least 1, got \(poolConfiguration.maximumReaderCount)")
        }
        self.path = path
        self.configuration = configuration
        self.poolConfiguration = poolConfiguration
        let owner = self.owner
        let name = configuration.label ?? FilePath.lastComponent(of: path)
        let closedError: @Sendable () -> any Error = { DatabaseAccess.closedError(path: path, "DatabasePool") }
        let gated = prepare != nil
        let writerSlot = self.writerSlot
        let refusingCheckpoints = poolConfiguration.walResetMitigation.isActive
        writer = ConnectionScheduler(capacity: 1, gated: gated, closedError: closedError) { _ in
            let slot = ConnectionSlot(label: "strata.pool.writer.\(name)", owner: owner) {
                try Self.openWriter(path: path, configuration: configuration, poolConfiguration: poolConfiguration)
            }
            writerSlot.withLock { $0 = ObjectIdentifier(slot) }
            return slot
        }
        readers = ConnectionScheduler(
            capacity: poolConfiguration.maximumReaderCount, gated: gated, closedError: closedError
        ) { index in
            ConnectionSlot(label: "strata.pool.reader\(index + 1).\(name)", owner: owner) {
                try Self.openReader(
                    path: path, configuration: configuration, refusingCheckpoints: refusingCheckpoints)
            }
        }
        let slot = writer.acquireForPreparation()
        do {
            try slot.queue.sync { try slot.withDatabase { _ in } }
        } catch {
            writer.release(slot)
            writer.closeWhenDrained {}
            throw error
        }
        if let prepare {
            DatabaseAccess.startPreparation(
                on: slot, of: writer, gating: [writer, readers], path: path, prepare: prepare)
        } else {
            writer.release(slot)
        }
    }

    /// The writer: WAL mode (checked: SQLite answers the mode it is in), then `synchronous`.
    /// See <https://www.sqlite.org/pragma.html#pragma_journal_mode>.
    private static func openWriter(
        path: String, configuration: Configuration, poolConfiguration: PoolConfiguration
    ) throws -> Database {
        let db = try Database(path: path, configuration: configuration)
        do {
            let mode = try db.fetchValue(String.self, sql: "PRAGMA journal_mode = WAL") ?? "unknown"
            guard mode.lowercased() == "wal" else {
                throw DatabaseAccessError(
                    code: .walUnavailable, path: path,
                    message: "DatabasePool needs WAL mode but the journal mode stayed '\(mode)'"
                        + (mode.lowercased() == "memory" ? " (use DatabaseQueue for an in-memory database)" : ""))
            }
            try db.execute(sql: "PRAGMA synchronous = \(poolConfiguration.synchronous.rawValue)")
        } catch {
            db.close()
            throw error
        }
        return db
    }

    /// Whether this pool's readers refuse to checkpoint (the WAL-reset mitigation, on by default
    /// when the SQLite this process runs has the bug: see ``PoolConfiguration/walResetMitigation``).
    ///
    /// ```swift
    /// print(pool.isWALResetMitigationActive)   // true on SQLite 3.40.1
    /// ```
    public var isWALResetMitigationActive: Bool { poolConfiguration.walResetMitigation.isActive }

    /// The known defects of the SQLite this process runs (``Database/sqliteAdvisories``).
    public var sqliteAdvisories: [SQLiteAdvisory] { SQLiteAdvisory.runtime }

    /// A reader: the file exists (the writer created it), so it is opened without `create`, and
    /// `PRAGMA query_only` makes any write attempt fail with SQLITE_READONLY.
    /// See <https://www.sqlite.org/pragma.html#pragma_query_only>.
    ///
    /// `refusingCheckpoints` (the WAL-reset mitigation): `query_only` does not stop a reader
    /// from checkpointing (`PRAGMA wal_checkpoint` runs on a query-only connection), and a
    /// reader's checkpoint may overlap the writer's commit that resets the WAL, which is the race
    /// of SQLite's WAL-reset bug (https://sqlite.org/wal.html#walresetbug). So the reader
    /// refuses `PRAGMA wal_checkpoint` (SQLITE_AUTH, through the authorizer) and its automatic
    /// checkpoints are off (`sqlite3_wal_autocheckpoint(0)`; a reader never commits, so this
    /// only states it). The checkpoint a connection runs when it closes as the last one on the
    /// file stays: SQLite runs it only after taking an EXCLUSIVE lock on the database file,
    /// which no other connection of any process can hold beside it, so it cannot overlap a
    /// write (`sqlite3WalClose`). The writer keeps its automatic checkpoints: they run on its
    /// own queue after its own commits, never beside another commit of the pool.
    static func openReader(
        path: String, configuration: Configuration, refusingCheckpoints: Bool = false
    ) throws -> Database {
        var readerConfiguration = configuration
        if readerConfiguration.openMode == .readWriteCreate { readerConfiguration.openMode = .readWrite }
        let db = try Database(path: path, configuration: readerConfiguration)
        do {
            try db.execute(sql: "PRAGMA query_only = ON")
            if refusingCheckpoints { db.refuseCheckpoints() }
        } catch {
            db.close()
            throw error
        }
        return db
    }
}
