/// Key methods for `Identifiable` records: the `id` is the value of the table's one-column
/// primary key (a composite key throws ``RecordError/Code/invalidKey``). A `nil` id (for
/// `Int64?` ids) finds nothing. GRDB's names.
extension TableRecord where Self: Identifiable, ID: SQLValueConvertible {
    /// True when a row has primary key `id`.
    ///
    /// ```swift
    /// if try Note.exists(db, id: 42) { ... }
    /// ```
    public static func exists(_ db: Database, id: ID) throws -> Bool {
        try exists(db, key: id)
    }

    /// Deletes the row with primary key `id`; true when there was one.
    ///
    /// ```swift
    /// try Note.deleteOne(db, id: 42)
    /// ```
    @discardableResult
    public static func deleteOne(_ db: Database, id: ID) throws -> Bool {
        try deleteOne(db, key: id)
    }

    /// Deletes the rows with the given primary keys; returns how many.
    ///
    /// ```swift
    /// try Note.deleteAll(db, ids: [1, 2, 3])
    /// ```
    @discardableResult
    public static func deleteAll(_ db: Database, ids: some Collection<ID>) throws -> Int {
        try deleteAll(db, keys: ids)
    }
}

extension FetchableRecord where Self: TableRecord & Identifiable, ID: SQLValueConvertible {
    /// The record with primary key `id`, or nil.
    ///
    /// ```swift
    /// let note = try Note.fetchOne(db, id: 42)
    /// ```
    public static func fetchOne(_ db: Database, id: ID) throws -> Self? {
        try fetchOne(db, key: id)
    }

    /// The records with the given primary keys, in no particular order; missing ids are skipped.
    ///
    /// ```swift
    /// let notes = try Note.fetchAll(db, ids: [1, 2, 3])
    /// ```
    public static func fetchAll(_ db: Database, ids: some Collection<ID>) throws -> [Self] {
        try fetchAll(db, keys: ids)
    }
}
