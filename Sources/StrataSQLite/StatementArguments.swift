/// Values bound to a statement's parameters: positional (`?`, `?NNN`) and/or named
/// (`:name`, `@name`, `$name`).
///
/// ```swift
/// try db.execute(sql: "INSERT INTO player(name, score) VALUES (?, ?)", arguments: ["Arthur", 100])
/// try db.execute(sql: "UPDATE player SET score = :score WHERE name = :name",
///                arguments: ["name": "Arthur", "score": 120])
/// ```
///
/// Positional values bind to parameter indexes 1, 2, 3... in order, so `?3` takes the third value.
/// A named value binds to the parameter with that name and any of the three prefixes.
/// See <https://www.sqlite.org/lang_expr.html#varparam>.
public struct StatementArguments: Sendable, Hashable, CustomStringConvertible {
    public var positional: [SQLValue]
    public var named: [String: SQLValue]

    public init() {
        positional = []
        named = [:]
    }

    public init(_ values: [SQLValue]) {
        positional = values
        named = [:]
    }

    public init(_ values: [(any SQLValueConvertible)?]) {
        positional = values.map { $0?.sqlValue ?? .null }
        named = [:]
    }

    public init(named values: [String: (any SQLValueConvertible)?]) {
        positional = []
        named = values.mapValues { $0?.sqlValue ?? .null }
    }

    public var isEmpty: Bool { positional.isEmpty && named.isEmpty }

    public var description: String {
        var parts = positional.map(\.sqlLiteral)
        parts += named.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.sqlLiteral)" }
        return "[" + parts.joined(separator: ", ") + "]"
    }
}

extension StatementArguments: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: (any SQLValueConvertible)?...) {
        self.init(elements)
    }
}

extension StatementArguments: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, (any SQLValueConvertible)?)...) {
        self.init()
        for (key, value) in elements { named[key] = value?.sqlValue ?? .null }
    }
}
