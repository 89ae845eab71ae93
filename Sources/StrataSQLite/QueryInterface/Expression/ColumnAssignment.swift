/// One `column = expression` of an UPDATE (`updateAll`) or of an upsert's `DO UPDATE SET`
/// clause, or, for an upsert, a column to leave alone (``noOverwrite(_:)``). GRDB's
/// `ColumnAssignment`.
///
/// ```swift
/// try Player.filter(Column("team") == "red").updateAll(db, [Column("score").set(to: 0), Column("games") += 1])
/// // UPDATE "player" SET "score" = ?, "games" = "games" + ? WHERE "team" = ?
/// try note.upsert(db, onConflict: ["uuid"]) { excluded in
///     [Column("visits") += 1, .set("title", to: excluded["title"]), Column("createdAt").noOverwrite]
/// }
/// ```
/// Values are bound, never spliced. `updateAll` skips ``noOverwrite(_:)`` assignments.
/// See <https://www.sqlite.org/lang_update.html> and <https://www.sqlite.org/lang_upsert.html>.
public struct ColumnAssignment: Sendable {
    /// The column assigned.
    public let column: Column
    /// The new value; nil leaves the column as it is (``noOverwrite(_:)``).
    package let value: SQLExpression?

    package init(column: Column, value: SQLExpression?) {
        self.column = column
        self.value = value
    }

    /// `column = expression`, the expression written in SQL; interpolated values are bound. A
    /// column name alone refers to the existing row (SQLite's rule).
    ///
    /// ```swift
    /// ColumnAssignment.set("visits", to: "visits + 1")
    /// ColumnAssignment.set("editedBy", to: "\(userName)")
    /// ```
    public static func set(_ column: String, to expression: SQLLiteral) -> ColumnAssignment {
        ColumnAssignment(column: Column(column), value: SQLExpression(literal: expression))
    }

    /// Leaves `column` as it is in the existing row when an upsert updates it, even with
    /// ``UpsertUpdateStrategy/allColumns``.
    ///
    /// ```swift
    /// ColumnAssignment.noOverwrite("createdAt")
    /// ```
    public static func noOverwrite(_ column: String) -> ColumnAssignment {
        ColumnAssignment(column: Column(column), value: nil)
    }
}

extension Column {
    /// Leaves the column as it is in the existing row when an upsert updates it:
    /// `Column("createdAt").noOverwrite`.
    public var noOverwrite: ColumnAssignment { ColumnAssignment(column: self, value: nil) }

    /// `column = value`; nil sets NULL.
    ///
    /// ```swift
    /// Column("score").set(to: 0)
    /// Column("deletedAt").set(to: nil)
    /// ```
    public func set(to value: (any SQLExpressible)?) -> ColumnAssignment {
        ColumnAssignment(column: self, value: value.sqlExpression)
    }

    /// `column = column + value`: `Column("games") += 1`.
    public static func += (column: Column, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column + value.sqlExpression)
    }

    /// `column = column - value`.
    public static func -= (column: Column, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column - value.sqlExpression)
    }

    /// `column = column * value`.
    public static func *= (column: Column, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column * value.sqlExpression)
    }

    /// `column = column / value`.
    public static func /= (column: Column, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column / value.sqlExpression)
    }
}
