extension MutablePersistableRecord {
    /// Inserts the record (`INSERT INTO note (...) VALUES (...)`), then calls
    /// ``didInsert(_:)`` with the new rowid. Callbacks: `willSave`, `aroundSave` { `willInsert`,
    /// `aroundInsert` { INSERT }, `didInsert` }, `didSave`.
    ///
    /// ```swift
    /// var note = Note(id: nil, title: "Groceries")
    /// try note.insert(db)   // note.id is now set
    /// ```
    ///
    /// The prepared statement is cached per connection, table and column list: inserting many
    /// records in a transaction compiles it once. A constraint violation throws ``SQLiteError``.
    /// See <https://www.sqlite.org/lang_insert.html>.
    @inlinable
    public mutating func insert(_ db: Database) throws {
        try performInsert(db)
    }

    /// The insert with its callbacks (the implementation of both `insert` methods). Inlinable,
    /// so that the callback chain is specialized for the record type in the caller: run as
    /// generic code, its closures, default callbacks and copies of the record cost about 3,600
    /// instructions per insert of a 14-column record (case 8b of the benchmarks).
    @inlinable
    mutating func performInsert(_ db: Database) throws {
        try db.persistenceUnit {
            try willSave(db)
            var saved: PersistenceSuccess?
            try aroundSave(db) {
                let (inserted, _) = try insertWithCallbacks(db, returning: nil)
                let success = PersistenceSuccess(inserted)
                saved = success
                return success
            }
            guard let saved else { throw callbackMisuse("aroundSave") }
            didSave(saved)
        }
    }

    /// A copy of the record, inserted (with its auto-incremented id, through ``didInsert(_:)``).
    ///
    /// ```swift
    /// let note = try Note(id: nil, title: "Groceries").inserted(db)
    /// print(note.id!)
    /// ```
    @inlinable
    public func inserted(_ db: Database) throws -> Self {
        var record = self
        try record.insert(db)
        return record
    }

    /// Updates every column the record encodes, but its primary key (`UPDATE note SET ... WHERE
    /// id = ?`). Throws ``RecordError`` of code ``RecordError/Code/recordNotFound`` when no row
    /// has the record's key (or the key is NULL). Callbacks: `willSave`, `aroundSave` {
    /// `willUpdate`, `aroundUpdate` { UPDATE }, `didUpdate` }, `didSave`.
    ///
    /// A TEXT or BLOB value whose bytes equal those stored is left as stored: writing back a
    /// value read as `Data` from a TEXT column (text that is not UTF-8, say) does not turn it
    /// into a BLOB. To write only what changed, use ``updateChanges(_:from:)`` or
    /// ``updateChanges(_:modify:)``.
    ///
    /// ```swift
    /// note.title = "Shopping"
    /// try note.update(db)
    /// ```
    /// See <https://www.sqlite.org/lang_update.html>.
    public func update(_ db: Database) throws {
        _ = try updateWithSaveCallbacks(db, columns: nil, returning: nil)
    }

    /// Updates only `columns` of the record's row (names compared without regard to case). A
    /// column the record does not encode throws ``RecordError/Code/unknownColumn``; no row with
    /// the record's key throws ``RecordError/Code/recordNotFound``.
    ///
    /// ```swift
    /// note.title = "Shopping"
    /// try note.update(db, columns: ["title"])
    /// ```
    public func update(_ db: Database, columns: some Collection<String>) throws {
        _ = try updateWithSaveCallbacks(db, columns: Array(columns), returning: nil)
    }

    /// Updates the record's row when the record has a key and the row exists, else inserts it
    /// (and ``didInsert(_:)`` is called). Callbacks: `willSave`, `aroundSave` { the update's
    /// callbacks, then, when no row has the key, the insert's }, `didSave`.
    ///
    /// ```swift
    /// try note.save(db)
    /// ```
    public mutating func save(_ db: Database) throws {
        _ = try saveWithSaveCallbacks(db, returning: nil)
    }

    /// The save with its callbacks (the implementation of both `save` methods).
    mutating func performSave(_ db: Database) throws {
        _ = try saveWithSaveCallbacks(db, returning: nil)
    }

