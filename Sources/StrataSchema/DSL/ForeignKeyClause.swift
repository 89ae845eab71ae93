import StrataSQLite

/// `REFERENCES parent(columns) [ON DELETE action] [ON UPDATE action] [DEFERRABLE INITIALLY DEFERRED]`:
/// the parent side of a foreign key, shared by column and table constraints.
///
/// ```swift
/// let clause = ForeignKeyClause("team", columns: ["id"], onDelete: .cascade, deferred: true)
/// clause.sql // REFERENCES "team"("id") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
/// ```
///
/// Foreign keys are enforced only on connections with `PRAGMA foreign_keys = ON` (Strata's
/// default). See <https://www.sqlite.org/foreignkeys.html>.
public struct ForeignKeyClause: Sendable, Hashable {
    /// The parent table.
    public var table: String
    /// The parent columns; empty means the parent's primary key.
    public var columns: [String]
    /// The action when a parent row is deleted, or nil for none (`NO ACTION`).
    public var onDelete: Database.ForeignKeyAction?
    /// The action when a parent key is updated, or nil for none (`NO ACTION`).
    public var onUpdate: Database.ForeignKeyAction?
    /// When true, the constraint is checked at COMMIT instead of after each statement.
    public var isDeferred: Bool

    /// A reference to `columns` of `table` (its primary key when `columns` is empty).
    public init(
        _ table: String, columns: [String] = [], onDelete: Database.ForeignKeyAction? = nil,
        onUpdate: Database.ForeignKeyAction? = nil, deferred: Bool = false
    ) {
        self.table = table
        self.columns = columns
        self.onDelete = onDelete
        self.onUpdate = onUpdate
        self.isDeferred = deferred
    }

    /// The clause as SQL, starting with `REFERENCES`.
    public var sql: String {
        var sql = "REFERENCES \(SQL.quoteIdentifier(table))"
        if !columns.isEmpty { sql += "(\(SQL.quotedList(columns)))" }
        if let onDelete { sql += " ON DELETE \(onDelete.rawValue)" }
        if let onUpdate { sql += " ON UPDATE \(onUpdate.rawValue)" }
        if isDeferred { sql += " DEFERRABLE INITIALLY DEFERRED" }
        return sql
    }
}
