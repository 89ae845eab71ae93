import StrataSQLite

/// Why a restore point was not written or not used, why a restore refused, or why the upgrade
/// state beside a database could not be read. Whatever the reason, the database is unchanged.
///
/// ```swift
/// do {
///     try db.restore(from: point)
/// } catch let error as UpgradeError where error.code == .restoreWouldLoseRows {
///     print(error.message)   // "table tag: 3 rows written since the upgrade ..."
/// }
/// ```
public struct UpgradeError: StrataError, Hashable {
    /// What went wrong. New codes may be added.
    public struct Code: StrataErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The restore point's file is missing, truncated, corrupt, of another database, under
        /// another key, or not the state its record describes.
        public static let restorePointInvalid = Code(rawValue: "restorePointInvalid")
        /// No restore point of that id (or none at all) is kept for the database.
        public static let restorePointNotFound = Code(rawValue: "restorePointNotFound")
        /// The restore point could not be written (disk full, a read-only folder): the upgrade
        /// did not start.
        public static let restorePointWriteFailed = Code(rawValue: "restorePointWriteFailed")
        /// The restore would drop rows or values written since the upgrade (a table or column
        /// the older schema does not have); nothing was changed. Accept the loss explicitly to
        /// restore anyway.
        public static let restoreWouldLoseRows = Code(rawValue: "restoreWouldLoseRows")
        /// The rows written since the upgrade do not fit the older schema (a constraint, a
        /// foreign key); the message names the table and the row.
        public static let restoreRefused = Code(rawValue: "restoreRefused")
        /// The upgrade state beside the database (`<database>-strata-upgrade/upgrade.json`) is
        /// unreadable, or was written by a newer Strata.
        public static let stateUnreadable = Code(rawValue: "stateUnreadable")
        /// Restore points need a database file (not an in-memory or temporary database).
        public static let notAFile = Code(rawValue: "notAFile")
    }

    /// What went wrong.
    public let code: Code
    /// One line, naming the culprit first.
    public let message: String
    /// The restore point file, the state file, the table or `table.column` the message names first.
    public let culprit: String?
    /// The error behind this one (SQLite's, the file system's), described.
    public let cause: String?

    /// ``cause``, as every `StrataError` has it.
    public var underlyingError: (any Error)? { cause.map(UpgradeErrorCause.init) }

    /// Creates an error. Strata creates these; you rarely need to.
    ///
    /// ```swift
    /// UpgradeError(code: .restorePointNotFound, message: "app.sqlite: no restore point is kept", culprit: "app.sqlite")
    /// ```
    public init(code: Code, message: String, culprit: String?, cause: String? = nil) {
        self.code = code
        self.message = StrataErrorText.bounded(message)
        self.culprit = culprit
        self.cause = cause.map { StrataErrorText.bounded($0) }
    }

    /// The message, which names its culprit first, and the cause.
    public var description: String { describe(culprit: nil, cause: underlyingError) }
}

/// The described cause of an ``UpgradeError``.
struct UpgradeErrorCause: Error, CustomStringConvertible {
    let description: String
}
