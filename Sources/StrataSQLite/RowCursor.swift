/// The current row of a running ``Statement``, read in place (no copy).
///
/// ```swift
/// try stmt.forEachRow { row in
///     let name: String = try row["name"]
/// }
/// ```
///
/// Valid only while the statement stays on that row; ``copy()`` keeps it.
public struct StatementRow: RowReader {
    @usableFromInline let statement: Statement
    /// The statement's columns, resolved once for the whole run: made after the run's first step,
    /// when SQLite has recompiled the statement if it had to (it only does so as a run starts),
    /// so the names and their count cannot change while the rows are read.
    @usableFromInline let columns: ColumnNames
    @usableFromInline let count: Int
    @usableFromInline init(statement: Statement) {
        self.statement = statement
        self.columns = statement.columns
        self.count = statement.columnCount
    }
    /// Number of columns.
    @inlinable public var columnCount: Int { count }
    /// The name of each column.
    public var columnNames: [String] { columns.names }
    /// The raw value of the column at `index`.
    @inlinable public func value(at index: Int) -> SQLValue { statement.columnValue(at: index) }
    /// The index of the column named `name`, case-insensitive.
    @inlinable public func index(ofColumn name: String) -> Int? { columns.index(of: name) }
    /// The statement's SQL.
    public var sourceSQL: String? { statement.sql }
    /// A copy that outlives the step.
    public func copy() -> Row { statement.currentRow() }
}

@available(*, unavailable, message: "a StatementRow reads from a Statement, which is used by one task at a time")
extension StatementRow: Sendable {}

/// Rows of a statement read one at a time: nothing is loaded ahead.
///
/// ```swift
/// let cursor = try db.fetchCursor(sql: "SELECT * FROM big")
/// while let row = try cursor.next() {
///     if done(row) { break }   // the remaining rows are never computed
/// }
/// ```
public final class RowCursor {
    /// The statement the rows come from.
    public let statement: Statement
    private var done = false
    /// The rows of a request with included associations, assembled batch by batch.
    private let assembled: AssembledRows?

    init(statement: Statement, assembled: AssembledRows? = nil) {
        self.statement = statement
        self.assembled = assembled
    }

    /// The next row, or nil at the end.
    ///
    /// ```swift
    /// let first = try cursor.next()
    /// ```
    public func next() throws -> Row? {
        if let assembled { return try assembled.next() }
        if done { return nil }
        if try statement.step() { return statement.currentRow() }
        done = true
        statement.reset()
        return nil
    }

    /// Reads the remaining rows into an array.
    ///
    /// ```swift
    /// let rest = try cursor.collect()
    /// ```
    public func collect() throws -> [Row] {
        var rows = [Row]()
        while let row = try next() { rows.append(row) }
        return rows
    }
}

@available(*, unavailable, message: "a RowCursor steps a Statement, which is used by one task at a time")
extension RowCursor: Sendable {}
