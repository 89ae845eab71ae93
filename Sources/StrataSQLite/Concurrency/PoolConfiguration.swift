/// How a ``DatabasePool`` sets up its connections, beyond the per-connection ``Configuration``.
///
/// ```swift
/// var poolConfiguration = PoolConfiguration()
/// poolConfiguration.maximumReaderCount = 8
/// poolConfiguration.synchronous = .full
/// let pool = try DatabasePool(path: "app.sqlite", poolConfiguration: poolConfiguration)
/// ```
public struct PoolConfiguration: Sendable, Hashable {
    /// The most reader connections the pool opens, at least 1 (default 4). Readers are opened
    /// lazily, when a read finds every open reader busy.
    public var maximumReaderCount: Int = 4
    /// `PRAGMA synchronous` on the writer. `.normal` (the default) is safe from corruption in
    /// WAL mode and only risks the last commits on power loss.
    /// See <https://www.sqlite.org/pragma.html#pragma_synchronous>.
    public var synchronous: SynchronousMode = .normal
    /// Whether only the writer may checkpoint the WAL, the mitigation of SQLite's WAL-reset bug
    /// (``SQLiteAdvisory/walReset``): readers then never checkpoint (`wal_autocheckpoint` 0,
    /// and `PRAGMA wal_checkpoint` is refused with SQLITE_AUTH). By default
    /// (``WALResetMitigation/automatic``) it is on when the SQLite this process runs has the bug.
    public var walResetMitigation: WALResetMitigation = .automatic

    /// The default configuration: 4 readers, `synchronous = NORMAL`, the WAL-reset mitigation
    /// on affected SQLite versions.
    public init() {}
}

/// When a ``DatabasePool`` lets only its writer checkpoint: see
/// ``PoolConfiguration/walResetMitigation``.
///
/// SQLite 3.7.0 through 3.51.2 (except the 3.44.6 and 3.50.7 backports) can corrupt a WAL
/// database when a checkpoint on one connection overlaps a commit that resets the WAL on
/// another (<https://sqlite.org/wal.html#walresetbug>). In a pool only the writer commits, so a
/// checkpoint on the writer never overlaps a commit of the pool; the one way a pool's
/// checkpoint could overlap one is a reader checkpointing, which the mitigation refuses.
public enum WALResetMitigation: String, Sendable, Hashable, CaseIterable {
    /// On when ``SQLiteAdvisory/runtimeHasWALResetBug`` (the default).
    case automatic
    /// Always on: readers never checkpoint, whatever the SQLite version.
    case on
    /// Off: readers may run `PRAGMA wal_checkpoint` (they never autocheckpoint: they do not commit).
    case off

    /// Whether readers are kept from checkpointing with this setting in this process.
    public var isActive: Bool {
        switch self {
        case .automatic: SQLiteAdvisory.runtimeHasWALResetBug
        case .on: true
        case .off: false
        }
    }
}

/// A value of `PRAGMA synchronous`. See <https://www.sqlite.org/pragma.html#pragma_synchronous>.
public enum SynchronousMode: String, Sendable, Hashable, CaseIterable {
    /// No syncing: fastest, a power loss may corrupt the database.
    case off = "OFF"
    /// Syncs at checkpoints in WAL mode: durable except for the last commits on power loss.
    case normal = "NORMAL"
    /// Syncs at every commit.
    case full = "FULL"
    /// Like `full`, and also syncs the directory after unlinking a rollback journal.
    case extra = "EXTRA"
}
