import CSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
    ///
    /// SQLite recompiles a statement when the schema changed since it was prepared
    /// (<https://www.sqlite.org/c3ref/prepare.html>), so `SELECT *` may gain or lose columns:
    /// the names are read again after each recompilation.
    public var columns: ColumnNames {
        let reprepares = sqlite3_stmt_status(handle, Int32(SQLITE_STMTSTATUS_REPREPARE), 0)
        if reprepares != columnsReprepareCount {
            columnsReprepareCount = reprepares
            cachedColumns = Statement.columnNames(handle)
        }
        return cachedColumns
    }
    private var cachedColumns: ColumnNames
    private var columnsReprepareCount: Int32 = 0
    /// Number of result columns (current: it follows a recompilation after a schema change).
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }
    /// The largest parameter index (`sqlite3_bind_parameter_count`).
    public let parameterCount: Int
    /// How many parameters take positional values: `?`, `?NNN`, and unused indexes below the
    /// largest `?NNN`. Named parameters (`:name`, `@name`, `$name`) are not counted.
    public let positionalParameterCount: Int
    /// The name of each parameter (index 1 first), nil for a plain `?`.
    public let parameterNames: [String?]
    /// The arguments of the last ``bind(_:)``, reported with errors (nil after other kinds of binding).
    var boundArguments: StatementArguments?
    /// True when the statement is reset (or was never stepped): it can be bound without a
    /// `sqlite3_reset` first. Every step clears it, every reset sets it.
    @usableFromInline @exclusivity(unchecked) var isAtStart = true
    /// The tables the statement writes, as the authorizer saw it compile (only while transaction
    /// observers are registered; see `ConnectionHooks`).
    var writtenTables: Set<String> = []
    /// The columns its UPDATEs write, by table (lowercased names), noted with ``writtenTables``.
    var updatedColumns: [String: Set<String>] = [:]

    init(handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
        self.cachedColumns = Statement.columnNames(handle)
        let pcount = Int(sqlite3_bind_parameter_count(handle))
        self.parameterCount = pcount
        let names = (0..<pcount).map { i in
            sqlite3_bind_parameter_name(handle, Int32(i + 1)).map { String(cString: $0) }
        }
        self.parameterNames = names
        self.positionalParameterCount = names.count(where: Statement.isPositional)
        if connection.authorizer.tracksWrites { (writtenTables, updatedColumns) = connection.takeCompiledWrites() }
    }

    deinit { sqlite3_finalize(handle) }

    private static func columnNames(_ handle: OpaquePointer) -> ColumnNames {
        ColumnNames(
            (0..<Int(sqlite3_column_count(handle))).map { String(cString: sqlite3_column_name(handle, Int32($0))) })
    }

    /// True for `?` (no name), `?NNN`, and indexes no parameter uses.
    static func isPositional(_ name: String?) -> Bool {
        guard let name else { return true }
        return name.hasPrefix("?")
    }

    /// True when the statement does not write the database (`sqlite3_stmt_readonly`).
    ///
    /// ```swift
    /// #expect(try db.makeStatement(sql: "SELECT 1").isReadOnly)
    /// ```
    public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    // MARK: Binding

    /// Binds `arguments`, replacing all previous bindings.
    ///
    /// ```swift
    /// let stmt = try db.makeStatement(sql: "SELECT * FROM player WHERE name = :name AND score > ?")
    /// try stmt.bind(StatementArguments([100], named: ["name": "Arthur"]))
    /// ```
    ///
    /// Positional values go, in order, to the positional parameters (`?` and `?NNN`, by index),
    /// so in `?2 || ?1` the first value is `?1`'s. Each named parameter takes the named value
    /// with its name, written with or without its prefix. Too few or too many positional values,
    /// or a named parameter without a value, is an SQLITE_RANGE error naming the culprit.
    /// See <https://www.sqlite.org/lang_expr.html#varparam>.
    public func bind(_ arguments: StatementArguments) throws {
        try connection.checkOpen(sql)
        resetHandle()
        sqlite3_clear_bindings(handle)
        boundArguments = arguments.isEmpty ? nil : arguments
        if arguments.positional.count != positionalParameterCount {
            throw argumentError(
                "wrong number of arguments: the statement takes \(positionalParameterCount) positional value(s), "
                    + "\(arguments.positional.count) given", arguments)
        }
        var nextPositional = 0
        for (i, name) in parameterNames.enumerated() {
            let index = Int32(i + 1)
            if let name, !Statement.isPositional(name) {
                guard let value = arguments.named[String(name.dropFirst())] ?? arguments.named[name] else {
                    let given = arguments.named.keys.sorted().joined(separator: ", ")
                    throw argumentError(
                        "missing value for parameter \(name) (named values given: \(given.isEmpty ? "none" : given))",
                        arguments)
                }
                try bindValue(value, at: index)
            } else {
                try bindValue(arguments.positional[nextPositional], at: index)
                nextPositional += 1
            }
        }
    }

    /// Binds one value at a 1-based parameter index, resetting the statement if it was running.
    ///
    /// ```swift
    /// try stmt.bind("Arthur", at: 1)
    /// ```
    /// See <https://www.sqlite.org/c3ref/bind_blob.html>.
    @inlinable
    public func bind(_ value: some SQLValueConvertible, at index: Int) throws {
        prepareForSingleBinding()
        try bindValue(value.sqlValue, at: Int32(index), source: value)
    }

    /// Binds one value to the parameter named `name` (with or without its `:`, `@` or `$`),
    /// resetting the statement if it was running.
    ///
    /// ```swift
    /// try stmt.bind("Arthur", named: "name")
    /// ```
    public func bind(_ value: some SQLValueConvertible, named name: String) throws {
        prepareForSingleBinding()
        for candidate in [name, ":" + name, "@" + name, "$" + name] {
            let index = sqlite3_bind_parameter_index(handle, candidate)
            if index > 0 { return try bindValue(value.sqlValue, at: index, source: value) }
        }
        let names = parameterNames.compactMap { $0 }.joined(separator: ", ")
        throw argumentError("no parameter named \(name) (parameters: \(names.isEmpty ? "none" : names))", nil)
    }

    /// Sets every parameter to NULL.
    ///
    /// ```swift
    /// stmt.clearBindings()
    /// ```
    public func clearBindings() { sqlite3_clear_bindings(handle) }

    /// Binds one value. Integers, doubles and NULL take the inlined fast path (the bulk-insert
    /// hot loop); text and blobs go through ``bindBytes(_:at:)``.
    ///
    /// NaN is refused: SQLite would store NULL, and it is the `sqlValue` of every value that has
    /// no stored form (see `Unstorable`); `source`, the Swift value bound, when known, lets the
    /// error say which.
    @inlinable
    func bindValue(_ value: SQLValue, at index: Int32, source: Any? = nil) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let i): rc = sqlite3_bind_int64(handle, index, i)
        case .real(let d):
            if d.isNaN { throw unstorableError(at: index, source) }
            rc = sqlite3_bind_double(handle, index, d)
        case .text, .blob: rc = bindBytes(value, at: index)
        }
        if rc != SQLITE_OK { throw bindingError(rc) }
    }

    /// `SQLITE_MISMATCH` naming the parameter, the statement and why the value has no stored
    /// form (the value itself only when ``Configuration/publicStatementArguments`` is set).
    @usableFromInline
    func unstorableError(at index: Int32, _ source: Any?) -> SQLiteError {
        let name = Int(index) <= parameterNames.count ? parameterNames[Int(index) - 1] : nil
        let parameter = "parameter \(index)" + (name.map { " (\($0))" } ?? "")
        let reason = Unstorable.reason(source, showingValue: connection.publicStatementArguments)
        return SQLiteError(
            resultCode: .SQLITE_MISMATCH, message: "cannot store \(parameter): \(reason); nothing was written",
            sql: sql, arguments: boundArguments, publicStatementArguments: connection.publicStatementArguments)
    }

    @usableFromInline
    func bindBytes(_ value: SQLValue, at index: Int32) -> Int32 {
        switch value {
        case .text(let s):
            var s = s
            return s.withUTF8 { buf in
                // An explicit byte count keeps text containing NUL characters whole.
                guard let base = buf.baseAddress else {
                    return sqlite3_bind_text(handle, index, "", 0, strata_transient())
                }
                return UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: buf.count) {
                    sqlite3_bind_text(handle, index, $0, Int32(buf.count), strata_transient())
                }
            }
        case .blob(let bytes):
            return bytes.withUnsafeBytes { buf in
                // A zero-length blob must still be a blob, not NULL: bind_zeroblob(0) does that.
                if buf.count == 0 { return sqlite3_bind_zeroblob(handle, index, 0) }
                return sqlite3_bind_blob(handle, index, buf.baseAddress, Int32(buf.count), strata_transient())
            }
        case .null, .integer, .real:
            preconditionFailure("bindBytes: text or blob expected")
        }
    }

    @usableFromInline
    func bindingError(_ rc: Int32) -> SQLiteError { connection.error(code: rc, sql: sql) }

    /// Binding needs a statement that is not running ("sqlite3_bind_*() routines must be called
    /// after sqlite3_prepare_v2() or sqlite3_reset()"): reset it, keeping the other bindings.
    @usableFromInline
    func prepareForSingleBinding() {
        boundArguments = nil
        resetHandle()
    }

    @usableFromInline
    func checkValueCount(_ count: Int) throws {
        boundArguments = nil
        try connection.checkOpen(sql)
        if count != parameterCount {
            throw argumentError(
                "wrong number of arguments: the statement has \(parameterCount) parameter(s), \(count) value(s) given",
                nil)
        }
    }

    private func argumentError(_ message: String, _ arguments: StatementArguments?) -> SQLiteError {
        SQLiteError(
            resultCode: .SQLITE_RANGE, message: message, sql: sql, arguments: arguments,
            publicStatementArguments: connection.publicStatementArguments)
    }

    // MARK: Running

    /// Resets the statement so it runs again from the start; bindings are kept.
    /// See <https://www.sqlite.org/c3ref/reset.html>.
    ///
    /// ```swift
    /// stmt.reset()
    /// ```
    public func reset() {
        let wasRunning = connection.hooks.isObserving && sqlite3_stmt_busy(handle) != 0
        resetHandle()
        if wasRunning { connection.statementDidEnd(self) }
    }

    /// `sqlite3_reset`, noted in ``isAtStart``.
    @usableFromInline @inline(__always)
    func resetHandle() {
        sqlite3_reset(handle)
        isAtStart = true
    }

    /// Advances to the next row. Returns true when a row is available, false when done.
    ///
    /// ```swift
    /// while try stmt.step() { print(stmt.columnValue(at: 0)) }
    /// ```
    /// See <https://www.sqlite.org/c3ref/step.html>.
    public func step() throws -> Bool {
        try connection.checkOpen(sql)
        if let budget = connection.instructionBudget, sqlite3_stmt_busy(handle) == 0 { budget.restart() }
        isAtStart = false
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE:
            if connection.hooks.isObserving { connection.statementDidEnd(self) }
            return false
        default:
            // Read the message first, then reset so the statement can run again.
            let error = connection.error(code: rc, sql: sql, arguments: boundArguments)
            resetHandle()
            if connection.hooks.isObserving { connection.statementDidEnd(self) }
            throw error
        }
    }

    /// Binds `arguments` and runs the statement to completion.
    ///
    /// ```swift
    /// try stmt.execute(arguments: ["name": "Arthur"])
    /// ```
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
    ///
    /// The number of values must equal ``parameterCount``.
    @inlinable
    public func execute<each V: SQLValueConvertible>(_ values: repeat each V) throws {
        // Pack expansions calling a generic function (rather than `for value in repeat each`)
        // are specialized per element: each bind compiles to a direct sqlite3_bind_* call.
        var count = 0
        repeat Statement.countValue(each values, &count)
        try checkValueCount(count)
        if !isAtStart { resetHandle() }
        var index: Int32 = 0
        repeat try bindNext(each values, &index)
        try runFromReset()
    }

    @inlinable @inline(__always)
    static func countValue<V>(_ value: V, _ count: inout Int) { count += 1 }

    @inlinable @inline(__always)
    func bindNext<V: SQLValueConvertible>(_ value: V, _ index: inout Int32) throws {
        index += 1
        // The compiler does not specialize the pack elements, so `value.sqlValue` would be a
        // witness-table call building an SQLValue. A metadata comparison picks the direct C call
        // for the common fixed-size types instead.
        let rc: Int32
        if V.self == Int64.self {
            rc = sqlite3_bind_int64(handle, index, unsafeBitCast(value, to: Int64.self))
        } else if V.self == Int.self {
            rc = sqlite3_bind_int64(handle, index, Int64(unsafeBitCast(value, to: Int.self)))
        } else if V.self == Double.self {
            let d = unsafeBitCast(value, to: Double.self)
            if d.isNaN { throw unstorableError(at: index, d) }
            rc = sqlite3_bind_double(handle, index, d)
        } else {
            return try bindValue(value.sqlValue, at: index, source: value)
        }
        if rc != SQLITE_OK { throw bindingError(rc) }
    }

    @usableFromInline
    func runToCompletion() throws {
        resetHandle()
        try runFromReset()
    }

    /// Steps a statement that was just reset and bound to its end, then resets it (the connection
    /// was checked open by the caller, so the loop does not check it at each step).
    @usableFromInline
    func runFromReset() throws {
        connection.instructionBudget?.restart()
        isAtStart = false
        while true {
            let rc = sqlite3_step(handle)
            if rc == SQLITE_DONE { break }
            if rc == SQLITE_ROW { continue }
            let error = connection.error(code: rc, sql: sql, arguments: boundArguments)
            resetHandle()
            if connection.hooks.isObserving { connection.statementDidEnd(self) }
            throw error
        }
        resetHandle()
        if connection.hooks.isObserving { connection.statementDidEnd(self) }
    }

    /// The value of column `index` of the current row.
    ///
    /// ```swift
    /// if try stmt.step() { let value = stmt.columnValue(at: 0) }
    /// ```
    /// See <https://www.sqlite.org/c3ref/column_blob.html>.
    @inlinable
    public func columnValue(at index: Int) -> SQLValue { Statement.columnValue(handle, at: index) }

    /// The value of column `index` of the current row of the statement `handle`.
    @inlinable
    static func columnValue(_ handle: OpaquePointer, at index: Int) -> SQLValue {
        // One column call, then cheap reads of the value: `sqlite3_column_type` followed by
        // `sqlite3_column_int64` would pay the column lookup twice, and this is the row-reading
        // hot path. The value is "unprotected": SQLite only promises thread safety for such a value
        // under the connection's mutex, and a Database (multi-thread mode, no mutex) is used by one
        // thread at a time anyway. It stays valid until the next step, reset or finalize, and is
        // read before returning. https://www.sqlite.org/c3ref/column_blob.html
        guard let value = sqlite3_column_value(handle, Int32(index)) else { return .null }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT: return Statement.text(of: value)
        case SQLITE_BLOB: return Statement.blob(of: value)
        default: return .null
        }
    }

    /// A TEXT value: `.text` when it is valid UTF-8, else `.blob` of its bytes. A `String` cannot
    /// hold invalid UTF-8 (decoding would replace it with U+FFFD, and writing that back would
    /// change bytes the code never touched), so such text reads as bytes: as `Data` or
    /// `[UInt8]`, not as `String` (a ``RowDecodingError``).
    @usableFromInline
    static func text(of value: OpaquePointer) -> SQLValue {
        // "The safest policy is to invoke sqlite3_column_text() [or _blob()] first, then
        // sqlite3_column_bytes()": the byte count is then that of the returned buffer.
        guard let p = sqlite3_value_text(value) else { return .text("") }
        let count = Int(sqlite3_value_bytes(value))
        if let string = validUTF8(p, count: count) { return .text(string) }
        return .blob([UInt8](UnsafeBufferPointer(start: p, count: count)))
    }

    /// The string of `count` bytes at `p`, or nil when they are not valid UTF-8.
    ///
    /// Valid UTF-8 decodes to the same bytes, and a repaired decoding (U+FFFD for each invalid
    /// sequence) never does: decoding and comparing the bytes (a `memcmp`) costs less than the
    /// standard library's validating initializer, which takes a slow path for buffers.
    @usableFromInline
    static func validUTF8(_ p: UnsafePointer<UInt8>, count: Int) -> String? {
        var string = String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
        let same = string.withUTF8 { decoded in
            guard decoded.count == count else { return false }
            guard count > 0, let base = decoded.baseAddress else { return true }
            return memcmp(base, p, count) == 0
        }
        return same ? string : nil
    }

    @usableFromInline
    static func blob(of value: OpaquePointer) -> SQLValue {
        // A zero-length blob has a NULL pointer but is still a blob.
        guard let p = sqlite3_value_blob(value) else { return .blob([]) }
        let count = Int(sqlite3_value_bytes(value))
        return .blob([UInt8](UnsafeRawBufferPointer(start: p, count: count)))
    }

    // MARK: Fetching

    /// All rows, copied.
    ///
    /// ```swift
    /// let rows = try stmt.fetchAll(arguments: [42])
    /// ```
    public func fetchAll(arguments: StatementArguments = StatementArguments()) throws -> [Row] {
        try bind(arguments)
        var rows = [Row]()
        defer { resetHandle() }
        while try step() { rows.append(currentRow()) }
        return rows
    }

    /// The first row, or nil.
    ///
    /// ```swift
    /// let row = try stmt.fetchOne(arguments: [42])
    /// ```
    public func fetchOne(arguments: StatementArguments = StatementArguments()) throws -> Row? {
        try bind(arguments)
        defer { resetHandle() }
        return try step() ? currentRow() : nil
    }

    /// A lazy cursor over the rows: one row is read per ``RowCursor/next()``.
    ///
    /// ```swift
    /// let cursor = try stmt.fetchCursor()
    /// while let row = try cursor.next() { ... }
    /// ```
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
        guard try step() else { return }
        let row = StatementRow(statement: self)
        repeat { try body(row) } while try step()
    }

    /// A copy of the current row.
    ///
    /// ```swift
    /// if try stmt.step() { rows.append(stmt.currentRow()) }
    /// ```
    public func currentRow() -> Row {
        Row(columns: columns, values: (0..<columnCount).map { columnValue(at: $0) }, sourceSQL: sql)
    }
}

/// Copies of a statement's current row into one reused buffer, for the loops that are done with
/// each row before the next step (the record fetch loops calling `init(row:)`): no allocation per
/// row. A row its consumer keeps keeps its values: the next copy then goes to a new buffer (the
/// array is copied on write). Made after the first step (the columns are then final: SQLite
/// recompiles a statement only when a run starts) and used while the statement is alive.
struct ReusedRowCopier {
    private let handle: OpaquePointer
    private let columns: ColumnNames
    private let sql: String
    private let count: Int
    private var buffer: [SQLValue] = []

    init(statement: Statement) {
        handle = statement.handle
        columns = statement.columns
        sql = statement.sql
        count = columns.names.count
        buffer.reserveCapacity(count)
    }

    /// The current row, as ``Statement/currentRow()`` gives it.
    @inline(__always)
    mutating func currentRow() -> Row {
        buffer.removeAll(keepingCapacity: true)
        for index in 0..<count { buffer.append(Statement.columnValue(handle, at: index)) }
        return Row(columns: columns, values: buffer, sourceSQL: sql)
    }
}

// A statement is tied to its connection's isolation domain, like ``Database``.
@available(*, unavailable, message: "a Statement is used by one task at a time, like its Database")
extension Statement: Sendable {}
