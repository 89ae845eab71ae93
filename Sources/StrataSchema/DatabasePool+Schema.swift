import StrataSQLite

extension DatabasePool {
    /// Opens a pool that brings the database to the declarative `schema` on the writer, before
    /// it serves any read or write: the schema SQL is compared with the live database and the
    /// difference applied as one proven, atomic plan (`Database.migrateSchema(to:options:)`).
    ///
    /// ```swift
    /// let pool = try DatabasePool(path: "app.sqlite", schema: """
    ///     CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL DEFAULT 0);
    ///     CREATE INDEX player_score ON player(score);
    ///     """)
    /// ```
    ///
    /// Destructive changes (dropping a table or column) are refused unless `options` allows
    /// them. A refused or failing change is reported to every access as a `DatabaseAccessError`
    /// of kind `preparationFailed` whose `underlyingError` is the `SchemaError`; the database
    /// is left unchanged.
    public convenience init(
        path: String, configuration: Configuration = Configuration(),
        poolConfiguration: PoolConfiguration = PoolConfiguration(),
        schema: String, options: SchemaChangeOptions = SchemaChangeOptions()
    ) throws {
        try self.init(path: path, configuration: configuration, poolConfiguration: poolConfiguration) { db in
            _ = try db.migrateSchema(to: schema, options: options)
        }
    }
}

extension DatabaseQueue {
    /// Opens a queue that brings the database to the declarative `schema` before it serves
    /// any access. Omit `path` for an in-memory database.
    ///
    /// ```swift
    /// let dbQueue = try DatabaseQueue(schema: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL);")
    /// ```
    ///
    /// A refused or failing change is reported to every access as a `DatabaseAccessError` of
    /// kind `preparationFailed` whose `underlyingError` is the `SchemaError`.
    public convenience init(
        path: String = ":memory:", configuration: Configuration = Configuration(),
        schema: String, options: SchemaChangeOptions = SchemaChangeOptions()
    ) throws {
        try self.init(path: path, configuration: configuration) { db in
            _ = try db.migrateSchema(to: schema, options: options)
        }
    }
}
