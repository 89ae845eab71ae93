extension Database {
    /// Runs the SQL of `literal`, one or several statements, with its interpolated values bound.
    ///
    /// ```swift
    /// try db.execute(literal: "UPDATE note SET title = \(title) WHERE id = \(id)")
    /// ```
    /// See ``SQLLiteral`` and ``execute(sql:arguments:)``.
    public func execute(literal: SQLLiteral) throws {
        try execute(sql: literal.sql, arguments: literal.arguments)
    }

    /// All rows of an interpolated query.
    ///
    /// ```swift
    /// let rows = try db.fetchAll(literal: "SELECT * FROM note WHERE title LIKE \(pattern)")
    /// ```
    public func fetchAll(literal: SQLLiteral) throws -> [Row] {
        try fetchAll(sql: literal.sql, arguments: literal.arguments)
    }

    /// The first row of an interpolated query, or nil.
    ///
    /// ```swift
    /// let row = try db.fetchOne(literal: "SELECT * FROM note WHERE id = \(id)")
    /// ```
    public func fetchOne(literal: SQLLiteral) throws -> Row? {
        try fetchOne(sql: literal.sql, arguments: literal.arguments)
    }

    /// A lazy cursor over the rows of an interpolated query.
    ///
    /// ```swift
    /// let cursor = try db.fetchCursor(literal: "SELECT * FROM note WHERE createdAt > \(date)")
    /// while let row = try cursor.next() { ... }
    /// ```
    public func fetchCursor(literal: SQLLiteral) throws -> RowCursor {
        try fetchCursor(sql: literal.sql, arguments: literal.arguments)
    }

    /// The first column of the first row of an interpolated query, converted to `T` (nil for no
    /// row or NULL), as ``fetchValue(_:sql:arguments:)``.
    ///
    /// ```swift
    /// let count = try db.fetchValue(Int.self, literal: "SELECT count(*) FROM note WHERE title = \(title)")
    /// ```
    public func fetchValue<T: SQLValueConvertible>(_ type: T.Type = T.self, literal: SQLLiteral) throws -> T? {
        try fetchValue(type, sql: literal.sql, arguments: literal.arguments)
    }

    /// The first column of every row of an interpolated query, converted to `T`.
    ///
    /// ```swift
    /// let titles = try db.fetchColumn(String.self, literal: "SELECT title FROM note WHERE id IN \(values: ids)")
    /// ```
    public func fetchColumn<T: SQLValueConvertible>(_ type: T.Type = T.self, literal: SQLLiteral) throws -> [T] {
        try fetchColumn(type, sql: literal.sql, arguments: literal.arguments)
    }
}
