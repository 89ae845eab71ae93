/// The `...AndFetch` methods: the write and the row as SQLite stored it (defaults, generated
/// columns, BEFORE triggers and column affinity applied), in one statement with `RETURNING`
/// (SQLite 3.35; older versions throw ``RecordError/Code/unsupportedBySQLite`` before any
/// callback runs). GRDB's names and meaning. See <https://www.sqlite.org/lang_returning.html>.
extension MutablePersistableRecord {
    /// Inserts the record and returns the inserted row, decoded (`INSERT ... RETURNING *`).
    ///
    /// ```swift
    /// let note = try Note(id: nil, title: "Groceries").insertAndFetch(db)
    /// print(note.id!)   // the id SQLite chose
    /// ```
    public func insertAndFetch(_ db: Database) throws -> Self where Self: FetchableRecord {
        var record = self
        return try record.insertAndFetch(db, as: Self.self)
    }

    /// Inserts the record (``didInsert(_:)`` is called) and returns the inserted row as a `T`.
    ///
    /// ```swift
    /// let summary = try note.insertAndFetch(db, as: NoteSummary.self)
    /// ```
    public mutating func insertAndFetch<T: FetchableRecord & TableRecord>(_ db: Database, as type: T.Type) throws -> T {
        try db.requireReturning(for: Self.self, operation: "insertAndFetch")
        let row: Row? = try db.persistenceUnit {
            try willSave(db)
            var result: (InsertionSuccess, Row?)?
            try aroundSave(db) {
                let done = try insertWithCallbacks(
                    db, returning: (T.databaseSelection, "insertAndFetch"))
                result = done
                return PersistenceSuccess(done.0)
            }
            guard let result else { throw callbackMisuse("aroundSave") }
            didSave(PersistenceSuccess(result.0))
            return result.1
        }
        return try db.decodeReturned(T.self, row, recordType: Self.self, operation: "insertAndFetch")
    }

    /// Saves the record (see ``save(_:)``) and returns the saved row, decoded.
    ///
    /// ```swift
    /// let stored = try note.saveAndFetch(db)
    /// ```
    public func saveAndFetch(_ db: Database) throws -> Self where Self: FetchableRecord {
        var record = self
        return try record.saveAndFetch(db, as: Self.self)
    }

    /// Saves the record and returns the saved row as a `T`.
    ///
    /// ```swift
    /// let summary = try note.saveAndFetch(db, as: NoteSummary.self)
    /// ```
    public mutating func saveAndFetch<T: FetchableRecord & TableRecord>(_ db: Database, as type: T.Type) throws -> T {
        try db.requireReturning(for: Self.self, operation: "saveAndFetch")
        let row = try saveWithSaveCallbacks(db, returning: (T.databaseSelection, "saveAndFetch"))
        return try db.decodeReturned(T.self, row, recordType: Self.self, operation: "saveAndFetch")
    }

    /// Updates every column of the record's row (see ``update(_:)``) and returns the updated
    /// row, decoded (`UPDATE ... RETURNING *`).
    ///
    /// ```swift
    /// note.title = "Shopping"
    /// let stored = try note.updateAndFetch(db)
    /// ```
    public func updateAndFetch(_ db: Database) throws -> Self where Self: FetchableRecord {
        try updateAndFetch(db, as: Self.self)
    }

    /// Updates the record's row and returns it as a `T`.
    ///
    /// ```swift
    /// let summary = try note.updateAndFetch(db, as: NoteSummary.self)
    /// ```
    public func updateAndFetch<T: FetchableRecord & TableRecord>(_ db: Database, as type: T.Type) throws -> T {
        try db.requireReturning(for: Self.self, operation: "updateAndFetch")
        let row = try updateWithSaveCallbacks(db, columns: nil, returning: T.databaseSelection)
        return try db.decodeReturned(T.self, row, recordType: Self.self, operation: "updateAndFetch")
    }

    /// Upserts the record (see ``upsert(_:)`` and ``upsert(_:onConflict:updating:doUpdate:)``)
    /// and returns the inserted or updated row, decoded (`INSERT ... ON CONFLICT ... DO UPDATE
    /// ... RETURNING *`).
    ///
    /// ```swift
    /// let stored = try note.upsertAndFetch(db)                       // any unique key
    /// let counted = try note.upsertAndFetch(db, onConflict: ["uuid"]) { _ in
    ///     [.set("visits", to: "visits + 1")]
    /// }
    /// ```
    public mutating func upsertAndFetch(
        _ db: Database, onConflict target: [String] = [], updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: UpsertExcluded) -> [ColumnAssignment])? = nil
    ) throws -> Self where Self: FetchableRecord {
        try upsertAndFetch(db, as: Self.self, onConflict: target, updating: strategy, doUpdate: assignments)
    }

    /// Upserts the record and returns the inserted or updated row as a `T`.
    ///
    /// ```swift
    /// let summary = try note.upsertAndFetch(db, as: NoteSummary.self)
    /// ```
    public mutating func upsertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, as type: T.Type, onConflict target: [String] = [],
        updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: UpsertExcluded) -> [ColumnAssignment])? = nil
    ) throws -> T {
        try db.requireReturning(for: Self.self, operation: "upsertAndFetch")
        let row = try upsertWithSaveCallbacks(
            db, target: target, strategy: strategy, doUpdate: assignments, returning: T.databaseSelection)
        return try db.decodeReturned(T.self, row, recordType: Self.self, operation: "upsertAndFetch")
    }
}

extension Database {
    /// Throws ``RecordError/Code/unsupportedBySQLite`` naming `operation` before SQLite 3.35.
    func requireReturning(for recordType: any TableRecord.Type, operation: String) throws {
        guard !capabilities.supportsReturning else { return }
        throw RecordError(
            code: .unsupportedBySQLite, recordType: "\(recordType)", tableName: recordType.databaseTableName,
            message: "\(operation) needs SQLite 3.35 or later (RETURNING); this connection has \(capabilities.version)")
    }

    /// The returned row, decoded.
    func decodeReturned<T: FetchableRecord>(
        _ type: T.Type, _ row: Row?, recordType: any TableRecord.Type, operation: String
    ) throws -> T {
        guard let row else {
            throw RecordError(
                code: .recordNotFound, recordType: "\(recordType)", tableName: recordType.databaseTableName,
                message: "\(operation) on table \"\(recordType.databaseTableName)\" returned no row")
        }
        return try T(row: row)
    }
}
