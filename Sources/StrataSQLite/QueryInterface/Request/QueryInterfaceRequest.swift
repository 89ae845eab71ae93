/// A request built in Swift: a table, conditions, orderings, a selection; it fetches records,
/// rows or values of type `RowDecoder`.
///
/// ```swift
/// let request = Note
///     .filter(Column("pinned") && Column("title").like("A%"))
///     .order(Column("createdAt").desc)
///     .limit(10)
/// let notes = try request.fetchAll(db)       // [Note]
/// let count = try request.fetchCount(db)
/// try request.makePreparedRequest(db).sql
/// // SELECT * FROM "note" WHERE "pinned" AND "title" LIKE ? ORDER BY "createdAt" DESC LIMIT 10
/// ```
///
/// A request is an immutable value: each method returns a new request, so one can be kept and
/// refined. Values are bound as arguments, never written into the SQL. Repeated requests reuse
/// the connection's prepared statements (the SQL text is the cache key). GRDB's
/// `QueryInterfaceRequest`. See <https://www.sqlite.org/lang_select.html>.
public struct QueryInterfaceRequest<RowDecoder>: Sendable {
    package var relation: SQLRelation

    package init(relation: SQLRelation) {
        self.relation = relation
    }

    private func with(_ change: (inout SQLRelation) -> Void) -> Self {
        var request = self
        change(&request.relation)
        return request
    }

    // MARK: Filtering

    /// Only the rows where `predicate` is true; several filters combine with AND.
    ///
    /// ```swift
    /// Note.filter(Column("pinned")).filter(Column("score") > 10)
    /// // SELECT * FROM "note" WHERE "pinned" AND "score" > ?
    /// ```
    /// See <https://www.sqlite.org/lang_select.html#whereclause>.
    public func filter(_ predicate: some SQLSpecificExpressible) -> Self {
        with { $0.filters.append(.expression(predicate.sqlExpression)) }
    }

    /// Only the rows where the SQL condition is true; interpolated values are bound.
    ///
    /// ```swift
    /// Note.filter(literal: "instr(title, \(word)) > 0")
    /// ```
    public func filter(literal: SQLLiteral) -> Self {
        filter(SQLExpression(literal: literal))
    }

