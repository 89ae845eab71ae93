/// The primary key of a table, as the record methods use it.
///
/// ```swift
/// let pk = try db.primaryKey("note")
/// pk.columns        // ["id"]
/// pk.rowIDColumn    // "id": an INTEGER PRIMARY KEY is the rowid
/// ```
///
/// A table without an explicit primary key is keyed by its rowid (``columns`` is `["rowid"]`).
/// See <https://www.sqlite.org/lang_createtable.html#rowid>.
public struct PrimaryKeyInfo: Sendable, Hashable {
    /// The key columns, in key order.
    public let columns: [String]
    /// The column that holds the rowid: the `INTEGER PRIMARY KEY` column, or `rowid` (or
    /// `_rowid_`, `oid` when a column takes that name) when the table has no explicit primary
    /// key; nil when the key is not the rowid.
    public let rowIDColumn: String?
    /// False for a WITHOUT ROWID table.
    public let tableHasRowID: Bool

    /// True when the key is the rowid, explicit (`INTEGER PRIMARY KEY`) or hidden.
    public var isRowID: Bool { rowIDColumn != nil }

    /// A primary key description.
    ///
    /// ```swift
    /// PrimaryKeyInfo(columns: ["id"], rowIDColumn: "id", tableHasRowID: true)
    /// ```
    public init(columns: [String], rowIDColumn: String?, tableHasRowID: Bool) {
        self.columns = columns
        self.rowIDColumn = rowIDColumn
        self.tableHasRowID = tableHasRowID
    }
}

extension Database {
    /// The primary key of `table`, read from the database (`PRAGMA table_info`) and cached for the
    /// connection until the schema changes (`PRAGMA schema_version`). Throws an ``SQLiteError``
    /// when there is no such table.
    ///
    /// ```swift
    /// try db.execute(sql: "CREATE TABLE tag(name TEXT PRIMARY KEY, lang TEXT) WITHOUT ROWID")
    /// let pk = try db.primaryKey("tag")   // columns ["name"], no rowid
    /// ```
    /// See <https://www.sqlite.org/pragma.html#pragma_table_info>.
    public func primaryKey(_ table: String) throws -> PrimaryKeyInfo {
        try recordTable(table, validate: true).primaryKey
    }
}
