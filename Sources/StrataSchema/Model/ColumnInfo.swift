/// A column of a table.
public struct ColumnInfo: Sendable, Hashable {
    /// How a column is stored (`PRAGMA table_xinfo`'s hidden field).
    public enum Kind: Int, Sendable, Hashable {
        case normal = 0
        /// A hidden column of a virtual table.
        case hidden = 1
        /// `GENERATED ALWAYS AS (...) VIRTUAL`
        case generatedVirtual = 2
        /// `GENERATED ALWAYS AS (...) STORED`
        case generatedStored = 3
    }

    public internal(set) var name: String
    /// The declared type as written (may be empty).
    public internal(set) var declaredType: String
    public internal(set) var isNotNull: Bool
    /// The DEFAULT expression's text, if any.
    public internal(set) var defaultSQL: String?
    /// 1-based position in the primary key, 0 when not part of it.
    public internal(set) var primaryKeyPosition: Int
    public internal(set) var kind: Kind
    /// The collation named by a COLLATE clause, if any.
    public internal(set) var collation: String?
    /// The full definition as written.
    public internal(set) var definition: String
    /// The `-- @renamed from=OLD` hint of a desired column (nil for a live one).
    public internal(set) var renamedFrom: String?

    /// Normalized definition without the name.
    var normalizedBody: String
    var definitionTokensContainDesc: Bool

    /// True for generated columns, which are computed and never copied.
    public var isGenerated: Bool { kind == .generatedVirtual || kind == .generatedStored }
}
