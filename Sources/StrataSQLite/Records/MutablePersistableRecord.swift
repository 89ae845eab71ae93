/// A record that can be inserted, updated, saved, upserted and deleted, and may change on insert
/// (to take its auto-incremented id).
///
/// ```swift
/// struct Note: Codable, FetchableRecord, MutablePersistableRecord {
///     var id: Int64?
///     var title: String
///     mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
/// }
/// var note = Note(id: nil, title: "Groceries")
/// try note.insert(db)          // note.id is set
/// note.title = "Shopping"
/// try note.update(db)
/// try note.delete(db)
/// ```
///
/// The table is ``TableRecord/databaseTableName``; the row is found by the table's primary key,
/// read from the database (a table without one is keyed by its rowid). The same name and meaning
/// as GRDB's `MutablePersistableRecord`.
/// See <https://www.sqlite.org/lang_insert.html>, <https://www.sqlite.org/lang_update.html>.
public protocol MutablePersistableRecord: EncodableRecord, TableRecord {
    /// Called after a successful insert (or upsert) with the rowid of the row: the place to
    /// take an auto-incremented id. Does nothing by default.
    ///
    /// ```swift
    /// mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    /// ```
    mutating func didInsert(_ inserted: InsertionSuccess)
}

extension MutablePersistableRecord {
    /// Does nothing.
    public mutating func didInsert(_ inserted: InsertionSuccess) {}
}

/// A record that can be inserted, updated, saved, upserted and deleted without changing: a class,
/// or a struct whose key is not auto-incremented. The same name and meaning as GRDB's
/// `PersistableRecord`.
///
/// ```swift
/// struct Tag: Codable, FetchableRecord, PersistableRecord {
///     var name: String   // TEXT PRIMARY KEY
///     var color: String
/// }
/// let tag = Tag(name: "urgent", color: "red")
/// try tag.insert(db)
/// ```
public protocol PersistableRecord: MutablePersistableRecord {
    /// Called after a successful insert (or upsert). Does nothing by default.
    ///
    /// ```swift
    /// func didInsert(_ inserted: InsertionSuccess) { print("rowid", inserted.rowID) }
    /// ```
    func didInsert(_ inserted: InsertionSuccess)
}

extension PersistableRecord {
    /// Does nothing.
    public func didInsert(_ inserted: InsertionSuccess) {}
}
