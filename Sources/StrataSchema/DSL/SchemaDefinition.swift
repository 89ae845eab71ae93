import StrataSQLite

/// A whole schema declared in Swift: tables, FTS5 tables, indexes, views and triggers, in
/// declaration order.
///
/// ```swift
/// let schema = SchemaDefinition { s in
///     s.table("team") { t in
///         t.column("id", .integer).primaryKey()
///         t.column("name", .text).notNull().unique()
///     }
///     s.table("player") { t in
///         t.autoIncrementedPrimaryKey("id")
///         t.column("name", .text).notNull().collate(.nocase)
///         t.column("teamId", .integer).references("team", onDelete: .setNull).indexed()
///     }
///     s.index("player_on_name", on: "player", columns: ["name"])
///     s.view("teamSize", as: "SELECT teamId, count(*) AS size FROM player GROUP BY teamId")
///     s.trigger(sql: "CREATE TRIGGER team_gone AFTER DELETE ON team BEGIN SELECT 1; END")
/// }
/// try db.migrateSchema(to: schema.sql) // bring a database to this schema
/// ```
///
/// ``sql`` is plain SQL text: the declarative engine takes it as its desired schema, and
/// `sqlite3` can run it. See <https://www.sqlite.org/schematab.html>.
public struct SchemaDefinition: Sendable, Hashable {
    /// One object of the schema.
    public enum Item: Sendable, Hashable {
        /// A table, with the indexes of its `indexed()` columns.
        case table(TableDefinition)
        /// An index.
        case index(IndexDefinition)
        /// A view.
        case view(ViewDefinition)
        /// A `CREATE TRIGGER` statement, as SQL.
        case trigger(String)
        /// An FTS5 table, with its synchronization triggers.
        case fts5(FTS5TableDefinition)
    }

    /// The objects, in declaration order (the order of ``statements``).
    public var items: [Item]

    /// A schema holding `items`.
    public init(_ items: [Item] = []) {
        self.items = items
    }

    /// A schema declared in a closure.
    ///
    /// ```swift
    /// let schema = SchemaDefinition { s in
    ///     s.table("note") { t in t.column("body", .text) }
    /// }
    /// ```
    public init(_ body: (inout SchemaDefinition) throws -> Void) rethrows {
        self.init()
        try body(&self)
    }

    /// `CREATE TABLE`: appends a table declared with the same builder as `db.create(table:options:body:)`.
    ///
    /// ```swift
    /// s.table("player", options: .strict) { t in t.column("name", .text).notNull() }
    /// ```
    ///
    /// `renamedFrom` tells the declarative engine that the table used to be called so: bringing a
    /// database to the schema then renames it (keeping its rows) instead of dropping it and
    /// creating a new one. It is written as the hint `-- @renamed from="old"` on the
    /// `CREATE TABLE` line:
    ///
    /// ```swift
    /// s.table("athlete", renamedFrom: "player") { t in t.column("name", .text) }
    /// // CREATE TABLE "athlete" ( -- @renamed from="player"
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createtable.html> and
    /// <https://www.sqlite.org/lang_altertable.html#alter_table_rename>.
    public mutating func table(
        _ name: String, options: TableOptions = [], renamedFrom oldName: String? = nil,
        body: (TableBuilder) throws -> Void
    ) rethrows {
        var table = try TableDefinition(name, options: options, body: body)
        table.renamedFrom = oldName
        items.append(.table(table))
    }

    /// `CREATE [UNIQUE] INDEX name ON table(columns) [WHERE condition]`: appends an index on columns.
    ///
    /// ```swift
    /// s.index("player_on_email", on: "player", columns: ["email"], options: .unique)
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createindex.html>.
    public mutating func index(
        _ name: String, on table: String, columns: [IndexDefinition.IndexedColumn], options: IndexOptions = [],
        condition: SQLExpression? = nil
    ) {
        items.append(.index(IndexDefinition(name, on: table, columns: columns, options: options, condition: condition)))
    }

