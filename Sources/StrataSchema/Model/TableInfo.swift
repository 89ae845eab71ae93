/// A table or virtual table, as declared.
public struct TableInfo: Sendable, Hashable {
    /// The table name as declared.
    public internal(set) var name: String
    /// The CREATE statement as stored in `sqlite_schema` (the text the user wrote, minus
    /// `IF NOT EXISTS`).
    public internal(set) var sql: String
    /// True for `CREATE VIRTUAL TABLE`.
    public internal(set) var isVirtual: Bool
    /// The module of a virtual table (`fts5`, `rtree`...).
    public internal(set) var module: String?
    public internal(set) var columns: [ColumnInfo]
    /// Table constraints as written (PRIMARY KEY, UNIQUE, CHECK, FOREIGN KEY clauses).
    public internal(set) var constraints: [String]
    public internal(set) var foreignKeys: [ForeignKeyInfo]
    public internal(set) var isWithoutRowID: Bool
    public internal(set) var isStrict: Bool
    public internal(set) var hasAutoincrement: Bool
    /// The `-- @renamed from=OLD` hint of a desired table (nil for a live one).
    public internal(set) var renamedFrom: String?

    /// Normalized, order-independent table constraints.
    var normalizedConstraints: [String]
    /// Lowercased name: tables are matched case-insensitively.
    var key: String { name.asciiLowercased() }

    /// The column named `name`, case-insensitively.
    public func column(named name: String) -> ColumnInfo? {
        let key = name.asciiLowercased()
        return columns.first { $0.name.asciiLowercased() == key }
    }

    /// Columns stored in the table (not generated).
    public var storedColumns: [ColumnInfo] { columns.filter { !$0.isGenerated } }

    /// True when the table has a rowid (not WITHOUT ROWID, not virtual).
    public var hasRowID: Bool { !isWithoutRowID && !isVirtual }

    /// The column that aliases the rowid (`INTEGER PRIMARY KEY`), if any.
    public var rowIDAliasColumn: ColumnInfo? {
        guard hasRowID else { return nil }
        let pk = columns.filter { $0.primaryKeyPosition > 0 }
        guard pk.count == 1, let c = pk.first, c.declaredType.asciiLowercased() == "integer" else { return nil }
        // "INTEGER PRIMARY KEY DESC" does not alias the rowid (a documented quirk).
        if c.definitionTokensContainDesc { return nil }
        return c
    }
}
