/// An error of a record operation that is not SQLite's: the row to update does not exist, the
/// record does not encode its primary key, a key names no unique columns...
///
/// ```swift
/// do {
///     try note.update(db)
/// } catch let error as RecordError where error.code == .recordNotFound {
///     print(error)   // Note: no row in table "note" with id = 42
/// }
/// ```
///
/// Errors from SQLite itself (a constraint violated, a missing table) are ``SQLiteError``; a
/// row that does not decode is ``RowDecodingError``. GRDB's `RecordError.recordNotFound` is
/// ``Code/recordNotFound`` here.
public struct RecordError: StrataError {
    /// What went wrong. New codes may be added.
    public struct Code: StrataErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `update` found no row with the record's primary key (or the key is NULL).
        public static let recordNotFound = Code(rawValue: "recordNotFound")
        /// The record does not encode a column of the table's primary key, so the row to update,
        /// delete or look for is unknown.
        public static let primaryKeyNotEncoded = Code(rawValue: "primaryKeyNotEncoded")
        /// A key does not fit the table: a single value for a composite primary key, or columns
        /// that are neither the primary key nor a unique index.
        public static let invalidKey = Code(rawValue: "invalidKey")
        /// `update(_:columns:)` named a column the record does not encode.
        public static let unknownColumn = Code(rawValue: "unknownColumn")
        /// The operation needs a newer SQLite: `insertAndFetch`, `updateAndFetch`,
        /// `saveAndFetch` and `upsertAndFetch` need 3.35 (RETURNING); `upsert(db)` on a table with
        /// a unique index besides its primary key needs 3.35 (an ON CONFLICT without target).
        public static let unsupportedBySQLite = Code(rawValue: "unsupportedBySQLite")
        /// An `around` persistence callback did not call its function, or did not rethrow its
        /// error (GRDB reports the same misuse as SQLITE_MISUSE).
        public static let callbackMisuse = Code(rawValue: "callbackMisuse")
        /// An upsert's conflict target names columns that are neither the primary key nor a
        /// unique index (without WHERE clause) of the table.
        public static let invalidConflictTarget = Code(rawValue: "invalidConflictTarget")
    }

    /// What went wrong.
    public let code: Code
    /// The record type, such as `Note`.
    public let recordType: String
    /// The table.
    public let tableName: String
    /// The key of the row concerned, when there is one.
    public let key: [String: SQLValue]
    /// A sentence naming the table, the columns and the values.
    public let message: String

    /// Creates an error. Strata creates these; you rarely need to.
    ///
    /// ```swift
    /// RecordError(code: .recordNotFound, recordType: "Note", tableName: "note", key: ["id": 42],
    ///             message: "no row in table \"note\" with id = 42")
    /// ```
    public init(code: Code, recordType: String, tableName: String, key: [String: SQLValue] = [:], message: String) {
        self.code = code
        self.recordType = recordType
        self.tableName = tableName
        self.key = key
        self.message = StrataErrorText.bounded(message)
    }

    /// The table the message names.
    public var culprit: String? { tableName }

    /// Always nil: a record error is found by Strata, not caused by another error.
    public var underlyingError: (any Error)? { nil }

    /// `Note: no row in table "note" with id = 42`: the record type opens the line (the message
    /// names the table).
    public var description: String { describe(culprit: recordType, cause: nil) }

    /// `id = 42 AND lang = 'en'`, in key order.
    static func describe(key columns: [String], _ values: [SQLValue]) -> String {
        zip(columns, values).map { "\($0) = \($1.sqlLiteral.prefix(60))" }.joined(separator: " AND ")
    }
}
