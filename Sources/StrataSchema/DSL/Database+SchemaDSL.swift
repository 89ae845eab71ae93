import StrataSQLite

extension Database {
    /// Runs each statement alone (a text that holds a second statement is refused), all in one
    /// savepoint so that a failure leaves the database unchanged.
    func executeDefinitionStatements(_ statements: [String]) throws {
        try savepoint {
            for sql in statements {
                try makeStatement(sql: sql).execute(arguments: StatementArguments())
            }
        }
    }

    /// `CREATE TABLE`: creates a table declared in Swift, then the indexes of its `indexed()` columns.
    ///
    /// ```swift
    /// // CREATE TABLE "player" (
    /// //   "id" INTEGER PRIMARY KEY AUTOINCREMENT,
    /// //   "name" TEXT NOT NULL COLLATE NOCASE,
    /// //   "score" INTEGER NOT NULL DEFAULT 0 CHECK ("score" >= 0)
    /// // )
    /// try db.create(table: "player") { t in
    ///     t.autoIncrementedPrimaryKey("id")
    ///     t.column("name", .text).notNull().collate(.nocase)
    ///     t.column("score", .integer).notNull().defaults(to: 0).check { $0 >= 0 }
    /// }
    /// ```
    ///
    /// All statements run in one savepoint: on error nothing is created.
    /// See <https://www.sqlite.org/lang_createtable.html>.
    public func create(table name: String, options: TableOptions = [], body: (TableBuilder) throws -> Void) throws {
        try create(TableDefinition(name, options: options, body: body))
    }

    /// `CREATE TABLE`: creates the table of a ``TableDefinition``, then its ``TableDefinition/indexes``.
    ///
    /// ```swift
    /// let note = TableDefinition("note") { t in t.column("body", .text) }
    /// try db.create(note)
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createtable.html>.
    public func create(_ table: TableDefinition) throws {
        try table.validate()
        try table.checkColumnNames(columnsOf: definitionColumns(of:))
        try table.checkSupported(by: capabilities)
        do {
            try executeDefinitionStatements(table.statements)
        } catch let error as SQLiteError {
            // A bare misspelled name in raw SQL (`check(sql: "scroe >= 0")`): SQLite's own
            // "no such column", with the nearest name.
            throw DefinitionColumnCheck.naming(error, table: table.name, columns: table.columns.map(\.name))
        }
    }

    /// `ALTER TABLE "old" RENAME TO "new"`: renames a table; indexes, triggers, views and foreign
    /// keys follow it.
    ///
    /// ```swift
    /// try db.rename(table: "player", to: "athlete")
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_altertable.html#alter_table_rename>.
    public func rename(table name: String, to newName: String) throws {
        try executeDefinitionStatements([RenameTableDDL(name, to: newName).sql])
    }

    /// `DROP TABLE [IF EXISTS] "name"`: deletes a table, its rows, indexes and triggers.
    ///
    /// ```swift
    /// try db.drop(table: "obsolete")
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_droptable.html>.
    public func drop(table name: String, ifExists: Bool = false) throws {
        try executeDefinitionStatements([DropDDL.table(name, ifExists: ifExists).sql])
    }

    /// `CREATE [UNIQUE] INDEX [IF NOT EXISTS] "name" ON "table"(columns) [WHERE condition]`.
    ///
    /// ```swift
    /// // CREATE UNIQUE INDEX "player_on_email" ON "player"("email" COLLATE NOCASE) WHERE "email" IS NOT NULL
    /// try db.create(index: "player_on_email", on: "player",
    ///               columns: [.column("email", collation: .nocase)], options: .unique,
    ///               condition: SQLExpression.column("email").isNotNull)
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createindex.html> and <https://www.sqlite.org/partialindex.html>.
    public func create(
        index name: String, on table: String, columns: [IndexDefinition.IndexedColumn], options: IndexOptions = [],
        condition: SQLExpression? = nil
    ) throws {
        try create(IndexDefinition(name, on: table, columns: columns, options: options, condition: condition))
    }

