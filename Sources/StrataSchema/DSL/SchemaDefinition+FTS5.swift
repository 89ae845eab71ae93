import StrataSQLite

extension SchemaDefinition {
    /// `CREATE VIRTUAL TABLE ... USING fts5(...)`: appends an FTS5 table declared with the same
    /// builder as `db.create(virtualTable:options:using:body:)`, followed by its synchronization
    /// triggers.
    ///
    /// ```swift
    /// let schema = SchemaDefinition { s in
    ///     s.table("book") { t in
    ///         t.autoIncrementedPrimaryKey("id")
    ///         t.column("title", .text).notNull()
    ///     }
    ///     s.virtualTable("book_fts", using: FTS5()) { t in
    ///         t.synchronize(withTable: "book", rowID: "id") // declare "book" first: the triggers are on it
    ///         t.column("title")
    ///     }
    /// }
    /// try db.migrateSchema(to: schema) // a new synchronized table indexes the rows of "book"
    /// ```
    ///
    /// See <https://www.sqlite.org/fts5.html>.
    public mutating func virtualTable(
        _ name: String, options: VirtualTableOptions = [], using module: FTS5, body: (FTS5TableBuilder) throws -> Void
    ) rethrows {
        items.append(.fts5(try FTS5TableDefinition(name, options: options, body: body)))
    }

    /// Appends an FTS5 table definition.
    ///
    /// ```swift
    /// s.add(FTS5TableDefinition("note_fts") { t in t.column("body") })
    /// ```
    public mutating func add(_ table: FTS5TableDefinition) { items.append(.fts5(table)) }

    /// The FTS5 tables, in order.
    ///
    /// ```swift
    /// schema.fts5Tables.map(\.name) // ["book_fts"]
    /// ```
    public var fts5Tables: [FTS5TableDefinition] {
        items.compactMap { if case .fts5(let t) = $0 { t } else { nil } }
    }

    /// Checks `table` where this schema declares its content table: the content table comes
    /// first (the synchronization triggers are on it) and holds the FTS columns.
    func validateSynchronization(of table: FTS5TableDefinition, at position: Int) throws {
        guard table.synchronizesContent, let content = table.content else { return }
        guard
            let index = items.firstIndex(where: {
                if case .table(let t) = $0 { t.name.asciiCaseInsensitiveEquals(content) } else { false }
            }), case .table(let contentTable) = items[index]
        else { return }
        if index > position {
            throw SchemaDefinitionError(
                "virtual table \(SQL.quoteIdentifier(table.name)): declare its content table "
                    + "\(SQL.quoteIdentifier(content)) before it (the synchronization triggers are on that table)")
        }
        try table.validateSynchronization(contentColumns: contentTable.columns.map(\.name))
    }

    /// What `db.create(_:)` runs: ``statements``, each synchronized FTS table followed by the
    /// `'rebuild'` that indexes the rows already in its content table.
    var creationStatements: [String] {
        items.flatMap { item -> [String] in
            if case .fts5(let t) = item { return t.creationStatements }
            return SchemaDefinition([item]).statements
        }
    }
}
