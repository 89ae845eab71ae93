import StrataSQLite

/// What a database looks like: its tables (and virtual tables), indexes, views and triggers.
///
/// Read a live database with ``read(from:)``, or a desired schema from SQL with ``init(sql:)``;
/// both go through the same introspection code, so they compare meaningfully. Comparison ignores
/// whitespace, comments, identifier quoting and case; it never ignores declared types,
/// constraints, collations, defaults, CHECK and generated expressions.
///
/// SQLite's internal objects (`sqlite_*`), Strata's own tables (`strata_migrations`, the launch
/// fingerprint `strata_schema_fingerprint` and the temporary `strata_tmp_<hex>` tables of a rebuild) and the shadow tables of virtual tables are
/// not part of a schema (see ``isInternalName(_:)``). Other tables are, whatever their name:
/// `strata_notes`, or `docs_stat` beside an FTS5 table `docs` (FTS5 has no `_stat` shadow table).
///
/// ```swift
/// let live = try DatabaseSchema.read(from: db)
/// let desired = try DatabaseSchema(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT)")
/// for line in desired.differences(from: live) { print(line) }
/// ```
public struct DatabaseSchema: Sendable, CustomStringConvertible {
    /// Tables and virtual tables, in creation order.
    public internal(set) var tables: [TableInfo] { didSet { tablePositions = Self.positions(tables, \.name) } }
    /// Explicitly created indexes (not the automatic ones of UNIQUE and PRIMARY KEY constraints).
    public internal(set) var indexes: [IndexInfo] { didSet { indexPositions = Self.positions(indexes, \.name) } }
    public internal(set) var views: [ViewInfo] { didSet { viewPositions = Self.positions(views, \.name) } }
    public internal(set) var triggers: [TriggerInfo] { didSet { triggerPositions = Self.positions(triggers, \.name) } }

    // Lowercased name -> position, so lookups stay cheap on schemas of hundreds of tables.
    private var tablePositions: [String: Int] = [:]
    private var indexPositions: [String: Int] = [:]
    private var viewPositions: [String: Int] = [:]
    private var triggerPositions: [String: Int] = [:]

    public init(
        tables: [TableInfo] = [], indexes: [IndexInfo] = [], views: [ViewInfo] = [], triggers: [TriggerInfo] = []
    ) {
        self.tables = tables
        self.indexes = indexes
        self.views = views
        self.triggers = triggers
        tablePositions = Self.positions(tables, \.name)
        indexPositions = Self.positions(indexes, \.name)
        viewPositions = Self.positions(views, \.name)
        triggerPositions = Self.positions(triggers, \.name)
    }

    private static func positions<T>(_ items: [T], _ name: KeyPath<T, String>) -> [String: Int] {
        var result = [String: Int](minimumCapacity: items.count)
        for (i, item) in items.enumerated() where result[item[keyPath: name].asciiLowercased()] == nil {
            result[item[keyPath: name].asciiLowercased()] = i
        }
        return result
    }

    /// The table (or virtual table) named `name`, case-insensitively.
    public func table(named name: String) -> TableInfo? {
        tablePositions[name.asciiLowercased()].map { tables[$0] }
    }

    public func index(named name: String) -> IndexInfo? {
        indexPositions[name.asciiLowercased()].map { indexes[$0] }
    }

    public func view(named name: String) -> ViewInfo? {
        viewPositions[name.asciiLowercased()].map { views[$0] }
    }

    public func trigger(named name: String) -> TriggerInfo? {
        triggerPositions[name.asciiLowercased()].map { triggers[$0] }
    }

    /// Indexes on the table named `table`.
    public func indexes(on table: String) -> [IndexInfo] {
        let key = table.asciiLowercased()
        return indexes.filter { $0.table.asciiLowercased() == key }
    }

    /// True when the schema holds no object.
    public var isEmpty: Bool { tables.isEmpty && indexes.isEmpty && views.isEmpty && triggers.isEmpty }

    /// The SQL that creates the schema: every object's statement, tables first, each ending in `;`.
    public var sql: String {
        var statements = tables.map(\.sql) + indexes.map(\.sql) + views.map(\.sql) + triggers.map(\.sql)
        statements = statements.map(SQLScript.terminated)
        return statements.joined(separator: "\n\n") + (statements.isEmpty ? "" : "\n")
    }

    public var description: String { sql }
}
