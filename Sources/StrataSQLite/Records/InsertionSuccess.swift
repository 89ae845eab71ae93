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

/// What an insert, update, save or upsert reports to ``MutablePersistableRecord/didUpdate(_:)``,
/// ``MutablePersistableRecord/didSave(_:)`` and the `around` callbacks: the values written.
/// The same name and meaning as GRDB's `PersistenceSuccess`.
///
/// ```swift
/// func didSave(_ saved: PersistenceSuccess) {
///     print(saved.persistenceContainer[value: "title"] ?? .null)
/// }
/// ```
public struct PersistenceSuccess: Sendable {
    /// The columns and values of the record; after an insert, the rowid column holds the rowid.
    public var persistenceContainer: PersistenceContainer

    /// A success report. Strata creates these; tests may too.
    ///
    /// ```swift
    /// PersistenceSuccess(persistenceContainer: PersistenceContainer())
    /// ```
    public init(persistenceContainer: PersistenceContainer) {
        self.persistenceContainer = persistenceContainer
    }

    /// The report of an insert.
    ///
    /// ```swift
    /// let saved = PersistenceSuccess(inserted)
    /// ```
    public init(_ inserted: InsertionSuccess) {
        self.persistenceContainer = inserted.persistenceContainer
    }
}
