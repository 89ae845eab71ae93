/// Records of a query decoded one at a time: nothing is read ahead.
///
/// ```swift
/// let cursor = try Note.fetchCursor(db, sql: "SELECT * FROM note ORDER BY createdAt")
/// while let note = try cursor.next() {
///     if note.title == "stop" { break }   // the remaining rows are never read
/// }
/// ```
///
/// The same name as GRDB's. Like ``RowCursor``, it steps its own statement and is used by one
/// task at a time.
public final class RecordCursor<Record: FetchableRecord> {
    /// The statement the rows come from.
    public let statement: Statement
    private var done = false
    private var started = false
    private var fast: StatementRecordDecoder<Record>?
    /// The rows of a request with included associations, assembled batch by batch.
    private let assembled: AssembledRows?
    private var copier: ReusedRowCopier?

    init(statement: Statement, assembled: AssembledRows? = nil) {
        self.statement = statement
        self.assembled = assembled
    }

    /// The next record, or nil at the end.
    ///
    /// ```swift
    /// let first = try cursor.next()
    /// ```
    public func next() throws -> Record? {
        if let assembled { return try assembled.next().map(Record.init(row:)) }
        if done { return nil }
        if try statement.step() {
            if let fast { return try fast.decode() }
            // Optional chaining mutates the copier in place, so its buffer is reused.
            if let row = copier?.currentRow() { return try Record(row: row) }
            let record = try Record(row: statement.currentRow())
            if !started {
                started = true
                fast = StatementRecordDecoder(statement: statement)
                if fast == nil { copier = ReusedRowCopier(statement: statement) }
            }
            return record
        }
        done = true
        statement.reset()
        return nil
    }

    /// Reads the remaining records into an array.
    ///
    /// ```swift
    /// let rest = try cursor.collect()
    /// ```
    public func collect() throws -> [Record] {
        var records = [Record]()
        while let record = try next() { records.append(record) }
        return records
    }
}

@available(*, unavailable, message: "a RecordCursor steps a Statement, which is used by one task at a time")
extension RecordCursor: Sendable {}
