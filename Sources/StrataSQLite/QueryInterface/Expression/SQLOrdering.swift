/// A value that can order a request: a column, an expression, or an ``SQLOrdering``.
///
/// ```swift
/// Note.order(Column("pinned").desc, Column("title"))
/// ```
public protocol SQLOrderingTerm {
    /// The ordering term.
    var sqlOrdering: SQLOrdering { get }
}

/// One term of an ORDER BY clause: an expression and its direction.
/// See <https://www.sqlite.org/syntax/ordering-term.html>.
public struct SQLOrdering: SQLOrderingTerm, Sendable {
    /// ASC or DESC, with where NULLs go.
    package enum Direction: Sendable {
        case asc, desc, ascNullsLast, descNullsFirst

        var sql: String {
            switch self {
            case .asc: " ASC"
            case .desc: " DESC"
            case .ascNullsLast: " ASC NULLS LAST"
            case .descNullsFirst: " DESC NULLS FIRST"
            }
        }

        var reversed: Direction {
            switch self {
            case .asc: .desc
            case .desc: .asc
            case .ascNullsLast: .descNullsFirst
            case .descNullsFirst: .ascNullsLast
            }
        }
    }

    package var expression: SQLExpression
    /// nil: no direction written (ascending).
    package var direction: Direction?

    package init(expression: SQLExpression, direction: Direction?) {
        self.expression = expression
        self.direction = direction
    }

    /// Itself.
    public var sqlOrdering: SQLOrdering { self }

    /// The opposite order: ASC and DESC swap, and so do NULLS FIRST and LAST (SQLite puts NULLs
    /// first in ascending order).
    ///
    /// ```swift
    /// Column("title").asc.reversed   // "title" DESC
    /// ```
    public var reversed: SQLOrdering {
        SQLOrdering(expression: expression, direction: (direction ?? .asc).reversed)
    }

    /// The SQL pieces: `"title" DESC`.
    package var pieces: [SQLExpression.Piece] {
        var pieces = expression.pieces
        if let direction {
            pieces.append(.sql(direction.sql))
            if direction == .ascNullsLast || direction == .descNullsFirst {
                pieces.append(.requires(SQLiteVersion(3, 30), feature: "NULLS FIRST/LAST in ORDER BY"))
            }
        }
        return pieces
    }

    /// The same ordering with unqualified columns qualified with `alias`.
    package func qualified(with alias: TableAlias) -> SQLOrdering {
        SQLOrdering(expression: expression.qualified(with: alias), direction: direction)
    }
}

extension SQLSpecificExpressible {
    /// Ascending: `"title" ASC`. NULLs come first.
    public var asc: SQLOrdering { SQLOrdering(expression: sqlExpression, direction: .asc) }
    /// Descending: `"title" DESC`. NULLs come last.
    public var desc: SQLOrdering { SQLOrdering(expression: sqlExpression, direction: .desc) }
    /// Ascending with NULLs last: `"title" ASC NULLS LAST` (SQLite 3.30+).
    public var ascNullsLast: SQLOrdering { SQLOrdering(expression: sqlExpression, direction: .ascNullsLast) }
    /// Descending with NULLs first: `"title" DESC NULLS FIRST` (SQLite 3.30+).
    public var descNullsFirst: SQLOrdering { SQLOrdering(expression: sqlExpression, direction: .descNullsFirst) }
}
