import StrataSQLite
import StrataSchema

/// An error from the ``Migrator`` or the ``MigrationDirectory`` loader.
///
/// The ``description`` is one line that names the culprit first (the migration, the file, the
/// table), then what went wrong, then what happened to the database:
///
/// ```swift
/// do {
///     try migrator.migrate(db)
/// } catch let error as MigrationError where error.code == .unknownMigrations {
///     print(error.migrations)   // ["0007_add_tags"]: applied by a newer version of the app
/// }
/// ```
///
/// New codes may be added: match the ones you handle and keep a default case.
public struct MigrationError: StrataError {
    /// What kind of failure this is.
    public struct Code: StrataErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The database has applied migrations that this app does not register (it was
        /// migrated by a newer version of the app). Nothing was migrated.
        public static let unknownMigrations = Code(rawValue: "unknownMigrations")
        /// An applied migration's SQL text differs from the text applied (its checksum changed).
        public static let checksumMismatch = Code(rawValue: "checksumMismatch")
        /// A migration threw or SQLite rejected one of its statements; it was rolled back.
        public static let migrationFailed = Code(rawValue: "migrationFailed")
        /// A migration left rows that violate a foreign key (and did not before); it was rolled back.
        public static let foreignKeyViolation = Code(rawValue: "foreignKeyViolation")
        /// The migrator cannot run as asked: a target that is not registered, a database
        /// migrated beyond the target, a call inside a transaction, identifiers without a number
        /// in `user_version` storage.
        public static let invalidRequest = Code(rawValue: "invalidRequest")
        /// A legacy version marker (`PRAGMA user_version`, a version table) could not be adopted.
        public static let adoptionFailed = Code(rawValue: "adoptionFailed")
        /// A migration file or folder is malformed: a bad name, a gap or duplicate in the
        /// numbering, text that is not UTF-8.
        public static let invalidMigrationFile = Code(rawValue: "invalidMigrationFile")
        /// The database stopped in the middle of the history a baseline replaces, and the
        /// original migrations it still needs are not available. Nothing was migrated.
        public static let unsupportedHistory = Code(rawValue: "unsupportedHistory")
        /// The database was migrated by a newer version of the app, and with
        /// ``Migrator/newerDatabasePolicy`` set to ``NewerDatabasePolicy/openWhenCompatible`` its
        /// schema changed in a way this version cannot read (a dropped or renamed table or
        /// column...): the message names this version's last migration, the database's newest
        /// and the first incompatible change (``MigrationError/compatibilityFinding``). Nothing
        /// was changed.
        public static let incompatibleNewerDatabase = Code(rawValue: "incompatibleNewerDatabase")
    }

    /// What kind of failure this is.
    public let code: Code
    /// The one-line message (also the ``description``).
    public let message: String
    /// The migrations (or files) concerned, culprit first.
    public let migrations: [String]
    /// The underlying error (an `SQLiteError`, an error thrown by a closure migration, a
    /// declarative engine error), when there is one.
    public let underlyingError: (any Error)?
    /// The migration or file the message names first (the first of ``migrations``), or nil.
    public var culprit: String? { migrations.first }
    /// The foreign key violations that made a migration fail (``Code/foreignKeyViolation``).
    public let foreignKeyViolations: [ForeignKeyViolation]
    /// The first change a newer database made that this version cannot read
    /// (``Code/incompatibleNewerDatabase``): its code, object and reason.
    public let compatibilityFinding: CompatibilityFinding?

    init(
        _ code: Code, _ message: String, migrations: [String] = [],
        underlyingError: (any Error)? = nil, foreignKeyViolations: [ForeignKeyViolation] = [],
        compatibilityFinding: CompatibilityFinding? = nil
    ) {
        self.code = code
        self.message = StrataErrorText.bounded(message)
        self.migrations = migrations
        self.underlyingError = underlyingError
        self.foreignKeyViolations = foreignKeyViolations
        self.compatibilityFinding = compatibilityFinding
    }

    /// The ``message``, which names its culprit first (`migration 0002_x failed: ...`,
    /// `0003_y.sql: ...`) and quotes the cause in its own words.
    public var description: String { describe(culprit: nil, cause: nil) }
}

extension MigrationError {
    /// How much of a statement (or of SQLite's message about it) an error quotes.
    static let excerptLimit = 200

    /// `text` as an error message quotes it (see ``SQLiteText/excerpt(_:limit:)``): a failing
    /// statement can be the rest of a file (an unterminated string runs to its end), so messages
    /// never show more than ``excerptLimit`` characters of it.
    static func excerpt(_ text: String, limit: Int = excerptLimit) -> String {
        SQLiteText.excerpt(text, limit: limit)
    }
}
