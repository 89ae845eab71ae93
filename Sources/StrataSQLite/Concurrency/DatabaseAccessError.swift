/// An error from a ``DatabaseQueue`` or ``DatabasePool`` itself rather than from SQLite: the
/// queue or pool is closed, its preparation failed, a closure misused it.
///
/// ```swift
/// do {
///     try await pool.read { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") }
/// } catch let error as DatabaseAccessError where error.code == .preparationFailed {
///     print(error.underlyingError!)   // the migration error, for instance
/// }
/// ```
///
/// Errors thrown by SQLite inside your closures reach you unchanged, as ``SQLiteError``.
public struct DatabaseAccessError: StrataError {
    /// What went wrong. New codes may be added.
    public struct Code: StrataErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The queue or pool was closed before the access was submitted.
        public static let closed = Code(rawValue: "closed")
        /// The preparation (the `prepare` closure, or migrations) failed: the queue or pool serves
        /// nothing, and every access reports this error with the cause in
        /// ``DatabaseAccessError/underlyingError``.
        public static let preparationFailed = Code(rawValue: "preparationFailed")
        /// A synchronous access was made from inside a closure running on the same queue or pool,
        /// which would deadlock. Use the `Database` the closure was given.
        public static let reentrantAccess = Code(rawValue: "reentrantAccess")
        /// A closure passed to `writeWithoutTransaction` returned with a transaction still open;
        /// it was rolled back.
        public static let transactionLeftOpen = Code(rawValue: "transactionLeftOpen")
        /// The database could not be put in WAL mode (an in-memory database, for instance), which
        /// a ``DatabasePool`` needs. See <https://www.sqlite.org/wal.html>.
        public static let walUnavailable = Code(rawValue: "walUnavailable")
        /// The pool configuration is invalid.
        public static let invalidConfiguration = Code(rawValue: "invalidConfiguration")
    }

    /// What went wrong.
    public let code: Code
    /// The path of the database the queue or pool opened.
    public let path: String
    /// A sentence saying what happened, naming the culprit.
    public let message: String
    /// The error that caused this one: for ``Code/preparationFailed``, the error the preparation threw.
    public let underlyingError: (any Error)?

    /// The path of the database: what every message is about.
    public var culprit: String? { path }

    /// Creates an error. Strata creates these; you rarely need to.
    ///
    /// ```swift
    /// DatabaseAccessError(code: .closed, path: "app.sqlite", message: "DatabasePool is closed")
    /// ```
    public init(code: Code, path: String, message: String, underlyingError: (any Error)? = nil) {
        self.code = code
        self.path = path
        self.message = StrataErrorText.bounded(message)
        self.underlyingError = underlyingError
    }
}
