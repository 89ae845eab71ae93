extension FetchableRecord where Self: TableRecord {
    /// `SELECT <databaseSelection> FROM <databaseTableName>`, plus `rest` when given.
    static func selectAll(_ rest: SQLLiteral = "") -> SQLLiteral {
        var query: SQLLiteral = "SELECT "
        for (i, column) in databaseSelection.enumerated() {
            if i > 0 { query.append(", ") }
            query.append(column)
        }
        query.append(" FROM \(identifier: databaseTableName)")
        query.append(rest)
        return query
    }

    /// Every record of the table (`SELECT * FROM note`), in no particular order.
    ///
    /// ```swift
    /// let notes = try Note.fetchAll(db)
    /// ```
    public static func fetchAll(_ db: Database) throws -> [Self] {
        try fetchAll(db, literal: selectAll())
    }

    /// One record of the table, or nil when it is empty.
    ///
    /// ```swift
    /// let anyNote = try Note.fetchOne(db)
    /// ```
    public static func fetchOne(_ db: Database) throws -> Self? {
        try fetchOne(db, literal: selectAll(" LIMIT 1"))
    }

    /// A lazy cursor over every record of the table.
    ///
    /// ```swift
    /// let cursor = try Note.fetchCursor(db)
    /// ```
    public static func fetchCursor(_ db: Database) throws -> RecordCursor<Self> {
        try fetchCursor(db, literal: selectAll())
    }

    /// The record with primary key `key` (a table with a one-column key, or the rowid), or nil;
    /// a NULL key gives nil. A composite key throws ``RecordError/Code/invalidKey``.
    ///
    /// ```swift
    /// let note = try Note.fetchOne(db, key: 42)
    /// ```
    public static func fetchOne(_ db: Database, key: some SQLValueConvertible) throws -> Self? {
        let value = key.sqlValue
        let table = try db.recordTable(databaseTableName, validate: true)
        let (condition, values) = try db.keyCondition(Self.self, table: table, key: value)
        if value.isNull { return nil }
        return try fetchOne(db, literal: selectAll(" WHERE \(sql: condition, arguments: StatementArguments(values))"))
    }

    /// The record with the values of `key`, whose columns must be the primary key or a unique
    /// index (else ``RecordError/Code/invalidKey``); nil when there is none or a value is NULL.
    ///
    /// ```swift
    /// let translation = try Translation.fetchOne(db, key: ["noteId": 1, "lang": "fr"])
    /// ```
    public static func fetchOne(_ db: Database, key: [String: (any SQLValueConvertible)?]) throws -> Self? {
        let key = key.mapValues { $0?.sqlValue ?? .null }
        let table = try db.recordTable(databaseTableName, validate: true)
        let (condition, values) = try db.keyCondition(Self.self, table: table, key: key)
        if values.contains(.null) { return nil }
        return try fetchOne(db, literal: selectAll(" WHERE \(sql: condition, arguments: StatementArguments(values))"))
    }

    /// The records with the given primary keys, in no particular order; missing keys are skipped.
    ///
    /// ```swift
    /// let notes = try Note.fetchAll(db, keys: [1, 2, 3])
    /// ```
    public static func fetchAll<Key: SQLValueConvertible>(_ db: Database, keys: some Sequence<Key>) throws -> [Self] {
        let values = keys.map(\.sqlValue).filter { !$0.isNull }
        let table = try db.recordTable(databaseTableName, validate: true)
        _ = try db.keyCondition(Self.self, table: table, key: .null)  // checks for a one-column key
        if values.isEmpty { return [] }
        let column = table.primaryKey.columns[0]
        return try fetchAll(db, literal: selectAll(" WHERE \(identifier: column) IN \(values: values)"))
    }
}
