import StrataSQLite

/// A small SQL expression, for CHECK constraints, generated columns, expression indexes and
/// partial-index conditions.
///
/// Column names are always quoted and values always written as escaped literals; operators add
/// parentheses where SQLite's precedence needs them:
///
/// ```swift
/// let name = SQLExpression.column("name")
/// (name.length > 0 && name.length <= 40).sql // length("name") > 0 AND length("name") <= 40
/// try db.create(table: "player") { t in
///     t.column("score", .integer).check { $0 >= 0 }  // "score" INTEGER CHECK ("score" >= 0)
/// }
/// ```
///
/// ``init(sql:)`` accepts any SQL for what the builder does not cover; it is parenthesized when
/// combined with other expressions. See <https://www.sqlite.org/lang_expr.html>.
public struct SQLExpression: Sendable, CustomStringConvertible {
    /// The expression as SQL text.
    public let sql: String
    /// How tightly the top-level operator of ``sql`` binds (see ``Precedence``).
    let precedence: Precedence

    /// Binding strength of SQLite's operators, from loosest to tightest.
    /// See <https://www.sqlite.org/lang_expr.html#operators_and_parse_affecting_attributes>.
    enum Precedence: Int, Comparable, Sendable {
        case raw = 0
        case or, and, not, equality, comparison, additive, multiplicative, concatenation, unary, primary
        static func < (a: Precedence, b: Precedence) -> Bool { a.rawValue < b.rawValue }
    }

    init(sql: String, precedence: Precedence) {
        self.sql = sql
        self.precedence = precedence
    }

    /// An expression written in SQL, used as is (and parenthesized when combined).
    ///
    /// ```swift
    /// SQLExpression(sql: "json_valid(payload)")
    /// ```
    public init(sql: String) {
        self.init(sql: sql, precedence: .raw)
    }

    /// The column `name`, quoted: `SQLExpression.column("order")` is `"order"`.
    public static func column(_ name: String) -> SQLExpression {
        SQLExpression(sql: SQL.quoteIdentifier(name), precedence: .primary)
    }

    /// `value` as an escaped SQL literal: `SQLExpression.value("it's")` is `'it''s'`.
    public static func value(_ value: some SQLValueConvertible) -> SQLExpression {
        let literal = value.sqlValue.sqlLiteral
        // Negative numbers are a unary minus applied to a literal.
        return SQLExpression(sql: literal, precedence: literal.hasPrefix("-") ? .unary : .primary)
    }

    /// The text of ``sql``.
    public var description: String { sql }

    /// The expression, parenthesized unless it binds at least as tightly as `level`.
    func operand(atLeast level: Precedence) -> String {
        precedence >= level ? sql : "(\(sql))"
    }

    /// A call of the SQL function `name` with this expression as its only argument.
    func call(_ name: String) -> SQLExpression {
        SQLExpression(sql: "\(name)(\(sql))", precedence: .primary)
    }

    /// `length(x)`: the number of characters of a text (bytes of a blob).
    /// See <https://www.sqlite.org/lang_corefunc.html#length>.
    public var length: SQLExpression { call("length") }

    /// `lower(x)`: ASCII characters in lower case. See <https://www.sqlite.org/lang_corefunc.html#lower>.
    public var lowercased: SQLExpression { call("lower") }

    /// `upper(x)`: ASCII characters in upper case. See <https://www.sqlite.org/lang_corefunc.html#upper>.
    public var uppercased: SQLExpression { call("upper") }

    /// `typeof(x)`: the storage class, `'integer'`, `'text'`… See <https://www.sqlite.org/lang_corefunc.html#typeof>.
    public var typeOf: SQLExpression { call("typeof") }

    /// `x IS NULL`.
    public var isNull: SQLExpression {
        SQLExpression(sql: "\(operand(atLeast: .equality)) IS NULL", precedence: .equality)
    }

    /// `x IS NOT NULL`.
    public var isNotNull: SQLExpression {
        SQLExpression(sql: "\(operand(atLeast: .equality)) IS NOT NULL", precedence: .equality)
    }

    /// `x IN (v1, v2, ...)`; an empty list gives `0` (false), as SQLite would.
    ///
    /// ```swift
    /// SQLExpression.column("status").in(["draft", "published"]) // "status" IN ('draft', 'published')
    /// ```
    public func `in`<V: SQLValueConvertible>(_ values: [V]) -> SQLExpression {
        let list = values.map { $0.sqlValue.sqlLiteral }.joined(separator: ", ")
        return SQLExpression(sql: "\(operand(atLeast: .comparison)) IN (\(list))", precedence: .equality)
    }

    /// `x LIKE pattern` (ASCII case-insensitive; `%` and `_` are wildcards).
    /// See <https://www.sqlite.org/lang_expr.html#like>.
    public func like(_ pattern: String) -> SQLExpression {
        SQLExpression(
            sql: "\(operand(atLeast: .comparison)) LIKE \(SQLValue.text(pattern).sqlLiteral)", precedence: .equality)
    }

    /// `x GLOB pattern` (case-sensitive; `*` and `?` are wildcards).
    /// See <https://www.sqlite.org/lang_expr.html#glob>.
    public func glob(_ pattern: String) -> SQLExpression {
        SQLExpression(
            sql: "\(operand(atLeast: .comparison)) GLOB \(SQLValue.text(pattern).sqlLiteral)", precedence: .equality)
    }

    /// `x BETWEEN low AND high`.
    ///
    /// ```swift
    /// SQLExpression.column("level").between(1, and: 99) // "level" BETWEEN 1 AND 99
    /// ```
    public func between(_ low: some SQLValueConvertible, and high: some SQLValueConvertible) -> SQLExpression {
        let lo = SQLExpression.value(low).operand(atLeast: .comparison)
        let hi = SQLExpression.value(high).operand(atLeast: .comparison)
        return SQLExpression(sql: "\(operand(atLeast: .comparison)) BETWEEN \(lo) AND \(hi)", precedence: .equality)
    }

    /// `x COLLATE name`: compares this expression with the given collation.
    public func collating(_ collation: Database.Collation) -> SQLExpression {
        SQLExpression(sql: "\(operand(atLeast: .unary)) COLLATE \(collation.sql)", precedence: .concatenation)
    }
}
