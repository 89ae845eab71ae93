import StrataSQLite

/// Options of `CREATE INDEX`.
///
/// ```swift
/// try db.create(index: "player_on_email", on: "player", columns: ["email"], options: [.unique, .ifNotExists])
/// ```
///
/// See <https://www.sqlite.org/lang_createindex.html>.
public struct IndexOptions: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int
    /// Options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `UNIQUE`: refuses two rows with the same indexed values (NULLs excepted).
    public static let unique = IndexOptions(rawValue: 1 << 0)
    /// `IF NOT EXISTS`: does nothing when an index with that name exists.
    public static let ifNotExists = IndexOptions(rawValue: 1 << 1)
}

/// `CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table(columns or expressions) [WHERE condition]`.
///
/// ```swift
/// let index = IndexDefinition("player_on_name", on: "player",
///                             columns: [.column("name", collation: .nocase), .column("score", order: .descending)],
///                             condition: SQLExpression.column("active") == true)
/// index.sql
/// // CREATE INDEX "player_on_name" ON "player"("name" COLLATE NOCASE, "score" DESC) WHERE "active" = 1
/// ```
///
/// See <https://www.sqlite.org/lang_createindex.html>, <https://www.sqlite.org/partialindex.html>
/// and <https://www.sqlite.org/expridx.html>.
public struct IndexDefinition: Sendable, Hashable {
    /// The index name.
    public var name: String
    /// The indexed table.
    public var table: String
    /// The indexed columns and expressions, in order.
    public var columns: [IndexedColumn]
    /// The options (unique, if not exists).
    public var options: IndexOptions
    /// The `WHERE` condition of a partial index, as SQL.
    public var condition: String?

    /// An index on `columns` of `table`.
    public init(
        _ name: String, on table: String, columns: [IndexedColumn], options: IndexOptions = [],
        condition: SQLExpression? = nil
    ) {
        self.name = name
        self.table = table
        self.columns = columns
        self.options = options
        self.condition = condition?.sql
    }

    /// The `CREATE INDEX` statement.
    public var sql: String {
        CreateIndexDDL(
            name, on: table, terms: columns.map(\.sql), isUnique: options.contains(.unique),
            ifNotExists: options.contains(.ifNotExists), condition: condition
        ).sql
    }

    func validate() throws {
        if columns.isEmpty {
            throw SchemaDefinitionError(
                "index \(SQL.quoteIdentifier(name)) on \(SQL.quoteIdentifier(table)) has no columns")
        }
    }

    /// One term of an index: a column or an expression, with an optional collation and order.
    ///
    /// ```swift
    /// let terms: [IndexDefinition.IndexedColumn] = [
    ///     "teamId",                                              // "teamId"
    ///     .column("name", collation: .nocase),                   // "name" COLLATE NOCASE
    ///     .column("score", order: .descending),                  // "score" DESC
    ///     .expression(SQLExpression.column("email").lowercased), // lower("email")
    /// ]
    /// ```
    ///
    /// See <https://www.sqlite.org/syntax/indexed-column.html>.
    public struct IndexedColumn: Sendable, Hashable, ExpressibleByStringLiteral {
        /// The column name (quoted) or the expression, as SQL.
        public var expressionSQL: String
        /// The collation, or nil for the column's own.
        public var collation: Database.Collation?
        /// The sort order, or nil for the default (ascending).
        public var order: Order?

        /// `ASC` or `DESC`.
        public enum Order: String, Sendable, Hashable {
            /// `ASC`.
            case ascending = "ASC"
            /// `DESC`.
            case descending = "DESC"
        }

        init(expressionSQL: String, collation: Database.Collation?, order: Order?) {
            self.expressionSQL = expressionSQL
            self.collation = collation
            self.order = order
        }

        /// The column named by a string literal: `"name"` is `"name"`.
        public init(stringLiteral name: String) {
            self.init(expressionSQL: SQL.quoteIdentifier(name), collation: nil, order: nil)
        }

        /// The column `name`, with an optional collation and order.
        public static func column(
            _ name: String, collation: Database.Collation? = nil, order: Order? = nil
        ) -> IndexedColumn {
            IndexedColumn(expressionSQL: SQL.quoteIdentifier(name), collation: collation, order: order)
        }

        /// An expression, such as `lower("email")` (function calls and columns as they are, other
        /// expressions parenthesized). See <https://www.sqlite.org/expridx.html>.
        public static func expression(
            _ expression: SQLExpression, collation: Database.Collation? = nil, order: Order? = nil
        ) -> IndexedColumn {
            let sql = expression.precedence >= .primary ? expression.sql : "(\(expression.sql))"
            return IndexedColumn(expressionSQL: sql, collation: collation, order: order)
        }

        /// An expression written in SQL, parenthesized: `.expression(sql: "a + b")` is `(a + b)`.
        public static func expression(
            sql: String, collation: Database.Collation? = nil, order: Order? = nil
        ) -> IndexedColumn {
            IndexedColumn(expressionSQL: "(\(sql))", collation: collation, order: order)
        }

        /// The term as SQL.
        public var sql: String {
            var sql = expressionSQL
            if let collation { sql += " COLLATE \(collation.sql)" }
            if let order { sql += " \(order.rawValue)" }
            return sql
        }
    }
}
