/// One `column = expression` of an UPDATE, for `updateAll`.
///
/// ```swift
/// try Player.filter(Column("team") == "red").updateAll(db, [Column("score").set(to: 0), Column("games") += 1])
/// // UPDATE "player" SET "score" = ?, "games" = "games" + ? WHERE "team" = ?
/// ```
/// See <https://www.sqlite.org/lang_update.html>.
public struct ColumnAssignment: Sendable {
    /// The column assigned.
    public let column: Column
    /// The new value.
    package let value: SQLExpression

    package init(column: Column, value: SQLExpression) {
        self.column = column
        self.value = value
    }
}

extension Column {
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
