/// How a ``Database`` connection is opened and set up.
///
/// ```swift
/// var config = Configuration()
/// config.openMode = .readOnly
/// config.busyTimeout = 10
/// let db = try Database(path: "app.sqlite", configuration: config)
/// ```
public struct Configuration: Sendable {
    /// How the file is opened (<https://www.sqlite.org/c3ref/open.html>).
    public enum OpenMode: Sendable, Hashable {
        /// Read only: writes fail with SQLITE_READONLY.
        case readOnly
        /// Read and write an existing file: a missing file is an error (SQLITE_CANTOPEN).
        case readWrite
        /// Read and write, creating the file if it does not exist (the default).
        case readWriteCreate
    }

    /// How the file is opened: ``OpenMode/readWriteCreate`` unless set.
    public var openMode: OpenMode = .readWriteCreate
    /// Interpret the path as a URI filename (`file:data.db?mode=ro`), see <https://www.sqlite.org/uri.html>.
    public var uriFilenames: Bool = false
    /// `PRAGMA foreign_keys = ON` on every connection (the default). See <https://www.sqlite.org/foreignkeys.html>.
    public var foreignKeysEnabled: Bool = true
    /// Seconds a statement waits for a lock held by another connection before failing with
    /// SQLITE_BUSY (`sqlite3_busy_timeout`). Zero fails at once.
    /// See <https://www.sqlite.org/c3ref/busy_timeout.html>.
    public var busyTimeout: Double = 5
    /// Include bound values in error descriptions. Off by default: values may be personal data.
    public var publicStatementArguments: Bool = false
    /// Pretend the SQLite library is this old: features newer than it (DROP COLUMN, STRICT...)
    /// are reported unavailable by ``Database/capabilities``, so code paths for older devices can
    /// be exercised on a newer SQLite. Nil means the real version. A limit above the real
    /// version has no effect.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.capabilityLimit = SQLiteVersion(3, 24, 0)   // no RENAME COLUMN, no DROP COLUMN
    /// ```
    public var capabilityLimit: SQLiteVersion? = nil
    /// A label that appears in diagnostics.
    public var label: String? = nil
    /// Statements run right after the connection opens (for example `PRAGMA cache_size = -8000`).
    public var setupSQL: [String] = []
    /// Whether a double-quoted word that names no column is taken as a string literal, SQLite's
    /// legacy "DQS" misfeature. On by default, as in SQLite, so existing schemas that rely on it
    /// keep working; turn it off to have a mistyped column name in `"quotes"` reported as an error.
    /// See <https://www.sqlite.org/quirks.html#double_quoted_string_literals_are_accepted>.
    public var acceptsDoubleQuotedStringLiterals: Bool = true

    /// The defaults: read-write-create, foreign keys on, a 5 second busy timeout.
    ///
    /// ```swift
    /// let db = try Database(path: "app.sqlite", configuration: Configuration())
    /// ```
    public init() {}
}