    /// `CREATE INDEX name ON table(expr, ...)`: appends an index on expressions.
    ///
    /// ```swift
    /// s.index("player_on_lower_email", on: "player", expressions: [SQLExpression.column("email").lowercased])
    /// ```
    ///
    /// See <https://www.sqlite.org/expridx.html>.
    public mutating func index(
        _ name: String, on table: String, expressions: [SQLExpression], options: IndexOptions = [],
        condition: SQLExpression? = nil
    ) {
        index(name, on: table, columns: expressions.map { .expression($0) }, options: options, condition: condition)
    }

    /// `CREATE VIEW name [(columns)] AS select`: appends a view.
    ///
    /// ```swift
    /// s.view("captain", as: "SELECT * FROM player WHERE role = 'captain'")
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createview.html>.
    public mutating func view(_ name: String, options: ViewOptions = [], columns: [String]? = nil, as select: String) {
        items.append(.view(ViewDefinition(name, options: options, columns: columns, as: select)))
    }

    /// `CREATE TRIGGER ...`: appends a trigger written in SQL (a complete statement).
    ///
    /// ```swift
    /// s.trigger(sql: """
    ///     CREATE TRIGGER player_touch AFTER UPDATE ON player
    ///     BEGIN UPDATE player SET updatedAt = CURRENT_TIMESTAMP WHERE id = NEW.id; END
    ///     """)
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createtrigger.html>.
    public mutating func trigger(sql: String) {
        // A trailing semicolon would make an empty statement in ``sql``.
        var sql = Substring(sql)
        while let last = sql.last, last.isWhitespace || last == ";" { sql.removeLast() }
        items.append(.trigger(String(sql)))
    }

    /// Appends a table definition.
    public mutating func add(_ table: TableDefinition) { items.append(.table(table)) }
    /// Appends an index definition.
    public mutating func add(_ index: IndexDefinition) { items.append(.index(index)) }
    /// Appends a view definition.
    public mutating func add(_ view: ViewDefinition) { items.append(.view(view)) }

    /// The tables, in order.
    public var tables: [TableDefinition] {
        items.compactMap { if case .table(let t) = $0 { t } else { nil } }
    }

    /// The indexes: those declared with ``index(_:on:columns:options:condition:)`` and those of
    /// `indexed()` columns.
    public var indexes: [IndexDefinition] {
        items.flatMap { item -> [IndexDefinition] in
            switch item {
            case .table(let t): t.indexes
            case .index(let i): [i]
            default: []
            }
        }
    }

    /// The views, in order.
    public var views: [ViewDefinition] {
        items.compactMap { if case .view(let v) = $0 { v } else { nil } }
    }

    /// The `CREATE TRIGGER` statements, in order: those declared with ``trigger(sql:)`` and the
    /// synchronization triggers of FTS5 tables.
    public var triggers: [String] {
        items.flatMap { item -> [String] in
            switch item {
            case .trigger(let sql): [sql]
            case .fts5(let t): t.synchronizationTriggers
            default: []
            }
        }
    }

    /// Every statement, in declaration order (a table's `indexed()` indexes right after it).
    public var statements: [String] {
        items.flatMap { item -> [String] in
            switch item {
            case .table(let t): t.statements
            case .index(let i): [i.sql]
            case .view(let v): [v.sql]
            case .trigger(let sql): [sql]
            case .fts5(let t): t.statements
            }
        }
    }

    /// The whole schema as an SQL script: each statement followed by `;` and a blank line.
    public var sql: String {
        statements.map { $0 + ";\n" }.joined(separator: "\n")
    }

    /// Checks every table and index for problems SQLite would report less clearly.
    public func validate() throws {
        for (position, item) in items.enumerated() {
            switch item {
            case .table(let t): try t.validate()
            case .index(let i): try i.validate()
            case .fts5(let t):
                try t.validate()
                try validateSynchronization(of: t, at: position)
            default: break
            }
        }
    }
}
