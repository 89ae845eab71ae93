/// A FOREIGN KEY constraint (from `PRAGMA foreign_key_list`). See <https://www.sqlite.org/foreignkeys.html>.
public struct ForeignKeyInfo: Sendable, Hashable {
    public var columns: [String]
    public var parentTable: String
    /// Parent columns; empty entries mean "the parent's primary key".
    public var parentColumns: [String?]
    public var onDelete: String
    public var onUpdate: String
    public var match: String
    /// True for `DEFERRABLE INITIALLY DEFERRED`.
    public var isDeferred: Bool

    /// True when ON DELETE or ON UPDATE does something (CASCADE, SET NULL, SET DEFAULT).
    public var hasAction: Bool {
        let acting: Set<String> = ["CASCADE", "SET NULL", "SET DEFAULT"]
        return acting.contains(onDelete.uppercased()) || acting.contains(onUpdate.uppercased())
    }
}
