/// An explicitly created index.
public struct IndexInfo: Sendable, Hashable {
    public var name: String
    public var table: String
    public var sql: String
    public var isUnique: Bool
    /// True when the index has a WHERE clause.
    public var isPartial: Bool
    /// How the index was made (`PRAGMA index_list`): `c` by CREATE INDEX (the only kind a
    /// ``DatabaseSchema`` lists: `u` and `pk` indexes belong to their table's constraints).
    public var origin: String
    /// Indexed column names; nil entries are expressions.
    public var columns: [String?]
    /// The statement as compared: without comments, whitespace differences, identifier quoting and keyword case.
    public internal(set) var normalizedSQL: String
    var key: String { name.asciiLowercased() }
}
