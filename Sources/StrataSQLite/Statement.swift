import CSQLite

/// A compiled SQL statement (`sqlite3_stmt`), reusable: bind, step, reset, bind again.
///
/// ```swift
/// let insert = try db.makeStatement(sql: "INSERT INTO point(x, y) VALUES (?, ?)")
/// for (x, y) in points { try insert.execute(x, y) }
/// ```
///
/// A statement belongs to the connection that made it and, like it, is not `Sendable`.
/// See <https://www.sqlite.org/c3ref/stmt.html>.
public final class Statement {
    @usableFromInline let handle: OpaquePointer
    let connection: SQLiteConnection
    /// The SQL text the statement was compiled from.
    public let sql: String
    /// The names of the result columns.
    public let columns: ColumnNames
    /// Number of result columns.
    public let columnCount: Int
    /// The largest parameter index (`sqlite3_bind_parameter_count`).
    public let parameterCount: Int
    private var parameterNames: [String?]

    init(handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
        let count = Int(sqlite3_column_count(handle))
        self.columnCount = count
        self.columns = ColumnNames((0..<count).map { String(cString: sqlite3_column_name(handle, Int32($0))) })
        let pcount = Int(sqlite3_bind_parameter_count(handle))
        self.parameterCount = pcount
        self.parameterNames = (0..<pcount).map { i in
            sqlite3_bind_parameter_name(handle, Int32(i + 1)).map { String(cString: $0) }
        }
    }

    deinit { sqlite3_finalize(handle) }

    /// True when the statement does not write the database (`sqlite3_stmt_readonly`).
    public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    // MARK: Binding

