import CSQLite

/// An SQLite result code, primary or extended. Compare with the named constants or `~=`:
///
/// ```swift
/// catch let error as SQLiteError where error.resultCode == .SQLITE_CONSTRAINT { ... }
/// ```
///
/// See <https://www.sqlite.org/rescode.html>.
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric code.
    public let rawValue: Int32
    /// The code with this number: `ResultCode(rawValue: 19)` is ``SQLITE_CONSTRAINT``.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code: the low 8 bits of an extended code.
    public var primaryResultCode: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    /// SQLite's English description of the code (`sqlite3_errstr`).
    public var description: String {
        "\(String(cString: sqlite3_errstr(rawValue))) (code \(rawValue))"
    }

    /// Matches an extended code against a primary one: `case .SQLITE_CONSTRAINT:` matches
    /// `SQLITE_CONSTRAINT_UNIQUE`.
    public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        if pattern.rawValue & ~0xFF == 0 { return pattern == code.primaryResultCode }
        return pattern == code
    }

    /// `SQLITE_OK`: not an error.
    public static let SQLITE_OK = ResultCode(rawValue: 0)
    /// `SQLITE_ERROR`: SQL logic error.
    public static let SQLITE_ERROR = ResultCode(rawValue: 1)
    /// `SQLITE_INTERNAL`: internal logic error in SQLite.
    public static let SQLITE_INTERNAL = ResultCode(rawValue: 2)
    /// `SQLITE_PERM`: access permission denied.
    public static let SQLITE_PERM = ResultCode(rawValue: 3)
    /// `SQLITE_ABORT`: query aborted.
    public static let SQLITE_ABORT = ResultCode(rawValue: 4)
    /// `SQLITE_BUSY`: database is locked.
    public static let SQLITE_BUSY = ResultCode(rawValue: 5)
    /// `SQLITE_LOCKED`: database table is locked.
    public static let SQLITE_LOCKED = ResultCode(rawValue: 6)
    /// `SQLITE_NOMEM`: out of memory.
    public static let SQLITE_NOMEM = ResultCode(rawValue: 7)
    /// `SQLITE_READONLY`: attempt to write a readonly database.
    public static let SQLITE_READONLY = ResultCode(rawValue: 8)
    /// `SQLITE_INTERRUPT`: interrupted.
    public static let SQLITE_INTERRUPT = ResultCode(rawValue: 9)
    /// `SQLITE_IOERR`: disk I/O error.
    public static let SQLITE_IOERR = ResultCode(rawValue: 10)
    /// `SQLITE_CORRUPT`: database disk image is malformed.
    public static let SQLITE_CORRUPT = ResultCode(rawValue: 11)
    /// `SQLITE_NOTFOUND`: unknown operation.
    public static let SQLITE_NOTFOUND = ResultCode(rawValue: 12)
    /// `SQLITE_FULL`: database or disk is full.
    public static let SQLITE_FULL = ResultCode(rawValue: 13)
    /// `SQLITE_CANTOPEN`: unable to open database file.
    public static let SQLITE_CANTOPEN = ResultCode(rawValue: 14)
    /// `SQLITE_PROTOCOL`: locking protocol.
    public static let SQLITE_PROTOCOL = ResultCode(rawValue: 15)
    /// `SQLITE_EMPTY`: internal use only.
    public static let SQLITE_EMPTY = ResultCode(rawValue: 16)
    /// `SQLITE_SCHEMA`: database schema has changed.
    public static let SQLITE_SCHEMA = ResultCode(rawValue: 17)
    /// `SQLITE_TOOBIG`: string or blob too big.
    public static let SQLITE_TOOBIG = ResultCode(rawValue: 18)
    /// `SQLITE_CONSTRAINT`: constraint failed.
    public static let SQLITE_CONSTRAINT = ResultCode(rawValue: 19)
    /// `SQLITE_MISMATCH`: datatype mismatch.
    public static let SQLITE_MISMATCH = ResultCode(rawValue: 20)
    /// `SQLITE_MISUSE`: bad parameter or other API misuse.
    public static let SQLITE_MISUSE = ResultCode(rawValue: 21)
    /// `SQLITE_NOLFS`: large file support is disabled.
    public static let SQLITE_NOLFS = ResultCode(rawValue: 22)
    /// `SQLITE_AUTH`: authorization denied.
    public static let SQLITE_AUTH = ResultCode(rawValue: 23)
    /// `SQLITE_FORMAT`: not used.
    public static let SQLITE_FORMAT = ResultCode(rawValue: 24)
    /// `SQLITE_RANGE`: column index out of range.
    public static let SQLITE_RANGE = ResultCode(rawValue: 25)
    /// `SQLITE_NOTADB`: file is not a database.
    public static let SQLITE_NOTADB = ResultCode(rawValue: 26)
    /// `SQLITE_NOTICE`: notification message.
    public static let SQLITE_NOTICE = ResultCode(rawValue: 27)
    /// `SQLITE_WARNING`: warning message.
    public static let SQLITE_WARNING = ResultCode(rawValue: 28)
    /// `SQLITE_ROW`: another row available.
    public static let SQLITE_ROW = ResultCode(rawValue: 100)
    /// `SQLITE_DONE`: no more rows available.
    public static let SQLITE_DONE = ResultCode(rawValue: 101)

    /// `SQLITE_BUSY_SNAPSHOT`: a WAL read transaction cannot be upgraded: its snapshot is stale.
    public static let SQLITE_BUSY_SNAPSHOT = ResultCode(rawValue: 5 | (2 << 8))
    /// `SQLITE_BUSY_TIMEOUT`: the busy timeout expired (a blocking lock wait).
    public static let SQLITE_BUSY_TIMEOUT = ResultCode(rawValue: 5 | (3 << 8))
    /// `SQLITE_READONLY_ROLLBACK`: a hot journal must be rolled back, which a read-only
    /// connection cannot do (<https://www.sqlite.org/rescode.html#readonly_rollback>).
    public static let SQLITE_READONLY_ROLLBACK = ResultCode(rawValue: 8 | (3 << 8))
    /// `SQLITE_READONLY_DBMOVED`: the database file was moved or unlinked.
    public static let SQLITE_READONLY_DBMOVED = ResultCode(rawValue: 8 | (4 << 8))
    /// `SQLITE_CONSTRAINT_CHECK`: a CHECK constraint failed.
    public static let SQLITE_CONSTRAINT_CHECK = ResultCode(rawValue: 19 | (1 << 8))
    /// `SQLITE_CONSTRAINT_FOREIGNKEY`: a foreign key constraint failed.
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = ResultCode(rawValue: 19 | (3 << 8))
    /// `SQLITE_CONSTRAINT_NOTNULL`: a NOT NULL constraint failed.
    public static let SQLITE_CONSTRAINT_NOTNULL = ResultCode(rawValue: 19 | (5 << 8))
    /// `SQLITE_CONSTRAINT_PRIMARYKEY`: a PRIMARY KEY constraint failed.
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = ResultCode(rawValue: 19 | (6 << 8))
    /// `SQLITE_CONSTRAINT_TRIGGER`: a RAISE in a trigger failed the statement.
    public static let SQLITE_CONSTRAINT_TRIGGER = ResultCode(rawValue: 19 | (7 << 8))
    /// `SQLITE_CONSTRAINT_UNIQUE`: a UNIQUE constraint failed.
    public static let SQLITE_CONSTRAINT_UNIQUE = ResultCode(rawValue: 19 | (8 << 8))
    /// `SQLITE_CONSTRAINT_ROWID`: a rowid is not unique.
    public static let SQLITE_CONSTRAINT_ROWID = ResultCode(rawValue: 19 | (10 << 8))
    /// `SQLITE_CONSTRAINT_DATATYPE`: a value does not fit a STRICT table column type.
    public static let SQLITE_CONSTRAINT_DATATYPE = ResultCode(rawValue: 19 | (12 << 8))
}
