import StrataSQLite

extension DatabasePool {
    /// Opens a pool that applies `migrator`'s pending migrations on the writer, outside any
    /// transaction, before it serves any read or write.
    ///
    /// ```swift
    /// var migrator = Migrator()
    /// migrator.registerMigration("0001_create_player", sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT)")
    /// let pool = try DatabasePool(path: "app.sqlite", migrator: migrator)
    /// let count = try await pool.read { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") }
    /// ```
    ///
    /// The pool returns at once; accesses wait for the migrations. If one fails (it is rolled
    /// back), every access, waiting or later, throws a `DatabaseAccessError` of kind
    /// `preparationFailed` whose `underlyingError` is the ``MigrationError`` naming the migration.
    public convenience init(
        path: String, configuration: Configuration = Configuration(),
        poolConfiguration: PoolConfiguration = PoolConfiguration(), migrator: Migrator
    ) throws {
        try self.init(path: path, configuration: configuration, poolConfiguration: poolConfiguration) { db in
            try migrator.migrate(db)
        }
    }
}

extension DatabaseQueue {
    /// Opens a queue that applies `migrator`'s pending migrations before it serves any access.
    /// Omit `path` for an in-memory database.
    ///
    /// ```swift
    /// let dbQueue = try DatabaseQueue(migrator: migrator)   // in memory, migrated
    /// ```
    ///
    /// A failing migration is reported to every access as a `DatabaseAccessError` of kind
    /// `preparationFailed` whose `underlyingError` is the ``MigrationError``.
    public convenience init(
        path: String = ":memory:", configuration: Configuration = Configuration(), migrator: Migrator
    ) throws {
        try self.init(path: path, configuration: configuration) { db in
            try migrator.migrate(db)
        }
    }
}