    /// Binds `arguments`, replacing all previous bindings. Positional values must cover every
    /// parameter index exactly; each named parameter needs a value.
    public func bind(_ arguments: StatementArguments) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        var positionalUsed = 0
        for i in 0..<parameterCount {
            let index = Int32(i + 1)
            if let name = parameterNames[i], let prefix = name.first, prefix != "?" {
                let key = String(name.dropFirst())
                guard let value = arguments.named[key] ?? arguments.named[name] else {
                    throw argumentError("missing value for parameter \(name)", arguments)
                }
                try bindValue(value, at: index)
            } else {
                guard i < arguments.positional.count else {
                    throw argumentError(
                        "wrong number of arguments: the statement has \(parameterCount) parameter(s), "
                            + "\(arguments.positional.count) positional value(s) given", arguments)
                }
                try bindValue(arguments.positional[i], at: index)
                positionalUsed = i + 1
            }
        }
        if arguments.positional.count > positionalUsed {
            throw argumentError(
                "wrong number of arguments: the statement takes \(positionalUsed) positional value(s), "
                    + "\(arguments.positional.count) given", arguments)
        }
    }

    /// Binds one value at a 1-based parameter index.
    @inlinable
    public func bind(_ value: some SQLValueConvertible, at index: Int) throws {
        try bindValue(value.sqlValue, at: Int32(index))
    }

    /// Binds one value to the parameter named `name` (with or without its `:`, `@` or `$`).
    public func bind(_ value: some SQLValueConvertible, named name: String) throws {
        for candidate in [name, ":" + name, "@" + name, "$" + name] {
            let index = sqlite3_bind_parameter_index(handle, candidate)
            if index > 0 { return try bindValue(value.sqlValue, at: index) }
        }
        throw argumentError("no parameter named \(name)", nil)
    }

    /// Sets every parameter to NULL.
    public func clearBindings() { sqlite3_clear_bindings(handle) }

    @usableFromInline
    func bindValue(_ value: SQLValue, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let i): rc = sqlite3_bind_int64(handle, index, i)
        case .real(let d): rc = sqlite3_bind_double(handle, index, d)
        case .text(let s):
            var s = s
            rc = s.withUTF8 { buf in
                // An explicit byte count keeps text containing NUL characters whole.
                guard let base = buf.baseAddress else {
                    return sqlite3_bind_text(handle, index, "", 0, strata_transient())
                }
                return UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: buf.count) {
                    sqlite3_bind_text(handle, index, $0, Int32(buf.count), strata_transient())
                }
            }
        case .blob(let bytes):
            rc = bytes.withUnsafeBytes { buf in
                // A zero-length blob must still be a blob, not NULL: bind_zeroblob(0) does that.
                if buf.count == 0 { return sqlite3_bind_zeroblob(handle, index, 0) }
                return sqlite3_bind_blob(handle, index, buf.baseAddress, Int32(buf.count), strata_transient())
            }
        }
        if rc != SQLITE_OK { throw connection.error(code: rc, sql: sql) }
    }

    private func argumentError(_ message: String, _ arguments: StatementArguments?) -> SQLiteError {
        SQLiteError(
            resultCode: .SQLITE_RANGE, message: message, sql: sql, arguments: arguments,
            publicStatementArguments: connection.publicStatementArguments)
    }

    // MARK: Running

    /// Resets the statement so it runs again from the start; bindings are kept.
    public func reset() { sqlite3_reset(handle) }

    /// Advances to the next row. Returns true when a row is available, false when done.
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            // sqlite3_reset returns the same error; reset so the statement can run again.
            sqlite3_reset(handle)
            throw connection.error(code: rc, sql: sql)
        }
    }

    /// Runs the statement to completion with `arguments`.
    public func execute(arguments: StatementArguments) throws {
        try bind(arguments)
        try runToCompletion()
    }

    /// Binds `values` to parameters 1, 2, ... and runs the statement to completion.
    /// Allocation-free for integers and doubles: the fast path for bulk inserts.
    ///
    /// ```swift
    /// try insert.execute(1, "Arthur", 3.5)
    /// ```
    @inlinable
    public func execute<each V: SQLValueConvertible>(_ values: repeat each V) throws {
        reset()
        var index: Int32 = 0
        for value in repeat each values {
            index += 1
            try bindValue(value.sqlValue, at: index)
        }
        try runToCompletion()
    }

    @usableFromInline
    func runToCompletion() throws {
        sqlite3_reset(handle)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// The value of column `index` of the current row.
    @inlinable
    public func columnValue(at index: Int) -> SQLValue {
        let i = Int32(index)
        switch sqlite3_column_type(handle, i) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, i))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, i))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, i))
            guard let p = sqlite3_column_text(handle, i) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, i))
            guard count > 0, let p = sqlite3_column_blob(handle, i) else { return .blob([]) }
            return .blob([UInt8](UnsafeRawBufferPointer(start: p, count: count)))
        default: return .null
        }
    }

    // MARK: Fetching

    /// All rows, copied.
    public func fetchAll(arguments: StatementArguments = StatementArguments()) throws -> [Row] {
        try bind(arguments)
        var rows = [Row]()
        defer { sqlite3_reset(handle) }
        while try step() { rows.append(currentRow()) }
        return rows
    }

    /// The first row, or nil.
    public func fetchOne(arguments: StatementArguments = StatementArguments()) throws -> Row? {
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        return try step() ? currentRow() : nil
    }

    /// A lazy cursor over the rows: one row is read per ``RowCursor/next()``.
    public func fetchCursor(arguments: StatementArguments = StatementArguments()) throws -> RowCursor {
        try bind(arguments)
        return RowCursor(statement: self)
    }

    /// Calls `body` for each row without copying it: `row` reads straight from the statement and
    /// is valid only during the call. The fastest way to read many rows.
    ///
    /// ```swift
    /// try stmt.forEachRow { row in total += try row[0] as Int }
    /// ```
    @inlinable
    public func forEachRow(
        arguments: StatementArguments = StatementArguments(), _ body: (StatementRow) throws -> Void
    ) throws {
        try bind(arguments)
        defer { reset() }
        let row = StatementRow(statement: self)
        while try step() { try body(row) }
    }

    /// A copy of the current row.
    public func currentRow() -> Row {
        Row(columns: columns, values: (0..<columnCount).map { columnValue(at: $0) }, sourceSQL: sql)
    }
}

/// The current row of a running ``Statement``, read in place (no copy).
public struct StatementRow: RowReader {
    @usableFromInline let statement: Statement
    @usableFromInline init(statement: Statement) { self.statement = statement }
    public var columnCount: Int { statement.columnCount }
    public var columnNames: [String] { statement.columns.names }
    @inlinable public func value(at index: Int) -> SQLValue { statement.columnValue(at: index) }
    public func index(ofColumn name: String) -> Int? { statement.columns.index(of: name) }
    public var sourceSQL: String? { statement.sql }
    /// A copy that outlives the step.
    public func copy() -> Row { statement.currentRow() }
}

/// Rows of a statement read one at a time: nothing is loaded ahead.
///
/// ```swift
/// let cursor = try db.fetchCursor(sql: "SELECT * FROM big")
/// while let row = try cursor.next() { ... }
/// ```
public final class RowCursor {
    public let statement: Statement
    private var done = false

    init(statement: Statement) { self.statement = statement }

    /// The next row, or nil at the end.
    public func next() throws -> Row? {
        if done { return nil }
        if try statement.step() { return statement.currentRow() }
        done = true
        statement.reset()
        return nil
    }

    /// Reads the remaining rows into an array.
    public func collect() throws -> [Row] {
        var rows = [Row]()
        while let row = try next() { rows.append(row) }
        return rows
    }
}
