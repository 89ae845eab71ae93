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
    /// SQLITE_BUSY. Zero fails at once. The wait follows SQLite's own busy timeout (retries after
    /// 1, 3, 8, 18... ms, then every 100 ms), through a busy handler of Strata's, so that a
    /// connection of the same process can end it early when it releases the lock (an online
    /// rebuild does after each batch); `PRAGMA busy_timeout` therefore reads 0, and setting it
    /// replaces that handler with SQLite's.
    /// See <https://www.sqlite.org/c3ref/busy_handler.html>.
    public var busyTimeout: Double = 5
    /// Called while a statement waits for a lock held by another connection, with the seconds
    /// waited so far: after each retry (at most every 100 ms) until the lock is free or
    /// ``busyTimeout`` is spent. It runs on the waiting thread, between sleeps, so it must be
    /// quick; it cannot shorten the wait. For telling someone why nothing happens:
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.busyWaitHandler = { seconds in
    ///     if seconds >= 1 { print("waiting for another connection to release app.sqlite...") }
    /// }
    /// ```
    /// See <https://www.sqlite.org/c3ref/busy_handler.html>.
    public var busyWaitHandler: (@Sendable (_ secondsWaited: Double) -> Void)? = nil
    /// Include bound values in error descriptions and in traced SQL (see ``tracer``). Off by
    /// default: values may be personal data.
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
    /// legacy "DQS" misfeature (`SQLITE_DBCONFIG_DQS_DDL` and `SQLITE_DBCONFIG_DQS_DML`, SQLite
    /// 3.29+). Off by default, as in GRDB: a mistyped column name in `"quotes"` is an error ("no
    /// such column"), not the string `'typo'` (an index on a constant, a CHECK that fails every
    /// insert).
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.acceptsDoubleQuotedStringLiterals = true   // a legacy schema whose triggers use "text"
    /// ```
    ///
    /// SQLite still reads a schema that relies on the misfeature when it opens the file, and
    /// Strata's schema engine migrates such a database (it copies and re-creates the stored
    /// schema as SQLite accepted it). But a trigger or view written with `"text"` for a string
    /// fails when it runs with this off ("no such column: text"): turn it on for such a database,
    /// or rewrite those strings in single quotes.
    /// See <https://www.sqlite.org/quirks.html#double_quoted_string_literals_are_accepted>.
    public var acceptsDoubleQuotedStringLiterals: Bool = false

    // MARK: Encryption

    /// The key of an encrypted database, asked for each time a connection opens (so it need not
    /// stay in memory in between), and applied with `sqlite3_key_v2` right after the file is
    /// opened, before anything reads it. Nil (the default): no key, a plaintext database.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.encryptionKey = { .passphrase(try Keychain.readPassphrase("app-db")) }
    /// let pool = try DatabasePool(path: "app.sqlite", configuration: config)  // every connection gets it
    /// ```
    ///
    /// Needs an encryption-capable SQLite linked instead of the system one (SQLCipher, or SQLite3
    /// Multiple Ciphers; ``Database/supportsEncryption``): without one, opening fails with one
    /// line saying so, and never writes a plaintext file. A wrong key fails with SQLITE_NOTADB,
    /// "wrong key or not a database: PATH". The closure is called before the file is opened, and
    /// an error it throws is rethrown as it is, with nothing written. Temporary data (sorts, temporary tables) of a keyed connection stays in memory
    /// (`PRAGMA temp_store = MEMORY`). An in-memory database cannot be keyed.
    public var encryptionKey: (@Sendable () throws -> EncryptionKey)? = nil

    // MARK: Untrusted SQL

    /// SQLite's defensive mode (`SQLITE_DBCONFIG_DEFENSIVE`, SQLite 3.26+): ordinary SQL can no
    /// longer corrupt the file: no `PRAGMA writable_schema=ON`, no `PRAGMA journal_mode=OFF`, no
    /// writes to `sqlite_dbpage` or to the shadow tables of virtual tables. Off by default, as in SQLite.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.defensive = true
    /// ```
    /// See <https://www.sqlite.org/c3ref/c_dbconfig_defensive.html#sqlitedbconfigdefensive>.
    public var defensive: Bool = false
    /// Whether the schema is trusted to call any SQL function and use any virtual table from
    /// views, triggers, CHECK constraints, defaults, index expressions and generated columns
    /// (`SQLITE_DBCONFIG_TRUSTED_SCHEMA`, SQLite 3.31+). On by default, as in SQLite; turn it off
    /// for databases and schemas from untrusted sources, so only functions and virtual tables
    /// marked innocuous run from them. Older SQLite has no such setting: there it has no effect.
    /// See <https://www.sqlite.org/c3ref/c_dbconfig_defensive.html#sqlitedbconfigtrustedschema>.
    public var trustedSchema: Bool = true
    /// Whether the two-argument `fts3_tokenizer(name, pointer)` may register a tokenizer from a
    /// raw C pointer passed as a blob (`SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER`): SQL that can
    /// call it controls a call target. Nil keeps the library's default (on in builds made with
    /// `SQLITE_ENABLE_FTS3_TOKENIZER`, such as Debian's).
    /// See <https://www.sqlite.org/c3ref/c_dbconfig_defensive.html#sqlitedbconfigenablefts3tokenizer>.
    public var fts3TokenizerRegistration: Bool? = nil
    /// The most virtual-machine instructions one statement may run before SQLite stops it with
    /// SQLITE_INTERRUPT (the error message names this limit). Counted from each statement's first
    /// step, statements that virtual tables run on its behalf included. Nil: no limit.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.statementInstructionLimit = 50_000_000   // about a second of work
    /// ```
    /// See <https://www.sqlite.org/c3ref/progress_handler.html>.
    public var statementInstructionLimit: Int? = nil
    /// Run-time limits of the connection (`sqlite3_limit`), for example the longest string or
    /// blob, the longest statement, the deepest expression. Limits not listed keep SQLite's
    /// defaults; values above SQLite's compile-time maximum are lowered to it.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.limits[.length] = 10_000_000
    /// config.limits[.attached] = 0
    /// ```
    /// See <https://www.sqlite.org/c3ref/limit.html>.
    public var limits: [Limit: Int] = [:]

    /// A run-time limit category of `sqlite3_limit`. See <https://www.sqlite.org/c3ref/c_limit_attached.html>.
    public struct Limit: RawRepresentable, Hashable, Sendable {
        /// The `SQLITE_LIMIT_*` code.
        public let rawValue: Int32
        /// The category with this code.
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// The longest string or blob, in bytes (`SQLITE_LIMIT_LENGTH`).
        public static let length = Limit(rawValue: 0)
        /// The longest SQL statement, in bytes (`SQLITE_LIMIT_SQL_LENGTH`).
        public static let sqlLength = Limit(rawValue: 1)
        /// The most columns of a table, index, view or result (`SQLITE_LIMIT_COLUMN`).
        public static let column = Limit(rawValue: 2)
        /// The deepest expression tree (`SQLITE_LIMIT_EXPR_DEPTH`).
        public static let expressionDepth = Limit(rawValue: 3)
        /// The most terms of a compound SELECT (`SQLITE_LIMIT_COMPOUND_SELECT`).
        public static let compoundSelect = Limit(rawValue: 4)
        /// The most instructions of one compiled statement (`SQLITE_LIMIT_VDBE_OP`).
        public static let vdbeOperations = Limit(rawValue: 5)
        /// The most arguments of a function (`SQLITE_LIMIT_FUNCTION_ARG`).
        public static let functionArguments = Limit(rawValue: 6)
        /// The most attached databases (`SQLITE_LIMIT_ATTACHED`); 0 refuses `ATTACH`.
        public static let attached = Limit(rawValue: 7)
        /// The longest LIKE or GLOB pattern (`SQLITE_LIMIT_LIKE_PATTERN_LENGTH`).
        public static let likePatternLength = Limit(rawValue: 8)
        /// The largest parameter number (`SQLITE_LIMIT_VARIABLE_NUMBER`).
        public static let variableNumber = Limit(rawValue: 9)
        /// The deepest recursion of triggers (`SQLITE_LIMIT_TRIGGER_DEPTH`).
        public static let triggerDepth = Limit(rawValue: 10)
    }

    // MARK: Hooks

    /// SQL functions registered on every connection opened with this configuration (every
    /// reader and the writer of a ``DatabasePool``), before ``setupSQL`` runs. The schema
    /// engine registers them on its scratch databases too, so indexes and CHECK constraints
    /// that use them can be planned and rebuilt.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.functions = [DatabaseFunction("initials", argumentCount: 1, isDeterministic: true) { args in
    ///     String.fromSQLValue(args[0]).map { String($0.split(separator: " ").compactMap(\.first)) }
    /// }]
    /// let pool = try DatabasePool(path: "app.sqlite", configuration: config)
    /// ```
    public var functions: [DatabaseFunction] = []
    /// Collations registered on every connection opened with this configuration (see ``functions``).
    ///
    /// ```swift
    /// config.collations = [DatabaseCollation("localized") { $0.localizedStandardCompare($1) }]
    /// ```
    public var collations: [DatabaseCollation] = []
    /// Called with each statement every connection opened with this configuration runs (see
    /// ``Database/trace(options:_:)``; ``traceOptions`` chooses the events). Bound values are
    /// shown only when ``publicStatementArguments`` is on. The tracer may be called from several
    /// connections' threads at once.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.tracer = { event in print(event) }
    /// ```
    public var tracer: (@Sendable (TraceEvent) -> Void)? = nil
    /// Which events ``tracer`` receives: statements as they start (the default), and/or as they
    /// end with their duration.
    public var traceOptions: TraceOptions = .statements

    /// The defaults: read-write-create, foreign keys on, a 5 second busy timeout.
    ///
    /// ```swift
    /// let db = try Database(path: "app.sqlite", configuration: Configuration())
    /// ```
    public init() {}
}
