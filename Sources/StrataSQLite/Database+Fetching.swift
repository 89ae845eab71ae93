extension Database {
    /// All rows of a query, copied. The statement is taken from the cache.
    ///
    /// ```swift
    /// let rows = try db.fetchAll(sql: "SELECT id, name FROM player WHERE score > ?", arguments: [100])
    /// for row in rows { print(try row["name"] as String) }
    /// ```
    public func fetchAll(sql: String, arguments: StatementArguments = StatementArguments()) throws -> [Row] {
        try cachedStatement(sql: sql).fetchAll(arguments: arguments)
    }

    /// The first row of a query, or nil when there is none.
    ///
    /// ```swift
    /// if let row = try db.fetchOne(sql: "SELECT * FROM player WHERE id = ?", arguments: [1]) { ... }
    /// ```
    public func fetchOne(sql: String, arguments: StatementArguments = StatementArguments()) throws -> Row? {
        try cachedStatement(sql: sql).fetchOne(arguments: arguments)
    }

    /// The first column of the first row converted to `T`, or nil when there is no row or the
    /// value is NULL (as for `SELECT max(score) FROM player` on an empty table). A `T` that can
    /// hold NULL, such as ``SQLValue``, gets it: `fetchValue(SQLValue.self, ...)` is `.null`.
    ///
    /// ```swift
    /// let count = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") ?? 0
    /// ```
    ///
    /// A value that does not convert to `T` throws ``RowDecodingError``.
    public func fetchValue<T: SQLValueConvertible>(
        _ type: T.Type = T.self, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> T? {
        guard let row = try fetchOne(sql: sql, arguments: arguments), row.columnCount > 0 else { return nil }
        let value = row.value(at: 0)
        if value.isNull, case .none = T.fromSQLValue(value) { return nil }  // T can't hold NULL
        return try row.decode(T.self, at: 0)
    }

    /// The first column of every row converted to `T` (use an Optional `T` for nullable columns).
    ///
    /// ```swift
    /// let names = try db.fetchColumn(String.self, sql: "SELECT name FROM player ORDER BY name")
    /// ```
    public func fetchColumn<T: SQLValueConvertible>(
        _ type: T.Type = T.self, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> [T] {
        var result = [T]()
        try cachedStatement(sql: sql).forEachRow(arguments: arguments) { row in
            result.append(try row.decode(T.self, at: 0))
        }
        return result
    }

    /// A lazy cursor over a query's rows, on a fresh (uncached) statement: rows are read one at a
    /// time as ``RowCursor/next()`` is called, never all at once.
    ///
    /// ```swift
    /// let cursor = try db.fetchCursor(sql: "SELECT * FROM event ORDER BY time")
    /// while let row = try cursor.next() {
    ///     if try row["kind"] as String == "stop" { break }
    /// }
    /// ```
    public func fetchCursor(sql: String, arguments: StatementArguments = StatementArguments()) throws -> RowCursor {
        try makeStatement(sql: sql).fetchCursor(arguments: arguments)
    }
}
