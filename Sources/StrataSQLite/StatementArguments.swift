/// Values bound to a statement's parameters: positional (`?`, `?NNN`) and/or named
/// (`:name`, `@name`, `$name`).
///
/// ```swift
/// try db.execute(sql: "INSERT INTO player(name, score) VALUES (?, ?)", arguments: ["Arthur", 100])
/// try db.execute(sql: "UPDATE player SET score = :score WHERE name = :name",
///                arguments: ["name": "Arthur", "score": 120])
/// ```
///
/// Positional values go, in order, to the parameters without a name: `?` and `?NNN` by index,
/// so in a statement with only `?1`...`?3`, `?3` takes the third value. A named value binds to
/// the parameter with that name, whichever of the three prefixes it has (the key may be written
/// with or without it). See <https://www.sqlite.org/lang_expr.html#varparam>.
///
/// The ``description`` prints the values; ``SQLiteError`` leaves them out of its own
/// description unless ``Configuration/publicStatementArguments`` is set.
public struct StatementArguments: Sendable, Hashable, CustomStringConvertible {
    /// Values for the positional parameters, in order.
    public var positional: [SQLValue]
    /// Values for the named parameters, keyed by name without prefix (or with it).
    public var named: [String: SQLValue]

    /// No arguments.
    ///
    /// ```swift
    /// try stmt.execute(arguments: StatementArguments())
    /// ```
    public init() {
        positional = []
        named = [:]
    }

    /// Positional values.
    ///
    /// ```swift
    /// StatementArguments([.integer(1), .text("Arthur")])
    /// ```
    public init(_ values: [SQLValue]) {
        positional = values
        named = [:]
    }

    /// Positional values of any convertible type; nil is NULL.
    ///
    /// ```swift
    /// let values: [(any SQLValueConvertible)?] = [1, "Arthur", nil]
    /// StatementArguments(values)
    /// ```
    public init(_ values: [(any SQLValueConvertible)?]) {
        positional = values.map { $0?.sqlValue ?? .null }
        named = [:]
    }

    /// Named values; nil is NULL.
    ///
    /// ```swift
    /// StatementArguments(named: ["name": "Arthur", "score": 100])
    /// ```
    public init(named values: [String: (any SQLValueConvertible)?]) {
        positional = []
        named = values.mapValues { $0?.sqlValue ?? .null }
    }

    /// Positional and named values together, for statements that mix both kinds.
    ///
    /// ```swift
    /// // SELECT * FROM player WHERE score > ? AND name = :name
    /// StatementArguments([100], named: ["name": "Arthur"])
    /// ```
    public init(_ values: [(any SQLValueConvertible)?], named: [String: (any SQLValueConvertible)?]) {
        positional = values.map { $0?.sqlValue ?? .null }
        self.named = named.mapValues { $0?.sqlValue ?? .null }
    }

    /// True when there are no values at all.
    public var isEmpty: Bool { positional.isEmpty && named.isEmpty }

    /// The positional values of both, in order, and the named values of both (`rhs` wins).
    ///
    /// ```swift
    /// let args: StatementArguments = ["Arthur"] + ["score": 100]
    /// ```
    public static func + (lhs: StatementArguments, rhs: StatementArguments) -> StatementArguments {
        var result = lhs
        result.positional += rhs.positional
        result.named.merge(rhs.named) { _, new in new }
        return result
    }

    /// The values as SQL literals: `[1, 'Arthur', name: 'x']`.
    public var description: String {
        var parts = positional.map(\.sqlLiteral)
        parts += named.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.sqlLiteral)" }
        return "[" + parts.joined(separator: ", ") + "]"
    }
}

extension StatementArguments: ExpressibleByArrayLiteral {
    /// Positional values: `["Arthur", 100, nil]`.
    public init(arrayLiteral elements: (any SQLValueConvertible)?...) {
        self.init(elements)
    }
}

extension StatementArguments: ExpressibleByDictionaryLiteral {
    /// Named values: `["name": "Arthur", "score": 100]`.
    public init(dictionaryLiteral elements: (String, (any SQLValueConvertible)?)...) {
        self.init()
        for (key, value) in elements { named[key] = value?.sqlValue ?? .null }
    }
}
