/// An error reading a column of a row: the column does not exist, or its value does not
/// convert to the requested Swift type.
///
/// ```swift
/// let row = try db.fetchOne(sql: "SELECT 'x' AS name")!
/// do { let n: Int = try row["name"] }
/// catch let error as RowDecodingError {
///     print(error)  // column "name" holds text 'x', which does not convert to Int - from `SELECT 'x' AS name`
/// }
/// ```
public struct RowDecodingError: StrataError, Hashable {
    /// What went wrong.
    public enum Code: String, StrataErrorCode {
        /// No column has that name (or the index is out of range).
        case columnNotFound
        /// The column's value does not convert to the requested type.
        case typeMismatch
    }
    /// What went wrong.
    public let code: Code
    /// The column name or `#index` that was asked for.
    public let column: String
    /// The Swift type that was requested.
    public let requestedType: String
    /// The value found, for type mismatches.
    public let value: SQLValue?
    /// The columns the row has.
    public let availableColumns: [String]
    /// The SQL of the query, when known.
    public let sql: String?
    /// The record type being decoded (`"Note"`), when the error comes from a ``FetchableRecord``.
    public let recordType: String?
    /// More about the failure, such as the JSON decoding error for a column decoded as JSON.
    public let detail: String?

    /// An error with the given details.
    ///
    /// ```swift
    /// RowDecodingError(code: .columnNotFound, column: "\"nme\"", requestedType: "String",
    ///                  value: nil, availableColumns: ["name"], sql: nil)
    /// ```
    public init(
        code: Code, column: String, requestedType: String, value: SQLValue?, availableColumns: [String], sql: String?,
        recordType: String? = nil, detail: String? = nil
    ) {
        self.code = code
        self.column = column
        self.requestedType = requestedType
        self.value = value
        self.availableColumns = availableColumns
        self.sql = sql
        self.recordType = recordType
        self.detail = detail
    }

    /// For a blob read as a `String`: text that is not valid UTF-8 reads as a blob (a `String`
    /// cannot hold it), so the message says so. Nil otherwise.
    static func textDetail(_ value: SQLValue, _ type: Any.Type) -> String? {
        guard case .blob = value, type == String.self || type == String?.self else { return nil }
        return "a blob, or text that is not valid UTF-8, which a String cannot hold: read it as Data or [UInt8]"
    }

    /// The column name or `#index` that was asked for: the culprit the message names.
    public var culprit: String? { column }

    /// Always nil: a decoding error is found by Strata, not caused by another error.
    public var underlyingError: (any Error)? { nil }

    /// One line naming the record type, the column, the value found or the columns available,
    /// and the SQL (also the ``description``: the message names the column itself).
    public var message: String {
        var s = recordType.map { "\($0): " } ?? ""
        switch code {
        case .columnNotFound:
            s += "no column \(column) in row"
            s += " (columns: \(availableColumns.map { "\"\($0)\"" }.joined(separator: ", ")))"
        case .typeMismatch:
            if let value, !value.isNull {
                s += "column \(column) holds \(value.storageClass) \(value.sqlLiteral.prefix(60))"
                s += ", which does not convert to \(requestedType)"
            } else {
                s += "column \(column) is NULL, which does not convert to \(requestedType)"
                s += " (read it as Optional<\(requestedType)> if it may be NULL)"
            }
        }
        if let detail { s += " (\(detail))" }
        if let sql {
            s +=
                " - from `" + StrataErrorText.bounded(sql.trimmingWhitespace(), limit: StrataErrorText.quoteLimit) + "`"
        }
        return StrataErrorText.bounded(s)
    }

    /// The ``message``, which names its culprit, the column, in its own words.
    public var description: String { describe(culprit: nil, cause: nil) }
}