    /// A copy of the record, saved (with its auto-incremented id when it was inserted).
    ///
    /// ```swift
    /// let note = try Note(id: nil, title: "Groceries").saved(db)
    /// ```
    public func saved(_ db: Database) throws -> Self {
        var record = self
        try record.save(db)
        return record
    }

    /// Inserts the record, or, when the insert would violate a uniqueness constraint, updates
    /// the row it conflicts with: every column the record encodes but the primary key is
    /// overwritten. Then calls ``didInsert(_:)`` with that row's rowid (so a record upserted on
    /// its `uuid` takes the id of the row it updated). Callbacks: as ``insert(_:)``.
    ///
    /// Which constraints: from SQLite 3.35, `INSERT ... ON CONFLICT DO UPDATE` without conflict
    /// target, which fires on any uniqueness constraint: the primary key (or rowid), UNIQUE
    /// column and table constraints, and unique indexes, partial and expression ones included.
    /// NOT NULL, CHECK and foreign key constraints are not handled (they throw ``SQLiteError``).
    /// One row is updated: the first whose constraint SQLite finds violated (the primary key
    /// first); when the new values also clash with another row, the update fails with SQLite's
    /// `UNIQUE constraint failed` and nothing changes. Before SQLite 3.35, which requires a
    /// conflict target for DO UPDATE and allows one ON CONFLICT clause, a table whose only
    /// uniqueness constraint is its primary key is upserted on it (the same behaviour); a table
    /// with another unique index throws ``RecordError/Code/unsupportedBySQLite`` naming the
    /// indexes: choose one with ``upsert(_:onConflict:updating:doUpdate:)``.
    ///
    /// ```swift
    /// var note = Note(id: nil, uuid: "9F2C...", title: "Groceries")
    /// try note.upsert(db)   // inserted, or the row with that uuid updated; note.id is its id
    /// ```
    /// See <https://www.sqlite.org/lang_upsert.html>.
    public mutating func upsert(_ db: Database) throws {
        _ = try upsertWithSaveCallbacks(db, target: [], strategy: .allColumns, doUpdate: nil, returning: nil)
    }

    /// Inserts the record, or, on a conflict on the unique key `target` (the primary key or a
    /// unique index without WHERE clause; `[]` means any uniqueness constraint, as
    /// ``upsert(_:)``), updates the existing row: `doUpdate`'s assignments are performed, and with
    /// ``UpsertUpdateStrategy/allColumns`` (the default) every other encoded column but the
    /// primary key and the target is overwritten. Any SQLite Strata supports (3.26+) runs it
    /// with a target. A target that is not a unique key throws
    /// ``RecordError/Code/invalidConflictTarget``.
    ///
    /// ```swift
    /// try note.upsert(db, onConflict: ["uuid"]) { excluded in
    ///     [.set("visits", to: "visits + 1"), .noOverwrite("createdAt")]
    /// }
    /// ```
    /// See <https://www.sqlite.org/lang_upsert.html>.
    public mutating func upsert(
        _ db: Database, onConflict target: [String], updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: UpsertExcluded) -> [ColumnAssignment])? = nil
    ) throws {
        _ = try upsertWithSaveCallbacks(
            db, target: target, strategy: strategy, doUpdate: assignments, returning: nil)
    }

    /// Deletes the record's row (`DELETE FROM note WHERE id = ?`); true when a row was deleted.
    /// Callbacks: `willDelete`, `aroundDelete` { DELETE }, `didDelete`.
    ///
    /// ```swift
    /// if try note.delete(db) { print("deleted") }
    /// ```
    /// See <https://www.sqlite.org/lang_delete.html>.
    @discardableResult
    public func delete(_ db: Database) throws -> Bool {
        try db.persistenceUnit {
            try willDelete(db)
            var deleted: Bool?
            try aroundDelete(db) {
                let result = try db.deleteRecord(self)
                deleted = result
                return result
            }
            guard let deleted else { throw callbackMisuse("aroundDelete") }
            didDelete(deleted: deleted)
            return deleted
        }
    }

    /// True when a row has the record's primary key.
    ///
    /// ```swift
    /// if try note.exists(db) { ... }
    /// ```
    public func exists(_ db: Database) throws -> Bool {
        try db.recordExists(self)
    }
}

