/// What an insert reports to ``MutablePersistableRecord/didInsert(_:)``: the rowid of the new
/// row, and the values inserted.
///
/// ```swift
/// mutating func didInsert(_ inserted: InsertionSuccess) {
///     id = inserted.rowID
/// }
/// ```
///
/// For a WITHOUT ROWID table, ``rowID`` is meaningless (SQLite's last insert rowid is unchanged
/// by such inserts). See <https://www.sqlite.org/c3ref/last_insert_rowid.html>.
public struct InsertionSuccess: Sendable {
    /// The rowid of the inserted row: its `INTEGER PRIMARY KEY` when the table has one.
    public var rowID: Int64
    /// The column holding the rowid (the `INTEGER PRIMARY KEY` column, or `rowid` for a table
    /// without one), nil for a WITHOUT ROWID table or a primary key that is not the rowid.
    public var rowIDColumn: String?
    /// The columns and values inserted, the rowid column set to ``rowID``.
    public var persistenceContainer: PersistenceContainer

    /// A success report. Strata creates these; tests may too.
    ///
    /// ```swift
    /// InsertionSuccess(rowID: 1, rowIDColumn: "id", persistenceContainer: PersistenceContainer())
    /// ```
    public init(rowID: Int64, rowIDColumn: String?, persistenceContainer: PersistenceContainer) {
        self.rowID = rowID
        self.rowIDColumn = rowIDColumn
        self.persistenceContainer = persistenceContainer
    }
}
