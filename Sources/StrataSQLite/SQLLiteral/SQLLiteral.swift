/// SQL text with its arguments, written with string interpolation: interpolated values become
/// bound arguments (`?`), never SQL text, so they cannot inject SQL.
///
/// ```swift
/// let title = "'); DROP TABLE note; --"
/// try db.execute(literal: "UPDATE note SET title = \(title) WHERE id = \(id)")
/// // sql: UPDATE note SET title = ? WHERE id = ?, arguments: [title, id]
/// let notes = try Note.fetchAll(db, literal: "SELECT * FROM note WHERE title LIKE \(pattern)")
/// ```
///
/// Identifiers (table and column names) are not values; interpolate them with
/// `\(identifier: name)`, which double-quotes them. Other forms: `\(values: ids)` for an `IN`
/// list, `\(literal: other)` to embed another ``SQLLiteral``, and `\(sql: text)` for raw SQL
/// text (which, like `execute(sql:)`, must come from you, not from input).
///
/// The literal parts are SQL as written; do not put `?` placeholders in them, since the
/// interpolated values are numbered in order. GRDB calls this type `SQL`.
/// See <https://www.sqlite.org/lang_expr.html#varparam>.
public struct SQLLiteral: Sendable, Hashable, CustomStringConvertible {
    /// The SQL text, with a `?` where each value was interpolated.
    public private(set) var sql: String
    /// The values of the `?` placeholders, in order (and any named values given to
    /// ``init(sql:arguments:)``).
    public private(set) var arguments: StatementArguments

    /// SQL text and its arguments, unchanged.
    ///
    /// ```swift
    /// let literal = SQLLiteral(sql: "SELECT * FROM note WHERE id = ?", arguments: [42])
    /// ```
    public init(sql: String, arguments: StatementArguments = StatementArguments()) {
        self.sql = sql
        self.arguments = arguments
    }

    /// Appends `other`'s SQL and arguments.
    ///
    /// ```swift
    /// var query: SQLLiteral = "SELECT * FROM note"
    /// if let pattern { query.append(" WHERE title LIKE \(pattern)") }
    /// ```
    public mutating func append(_ other: SQLLiteral) {
        sql += other.sql
        arguments = arguments + other.arguments
    }

    /// The two literals one after the other.
    ///
    /// ```swift
    /// let query: SQLLiteral = "SELECT * FROM note " + "WHERE id = \(id)"
    /// ```
    public static func + (lhs: SQLLiteral, rhs: SQLLiteral) -> SQLLiteral {
        var result = lhs
        result.append(rhs)
        return result
    }

    /// The SQL, then the arguments when there are some: `SELECT ? [42]`.
    public var description: String {
        arguments.isEmpty ? sql : "\(sql) \(arguments)"
    }

    /// `name` as a double-quoted SQL identifier, inner quotes doubled: correct for every name
    /// (keywords, spaces, quotes). See <https://www.sqlite.org/lang_keywords.html>.
    ///
    /// ```swift
    /// SQLLiteral.quote(identifier: "order")   // "order" (with the double quotes)
    /// ```
    public static func quote(identifier name: String) -> String {
        guard name.utf8.contains(UInt8(ascii: "\"")) else {
            var quoted = ""
            quoted.reserveCapacity(name.utf8.count + 2)
            quoted.append("\"")
            quoted.append(name)
            quoted.append("\"")
            return quoted
        }
        // Quotes doubled byte by byte, as SQLite reads them (a quote followed by a combining
        // mark is a quote too): the one rule, ``SQLTextBuffer/appendQuoted(identifier:)``.
        var buffer = SQLTextBuffer(capacity: name.utf8.count + 8)
        buffer.appendQuoted(identifier: name)
        return buffer.string
    }
}

extension SQLLiteral: ExpressibleByStringInterpolation {
    /// A literal without interpolations is plain SQL: `let query: SQLLiteral = "SELECT 1"`.
    public init(stringLiteral value: String) {
        self.init(sql: value)
    }

    /// The SQL and arguments collected by the interpolation.
    public init(stringInterpolation: StringInterpolation) {
        self.init(sql: stringInterpolation.sql, arguments: stringInterpolation.arguments)
    }

    /// Collects the SQL text and arguments of an interpolated ``SQLLiteral``.
    ///
    /// ```swift
    /// let literal: SQLLiteral = "SELECT * FROM \(identifier: table) WHERE id IN \(values: ids)"
    /// ```
    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var arguments = StatementArguments()

        /// Reserves room for the literal text.
        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount * 2)
        }

        /// Literal text is SQL, kept as written: `"SELECT * FROM note"`.
        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        /// A value becomes a `?` placeholder bound to it; `nil` binds NULL.
        ///
        /// ```swift
        /// "UPDATE note SET title = \(title) WHERE id = \(id)"
        /// ```
        public mutating func appendInterpolation<Value: SQLValueConvertible>(_ value: Value?) {
            sql += "?"
            arguments.positional.append(value?.sqlValue ?? .null)
        }

        /// A value of unknown type becomes a `?` placeholder bound to it.
        ///
        /// ```swift
        /// let value: any SQLValueConvertible = 42
        /// "SELECT \(value)"
        /// ```
        public mutating func appendInterpolation(_ value: any SQLValueConvertible) {
            sql += "?"
            arguments.positional.append(value.sqlValue)
        }

        /// An identifier, double-quoted: `\(identifier: "order")` writes `"order"`.
        ///
        /// ```swift
        /// "SELECT \(identifier: column) FROM \(identifier: table)"
        /// ```
        public mutating func appendInterpolation(identifier: String) {
            sql += SQLLiteral.quote(identifier: identifier)
        }

        /// A parenthesized list of placeholders, one per value, for `IN`: `(?, ?, ?)`.
        /// An empty list writes `()`, which SQLite accepts (`x IN ()` is false).
        ///
        /// ```swift
        /// "SELECT * FROM note WHERE id IN \(values: ids)"
        /// ```
        /// See <https://www.sqlite.org/lang_expr.html#the_in_and_not_in_operators>.
        public mutating func appendInterpolation<S: Sequence>(values: S) where S.Element: SQLValueConvertible {
            sql += "("
            var first = true
            for value in values {
                sql += first ? "?" : ", ?"
                first = false
                arguments.positional.append(value.sqlValue)
            }
            sql += ")"
        }

        /// Another literal, embedded with its arguments.
        ///
        /// ```swift
        /// let condition: SQLLiteral = "title LIKE \(pattern)"
        /// "SELECT * FROM note WHERE \(literal: condition)"
        /// ```
        public mutating func appendInterpolation(literal: SQLLiteral) {
            sql += literal.sql
            arguments = arguments + literal.arguments
        }

        /// Raw SQL text, inserted as is, with its own arguments: never pass text that comes from
        /// outside the program.
        ///
        /// ```swift
        /// "SELECT * FROM note ORDER BY \(sql: ascending ? "title" : "title DESC")"
        /// ```
        public mutating func appendInterpolation(sql: String, arguments: StatementArguments = StatementArguments()) {
            self.sql += sql
            self.arguments = self.arguments + arguments
        }
    }
}
