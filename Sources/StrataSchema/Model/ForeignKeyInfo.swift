/// A FOREIGN KEY constraint (from `PRAGMA foreign_key_list`). See <https://www.sqlite.org/foreignkeys.html>.
public struct ForeignKeyInfo: Sendable, Hashable {
    public internal(set) var columns: [String]
    public internal(set) var parentTable: String
    /// Parent columns; empty entries mean "the parent's primary key".
    public internal(set) var parentColumns: [String?]
    public internal(set) var onDelete: String
    public internal(set) var onUpdate: String
    public internal(set) var match: String
    /// True for `DEFERRABLE INITIALLY DEFERRED`.
    public internal(set) var isDeferred: Bool

    /// True when ON DELETE or ON UPDATE does something (CASCADE, SET NULL, SET DEFAULT).
    public var hasAction: Bool {
        let acting: Set<String> = ["CASCADE", "SET NULL", "SET DEFAULT"]
        return acting.contains(onDelete.uppercased()) || acting.contains(onUpdate.uppercased())
    }
}
