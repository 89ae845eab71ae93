/// What ``DatabaseQueue`` and ``DatabasePool`` have in common: reads, writes and closing, from
/// async code or from synchronous code. Write code against it to accept either.
///
/// ```swift
/// func playerCount(in writer: some DatabaseWriter) async throws -> Int {
///     try await writer.read { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") ?? 0 }
/// }
/// ```
public protocol DatabaseWriter: AnyObject, Sendable {
    /// The path the database was opened with.
    var path: String { get }

    /// Runs `body` in a read-only deferred transaction: a consistent snapshot of the database.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T
    /// Synchronous `read(_:)`: blocks the calling thread. Not for async code.
    @_disfavoredOverload
    func read<T>(_ body: (Database) throws -> T) throws -> T

    /// Runs `body` in an immediate transaction on the writer: committed when it returns, rolled
    /// back when it throws. Writes run one at a time, in the order they were submitted.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T
    /// Synchronous `write(_:)`: blocks the calling thread. Not for async code.
    @_disfavoredOverload
    func write<T>(_ body: (Database) throws -> T) throws -> T

    /// Runs `body` on the writer outside any transaction, for work that manages its own
    /// (migrations, `VACUUM`). A transaction left open is rolled back and reported.
    func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T
    /// Synchronous `writeWithoutTransaction(_:)`: blocks the calling thread. Not for async code.
    @_disfavoredOverload
    func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T

    /// Refuses new accesses, waits for those already submitted, then closes every connection.
    func close() async
    /// Synchronous `close()`: blocks the calling thread. Not for async code.
    @_disfavoredOverload
    func close()
}