    /// `CREATE INDEX "name" ON "table"("a", "b")`, with column names from an array of strings.
    ///
    /// ```swift
    /// let columns = ["teamId", "score"]
    /// try db.create(index: "player_on_team_score", on: "player", columns: columns)
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createindex.html>.
    public func create(
        index name: String, on table: String, columns: [String], options: IndexOptions = [],
        condition: SQLExpression? = nil
    ) throws {
        try create(index: name, on: table, columns: columns.map { .column($0) }, options: options, condition: condition)
    }

    /// `CREATE INDEX "name" ON "table"(expr, ...)`: an index on expressions.
    ///
    /// ```swift
    /// // CREATE INDEX "player_on_lower_email" ON "player"(lower("email"))
    /// try db.create(index: "player_on_lower_email", on: "player",
    ///               expressions: [SQLExpression.column("email").lowercased])
    /// ```
    ///
    /// See <https://www.sqlite.org/expridx.html>.
    public func create(
        index name: String, on table: String, expressions: [SQLExpression], options: IndexOptions = [],
        condition: SQLExpression? = nil
    ) throws {
        try create(
            index: name, on: table, columns: expressions.map { .expression($0) }, options: options, condition: condition
        )
    }

    /// `CREATE INDEX`: creates the index of an ``IndexDefinition``.
    ///
    /// ```swift
    /// try db.create(IndexDefinition("note_on_day", on: "note", columns: ["day"]))
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createindex.html>.
    public func create(_ index: IndexDefinition) throws {
        try index.validate()
        // An unknown table is left to SQLite ("no such table").
        let columns = try definitionColumns(of: index.table)
        if let columns { try index.checkColumnNames(columns) }
        do {
            try executeDefinitionStatements([index.sql])
        } catch let error as SQLiteError {
            guard let columns else { throw error }
            throw DefinitionColumnCheck.naming(error, table: index.table, columns: columns)
        }
    }

    /// `DROP INDEX [IF EXISTS] "name"`.
    ///
    /// ```swift
    /// try db.drop(index: "player_on_email")
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_dropindex.html>.
    public func drop(index name: String, ifExists: Bool = false) throws {
        try executeDefinitionStatements([DropDDL.index(name, ifExists: ifExists).sql])
    }

    /// `CREATE [TEMPORARY] VIEW [IF NOT EXISTS] "name" [(columns)] AS select`.
    ///
    /// ```swift
    /// // CREATE VIEW "topPlayer" AS SELECT * FROM player ORDER BY score DESC LIMIT 10
    /// try db.create(view: "topPlayer", as: "SELECT * FROM player ORDER BY score DESC LIMIT 10")
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createview.html>.
    public func create(view name: String, options: ViewOptions = [], columns: [String]? = nil, as select: String) throws
    {
        try create(ViewDefinition(name, options: options, columns: columns, as: select))
    }

    /// `CREATE VIEW`: creates the view of a ``ViewDefinition``.
    ///
    /// ```swift
    /// try db.create(ViewDefinition("recent", as: "SELECT * FROM note WHERE day > date('now', '-7 days')"))
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createview.html>.
    public func create(_ view: ViewDefinition) throws {
        try executeDefinitionStatements([view.sql])
    }

    /// `DROP VIEW [IF EXISTS] "name"`.
    ///
    /// ```swift
    /// try db.drop(view: "topPlayer")
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_dropview.html>.
    public func drop(view name: String, ifExists: Bool = false) throws {
        try executeDefinitionStatements([DropDDL.view(name, ifExists: ifExists).sql])
    }

    /// `CREATE TABLE / INDEX / VIEW / TRIGGER ...`: creates every object of a ``SchemaDefinition``
    /// in declaration order, in one savepoint.
    ///
    /// ```swift
    /// let db = try Database(inMemory: Configuration())
    /// try db.create(schema)
    /// ```
    ///
    /// To bring an existing database to the schema, use the declarative engine instead
    /// (`db.migrateSchema(to: schema.sql)`).
    public func create(_ schema: SchemaDefinition) throws {
        try schema.validate()
        try schema.checkColumnNames { try definitionColumns(of: $0) }
        try executeDefinitionStatements(schema.creationStatements)
    }
}
