import StrataSQLite

// Operators that build SQL expressions. One side must be an ``SQLExpression`` (a column, a
// function call...); the other may be an expression or any Swift value, which becomes an escaped
// literal. Comparing with a NULL value gives `IS NULL` / `IS NOT NULL`.
// See <https://www.sqlite.org/lang_expr.html#operators_and_parse_affecting_attributes>.
extension SQLExpression {
    /// Joins two operands with a left-associative binary operator of the given precedence.
    static func binary(_ lhs: SQLExpression, _ op: String, _ rhs: SQLExpression, _ level: Precedence) -> SQLExpression {
        // The right operand needs parentheses even at equal precedence: a - (b - c).
        let right = rhs.precedence > level ? rhs.sql : "(\(rhs.sql))"
        return SQLExpression(sql: "\(lhs.operand(atLeast: level)) \(op) \(right)", precedence: level)
    }

    static func equality(_ lhs: SQLExpression, _ rhs: SQLExpression, negated: Bool) -> SQLExpression {
        if rhs.sql == "NULL" { return negated ? lhs.isNotNull : lhs.isNull }
        if lhs.sql == "NULL" { return negated ? rhs.isNotNull : rhs.isNull }
        return binary(lhs, negated ? "<>" : "=", rhs, .equality)
    }

    // MARK: Comparison

    /// `a = b`, or `a IS NULL` when one side is NULL: `SQLExpression.column("kind") == "admin"`.
    public static func == (lhs: SQLExpression, rhs: SQLExpression) -> SQLExpression {
        equality(lhs, rhs, negated: false)
    }
    /// `a = value`: `SQLExpression.column("kind") == "admin"` is `"kind" = 'admin'`.
    public static func == (lhs: SQLExpression, rhs: some SQLValueConvertible) -> SQLExpression { lhs == .value(rhs) }
    /// `value = b`.
    public static func == (lhs: some SQLValueConvertible, rhs: SQLExpression) -> SQLExpression { .value(lhs) == rhs }

    /// `a <> b`, or `a IS NOT NULL` when one side is NULL.
    public static func != (lhs: SQLExpression, rhs: SQLExpression) -> SQLExpression {
        equality(lhs, rhs, negated: true)
    }
    /// `a <> value`.
    public static func != (lhs: SQLExpression, rhs: some SQLValueConvertible) -> SQLExpression { lhs != .value(rhs) }
    /// `value <> b`.
    public static func != (lhs: some SQLValueConvertible, rhs: SQLExpression) -> SQLExpression { .value(lhs) != rhs }

    /// `a < b`: `SQLExpression.column("start") < .column("end")`.
    public static func < (lhs: SQLExpression, rhs: SQLExpression) -> SQLExpression {
        binary(lhs, "<", rhs, .comparison)
    }
    /// `a < value`.
    public static func < (lhs: SQLExpression, rhs: some SQLValueConvertible) -> SQLExpression { lhs < .value(rhs) }
    /// `value < b`.
    public static func < (lhs: some SQLValueConvertible, rhs: SQLExpression) -> SQLExpression { .value(lhs) < rhs }

    /// `a <= b`.
    public static func <= (lhs: SQLExpression, rhs: SQLExpression) -> SQLExpression {
        binary(lhs, "<=", rhs, .comparison)
    }
    /// `a <= value`.
    public static func <= (lhs: SQLExpression, rhs: some SQLValueConvertible) -> SQLExpression { lhs <= .value(rhs) }
    /// `value <= b`.
    public static func <= (lhs: some SQLValueConvertible, rhs: SQLExpression) -> SQLExpression { .value(lhs) <= rhs }

    /// `a > b`.
    public static func > (lhs: SQLExpression, rhs: SQLExpression) -> SQLExpression {
        binary(lhs, ">", rhs, .comparison)
    }
    /// `a > value`: `t.column("age", .integer).check { $0 > 0 }`.
    public static func > (lhs: SQLExpression, rhs: some SQLValueConvertible) -> SQLExpression { lhs > .value(rhs) }
    /// `value > b`.
    public static func > (lhs: some SQLValueConvertible, rhs: SQLExpression) -> SQLExpression { .value(lhs) > rhs }

    /// `a >= b`.
    public static func >= (lhs: SQLExpression, rhs: SQLExpression) -> SQLExpression {
        binary(lhs, ">=", rhs, .comparison)
    }
    /// `a >= value`.
    public static func >= (lhs: SQLExpression, rhs: some SQLValueConvertible) -> SQLExpression { lhs >= .value(rhs) }
    /// `value >= b`.
    public static func >= (lhs: some SQLValueConvertible, rhs: SQLExpression) -> SQLExpression { .value(lhs) >= rhs }

    // MARK: Logic

    /// `a AND b`: `$0 >= 0 && $0 <= 100`.
    public static func && (lhs: SQLExpression, rhs: SQLExpression) -> SQLExpression { binary(lhs, "AND", rhs, .and) }
    /// `a OR b`.
    public static func || (lhs: SQLExpression, rhs: SQLExpression) -> SQLExpression { binary(lhs, "OR", rhs, .or) }
    /// `NOT a`.
    public static prefix func ! (operand: SQLExpression) -> SQLExpression {
        SQLExpression(sql: "NOT \(operand.operand(atLeast: .not))", precedence: .not)
    }

    // MARK: Arithmetic

    /// `a + b`.
    public static func + (lhs: SQLExpression, rhs: SQLExpression) -> SQLExpression { binary(lhs, "+", rhs, .additive) }
    /// `a + value`.
    public static func + (lhs: SQLExpression, rhs: some SQLValueConvertible) -> SQLExpression { lhs + .value(rhs) }
    /// `value + b`.
    public static func + (lhs: some SQLValueConvertible, rhs: SQLExpression) -> SQLExpression { .value(lhs) + rhs }

    /// `a - b`.
    public static func - (lhs: SQLExpression, rhs: SQLExpression) -> SQLExpression { binary(lhs, "-", rhs, .additive) }
    /// `a - value`.
    public static func - (lhs: SQLExpression, rhs: some SQLValueConvertible) -> SQLExpression { lhs - .value(rhs) }
    /// `value - b`.
    public static func - (lhs: some SQLValueConvertible, rhs: SQLExpression) -> SQLExpression { .value(lhs) - rhs }

    /// `a * b`.
    public static func * (lhs: SQLExpression, rhs: SQLExpression) -> SQLExpression {
        binary(lhs, "*", rhs, .multiplicative)
    }
    /// `a * value`: `SQLExpression.column("price") * 2`.
    public static func * (lhs: SQLExpression, rhs: some SQLValueConvertible) -> SQLExpression { lhs * .value(rhs) }
    /// `value * b`.
    public static func * (lhs: some SQLValueConvertible, rhs: SQLExpression) -> SQLExpression { .value(lhs) * rhs }

    /// `a / b` (integer division when both are integers).
    public static func / (lhs: SQLExpression, rhs: SQLExpression) -> SQLExpression {
        binary(lhs, "/", rhs, .multiplicative)
    }
    /// `a / value`.
    public static func / (lhs: SQLExpression, rhs: some SQLValueConvertible) -> SQLExpression { lhs / .value(rhs) }
    /// `value / b`.
    public static func / (lhs: some SQLValueConvertible, rhs: SQLExpression) -> SQLExpression { .value(lhs) / rhs }

    /// `-a`.
    public static prefix func - (operand: SQLExpression) -> SQLExpression {
        // A space keeps "- -1" from becoming the comment "--1".
        SQLExpression(sql: "- \(operand.operand(atLeast: .unary))", precedence: .unary)
    }
}
