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
///
/// ## Persistence callbacks
///
/// The callbacks have GRDB's names and are called in GRDB's order. Each `around` callback must
/// call its function once and rethrow its error; one that does not is reported with
/// ``RecordError/Code/callbackMisuse``.
///
/// - `insert`: `willSave`, `aroundSave` { `willInsert`, `aroundInsert` { INSERT }, `didInsert` }, `didSave`
/// - `update`: `willSave`, `aroundSave` { `willUpdate`, `aroundUpdate` { UPDATE }, `didUpdate` }, `didSave`
/// - `save`: `willSave`, `aroundSave` { the update's callbacks; when no row has the key (or it
///   is NULL), the insert's callbacks }, `didSave`. When the update finds no row, `willUpdate`
///   and the start of `aroundUpdate` have run and `didUpdate` is not called.
/// - `upsert`: as `insert` (the row may have been updated: `didInsert` gets its rowid).
/// - `delete`: `willDelete`, `aroundDelete` { DELETE }, `didDelete`.
///
/// A callback that throws stops the operation: a `will` callback throws before anything is
/// written. When the connection is not in a transaction, the whole operation (callbacks
/// included) runs in a savepoint, so an error thrown after the statement (by an `around`
/// callback) leaves nothing written either; inside a transaction, the transaction's owner
/// rolls back (as `DatabaseQueue.write` and `DatabasePool.write` do on error).
/// See <https://www.sqlite.org/lang_insert.html>, <https://www.sqlite.org/lang_update.html>.
public protocol MutablePersistableRecord: EncodableRecord, TableRecord {
    // MARK: Insertion callbacks

    /// Called before the record is inserted (by `insert`, `save` when it inserts, `upsert`);
    /// may change the record (set a creation date) and may throw to stop the insert.
    ///
    /// ```swift
    /// mutating func willInsert(_ db: Database) throws { createdAt = Date() }
    /// ```
    mutating func willInsert(_ db: Database) throws

    /// Wraps the insert: call `insert` exactly once, and rethrow its error.
    ///
    /// ```swift
    /// func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
    ///     let inserted = try insert()
    ///     print("inserted", inserted.rowID)
    /// }
    /// ```
    func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws

    /// Called after a successful insert (or upsert) with the rowid of the row: the place to
    /// take an auto-incremented id. Does nothing by default.
    ///
    /// ```swift
    /// mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    /// ```
    mutating func didInsert(_ inserted: InsertionSuccess)

    // MARK: Update callbacks

    /// Called before the record's row is updated, with the columns about to be written.
    ///
    /// ```swift
    /// func willUpdate(_ db: Database, columns: Set<String>) throws {
    ///     if columns.contains("id") { throw CancellationError() }
    /// }
    /// ```
    func willUpdate(_ db: Database, columns: Set<String>) throws

    /// Wraps the update: call `update` exactly once, and rethrow its error.
    ///
    /// ```swift
    /// func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
    ///     _ = try update()
    /// }
    /// ```
    func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws

    /// Called after a successful update.
    ///
    /// ```swift
    /// func didUpdate(_ updated: PersistenceSuccess) { print("updated") }
    /// ```
    func didUpdate(_ updated: PersistenceSuccess)

    // MARK: Save callbacks

    /// Called before any insert, update, save or upsert; may throw to stop it.
    ///
    /// ```swift
    /// func willSave(_ db: Database) throws {
    ///     if title.isEmpty { throw ValidationError.emptyTitle }
    /// }
    /// ```
    func willSave(_ db: Database) throws

    /// Wraps an insert, update, save or upsert: call `save` exactly once, and rethrow its error.
    ///
    /// ```swift
    /// func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
    ///     _ = try save()
    /// }
    /// ```
    func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws

    /// Called after a successful insert, update, save or upsert.
    ///
    /// ```swift
    /// func didSave(_ saved: PersistenceSuccess) { print("saved") }
    /// ```
    func didSave(_ saved: PersistenceSuccess)

    // MARK: Deletion callbacks

    /// Called before the record's row is deleted; may throw to stop the deletion.
    ///
    /// ```swift
    /// func willDelete(_ db: Database) throws { }
    /// ```
    func willDelete(_ db: Database) throws

    /// Wraps the deletion: call `delete` exactly once, and rethrow its error.
    ///
    /// ```swift
    /// func aroundDelete(_ db: Database, delete: () throws -> Bool) throws {
    ///     _ = try delete()
    /// }
    /// ```
    func aroundDelete(_ db: Database, delete: () throws -> Bool) throws

    /// Called after the deletion: `deleted` is false when no row had the record's key.
    ///
    /// ```swift
    /// func didDelete(deleted: Bool) { print(deleted) }
    /// ```
    func didDelete(deleted: Bool)
}

extension MutablePersistableRecord {
    /// Does nothing.
    @inlinable
    public mutating func willInsert(_ db: Database) throws {}
    /// Calls `insert`.
    @inlinable
    public func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws { _ = try insert() }
    /// Does nothing.
    @inlinable
    public mutating func didInsert(_ inserted: InsertionSuccess) {}
    /// Does nothing.
    public func willUpdate(_ db: Database, columns: Set<String>) throws {}
    /// Calls `update`.
    public func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
        _ = try update()
    }
    /// Does nothing.
    public func didUpdate(_ updated: PersistenceSuccess) {}
    /// Does nothing.
    @inlinable
    public func willSave(_ db: Database) throws {}
    /// Calls `save`.
    @inlinable
    public func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws { _ = try save() }
    /// Does nothing.
    @inlinable
    public func didSave(_ saved: PersistenceSuccess) {}
    /// Does nothing.
    public func willDelete(_ db: Database) throws {}
    /// Calls `delete`.
    public func aroundDelete(_ db: Database, delete: () throws -> Bool) throws { _ = try delete() }
    /// Does nothing.
    public func didDelete(deleted: Bool) {}
}

/// A record that can be inserted, updated, saved, upserted and deleted without changing: a class,
/// or a struct whose key is not auto-incremented. The same name and meaning as GRDB's
/// `PersistableRecord`: its insertion callbacks do not mutate.
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
    /// Called before the record is inserted; may throw to stop the insert. Does nothing by default.
    ///
    /// ```swift
    /// func willInsert(_ db: Database) throws { }
    /// ```
    func willInsert(_ db: Database) throws

    /// Called after a successful insert (or upsert). Does nothing by default.
    ///
    /// ```swift
    /// func didInsert(_ inserted: InsertionSuccess) { print("rowid", inserted.rowID) }
    /// ```
    func didInsert(_ inserted: InsertionSuccess)
}

extension PersistableRecord {
    /// Does nothing.
    @inlinable
    public func willInsert(_ db: Database) throws {}
    /// Does nothing.
    @inlinable
    public func didInsert(_ inserted: InsertionSuccess) {}
}
