/// A row whose foreign key points at no parent row, as `PRAGMA foreign_key_check` reports it.
/// See <https://www.sqlite.org/pragma.html#pragma_foreign_key_check>.
public struct ForeignKeyViolation: Hashable, Sendable, CustomStringConvertible {
    /// The table holding the offending row.
    public let table: String
    /// The offending row's rowid, or nil for a WITHOUT ROWID table.
    public let rowid: Int64?
    /// The table the foreign key refers to.
    public let parent: String
    /// The foreign key's index in `PRAGMA foreign_key_list(table)`.
    public let foreignKeyIndex: Int

    public init(table: String, rowid: Int64?, parent: String, foreignKeyIndex: Int) {
        self.table = table
        self.rowid = rowid
        self.parent = parent
        self.foreignKeyIndex = foreignKeyIndex
    }

    public var description: String {
        "table \(table) rowid \(rowid.map(String.init) ?? "NULL") references a missing row of \(parent)"
    }
}

extension Database {
    /// The foreign key violations of the table named `table`, or of the whole database.
    ///
    /// ```swift
    /// for violation in try db.foreignKeyViolations(in: "book") { print(violation) }
    /// ```
    public func foreignKeyViolations(in table: String? = nil) throws -> [ForeignKeyViolation] {
        let sql = table.map { "PRAGMA foreign_key_check(\(SQLLiteral.quote(identifier: $0)))" }
            ?? "PRAGMA foreign_key_check"
        return try fetchAll(sql: sql).map { row in
            ForeignKeyViolation(
                table: try row.decode(String.self, at: 0), rowid: try row.decode(Int64?.self, at: 1),
                parent: try row.decode(String.self, at: 2), foreignKeyIndex: try row.decode(Int.self, at: 3))
        }
    }
}