extension PersistableRecord {
    /// Inserts the record, then calls the non-mutating ``didInsert(_:)``.
    ///
    /// ```swift
    /// try Tag(name: "urgent", color: "red").insert(db)
    /// ```
    /// See <https://www.sqlite.org/lang_insert.html>.
    @inlinable
    public func insert(_ db: Database) throws {
        var record = self
        try record.performInsert(db)
    }

    /// Updates the record's row when it exists, else inserts the record.
    ///
    /// ```swift
    /// try tag.save(db)
    /// ```
    public func save(_ db: Database) throws {
        var record = self
        try record.performSave(db)
    }

    /// Inserts the record, or updates the row it conflicts with (see
    /// ``MutablePersistableRecord/upsert(_:)``).
    ///
    /// ```swift
    /// try Tag(name: "urgent", color: "orange").upsert(db)
    /// ```
    /// See <https://www.sqlite.org/lang_upsert.html>.
    public func upsert(_ db: Database) throws {
        var record = self
        _ = try record.upsertWithSaveCallbacks(db, target: [], strategy: .allColumns, doUpdate: nil, returning: nil)
    }

    /// Inserts the record, or updates the row with the same values of `target` (see
    /// ``MutablePersistableRecord/upsert(_:onConflict:updating:doUpdate:)``).
    ///
    /// ```swift
    /// try Tag(name: "urgent", color: "orange").upsert(db, onConflict: ["name"])
    /// ```
    public func upsert(
        _ db: Database, onConflict target: [String], updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: UpsertExcluded) -> [ColumnAssignment])? = nil
    ) throws {
        var record = self
        _ = try record.upsertWithSaveCallbacks(
            db, target: target, strategy: strategy, doUpdate: assignments, returning: nil)
    }
}

// MARK: - Callback nesting

extension MutablePersistableRecord {
    /// `willInsert`, `aroundInsert` { INSERT }, `didInsert`. The record is encoded after
    /// `willInsert`, which may change it.
    @inlinable
    mutating func insertWithCallbacks(
        _ db: Database, returning: (selection: [SQLLiteral], operation: String)?
    ) throws -> (InsertionSuccess, Row?) {
        try willInsert(db)
        var result: (InsertionSuccess, Row?)?
        try aroundInsert(db) {
            let done: (InsertionSuccess, Row?)
            if let returning {
                let (inserted, row) = try db.insertRecordReturning(
                    self, selection: returning.selection, operation: returning.operation)
                done = (inserted, row)
            } else {
                done = (try db.insertRecord(self), nil)
            }
            result = done
            return done.0
        }
        guard let result else { throw callbackMisuse("aroundInsert") }
        didInsert(result.0)
        return result
    }

    /// `willUpdate`, `aroundUpdate` { UPDATE }, `didUpdate`.
    func updateWithCallbacks(
        _ db: Database, container: PersistenceContainer, table: RecordTable, columns: [String]?,
        returning: [SQLLiteral]?
    ) throws -> (PersistenceSuccess, Row?) {
        let written = try db.updatedColumns(Self.self, table: table, container: container, columns: columns).columns
        let columnSet = Set(written)
        try willUpdate(db, columns: columnSet)
        var result: (PersistenceSuccess, Row?)?
        try aroundUpdate(db, columns: columnSet) {
            let row = try db.updateRecord(
                self, container: container, columns: columns, table: table, returning: returning)
            let done = (PersistenceSuccess(persistenceContainer: container), row)
            result = done
            return done.0
        }
        guard let result else { throw callbackMisuse("aroundUpdate") }
        didUpdate(result.0)
        return result
    }

