/// An SQL expression: the one expression type of the query interface (`filter`, `order`,
/// `select`...) and of the schema DSL (CHECK constraints, generated columns, index expressions).
///
/// ```swift
/// let request = Note.filter(Column("title").like("A%") && Column("score") > 10)
/// // SELECT * FROM "note" WHERE "title" LIKE ? AND "score" > ?   (arguments: ['A%', 10])
/// try db.create(table: "player") { t in
///     t.column("score", .integer).check { $0 >= 0 }  // "score" INTEGER CHECK ("score" >= 0)
/// }
/// ```
///
/// Column names are always quoted, and operators add parentheses where SQLite's precedence needs
/// them. Swift values are kept as values: a request binds them as arguments (`?`), never as SQL
/// text; the schema DSL, whose statements cannot have parameters, writes them as escaped
/// literals (see ``sql``). ``init(sql:)`` and ``init(literal:)`` accept SQL for what the builder
/// does not cover. See <https://www.sqlite.org/lang_expr.html>.
public struct SQLExpression: Sendable {
    /// The parts of the expression: SQL text, values, columns, embedded literals. The rare
    /// cases are boxed (`indirect`), so that a piece is as small as a column: requests copy
    /// pieces when they combine expressions, and an unboxed association aggregate (which holds
    /// a whole relation) made every piece, and every copy, several times larger.
    package enum Piece: Sendable {
        case sql(String)
        case value(SQLValue)
        /// A column, qualified with `alias` when given, or with the table of the request it is
        /// used in when that request joins other tables.
        case column(String, TableAlias?)
        indirect case literal(SQLLiteral)
        /// Renders nothing; the request refuses to run on an older SQLite, naming `feature`.
        indirect case requires(SQLiteVersion, feature: String)
        /// A correlated subquery on an association: `(SELECT COUNT(*) FROM ...)` or `NOT EXISTS (...)`.
        indirect case associationAggregate(SQLAssociation, AssociationAggregateKind)
    }

    package var pieces: [Piece]
    /// How tightly the top-level operator binds (see ``Precedence``).
    package let precedence: Precedence

    /// Binding strength of SQLite's operators, from loosest to tightest.
    /// See <https://www.sqlite.org/lang_expr.html#operators_and_parse_affecting_attributes>.
    package enum Precedence: Int, Comparable, Sendable {
        case raw = 0
        case or, and, not, equality, comparison, additive, multiplicative, concatenation, unary, primary
        package static func < (a: Precedence, b: Precedence) -> Bool { a.rawValue < b.rawValue }
    }

    package init(pieces: [Piece], precedence: Precedence) {
        self.pieces = pieces
        self.precedence = precedence
    }

    package init(_ sql: String, precedence: Precedence) {
        self.init(pieces: [.sql(sql)], precedence: precedence)
    }

    /// An expression written in SQL, used as is (and parenthesized when combined). The text
    /// must come from the program, not from input.
    ///
    /// ```swift
    /// SQLExpression(sql: "json_valid(payload)")
    /// ```
    public init(sql: String) {
        self.init(pieces: [.literal(SQLLiteral(sql: sql))], precedence: .raw)
    }

    /// An expression written with interpolation: values are bound (`?`), never spliced.
    ///
    /// ```swift
    /// Note.filter(SQLExpression(literal: "instr(title, \(word)) > 0"))
    /// ```
    public init(literal: SQLLiteral) {
        self.init(pieces: [.literal(literal)], precedence: .raw)
    }

    /// The column `name`, quoted: `SQLExpression.column("order")` is `"order"`.
    public static func column(_ name: String) -> SQLExpression {
        SQLExpression(pieces: [.column(name, nil)], precedence: .primary)
    }

    /// `value`, bound as an argument in a request, an escaped literal in the schema DSL:
    /// `SQLExpression.value("it's")` is `'it''s'` in a CHECK constraint.
    public static func value(_ value: some SQLValueConvertible) -> SQLExpression {
        Self.value(value.sqlValue)
    }

    package static func value(_ value: SQLValue) -> SQLExpression {
        // A negative number is a unary minus applied to a literal.
        let negative: Bool
        switch value {
        case .integer(let i): negative = i < 0
        case .real(let d): negative = d < 0 || d.sign == .minus
        default: negative = false
        }
        return SQLExpression(pieces: [.value(value)], precedence: negative ? .unary : .primary)
    }

    /// The NULL literal.
    package static let null = SQLExpression("NULL", precedence: .primary)

    /// True for `NULL` and for a NULL value.
    var isNullLiteral: Bool {
        guard pieces.count == 1 else { return false }
        switch pieces[0] {
        case .value(.null): return true
        case .sql(let text): return text == "NULL"
        default: return false
        }
    }

    /// The expression as SQL text, values written as escaped literals (the form of the schema
    /// DSL): `length("name") > 0`.
    public var sql: String {
        var context = SQLRenderContext(inlineValues: true)
        return context.render(self)
    }

    /// The text of ``sql``.
    public var description: String { sql }

    // MARK: Building

    /// The pieces, parenthesized unless the expression binds at least as tightly as `level`.
    package func operand(atLeast level: Precedence) -> [Piece] {
        precedence >= level ? pieces : [.sql("(")] + pieces + [.sql(")")]
    }

    /// A call of the SQL function `name` with these arguments: `length("title")`.
    package static func function(_ name: String, _ arguments: [SQLExpression]) -> SQLExpression {
        var pieces: [Piece] = [.sql(name + "(")]
        for (i, argument) in arguments.enumerated() {
            if i > 0 { pieces.append(.sql(", ")) }
            pieces += argument.pieces
        }
        pieces.append(.sql(")"))
        return SQLExpression(pieces: pieces, precedence: .primary)
    }

    /// The same expression with its unqualified columns qualified with `alias`.
    package func qualified(with alias: TableAlias) -> SQLExpression {
        SQLExpression(
            pieces: pieces.map { piece in
                if case .column(let name, nil) = piece { return .column(name, alias) }
                return piece
            }, precedence: precedence)
    }

    /// The names of the columns read, with their qualifiers.
    package var columns: [(name: String, alias: TableAlias?)] {
        pieces.compactMap { piece in
            if case .column(let name, let alias) = piece { return (name, alias) }
            return nil
        }
    }

    /// True when the expression holds an association aggregate (a correlated subquery).
    package var hasAssociationAggregate: Bool {
        pieces.contains { piece in
            if case .associationAggregate = piece { return true }
            return false
        }
    }

    /// True when the expression embeds SQL written by hand, whose columns are unknown.
    package var hasRawSQL: Bool {
        pieces.contains { piece in
            if case .literal = piece { return true }
            return false
        }
    }
}

extension SQLExpression: SQLSpecificExpressible {
    /// The expression itself.
    public var sqlExpression: SQLExpression { self }
}
