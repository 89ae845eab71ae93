// Running a request: counts, existence, deletes and updates for every request; records, rows and
// values according to the request's RowDecoder.

extension QueryInterfaceRequest {
    /// The number of rows the request returns.
    ///
    /// ```swift
    /// let count = try Note.filter(Column("pinned")).fetchCount(db)
    /// // SELECT COUNT(*) FROM "note" WHERE "pinned"
    /// ```
    public func fetchCount(_ db: Database) throws -> Int {
        try observingKeyRows(db) {
            let prepared = try prepared(db) { try $0.count(relation) }
            return try Int.fetchOne(prepared) ?? 0
        }
    }

    /// True when the request returns at least one row.
    ///
    /// ```swift
    /// if try Note.filter(Column("title") == "Milk").exists(db) { ... }
    /// // SELECT EXISTS (SELECT * FROM "note" WHERE "title" = ?)
    /// ```
    public func exists(_ db: Database) throws -> Bool {
        let prepared = try prepared(db) { try $0.exists(relation) }
        return try Bool.fetchOne(prepared) ?? false
    }

    /// Deletes the rows the request selects; returns how many.
    ///
    /// ```swift
    /// try Note.filter(Column("archived")).deleteAll(db)   // DELETE FROM "note" WHERE "archived"
    /// ```
    /// A request with an order, a limit, a group or DISTINCT deletes the rows whose primary key
    /// it selects. See <https://www.sqlite.org/lang_delete.html>.
    @discardableResult
    public func deleteAll(_ db: Database) throws -> Int {
        let prepared = try prepared(db) { try $0.delete(relation) }
        try prepared.statement.execute(arguments: prepared.arguments)
        return db.changes
    }

    /// Updates the rows the request selects; returns how many.
    ///
    /// ```swift
    /// try Player.filter(Column("team") == "red").updateAll(db, Column("score").set(to: 0), Column("games") += 1)
    /// // UPDATE "player" SET "score" = ?, "games" = "games" + ? WHERE "team" = ?
    /// ```
    /// No assignment updates nothing. See <https://www.sqlite.org/lang_update.html>.
    @discardableResult
    public func updateAll(_ db: Database, _ assignments: ColumnAssignment...) throws -> Int {
        try updateAll(db, assignments)
    }

    /// Updates the rows the request selects; returns how many.
    @discardableResult
    public func updateAll(_ db: Database, _ assignments: [ColumnAssignment]) throws -> Int {
        let assignments = assignments.filter { $0.value != nil }  // noOverwrite is for upserts
        guard !assignments.isEmpty else { return 0 }
        let prepared = try prepared(db) { try $0.update(relation, assignments) }
        try prepared.statement.execute(arguments: prepared.arguments)
        return db.changes
    }

    /// The prepared request of fetchOne: `LIMIT 1`.
    func preparedForOne(_ db: Database) throws -> PreparedRequest {
        try prepared(db) { try $0.select(relation, limit: 1) }
    }
}

extension QueryInterfaceRequest where RowDecoder: FetchableRecord {
    /// The records the request selects.
    ///
    /// ```swift
    /// let notes = try Note.filter(Column("pinned")).order(Column("title")).fetchAll(db)
    /// ```
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        if !relation.needsAssembly, !relation.observesKeyRows(db) {
            // The common request: no closure, no generic context to build.
            let prepared = try relation.preparedSelect(db)
            return try RowDecoder.fetchAll(prepared.statement, arguments: prepared.arguments)
        }
        return try observingKeyRows(db) {
            if relation.needsAssembly { return try fetchScopedRows(db).map(RowDecoder.init(row:)) }
            let prepared = try makePreparedRequest(db)
            return try RowDecoder.fetchAll(prepared.statement, arguments: prepared.arguments)
        }
    }

    /// The first record the request selects (`LIMIT 1`), or nil.
    ///
    /// ```swift
    /// let newest = try Note.order(Column("createdAt").desc).fetchOne(db)
    /// ```
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        try observingKeyRows(db) {
            if relation.needsAssembly { return try fetchScopedRows(db, limit: 1).first.map(RowDecoder.init(row:)) }
            let prepared = try preparedForOne(db)
            return try RowDecoder.fetchOne(prepared.statement, arguments: prepared.arguments)
        }
    }

    /// A lazy cursor over the records, on a fresh (uncached) statement.
    ///
    /// ```swift
    /// let cursor = try Note.order(Column("title")).fetchCursor(db)
    /// while let note = try cursor.next() { ... }
    /// ```
    /// With `including(all:)`, the cursor reads the base rows in batches of 256 and fetches the
    /// to-many rows of each batch in one statement per association and level (GRDB refuses such
    /// cursors); to-one includes are read with each row.
    public func fetchCursor(_ db: Database) throws -> RecordCursor<RowDecoder> {
        if let (statement, rows) = try assembledRows(db) {
            return RecordCursor(statement: statement, assembled: rows)
        }
        let prepared = try makePreparedRequest(db)
        return try RowDecoder.fetchCursor(db, sql: prepared.sql, arguments: prepared.arguments)
    }
}

