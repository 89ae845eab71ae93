import CSQLite

/// An error reported by SQLite: result codes, SQLite's own message, and the SQL that failed.
///
/// Bound values are kept out of ``description`` (they may hold personal data) unless
/// ``Configuration/publicStatementArguments`` was set on the connection.
///
/// ```swift
/// do { try db.execute(sql: "INSERT INTO user(id) VALUES (1)") }
/// catch let error as SQLiteError where error.resultCode == .SQLITE_CONSTRAINT {
///     print(error.message ?? "")   // "UNIQUE constraint failed: user.id"
/// }
/// ```
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code (<https://www.sqlite.org/rescode.html#extrc>).
    public let extendedResultCode: ResultCode
    /// SQLite's message (`sqlite3_errmsg`), or Strata's where SQLite gave none.
    public let message: String?
    /// The SQL statement that failed, if any.
    public let sql: String?
    /// The bound arguments, if any.
    public let arguments: StatementArguments?
    /// When true, ``description`` includes ``arguments``.
    public let publicStatementArguments: Bool

    /// The primary result code.
    public var resultCode: ResultCode { extendedResultCode.primaryResultCode }

    public init(
        resultCode: ResultCode, message: String? = nil, sql: String? = nil,
        arguments: StatementArguments? = nil, publicStatementArguments: Bool = false
    ) {
        self.extendedResultCode = resultCode
        self.message = message
        self.sql = sql
        self.arguments = arguments
        self.publicStatementArguments = publicStatementArguments
    }

    public var description: String {
        var s = "SQLite error \(extendedResultCode.rawValue)"
        if extendedResultCode != resultCode { s += " (primary \(resultCode.rawValue))" }
        s += ": " + (message ?? String(cString: sqlite3_errstr(extendedResultCode.rawValue)))
        if let sql { s += " - while executing `\(sql.trimmingWhitespace())`" }
        if publicStatementArguments, let arguments, !arguments.isEmpty {
            s += " with arguments \(arguments)"
        }
        return s
    }

    /// True for SQLITE_BUSY and SQLITE_LOCKED, the errors worth a retry.
    public var isBusy: Bool { resultCode == .SQLITE_BUSY || resultCode == .SQLITE_LOCKED }
}

extension String {
    func trimmingWhitespace() -> String {
        var sub = Substring(self)
        while let f = sub.first, f.isWhitespace { sub.removeFirst() }
        while let l = sub.last, l.isWhitespace { sub.removeLast() }
        return String(sub)
    }
}

/// An error reading a column of a row: the column does not exist, or its value does not
/// convert to the requested Swift type.
public struct RowDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// No column has that name (or the index is out of range).
        case columnNotFound
        /// The column's value does not convert to the requested type.
        case typeMismatch
    }
    public let kind: Kind
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

    public init(
        kind: Kind, column: String, requestedType: String, value: SQLValue?, availableColumns: [String], sql: String?
    ) {
        self.kind = kind
        self.column = column
        self.requestedType = requestedType
        self.value = value
        self.availableColumns = availableColumns
        self.sql = sql
    }

    public var description: String {
        switch kind {
        case .columnNotFound:
            var s = "no column \(column) in row"
            s += " (columns: \(availableColumns.map { "\"\($0)\"" }.joined(separator: ", ")))"
            if let sql { s += " - from `\(sql.trimmingWhitespace())`" }
            return s
        case .typeMismatch:
            var s = "column \(column) holds \(value?.storageClass ?? "?")"
            if let value { s += " \(value.sqlLiteral.prefix(60))" }
            s += ", which does not convert to \(requestedType)"
            if let sql { s += " - from `\(sql.trimmingWhitespace())`" }
            return s
        }
    }
}
