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

    /// The default configuration: 4 readers, `synchronous = NORMAL`.
    public init() {}
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
