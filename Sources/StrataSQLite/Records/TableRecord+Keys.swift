extension TableRecord {
    /// The number of rows in the table (`SELECT COUNT(*) FROM note`).
    ///
    /// ```swift
    /// let count = try Note.fetchCount(db)
    /// ```
    public static func fetchCount(_ db: Database) throws -> Int {
        try db.fetchValue(Int.self, sql: "SELECT COUNT(*) FROM \(SQLLiteral.quote(identifier: databaseTableName))") ?? 0
    }

    /// True when a row has primary key `key` (a table with a one-column key, or the rowid); a
    /// NULL key is false. A composite key throws ``RecordError/Code/invalidKey``.
    ///
    /// ```swift
    /// if try Note.exists(db, key: 42) { ... }
    /// ```
    public static func exists(_ db: Database, key: some SQLValueConvertible) throws -> Bool {
        let value = key.sqlValue
        let table = try db.recordTable(databaseTableName, validate: true)
        let (condition, values) = try db.keyCondition(Self.self, table: table, key: value)
        if value.isNull { return false }
        return try db.rowExists(table: table, condition: condition, values)
    }

    /// True when a row has the values of `key`, whose columns must be the primary key or a
    /// unique index; a NULL value is false.
    ///
    /// ```swift
    /// if try Translation.exists(db, key: ["noteId": 1, "lang": "fr"]) { ... }
    /// ```
    public static func exists(_ db: Database, key: [String: (any SQLValueConvertible)?]) throws -> Bool {
        let key = key.mapValues { $0?.sqlValue ?? .null }
        let table = try db.recordTable(databaseTableName, validate: true)
        let (condition, values) = try db.keyCondition(Self.self, table: table, key: key)
        if values.contains(.null) { return false }
        return try db.rowExists(table: table, condition: condition, values)
    }

    /// Deletes every row of the table (`DELETE FROM note`); returns how many.
    ///
    /// ```swift
    /// try Note.deleteAll(db)
    /// ```
    /// See <https://www.sqlite.org/lang_delete.html>.
    @discardableResult
    public static func deleteAll(_ db: Database) throws -> Int {
        try db.execute(sql: "DELETE FROM \(SQLLiteral.quote(identifier: databaseTableName))")
        return db.changes
    }

    /// Deletes the row with primary key `key`; true when there was one.
    ///
    /// ```swift
    /// try Note.deleteOne(db, key: 42)
    /// ```
    @discardableResult
    public static func deleteOne(_ db: Database, key: some SQLValueConvertible) throws -> Bool {
        let value = key.sqlValue
        let table = try db.recordTable(databaseTableName, validate: true)
        let (condition, values) = try db.keyCondition(Self.self, table: table, key: value)
        if value.isNull { return false }
        return try db.deleteRows(table: table, condition: condition, values)
    }

    /// Deletes the row with the values of `key`, whose columns must be the primary key or a
    /// unique index; true when there was one.
    ///
    /// ```swift
    /// try Translation.deleteOne(db, key: ["noteId": 1, "lang": "fr"])
    /// ```
    @discardableResult
    public static func deleteOne(_ db: Database, key: [String: (any SQLValueConvertible)?]) throws -> Bool {
        let key = key.mapValues { $0?.sqlValue ?? .null }
        let table = try db.recordTable(databaseTableName, validate: true)
        let (condition, values) = try db.keyCondition(Self.self, table: table, key: key)
        if values.contains(.null) { return false }
        return try db.deleteRows(table: table, condition: condition, values)
    }

    /// Deletes the rows with the given primary keys; returns how many.
    ///
    /// ```swift
    /// try Note.deleteAll(db, keys: [1, 2, 3])
    /// ```
    @discardableResult
    public static func deleteAll<Key: SQLValueConvertible>(_ db: Database, keys: some Sequence<Key>) throws -> Int {
        let table = try db.recordTable(databaseTableName, validate: true)
        var count = 0
        for key in keys {
            let value = key.sqlValue
            let (condition, values) = try db.keyCondition(Self.self, table: table, key: value)
            if !value.isNull, try db.deleteRows(table: table, condition: condition, values) { count += 1 }
        }
        return count
    }
}
