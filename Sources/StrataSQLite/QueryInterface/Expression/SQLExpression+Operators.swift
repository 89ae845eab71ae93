// Operators that build SQL expressions. One side must be an SQLSpecificExpressible (a column,
// an expression); the other may be one too, or any Swift value, which a request binds as an
// argument. Comparing with nil (or a NULL value) gives `IS NULL` / `IS NOT NULL`.
// See <https://www.sqlite.org/lang_expr.html#operators_and_parse_affecting_attributes>.

extension SQLExpression {
    /// Joins two operands with a left-associative binary operator of the given precedence;
    /// `op` comes with its spaces (`" = "`), so that no string is built per expression.
    package static func binary(
        _ lhs: SQLExpression, _ op: String, _ rhs: SQLExpression, _ level: Precedence
    ) -> SQLExpression {
        // One array, sized once: requests build such expressions on every call.
        var pieces: [Piece] = []
        let parentheses = (lhs.precedence >= level ? 0 : 2) + (rhs.precedence > level ? 0 : 2)
        pieces.reserveCapacity(lhs.pieces.count + rhs.pieces.count + 1 + parentheses)
        if lhs.precedence >= level {
            pieces += lhs.pieces
        } else {
            pieces.append(.sql("("))
            pieces += lhs.pieces
            pieces.append(.sql(")"))
        }
        pieces.append(.sql(op))
        // The right operand needs parentheses even at equal precedence: a - (b - c).
        if rhs.precedence > level {
            pieces += rhs.pieces
        } else {
            pieces.append(.sql("("))
            pieces += rhs.pieces
            pieces.append(.sql(")"))
        }
        return SQLExpression(pieces: pieces, precedence: level)
    }

    static func equality(_ lhs: SQLExpression, _ rhs: SQLExpression, negated: Bool) -> SQLExpression {
        if rhs.isNullLiteral { return negated ? lhs.isNotNull : lhs.isNull }
        if lhs.isNullLiteral { return negated ? rhs.isNotNull : rhs.isNull }
        return binary(lhs, negated ? " <> " : " = ", rhs, .equality)
    }

    static func identity(_ lhs: SQLExpression, _ rhs: SQLExpression, negated: Bool) -> SQLExpression {
        if rhs.isNullLiteral { return negated ? lhs.isNotNull : lhs.isNull }
        if lhs.isNullLiteral { return negated ? rhs.isNotNull : rhs.isNull }
        return binary(lhs, negated ? " IS NOT " : " IS ", rhs, .equality)
    }
}

/// `a = b`, or `a IS NULL` when one side is nil: `Column("kind") == "admin"`.
public func == (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.equality(l, r, negated: false)
}
/// `a = b`, or `a IS NULL` when one side is nil: `Column("kind") == "admin"`.
public func == (lhs: some SQLSpecificExpressible, rhs: (any SQLExpressible)?) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.equality(l, r, negated: false)
}
/// `a = b`, or `a IS NULL` when one side is nil: `Column("kind") == "admin"`.
public func == (lhs: (any SQLExpressible)?, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.equality(l, r, negated: false)
}

/// `a <> b`, or `a IS NOT NULL` when one side is nil.
public func != (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.equality(l, r, negated: true)
}
/// `a <> b`, or `a IS NOT NULL` when one side is nil.
public func != (lhs: some SQLSpecificExpressible, rhs: (any SQLExpressible)?) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.equality(l, r, negated: true)
}
/// `a <> b`, or `a IS NOT NULL` when one side is nil.
public func != (lhs: (any SQLExpressible)?, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.equality(l, r, negated: true)
}

/// `a IS b`: equality where NULL IS NULL is true.
public func === (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.identity(l, r, negated: false)
}
/// `a IS b`: equality where NULL IS NULL is true.
public func === (lhs: some SQLSpecificExpressible, rhs: (any SQLExpressible)?) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.identity(l, r, negated: false)
}
/// `a IS b`: equality where NULL IS NULL is true.
public func === (lhs: (any SQLExpressible)?, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.identity(l, r, negated: false)
}

/// `a IS NOT b`.
public func !== (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.identity(l, r, negated: true)
}
/// `a IS NOT b`.
public func !== (lhs: some SQLSpecificExpressible, rhs: (any SQLExpressible)?) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.identity(l, r, negated: true)
}
/// `a IS NOT b`.
public func !== (lhs: (any SQLExpressible)?, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.identity(l, r, negated: true)
}

