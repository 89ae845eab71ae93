import CSQLite

/// An error reported by SQLite: result codes, SQLite's own message, and the SQL that failed.
///
/// ```swift
/// do {
///     try db.execute(sql: "INSERT INTO user(email) VALUES (?)", arguments: ["a@example.com"])
/// } catch let error as SQLiteError where error.resultCode == .SQLITE_CONSTRAINT {
///     print(error.message)         // "UNIQUE constraint failed: user.email"
///     print(error)                 // SQLITE_CONSTRAINT_UNIQUE (2067): UNIQUE constraint failed: ...
/// }
/// ```
///
/// Each failure kind is told apart by its code: a file that is not a database is
/// `SQLITE_NOTADB`, a syntax error `SQLITE_ERROR` (message "near ...: syntax error"), a constraint
/// violation `SQLITE_CONSTRAINT_*`, a locked database `SQLITE_BUSY`, a write to a read-only
/// database `SQLITE_READONLY`, use of a closed connection or a bad argument count `SQLITE_MISUSE`
/// or `SQLITE_RANGE`.
///
/// Bound values are kept out of ``description`` (they may hold personal data) unless
/// ``Configuration/publicStatementArguments`` was set on the connection.
/// See <https://www.sqlite.org/rescode.html>.
public struct SQLiteError: StrataError, Hashable {
    /// The extended result code (<https://www.sqlite.org/rescode.html#extrc>).
    public let extendedResultCode: ResultCode
    /// SQLite's message (`sqlite3_errmsg`), Strata's where it adds one, or else SQLite's text for
    /// the code (`sqlite3_errstr`): never empty, and at most `StrataErrorText.messageLimit`
    /// characters (SQLite quotes an unrecognized token whole: the rest is in ``sql``).
    public let message: String
    /// The SQL statement that failed, if any: whole (``description`` and ``culprit`` quote at most
    /// 250 characters of it).
    public let sql: String?
    /// The bound arguments, if any. Always available here, even when left out of ``description``.
    public let arguments: StatementArguments?
    /// When true, ``description`` includes ``arguments``.
    public let publicStatementArguments: Bool
    private let culpritOverride: String?

    /// The extended result code, as every ``StrataError`` has a ``code``: compare it with a
    /// primary code with `~=` (`case .SQLITE_CONSTRAINT:` matches `SQLITE_CONSTRAINT_UNIQUE`).
    public var code: ResultCode { extendedResultCode }

    /// The database path when the connection could not be opened (or its key was refused), else
    /// the SQL statement that failed, else nil.
    ///
    /// ```swift
    /// catch let error as SQLiteError where error.resultCode == .SQLITE_NOTADB {
    ///     print(error.culprit ?? "")   // "notes.txt"
    /// }
    /// ```
    public var culprit: String? {
        culpritOverride
            ?? sql.map { StrataErrorText.bounded($0.trimmingWhitespace(), limit: StrataErrorText.quoteLimit) }
    }

    /// Always nil: SQLite errors are where the causes end.
    public var underlyingError: (any Error)? { nil }

    /// The primary result code: the low byte of ``extendedResultCode``.
    ///
    /// ```swift
    /// if error.resultCode == .SQLITE_BUSY { retry() }
    /// ```
    public var resultCode: ResultCode { extendedResultCode.primaryResultCode }

    /// An error with the given code and details. Without a message, the message is SQLite's
    /// text for the code; without a culprit, the culprit is the SQL.
    ///
    /// ```swift
    /// throw SQLiteError(resultCode: .SQLITE_MISUSE, message: "no statement", sql: sql)
    /// ```
    public init(
        resultCode: ResultCode, message: String? = nil, sql: String? = nil,
        arguments: StatementArguments? = nil, publicStatementArguments: Bool = false, culprit: String? = nil
    ) {
        self.extendedResultCode = resultCode
        self.message = StrataErrorText.bounded(message ?? String(cString: sqlite3_errstr(resultCode.rawValue)))
        self.sql = sql
        self.arguments = arguments
        self.publicStatementArguments = publicStatementArguments
        self.culpritOverride = culprit
    }

    /// One line: the code's name and number, SQLite's message, the SQL, and the arguments only
    /// when public (each bounded, at most `StrataErrorText.descriptionLimit` characters in all),
    /// for example:
    ///
    /// ```text
    /// SQLITE_ERROR (1): near "SELEC": syntax error - while executing `SELEC 1`
    /// ```
    public var description: String {
        var s =
            extendedResultCode.name.map { "\($0) (\(extendedResultCode.rawValue))" }
            ?? "SQLite error \(extendedResultCode.rawValue)"
        s += ": " + message
        if let sql {
            s +=
                " - while executing `"
                + StrataErrorText.bounded(sql.trimmingWhitespace(), limit: StrataErrorText.quoteLimit) + "`"
        }
        if publicStatementArguments, let arguments, !arguments.isEmpty {
            s += " with arguments " + StrataErrorText.bounded("\(arguments)", limit: StrataErrorText.quoteLimit)
        }
        return s
    }

    /// True for SQLITE_BUSY and SQLITE_LOCKED, the errors worth a retry.
    ///
    /// ```swift
    /// catch let error as SQLiteError where error.isBusy { ... }
    /// ```
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