    /// `willSave`, `aroundSave` { update with callbacks }, `didSave`.
    func updateWithSaveCallbacks(
        _ db: Database, columns: [String]?, returning: [SQLLiteral]?
    ) throws -> Row? {
        try db.persistenceUnit {
            try willSave(db)
            // Encoded after willSave (non-mutating, but it may read the database).
            let table = try db.recordTable(Self.databaseTableName, validate: true)
            let container = try databaseContainer()
            var result: (PersistenceSuccess, Row?)?
            try aroundSave(db) {
                let done = try updateWithCallbacks(
                    db, container: container, table: table, columns: columns, returning: returning)
                result = done
                return done.0
            }
            guard let result else { throw callbackMisuse("aroundSave") }
            didSave(result.0)
            return result.1
        }
    }

    /// `willSave`, `aroundSave` { update with callbacks, or insert with callbacks }, `didSave`.
    mutating func saveWithSaveCallbacks(
        _ db: Database, returning: (selection: [SQLLiteral], operation: String)?
    ) throws -> Row? {
        try db.persistenceUnit {
            try willSave(db)
            var result: (PersistenceSuccess, Row?)?
            try aroundSave(db) {
                let done = try updateOrInsertWithCallbacks(db, returning: returning)
                result = done
                return done.0
            }
            guard let result else { throw callbackMisuse("aroundSave") }
            didSave(result.0)
            return result.1
        }
    }

    /// An update when the record has a non-NULL key and its row exists, else an insert.
    mutating func updateOrInsertWithCallbacks(
        _ db: Database, returning: (selection: [SQLLiteral], operation: String)?
    ) throws -> (PersistenceSuccess, Row?) {
        let table = try db.recordTable(Self.databaseTableName, validate: true)
        let container = try databaseContainer()
        if db.recordHasKey(Self.self, table: table, container: container) {
            let key = try db.keyOfRecord(Self.self, table: table, container: container)
            do {
                return try updateWithCallbacks(
                    db, container: container, table: table, columns: nil, returning: returning?.selection)
            } catch let error as RecordError
                where error.code == .recordNotFound && error.tableName == table.name
                && error.key == Dictionary(zip(key.columns, key.values), uniquingKeysWith: { a, _ in a })
            {
                // No row has the key: insert below.
            }
        }
        let (inserted, row) = try insertWithCallbacks(db, returning: returning)
        return (PersistenceSuccess(inserted), row)
    }

    /// `willSave`, `aroundSave` { `willInsert`, `aroundInsert` { UPSERT }, `didInsert` }, `didSave`.
    mutating func upsertWithSaveCallbacks(
        _ db: Database, target: [String], strategy: UpsertUpdateStrategy,
        doUpdate: ((_ excluded: UpsertExcluded) -> [ColumnAssignment])?, returning: [SQLLiteral]?
    ) throws -> Row? {
        try db.persistenceUnit {
            try willSave(db)
            var result: (InsertionSuccess, Row?)?
            try aroundSave(db) {
                try willInsert(db)
                var upserted: (InsertionSuccess, Row?)?
                try aroundInsert(db) {
                    let done = try db.upsertRecord(
                        self, target: target, strategy: strategy, assignments: doUpdate?(UpsertExcluded()) ?? [],
                        returning: returning)
                    upserted = done
                    return done.0
                }
                guard let upserted else { throw callbackMisuse("aroundInsert") }
                didInsert(upserted.0)
                result = upserted
                return PersistenceSuccess(upserted.0)
            }
            guard let result else { throw callbackMisuse("aroundSave") }
            didSave(PersistenceSuccess(result.0))
            return result.1
        }
    }

    /// The error of an `around` callback that did not call its function or swallowed its error.
    @usableFromInline
    func callbackMisuse(_ callback: String) -> RecordError {
        RecordError(
            code: .callbackMisuse, recordType: "\(Self.self)", tableName: Self.databaseTableName,
            message: "\(Self.self).\(callback) did not call its function, or did not rethrow its error: "
                + "the operation did not run")
    }
}

extension Database {
    /// Runs a record operation and its callbacks as one unit: in a savepoint when the connection
    /// is in autocommit mode, so a callback that throws after the statement leaves nothing
    /// written; inside a transaction, as it is (the transaction's owner rolls back on error, and
    /// a savepoint per record would slow bulk inserts).
    @inlinable
    func persistenceUnit<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction { return try body() }
        return try savepoint(body)
    }
}
