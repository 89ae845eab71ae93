/// Why ``Database/backup(toPath:replacingExisting:)`` wrote no backup. Whatever the reason,
/// nothing was left at the path (an existing file there is untouched) and the database is
/// unchanged.
///
/// ```swift
/// do {
///     try db.backup(toPath: "app-before.sqlite")
/// } catch let error as BackupError where error.code == .destinationExists {
///     try db.backup(toPath: "app-before.sqlite", replacingExisting: true)
/// }
/// ```
public struct BackupError: StrataError {
    /// What went wrong. New codes may be added.
    public struct Code: StrataErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A regular file is already at the path, and replacing it was not asked for.
        public static let destinationExists = Code(rawValue: "destinationExists")
        /// The path reaches the database being backed up, or its `-journal`, `-wal` or `-shm`
        /// file, by whatever spelling, symbolic link or hard link.
        public static let destinationIsSource = Code(rawValue: "destinationIsSource")
        /// A directory, a symbolic link or a special file is at the path: never replaced.
        public static let destinationNotRegularFile = Code(rawValue: "destinationNotRegularFile")
        /// A `-journal` or `-wal` file is beside the path: SQLite would apply it to the new backup.
        public static let destinationInUse = Code(rawValue: "destinationInUse")
        /// Writing the copy failed (disk full, a missing folder, an I/O error, the database
        /// could not be read); the error is in ``BackupError/underlyingError``.
        public static let writeFailed = Code(rawValue: "writeFailed")
    }

    /// What went wrong.
    public let code: Code
    /// The backup path, as it was given.
    public let path: String
    /// What is wrong with the path, or why the copy failed.
    public let message: String
    /// The SQLite or system error behind ``Code/writeFailed``.
    public let underlyingError: (any Error)?

    /// The backup path: what every message is about.
    public var culprit: String? { path }

    /// Creates an error. Strata creates these; you rarely need to.
    ///
    /// ```swift
    /// BackupError(code: .destinationExists, path: "copy.sqlite", message: "already exists")
    /// ```
    public init(code: Code, path: String, message: String, underlyingError: (any Error)? = nil) {
        self.code = code
        self.path = path
        self.message = StrataErrorText.bounded(message)
        self.underlyingError = underlyingError
    }

    /// The backup path, then the message: `backup.sqlite: is a directory; ...` (the message
    /// already quotes the cause of ``Code/writeFailed``).
    public var description: String { describe(culprit: path, cause: nil) }
}
