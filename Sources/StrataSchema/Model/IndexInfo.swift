/// An explicitly created index.
public struct IndexInfo: Sendable, Hashable {
    public internal(set) var name: String
    public internal(set) var table: String
    public internal(set) var sql: String
    public internal(set) var isUnique: Bool
    /// True when the index has a WHERE clause.
    public internal(set) var isPartial: Bool
    /// How the index was made (`PRAGMA index_list`): `c` by CREATE INDEX (the only kind a
    /// ``DatabaseSchema`` lists: `u` and `pk` indexes belong to their table's constraints).
    public internal(set) var origin: String
    /// Indexed column names; nil entries are expressions.
    public internal(set) var columns: [String?]
    /// The statement as compared: without comments, whitespace differences, identifier quoting and keyword case.
    public internal(set) var normalizedSQL: String
    var key: String { name.asciiLowercased() }
}