extension QueryInterfaceRequest where RowDecoder: FetchableRecord & Hashable {
    /// The set of the records the request selects.
    ///
    /// ```swift
    /// let tags: Set<Tag> = try Tag.all().fetchSet(db)
    /// ```
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> {
        Set(try fetchAll(db))
    }
}

extension QueryInterfaceRequest where RowDecoder == Row {
    /// The rows the request selects.
    ///
    /// ```swift
    /// let rows = try Note.all().asRequest(of: Row.self).fetchAll(db)
    /// ```
    public func fetchAll(_ db: Database) throws -> [Row] {
        try observingKeyRows(db) {
            if relation.needsAssembly { return try fetchScopedRows(db) }
            let prepared = try makePreparedRequest(db)
            return try prepared.statement.fetchAll(arguments: prepared.arguments)
        }
    }

    /// The first row, or nil.
    public func fetchOne(_ db: Database) throws -> Row? {
        try observingKeyRows(db) {
            if relation.needsAssembly { return try fetchScopedRows(db, limit: 1).first }
            let prepared = try preparedForOne(db)
            return try prepared.statement.fetchOne(arguments: prepared.arguments)
        }
    }

    /// A lazy cursor over the rows, on a fresh (uncached) statement; with included associations,
    /// rows with their scopes and prefetched rows, batch by batch (see the records' `fetchCursor`).
    public func fetchCursor(_ db: Database) throws -> RowCursor {
        if let (statement, rows) = try assembledRows(db) { return RowCursor(statement: statement, assembled: rows) }
        let prepared = try makePreparedRequest(db)
        return try db.fetchCursor(sql: prepared.sql, arguments: prepared.arguments)
    }

    /// The set of the rows.
    public func fetchSet(_ db: Database) throws -> Set<Row> {
        Set(try fetchAll(db))
    }
}

extension QueryInterfaceRequest where RowDecoder: SQLValueConvertible {
    /// The values of the first column of each row.
    ///
    /// ```swift
    /// let titles = try Note.select(Column("title"), as: String.self).fetchAll(db)
    /// ```
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        try observingKeyRows(db) {
            let prepared = try makePreparedRequest(db)
            return try db.fetchColumn(RowDecoder.self, sql: prepared.sql, arguments: prepared.arguments)
        }
    }

    /// The value of the first column of the first row, or nil when there is no row.
    ///
    /// ```swift
    /// let best = try Player.select(max(Column("score")), as: Int.self).fetchOne(db)
    /// ```
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        try observingKeyRows(db) { try RowDecoder.fetchOne(try preparedForOne(db)) }
    }
}

extension QueryInterfaceRequest where RowDecoder: SQLValueConvertible & Hashable {
    /// The set of the values of the first column.
    ///
    /// ```swift
    /// let folderIds = try Note.select(Column("folderId"), as: Int64.self).fetchSet(db)
    /// ```
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> {
        Set(try fetchAll(db))
    }
}

extension SQLValueConvertible {
    /// The first column of the first row, converted; nil when there is no row (or a NULL that
    /// `Self` cannot hold). A value that does not convert throws ``RowDecodingError``.
    static func fetchOne(_ prepared: PreparedRequest) throws -> Self? {
        let statement = prepared.statement
        try statement.bind(prepared.arguments)
        defer { statement.reset() }
        guard try statement.step(), statement.columnCount > 0 else { return nil }
        let value = statement.columnValue(at: 0)
        if value.isNull, case .none = fromSQLValue(value) { return nil }  // Self can't hold NULL
        return try statement.currentRow().decode(Self.self, at: 0)
    }
}