    /// Only the rows where the SQL condition is true, with its arguments.
    ///
    /// ```swift
    /// Note.filter(sql: "score > ?", arguments: [10])
    /// ```
    public func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        filter(literal: SQLLiteral(sql: sql, arguments: arguments))
    }

    /// No rows: `WHERE 0`. Useful where a request is needed but nothing must match.
    ///
    /// ```swift
    /// let request = ids.isEmpty ? Note.none() : Note.filter(keys: ids)
    /// ```
    public func none() -> Self {
        filter(SQLExpression("0", precedence: .primary))
    }

    /// The row whose primary key (one column, or the rowid) is `key`; NULL matches nothing.
    ///
    /// ```swift
    /// Note.filter(key: 42)   // SELECT * FROM "note" WHERE "id" = ?
    /// ```
    /// The key column is read from the database when the request is prepared; a composite key
    /// throws ``RecordError/Code/invalidKey`` then.
    public func filter(key: some SQLValueConvertible) -> Self {
        with { $0.filters.append(.keys([key.sqlValue])) }
    }

    /// The rows whose primary key is one of `keys`.
    ///
    /// ```swift
    /// Note.filter(keys: [1, 2, 3])   // SELECT * FROM "note" WHERE "id" IN (?, ?, ?)
    /// ```
    public func filter<Key: SQLValueConvertible>(keys: some Sequence<Key>) -> Self {
        with { $0.filters.append(.keys(keys.map(\.sqlValue))) }
    }

    /// The row with the values of `key`, whose columns must be the primary key or a unique index.
    ///
    /// ```swift
    /// Translation.filter(key: ["noteId": 1, "lang": "fr"])
    /// // SELECT * FROM "translation" WHERE "lang" = ? AND "noteId" = ?
    /// ```
    public func filter(key: [String: (any SQLValueConvertible)?]) -> Self {
        filter(keys: [key])
    }

    /// The rows with the values of any of `keys` (each the primary key or a unique index).
    public func filter(keys: [[String: (any SQLValueConvertible)?]]) -> Self {
        with { $0.filters.append(.keyDictionaries(keys.map { $0.mapValues { $0?.sqlValue ?? .null } })) }
    }

    // MARK: Ordering

    /// Sorts by the given terms, replacing any previous order.
    ///
    /// ```swift
    /// Note.order(Column("pinned").desc, Column("title"))
    /// // SELECT * FROM "note" ORDER BY "pinned" DESC, "title"
    /// ```
    /// See <https://www.sqlite.org/lang_select.html#the_order_by_clause>.
    public func order(_ orderings: any SQLOrderingTerm...) -> Self {
        order(orderings)
    }

    /// Sorts by the given terms, replacing any previous order.
    public func order(_ orderings: [any SQLOrderingTerm]) -> Self {
        with {
            $0.orderings = orderings.map(\.sqlOrdering)
            $0.isReversed = false
        }
    }

    /// Sorts by the given SQL, replacing any previous order.
    ///
    /// ```swift
    /// Note.order(literal: "title COLLATE NOCASE")
    /// ```
    public func order(literal: SQLLiteral) -> Self {
        order(SQLExpression(literal: literal))
    }

    /// Sorts by the given terms after the current ones.
    ///
    /// ```swift
    /// Note.order(Column("pinned").desc).thenOrder(Column("title"))
    /// ```
    public func thenOrder(_ orderings: any SQLOrderingTerm...) -> Self {
        with { relation in
            let added = orderings.map(\.sqlOrdering)
            relation.orderings += relation.isReversed ? added.map(\.reversed) : added
        }
    }

    /// The opposite order: each term's direction reversed; without an order, the primary key
    /// descending.
    ///
    /// ```swift
    /// Note.order(Column("title")).reversed()   // ORDER BY "title" DESC
    /// Note.all().reversed()                    // ORDER BY "id" DESC
    /// ```
    public func reversed() -> Self {
        with { $0.isReversed.toggle() }
    }

    /// No order: removes any ORDER BY.
    public func unordered() -> Self {
        with {
            $0.orderings = []
            $0.isReversed = false
        }
    }

    // MARK: Limits, grouping, distinct

    /// At most `limit` rows, after skipping `offset` rows.
    ///
    /// ```swift
    /// Note.order(Column("title")).limit(20, offset: 40)   // ... LIMIT 20 OFFSET 40
    /// ```
    /// See <https://www.sqlite.org/lang_select.html#the_limit_clause>.
    public func limit(_ limit: Int, offset: Int? = nil) -> Self {
        with {
            $0.limit = limit
            $0.offset = offset
        }
    }

    /// Without duplicate rows: `SELECT DISTINCT`.
    ///
    /// ```swift
    /// Note.select(Column("folderId"), as: Int64.self).distinct()
    /// ```
    public func distinct() -> Self {
        with { $0.isDistinct = true }
    }

    /// Groups rows by the given expressions: `GROUP BY`.
    ///
    /// ```swift
    /// Note.select(Column("folderId"), count(Column("id"))).group(Column("folderId"))
    /// ```
    /// See <https://www.sqlite.org/lang_select.html#resultset>.
    public func group(_ expressions: any SQLExpressible...) -> Self {
        with { $0.groupBy = expressions.map(\.sqlExpression) }
    }

    /// Keeps the groups where `predicate` is true: `HAVING`; several combine with AND.
    ///
    /// ```swift
    /// Note.group(Column("folderId")).having(count(Column("id")) > 10)
    /// ```
    public func having(_ predicate: some SQLSpecificExpressible) -> Self {
        with { $0.having.append(predicate.sqlExpression) }
    }

    // MARK: Selection

    /// Selects the given columns and expressions, for rows of the same decoder.
    ///
    /// ```swift
    /// Note.select(Column("id"), Column("title"))   // SELECT "id", "title" FROM "note"
    /// ```
    public func select(_ selection: any SQLSelectable...) -> Self {
        select(selection)
    }

    /// Selects the given columns and expressions.
    public func select(_ selection: [any SQLSelectable]) -> Self {
        with { $0.selection = selection.map(\.sqlSelection) }
    }

    /// Selects one column or expression, fetched as values of `type`.
    ///
    /// ```swift
    /// let titles = try Note.select(Column("title"), as: String.self).fetchAll(db)   // [String]
    /// let maxScore = try Note.select(max(Column("score")), as: Int.self).fetchOne(db)
    /// ```
    public func select<Value>(_ selection: any SQLSelectable, as type: Value.Type) -> QueryInterfaceRequest<Value> {
        QueryInterfaceRequest<Value>(relation: select(selection).relation)
    }

    /// Selects the given SQL; interpolated values are bound.
    ///
    /// ```swift
    /// Note.select(literal: "id, upper(title) AS title")
    /// ```
    public func select(literal: SQLLiteral) -> Self {
        select(SQLExpression(literal: literal))
    }

    /// The same request, decoding another type: `Note.all().asRequest(of: Row.self)`.
    public func asRequest<T>(of type: T.Type) -> QueryInterfaceRequest<T> {
        QueryInterfaceRequest<T>(relation: relation)
    }

    /// The request's table, named by `alias` so that other parts of a request can use its columns.
    ///
    /// ```swift
    /// let note = TableAlias(name: "n")
    /// Note.aliased(note).filter(note[Column("score")] > 10)
    /// // SELECT "n".* FROM "note" "n" WHERE "n"."score" > ?
    /// ```
    public func aliased(_ alias: TableAlias) -> Self {
        with { $0.alias = alias }
    }
}
