/// A value that can stand in an SQL expression: a column, an expression, or a Swift value (every
/// ``SQLValueConvertible`` type), which a request binds as an argument.
///
/// ```swift
/// Note.filter(Column("score") > 10)   // 10 is SQLExpressible, bound as ?
/// ```
public protocol SQLExpressible {
    /// The expression.
    var sqlExpression: SQLExpression { get }
}

/// An expression that is not a plain Swift value: a column, an expression, a function call.
/// Operators need one side of this kind, so that `42 == 42` stays a Swift comparison.
///
/// ```swift
/// Column("title").like("A%")      // a method of SQLSpecificExpressible
/// ```
public protocol SQLSpecificExpressible: SQLExpressible, SQLSelectable, SQLOrderingTerm {}

extension SQLValueConvertible {
    /// The value, bound as an argument in a request (an escaped literal in the schema DSL).
    public var sqlExpression: SQLExpression { .value(sqlValue) }
}

extension SQLSpecificExpressible {
    /// The expression as a selected column.
    public var sqlSelection: SQLSelection { SQLSelection(kind: .expression(sqlExpression, name: nil)) }

    /// The expression in ascending order (without a direction, as SQLite reads it).
    public var sqlOrdering: SQLOrdering { SQLOrdering(expression: sqlExpression, direction: nil) }
}

extension SQLSpecificExpressible where Self == SQLExpression {
    /// The column `name`, for places that take any expression: `t.check(.column("a") < .column("b"))`.
    public static func column(_ name: String) -> SQLExpression { SQLExpression.column(name) }
}

extension Optional where Wrapped == any SQLExpressible {
    /// The expression, or NULL for nil.
    var sqlExpression: SQLExpression { self?.sqlExpression ?? .null }
}

// The conditional SQLValueConvertible conformances, restated for the protocol it refines.
extension Optional: SQLExpressible where Wrapped: SQLValueConvertible {}
extension Array: SQLExpressible where Element == UInt8 {}
