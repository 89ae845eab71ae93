// Functions and predicates on expressions: `Column("title").like("A%")`, `.length`,
// `["a", "b"].contains(Column("kind"))`...

extension SQLSpecificExpressible {
    private func call(_ name: String) -> SQLExpression { .function(name, [sqlExpression]) }

    /// `length(x)`: the number of characters of a text (bytes of a blob).
    /// See <https://www.sqlite.org/lang_corefunc.html#length>.
    public var length: SQLExpression { call("length") }

    /// `lower(x)`: ASCII characters in lower case. See <https://www.sqlite.org/lang_corefunc.html#lower>.
    public var lowercased: SQLExpression { call("lower") }

    /// `upper(x)`: ASCII characters in upper case. See <https://www.sqlite.org/lang_corefunc.html#upper>.
    public var uppercased: SQLExpression { call("upper") }

    /// `typeof(x)`: the storage class, `'integer'`, `'text'`… See <https://www.sqlite.org/lang_corefunc.html#typeof>.
    public var typeOf: SQLExpression { call("typeof") }

    /// `abs(x)`. See <https://www.sqlite.org/lang_corefunc.html#abs>.
    public var abs: SQLExpression { call("abs") }

    /// `x IS NULL`.
    public var isNull: SQLExpression {
        SQLExpression(pieces: sqlExpression.operand(atLeast: .equality) + [.sql(" IS NULL")], precedence: .equality)
    }

    /// `x IS NOT NULL`.
    public var isNotNull: SQLExpression {
        SQLExpression(pieces: sqlExpression.operand(atLeast: .equality) + [.sql(" IS NOT NULL")], precedence: .equality)
    }

    /// `x IN (v1, v2, ...)`; an empty list is `x IN ()`, which is false.
    ///
    /// ```swift
    /// Column("status").in(["draft", "published"])   // "status" IN (?, ?)
    /// ```
    /// See <https://www.sqlite.org/lang_expr.html#the_in_and_not_in_operators>.
    public func `in`(_ values: some Sequence<some SQLExpressible>) -> SQLExpression {
        var pieces = sqlExpression.operand(atLeast: .comparison) + [.sql(" IN (")]
        for (i, value) in values.enumerated() {
            if i > 0 { pieces.append(.sql(", ")) }
            pieces += value.sqlExpression.pieces
        }
        pieces.append(.sql(")"))
        return SQLExpression(pieces: pieces, precedence: .equality)
    }

    private func infix(_ op: String, _ rhs: SQLExpression) -> SQLExpression {
        SQLExpression(
            pieces: sqlExpression.operand(atLeast: .comparison) + [.sql(" \(op) ")] + rhs.operand(atLeast: .comparison),
            precedence: .equality)
    }

    /// `x LIKE pattern` (ASCII case-insensitive; `%` and `_` are wildcards), with an optional
    /// escape character. See <https://www.sqlite.org/lang_expr.html#like>.
    ///
    /// ```swift
    /// Column("title").like("A%")   // "title" LIKE ?
    /// ```
    public func like(_ pattern: some SQLExpressible, escape: String? = nil) -> SQLExpression {
        let like = infix("LIKE", pattern.sqlExpression)
        guard let escape else { return like }
        return SQLExpression(
            pieces: like.pieces + [.sql(" ESCAPE ")] + SQLExpression.value(escape).pieces, precedence: .equality)
    }

    /// `x GLOB pattern` (case-sensitive; `*` and `?` are wildcards).
    /// See <https://www.sqlite.org/lang_expr.html#glob>.
    public func glob(_ pattern: some SQLExpressible) -> SQLExpression {
        infix("GLOB", pattern.sqlExpression)
    }

    /// `x BETWEEN low AND high`.
    ///
    /// ```swift
    /// Column("level").between(1, and: 99)   // "level" BETWEEN ? AND ?
    /// ```
    public func between(_ low: some SQLExpressible, and high: some SQLExpressible) -> SQLExpression {
        SQLExpression(
            pieces: sqlExpression.operand(atLeast: .comparison) + [.sql(" BETWEEN ")]
                + low.sqlExpression.operand(atLeast: .comparison) + [.sql(" AND ")]
                + high.sqlExpression.operand(atLeast: .comparison),
            precedence: .equality)
    }

