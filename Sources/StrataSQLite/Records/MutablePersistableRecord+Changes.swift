extension EncodableRecord {
    /// The columns whose values differ from `record`'s, with `record`'s (old) values: a column
    /// `record` does not encode counts as NULL there; only the columns this record encodes are
    /// compared. GRDB's `databaseChanges(from:)`.
    ///
    /// ```swift
    /// var edited = note
    /// edited.title = "Shopping"
    /// let changes = try edited.databaseChanges(from: note)   // ["title": .text("Groceries")]
    /// ```
    public func databaseChanges(from record: some EncodableRecord) throws -> [String: SQLValue] {
        let new = try databaseContainer()
        let old = try record.databaseContainer()
        var changes = [String: SQLValue]()
        for (column, value) in new {
            let previous = old[value: column] ?? .null
            if previous != value { changes[column] = previous }
        }
        return changes
    }

    /// Applies `modify` to the record and returns the columns it changed, with their old values.
    ///
    /// ```swift
    /// let changes = try note.databaseChanges { $0.title = "Shopping" }
    /// ```
    public mutating func databaseChanges(modify: (inout Self) throws -> Void) throws -> [String: SQLValue] {
        let old = self
        try modify(&self)
        return try databaseChanges(from: old)
    }

    /// True when both records store the same values in the same columns.
    ///
    /// ```swift
    /// if note.databaseEquals(fetched) { print("unchanged") }
    /// ```
    public func databaseEquals(_ record: Self) -> Bool {
        guard let changes = try? databaseChanges(from: record) else { return false }
        guard changes.isEmpty else { return false }
        // Columns the other record encodes and this one does not also differ.
        guard let mine = try? databaseContainer(), let theirs = try? record.databaseContainer() else { return false }
        return theirs.allSatisfy { mine[value: $0.column] != nil }
    }
}

extension MutablePersistableRecord {
    /// Updates only the columns whose values differ from `record`'s (an earlier version of the
    /// same row, usually the one fetched); true when there was something to update. With no
    /// change, nothing is written and no callback is called. Columns the code did not touch are
    /// not written: their bytes stay as stored. Callbacks as ``update(_:columns:)``.
    ///
    /// ```swift
    /// let old = note
    /// note.title = "Shopping"
    /// try note.updateChanges(db, from: old)   // UPDATE note SET title = ? WHERE id = ?
    /// ```
    @discardableResult
    public func updateChanges(_ db: Database, from record: some MutablePersistableRecord) throws -> Bool {
        let changed = try databaseChanges(from: record)
        if changed.isEmpty { return false }
        // In the record's column order, so the statement text (and cache entry) is stable.
        let columns = try databaseContainer().columns.filter { changed[$0] != nil }
        try update(db, columns: columns)
        return true
    }

    /// Applies `modify` to the record, then updates only the columns it changed; true when
    /// there was something to update.
    ///
    /// ```swift
    /// try note.updateChanges(db) { $0.title = "Shopping" }
    /// ```
    @discardableResult
    public mutating func updateChanges(_ db: Database, modify: (inout Self) throws -> Void) throws -> Bool {
        let old = self
        try modify(&self)
        return try updateChanges(db, from: old)
    }
}
