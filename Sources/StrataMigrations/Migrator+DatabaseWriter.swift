import StrataSQLite

extension Migrator {
    /// Applies every pending migration through a `DatabaseQueue` or `DatabasePool`: on its
    /// writer connection, outside any transaction, after the writes already submitted.
    ///
    /// ```swift
    /// let pool = try DatabasePool(path: "app.sqlite")
    /// try await migrator.migrate(pool)
    /// ```
    @discardableResult
    public func migrate(_ writer: some DatabaseWriter) async throws -> [String] {
        try await writer.writeWithoutTransaction { db in try self.migrate(db) }
    }

    /// Applies the pending migrations up to and including `target` through a queue or pool.
    @discardableResult
    public func migrate(_ writer: some DatabaseWriter, upTo target: String) async throws -> [String] {
        try await writer.writeWithoutTransaction { db in try self.migrate(db, upTo: target) }
    }

    /// Synchronous `migrate(_:)` through a queue or pool: blocks the calling thread. Not for async code.
    ///
    /// ```swift
    /// let queue = try DatabaseQueue(path: "app.sqlite")
    /// try migrator.migrate(queue)
    /// ```
    @discardableResult
    @_disfavoredOverload
    @available(
        *, noasync, message: "use the async migrate(_:) from async code (in top-level code, from an async function)"
    )
    public func migrate(_ writer: some DatabaseWriter) throws -> [String] {
        try writer.writeWithoutTransaction { db in try self.migrate(db) }
    }
}
