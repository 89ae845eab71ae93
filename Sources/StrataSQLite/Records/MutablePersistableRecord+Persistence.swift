extension MutablePersistableRecord {
    /// Inserts the record (`INSERT INTO note (...) VALUES (...)`), then calls
    /// ``didInsert(_:)`` with the new rowid.
    ///
    /// ```swift
    /// var note = Note(id: nil, title: "Groceries")
    /// try note.insert(db)   // note.id is now set
    /// ```
    ///
    /// The prepared statement is cached per connection, table and column list: inserting many
    /// records in a transaction compiles it once. A constraint violation throws ``SQLiteError``.
    /// See <https://www.sqlite.org/lang_insert.html>.
    public mutating func insert(_ db: Database) throws {
        didInsert(try db.insertRecord(self))
    }

    /// A copy of the record, inserted (with its auto-incremented id, through ``didInsert(_:)``).
    ///
    /// ```swift
    /// let note = try Note(id: nil, title: "Groceries").inserted(db)
    /// print(note.id!)
    /// ```
    public func inserted(_ db: Database) throws -> Self {
        var record = self
        try record.insert(db)
        return record
    }

    /// Updates every column of the record's row (`UPDATE note SET ... WHERE id = ?`). Throws
    /// ``RecordError`` of code ``RecordError/Code/recordNotFound`` when no row has the record's
    /// key (or the key is NULL).
    ///
    /// ```swift
    /// note.title = "Shopping"
    /// try note.update(db)
    /// ```
    /// See <https://www.sqlite.org/lang_update.html>.
    public func update(_ db: Database) throws {
        try db.updateRecord(self)
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
        try db.updateRecord(self, columns: Array(columns))
    }

    /// Updates the record's row when the record has a key and the row exists, else inserts it
    /// (and ``didInsert(_:)`` is called).
    ///
    /// ```swift
    /// try note.save(db)
    /// ```
    public mutating func save(_ db: Database) throws {
        if let inserted = try db.saveRecord(self) { didInsert(inserted) }
    }

    /// Inserts the record, or updates the row with the same primary key
    /// (`INSERT ... ON CONFLICT (id) DO UPDATE SET ...`), then calls ``didInsert(_:)`` with the
    /// row's rowid. Needs SQLite 3.24; older versions throw
    /// ``RecordError/Code/unsupportedBySQLite``. A conflict on another unique index is not
    /// resolved: it throws ``SQLiteError``.
    ///
    /// ```swift
    /// var note = Note(id: 1, title: "Groceries")
    /// try note.upsert(db)   // inserted, or row 1 updated
    /// ```
    /// See <https://www.sqlite.org/lang_upsert.html>.
    public mutating func upsert(_ db: Database) throws {
        didInsert(try db.upsertRecord(self))
    }

    /// Deletes the record's row (`DELETE FROM note WHERE id = ?`); true when a row was deleted.
    ///
    /// ```swift
    /// if try note.delete(db) { print("deleted") }
    /// ```
    /// See <https://www.sqlite.org/lang_delete.html>.
    @discardableResult
    public func delete(_ db: Database) throws -> Bool {
        try db.deleteRecord(self)
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
    public func insert(_ db: Database) throws {
        didInsert(try db.insertRecord(self))
    }

    /// Updates the record's row when it exists, else inserts the record.
    ///
    /// ```swift
    /// try tag.save(db)
    /// ```
    public func save(_ db: Database) throws {
        if let inserted = try db.saveRecord(self) { didInsert(inserted) }
    }

    /// Inserts the record, or updates the row with the same primary key. Needs SQLite 3.24.
    ///
    /// ```swift
    /// try Tag(name: "urgent", color: "orange").upsert(db)
    /// ```
    /// See <https://www.sqlite.org/lang_upsert.html>.
    public func upsert(_ db: Database) throws {
        didInsert(try db.upsertRecord(self))
    }
}