/// `a < b`.
public func < (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " < ", r, .comparison)
}
/// `a < b`.
public func < (lhs: some SQLSpecificExpressible, rhs: (any SQLExpressible)?) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " < ", r, .comparison)
}
/// `a < b`.
public func < (lhs: (any SQLExpressible)?, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " < ", r, .comparison)
}

/// `a <= b`.
public func <= (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " <= ", r, .comparison)
}
/// `a <= b`.
public func <= (lhs: some SQLSpecificExpressible, rhs: (any SQLExpressible)?) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " <= ", r, .comparison)
}
/// `a <= b`.
public func <= (lhs: (any SQLExpressible)?, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " <= ", r, .comparison)
}

/// `a > b`: `Column("score") > 10`.
public func > (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " > ", r, .comparison)
}
/// `a > b`: `Column("score") > 10`.
public func > (lhs: some SQLSpecificExpressible, rhs: (any SQLExpressible)?) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " > ", r, .comparison)
}
/// `a > b`: `Column("score") > 10`.
public func > (lhs: (any SQLExpressible)?, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " > ", r, .comparison)
}

/// `a >= b`.
public func >= (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " >= ", r, .comparison)
}
/// `a >= b`.
public func >= (lhs: some SQLSpecificExpressible, rhs: (any SQLExpressible)?) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " >= ", r, .comparison)
}
/// `a >= b`.
public func >= (lhs: (any SQLExpressible)?, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " >= ", r, .comparison)
}

/// `a + b`.
public func + (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " + ", r, .additive)
}
/// `a + b`.
public func + (lhs: some SQLSpecificExpressible, rhs: (any SQLExpressible)?) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " + ", r, .additive)
}
/// `a + b`.
public func + (lhs: (any SQLExpressible)?, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " + ", r, .additive)
}

/// `a - b`.
public func - (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " - ", r, .additive)
}
/// `a - b`.
public func - (lhs: some SQLSpecificExpressible, rhs: (any SQLExpressible)?) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " - ", r, .additive)
}
/// `a - b`.
public func - (lhs: (any SQLExpressible)?, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " - ", r, .additive)
}

/// `a * b`: `Column("price") * 2`.
public func * (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " * ", r, .multiplicative)
}
/// `a * b`: `Column("price") * 2`.
public func * (lhs: some SQLSpecificExpressible, rhs: (any SQLExpressible)?) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " * ", r, .multiplicative)
}
/// `a * b`: `Column("price") * 2`.
public func * (lhs: (any SQLExpressible)?, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " * ", r, .multiplicative)
}

/// `a / b` (integer division when both are integers).
public func / (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " / ", r, .multiplicative)
}
/// `a / b` (integer division when both are integers).
public func / (lhs: some SQLSpecificExpressible, rhs: (any SQLExpressible)?) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " / ", r, .multiplicative)
}
/// `a / b` (integer division when both are integers).
public func / (lhs: (any SQLExpressible)?, rhs: some SQLSpecificExpressible) -> SQLExpression {
    let (l, r) = (lhs.sqlExpression, rhs.sqlExpression)
    return SQLExpression.binary(l, " / ", r, .multiplicative)
}

/// `a AND b`: `Column("pinned") && Column("score") > 10`.
public func && (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression.binary(lhs.sqlExpression, " AND ", rhs.sqlExpression, .and)
}

/// `a OR b`.
public func || (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression.binary(lhs.sqlExpression, " OR ", rhs.sqlExpression, .or)
}

/// `NOT a`: `!Column("pinned")`.
public prefix func ! (operand: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(pieces: [.sql("NOT ")] + operand.sqlExpression.operand(atLeast: .not), precedence: .not)
}

/// `-a`.
public prefix func - (operand: some SQLSpecificExpressible) -> SQLExpression {
    // A space keeps "- -1" from becoming the comment "--1".
    SQLExpression(pieces: [.sql("- ")] + operand.sqlExpression.operand(atLeast: .unary), precedence: .unary)
}

/// `IFNULL(a, b)`: `Column("nickname") ?? Column("name")`, `Column("score") ?? 0`.
/// See <https://www.sqlite.org/lang_corefunc.html#ifnull>.
public func ?? (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression {
    SQLExpression.function("IFNULL", [lhs.sqlExpression, rhs.sqlExpression])
}
