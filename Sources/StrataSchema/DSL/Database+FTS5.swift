import StrataSQLite

extension Database {
    /// `CREATE VIRTUAL TABLE "name" USING fts5(...)`: creates an FTS5 table declared in Swift,
    /// with the triggers of ``FTS5TableBuilder/synchronize(withTable:rowID:)``.
    ///
    /// ```swift
    /// // CREATE VIRTUAL TABLE "book_fts" USING fts5("title", "body", content='book', content_rowid='id')
    /// // + triggers "book_fts_ai", "book_fts_ad", "book_fts_au" on "book"
    /// try db.create(virtualTable: "book_fts", using: FTS5()) { t in
    ///     t.synchronize(withTable: "book", rowID: "id")
    ///     t.column("title")
    ///     t.column("body")
    /// }
    /// let ids = try db.fetchAll(sql: "SELECT rowid FROM book_fts WHERE book_fts MATCH ?", arguments: ["sqlite"])
    /// ```
    ///
    /// A synchronized table indexes the rows already in its content table. All statements run
    /// in one savepoint: on error nothing is created.
    /// See <https://www.sqlite.org/fts5.html> and <https://www.sqlite.org/lang_createvtab.html>.
    public func create(
        virtualTable name: String, options: VirtualTableOptions = [], using module: FTS5,
        body: (FTS5TableBuilder) throws -> Void
    ) throws {
        try create(FTS5TableDefinition(name, options: options, body: body))
    }

    /// `CREATE VIRTUAL TABLE ... USING fts5(...)`: creates the table of an
    /// ``FTS5TableDefinition``, its ``FTS5TableDefinition/synchronizationTriggers``, and indexes
    /// the rows already in its content table when it is synchronized with one.
    ///
    /// ```swift
    /// try db.create(FTS5TableDefinition("note_fts") { t in t.column("body") })
    /// ```
    ///
    /// See <https://www.sqlite.org/fts5.html>.
    public func create(_ table: FTS5TableDefinition) throws {
        try table.validate()
        if table.synchronizesContent, let content = table.content {
            let columns = try fetchColumn(
                String.self, sql: "SELECT name FROM pragma_table_xinfo(?)", arguments: [content])
            if !columns.isEmpty { try table.validateSynchronization(contentColumns: columns) }  // else: no such table
        }
        try executeDefinitionStatements(table.creationStatements)
    }

    /// `DROP TABLE [IF EXISTS] "name"`: deletes a virtual table, and the synchronization triggers
    /// `"<name>_ai"`, `"<name>_ad"` and `"<name>_au"` that
    /// ``FTS5TableBuilder/synchronize(withTable:rowID:)`` created, which would otherwise fail
    /// every later change of the content table. The content table is left as it is.
    ///
    /// ```swift
    /// try db.drop(virtualTable: "book_fts")
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_droptable.html> and <https://www.sqlite.org/lang_droptrigger.html>.
    public func drop(virtualTable name: String, ifExists: Bool = false) throws {
        let triggers = FTS5TableDefinition.synchronizationTriggerNames(for: name).map {
            DropDDL.trigger($0, ifExists: true).sql
        }
        try executeDefinitionStatements(triggers + [DropDDL.table(name, ifExists: ifExists).sql])
    }
}