    /// `x COLLATE name`: compares with the given collation.
    ///
    /// ```swift
    /// Column("title").collating(.nocase) == "milk"   // "title" COLLATE NOCASE = ?
    /// ```
    /// See <https://www.sqlite.org/datatype3.html#collating_sequences>.
    public func collating(_ collation: Database.Collation) -> SQLExpression {
        SQLExpression(
            pieces: sqlExpression.operand(atLeast: .unary) + [.sql(" COLLATE \(collation.sql)")],
            precedence: .concatenation)
    }

    /// `x -> path`: the JSON representation of the element at `path` (SQLite 3.38+).
    ///
    /// ```swift
    /// Column("info").jsonRepresentation(atPath: "$.tags")   // "info" -> ?
    /// ```
    /// See <https://www.sqlite.org/json1.html#jptr>.
    public func jsonRepresentation(atPath path: some SQLExpressible) -> SQLExpression {
        jsonOperator("->", path)
    }

    /// `x ->> path`: the SQL value of the element at `path` (SQLite 3.38+).
    ///
    /// ```swift
    /// Note.filter(Column("info").jsonValue(atPath: "$.score") > 10)   // "info" ->> ? > ?
    /// ```
    /// See <https://www.sqlite.org/json1.html#jptr>.
    public func jsonValue(atPath path: some SQLExpressible) -> SQLExpression {
        jsonOperator("->>", path)
    }

    private func jsonOperator(_ op: String, _ path: some SQLExpressible) -> SQLExpression {
        SQLExpression(
            pieces: [.requires(SQLiteVersion(3, 38), feature: "the JSON operator \(op)")]
                + sqlExpression.operand(atLeast: .concatenation) + [.sql(" \(op) ")]
                + path.sqlExpression.operand(atLeast: .unary),
            precedence: .concatenation)
    }
}

extension Sequence where Element: SQLExpressible {
    /// `expression IN (...)`: true when the expression is one of the values.
    ///
    /// ```swift
    /// Note.filter(["draft", "published"].contains(Column("status")))   // "status" IN (?, ?)
    /// ```
    public func contains(_ expression: some SQLSpecificExpressible) -> SQLExpression {
        expression.in(self)
    }
}

extension ClosedRange where Bound: SQLExpressible {
    /// `expression BETWEEN low AND high`: `(1...9).contains(Column("level"))`.
    public func contains(_ expression: some SQLSpecificExpressible) -> SQLExpression {
        expression.between(lowerBound, and: upperBound)
    }
}

extension Range where Bound: SQLExpressible {
    /// `expression >= low AND expression < high`: `(1..<10).contains(Column("level"))`.
    public func contains(_ expression: some SQLSpecificExpressible) -> SQLExpression {
        expression >= lowerBound && expression < upperBound
    }
}

// MARK: Aggregates (https://www.sqlite.org/lang_aggfunc.html)

/// `COUNT(x)`: the number of non-NULL values.
///
/// ```swift
/// Note.select(count(Column("folderId")))
/// ```
public func count(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    .function("COUNT", [expression.sqlExpression])
}

/// `COUNT(DISTINCT x)`: the number of distinct non-NULL values.
public func count(distinct expression: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(
        pieces: [.sql("COUNT(DISTINCT ")] + expression.sqlExpression.pieces + [.sql(")")], precedence: .primary)
}

/// `SUM(x)`: the sum (NULL when there are no non-NULL values).
public func sum(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    .function("SUM", [expression.sqlExpression])
}

/// `TOTAL(x)`: the sum as a real, 0.0 when there are no non-NULL values.
public func total(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    .function("TOTAL", [expression.sqlExpression])
}

/// `MIN(x)`: the smallest value.
public func min(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    .function("MIN", [expression.sqlExpression])
}

/// `MAX(x)`: the largest value.
public func max(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    .function("MAX", [expression.sqlExpression])
}

/// `AVG(x)`: the average of the non-NULL values.
public func average(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    .function("AVG", [expression.sqlExpression])
}
