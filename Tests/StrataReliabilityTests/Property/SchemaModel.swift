import Strata

/// A small expression over one column, rendered with the column's current name (so renames
/// follow automatically).
enum ModelExpression: Hashable, Sendable {
    case column(Int)
    case length(Int)
    case plusOne(Int)
    case lower(Int)

    var columnID: Int {
        switch self {
        case .column(let id), .length(let id), .plusOne(let id), .lower(let id): id
        }
    }

    func sql(_ table: ModelTable, prefix: String = "") -> String {
        let name = prefix + SQL.quoteIdentifier(table.column(columnID)?.name ?? "?")
        switch self {
        case .column: return name
        case .length: return "length(\(name))"
        case .plusOne: return "(\(name) + 1)"
        case .lower: return "lower(\(name))"
        }
    }
}

/// One column of a generated table. `id` is stable across edits; `name` may change.
struct ModelColumn: Hashable, Sendable {
    var id: Int
    var name: String
    var type: String
    var notNull = false
    var defaultSQL: String? = nil
    var collation: String? = nil
    /// An always-true CHECK whose text varies with the number.
    var check: Int? = nil
    var generated: ModelExpression? = nil
    var stored = false
    var unique = false
}

/// The primary key of a generated table.
enum ModelPrimaryKey: Hashable, Sendable {
    case none
    /// `id INTEGER PRIMARY KEY [AUTOINCREMENT]`: the rowid alias.
    case rowidAlias(Int, autoincrement: Bool)
    /// `PRIMARY KEY (a, b)` as a table constraint.
    case columns([Int])

    var columnIDs: [Int] {
        switch self {
        case .none: []
        case .rowidAlias(let id, _): [id]
        case .columns(let ids): ids
        }
    }
}

struct ModelForeignKey: Hashable, Sendable {
    var column: Int
    var parentTable: Int
    /// The parent's single primary-key column.
    var parentColumn: Int
    var onDelete: String?
    var onUpdate: String?
}

struct ModelTable: Hashable, Sendable {
    var id: Int
    var name: String
    var columns: [ModelColumn]
    var primaryKey: ModelPrimaryKey = .none
    var withoutRowID = false
    var strict = false
    /// A named, always-true table CHECK whose text varies with the number.
    var tableCheck: Int? = nil
    var foreignKeys: [ModelForeignKey] = []

    func column(_ id: Int) -> ModelColumn? { columns.first { $0.id == id } }
    var hasRowID: Bool { !withoutRowID }
    var storedColumns: [ModelColumn] { columns.filter { $0.generated == nil } }
}

struct ModelIndex: Hashable, Sendable {
    var id: Int
    var name: String
    var table: Int
    var unique: Bool
    var parts: [ModelExpression]
    var descending: Bool
    var nocase: Bool
    /// Partial index: `WHERE col IS NOT NULL` on this column.
    var wherePresent: Int?
}

struct ModelView: Hashable, Sendable {
    var id: Int
    var name: String
    var table: Int
    var columns: [Int]
    var filtered: Bool
    /// Also mentions this table (`WHERE EXISTS (SELECT 1 FROM other)`).
    var join: Int? = nil
    /// A view over this earlier view (`SELECT * FROM base`) instead of a table.
    var over: Int? = nil
}

struct ModelTrigger: Hashable, Sendable {
    var id: Int
    var name: String
    var table: Int
    var event: String  // INSERT, UPDATE, DELETE
    var timing: String  // BEFORE, AFTER
    /// The column the body reads (NEW.col or OLD.col).
    var column: Int
    /// The table the body writes (`UPDATE other SET c = c WHERE 0`), maybe the same table.
    var target: Int
    var targetColumn: Int
}

/// A whole generated schema. Objects refer to each other by id, so an edit that renames a
/// table or column keeps every reference right.
struct ModelSchema: Hashable, Sendable {
    var tables: [ModelTable] = []
    var indexes: [ModelIndex] = []
    var views: [ModelView] = []
    var triggers: [ModelTrigger] = []
    var nextID = 1

    mutating func makeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    func table(_ id: Int) -> ModelTable? { tables.first { $0.id == id } }
    func tableIndex(_ id: Int) -> Int? { tables.firstIndex { $0.id == id } }
}
