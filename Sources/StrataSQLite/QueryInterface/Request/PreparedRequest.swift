/// A request's SQL and arguments, with its prepared statement: what the request runs.
///
/// ```swift
/// let prepared = try Note.filter(Column("title") == "Milk").makePreparedRequest(db)
/// prepared.sql         // SELECT * FROM "note" WHERE "title" = ?
/// prepared.arguments   // ['Milk']
/// ```
public struct PreparedRequest {
    /// The SQL text.
    public let sql: String
    /// The values of its `?` placeholders.
    public let arguments: StatementArguments
    /// The statement, from the connection's cache.
    public let statement: Statement
}

extension QueryInterfaceRequest {
    /// The SQL and arguments the request runs, with its prepared statement; errors that the
    /// request holds (a composite key given to `filter(key:)`, a feature the SQLite lacks, an
    /// unknown column) are thrown here.
    ///
    /// ```swift
    /// let prepared = try Note.filter(key: 1).makePreparedRequest(db)
    /// print(prepared.sql, prepared.arguments)   // SELECT * FROM "note" WHERE "id" = ? [1]
    /// ```
    public func makePreparedRequest(_ db: Database) throws -> PreparedRequest {
        try relation.preparedSelect(db)
    }

    /// Renders with `body`, checks, and prepares (through the statement cache).
    func prepared(_ db: Database, _ body: (inout SQLGenerator) throws -> String) throws -> PreparedRequest {
        try relation.prepared(db, body)
    }
}

extension SQLRelation {
    /// Renders with `body`, checks, and prepares (through the statement cache). Not generic:
    /// a request's fetch runs it without reading its own generic type's metadata.
    func prepared(_ db: Database, _ body: (inout SQLGenerator) throws -> String) throws -> PreparedRequest {
        var generator = SQLGenerator(db)
        let sql = try body(&generator)
        try generator.check()
        let statement = try db.cachedStatement(sql: sql)
        return PreparedRequest(sql: sql, arguments: generator.context.arguments, statement: statement)
    }

    /// The prepared SELECT of the relation (what ``QueryInterfaceRequest/makePreparedRequest(_:)`` returns).
    func preparedSelect(_ db: Database) throws -> PreparedRequest {
        try prepared(db) { try $0.select(self) }
    }

    /// True when a fetch must run inside ``QueryInterfaceRequest/observingKeyRows(_:_:)``: an
    /// observation is tracking what is read and the relation filters by key.
    func observesKeyRows(_ db: Database) -> Bool {
        guard db.connection.authorizer.readRegion != nil else { return false }
        return filters.contains(where: { if case .keys = $0 { return true } else { return false } })
    }
}
