import Foundation

/// Watches the result of a fetch: the current value at once, then a fresh value after each
/// committed transaction that changed a table the fetch read.
///
/// ```swift
/// let observation = ValueObservation.tracking { db in
///     try db.fetchAll(Note.self, sql: "SELECT * FROM note ORDER BY date DESC")
/// }
/// for try await notes in observation.values(in: pool) {
///     print("\(notes.count) notes")
/// }
/// ```
///
/// ## What it promises
/// - The first value is the database's content when the observation starts; each later value
///   comes from a snapshot taken after a commit that changed a table the previous fetch read
///   (SQLite's authorizer reports the tables a statement reads while it compiles; the update,
///   commit and rollback hooks of the writer report what each transaction changed).
/// - Only committed data is seen: a value is never fetched from inside a transaction, and a
///   transaction that is rolled back triggers nothing.
/// - Values come in commit order. Commits that arrive while a fetch runs are coalesced into
///   one fresh fetch, so the latest value always reflects the latest commit but not every
///   intermediate state is delivered.
/// - A commit that changed no table the fetch read causes no fetch. The tracking is per table:
///   any change to a table read counts, whatever the rows or columns.
/// - Cancelling the task that iterates ends the observation: no value is fetched or delivered
///   afterwards, a read waiting for a reader is withdrawn, and the observer is removed from the
///   writer.
/// - With a ``DatabasePool`` fetches run on readers, in parallel with writes; with a
///   ``DatabaseQueue`` they run on its connection between writes.
/// - Writes by **other processes** (or other pools and queues on the same file) are not seen
///   by the hooks; pass `externalChangePolling` to ``values(in:externalChangePolling:)`` to
///   notice them by polling `PRAGMA data_version` (<https://www.sqlite.org/pragma.html#pragma_data_version>).
///
/// An error thrown by the fetch ends the sequence with that error.
public struct ValueObservation<Value: Sendable>: Sendable {
    let fetch: @Sendable (Database) throws -> Value
    var isDuplicate: (@Sendable (Value, Value) -> Bool)?
    /// The region given to ``tracking(region:fetch:)``; nil: what the fetch reads.
    var region: DatabaseRegion?

    /// An observation of the value `fetch` returns. `fetch` runs in a read-only transaction.
    ///
    /// ```swift
    /// let count = ValueObservation.tracking { db in
    ///     try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") ?? 0
    /// }
    /// ```
    public static func tracking(_ fetch: @escaping @Sendable (Database) throws -> Value) -> ValueObservation<Value> {
        ValueObservation(fetch: fetch, isDuplicate: nil, region: nil)
    }

    /// An observation of the value `fetch` returns, refreshed after each commit that changed
    /// `region`, whatever `fetch` reads (the authorizer's report is not used). For a fetch whose
    /// reads SQLite does not report (a virtual table whose module reads other files), or to
    /// narrow the region to columns or rows yourself.
    ///
    /// ```swift
    /// let title = ValueObservation.tracking(region: DatabaseRegion(table: "note", columns: ["title"], rowIDs: [1])) {
    ///     db in try db.fetchValue(String.self, sql: "SELECT title FROM note WHERE id = 1")
    /// }
    /// ```
    ///
    /// A region that misses something the fetch reads makes the observation miss changes.
    public static func tracking(
        region: DatabaseRegion, fetch: @escaping @Sendable (Database) throws -> Value
    ) -> ValueObservation<Value> {
        ValueObservation(fetch: fetch, isDuplicate: nil, region: region)
    }

    /// The values as an asynchronous sequence: the current value first, then a value after each
    /// relevant commit, until the iterating task is cancelled, the fetch throws, or `writer`
    /// is closed (the sequence then throws its ``DatabaseAccessError``).
    ///
    /// ```swift
    /// let task = Task {
    ///     for try await count in observation.values(in: dbQueue) { print(count) }
    /// }
    /// // later
    /// task.cancel()
    /// ```
    ///
    /// - Parameters:
    ///   - writer: the `DatabaseQueue` or `DatabasePool` whose commits the observation follows;
    ///     with a pool, each fetch runs on a reader.
    ///   - externalChangePolling: how often to check, on the writer connection, whether
    ///     another connection (another process, or a connection not of `writer`) committed,
    ///     with `PRAGMA data_version`; such a commit triggers a fetch (the tables it changed are
    ///     unknown). Nil (the default) does not poll: only writes made through `writer` are seen.
    public func values(
        in writer: some DatabaseWriter, externalChangePolling: Duration? = nil
    ) -> AsyncThrowingStream<Value, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Value, any Error>.makeStream(bufferingPolicy: .unbounded)
        let observation = self
        let task = Task {
            let run = ObservationRun(observation)
            do {
                try await run.register(in: writer)
                try await run.loop(in: writer, polling: externalChangePolling, initial: nil) { continuation.yield($0) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error is CancellationError ? nil : error)
            }
            await run.end(in: writer)
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

extension ValueObservation where Value: Equatable {
    /// The same observation, without a value equal to the one before it.
    ///
    /// ```swift
    /// for try await count in observation.removeDuplicates().values(in: pool) { print(count) }
    /// ```
    public func removeDuplicates() -> ValueObservation<Value> {
        var copy = self
        copy.isDuplicate = { $0 == $1 }
        return copy
    }
}

extension Database {
    /// Ends the value observations registered on this connection, which is closing: their
    /// sequences end (with the closed error of their queue or pool).
    func endObservations() {
        for case let observer as ObservationObserver in hooks.observers { observer.stop() }
    }

    /// Runs `body` and returns, beside its result, the region (tables, columns) its statements
    /// read, as SQLite's authorizer reported them while compiling them. Installing the tracking
    /// expires the statements compiled earlier, so cached statements are compiled (and
    /// reported) again.
    func trackingReads<T>(_ body: () throws -> T) throws -> (T, DatabaseRegion) {
        let state = connection.authorizer
        let outer = state.readRegion
        state.readRegion = DatabaseRegion()
        installAuthorizer()
        defer {
            state.readRegion = outer
            if !isClosed { installAuthorizer() }
        }
        let result = try body()
        return (result, state.readRegion ?? DatabaseRegion())
    }

    /// Inside the fetch of a ``ValueObservation``: runs `body`, and narrows what its statements
    /// read of `table` to the rows `rowIDs`, so that the observation is not refreshed by a commit
    /// that changed only other rows of `table`. Reads of other tables are tracked as usual.
    /// Outside an observation's fetch it only runs `body`.
    ///
    /// ```swift
    /// let note = ValueObservation.tracking { db in
    ///     try db.observingRows([42], of: "note") {
    ///         try db.fetchOne(sql: "SELECT title FROM note WHERE id = ?", arguments: [42])
    ///     }
    /// }
    /// ```
    ///
    /// This is what a request by primary key declares (`filter(key:)`, `fetchOne(db, key:)` on
    /// an `INTEGER PRIMARY KEY` table): the promise is yours, that `body` reads nothing of
    /// `table` outside those rows. A row inserted later with one of those rowids counts. On a
    /// `WITHOUT ROWID` table rowids do not apply: SQLite reports its changes table by table,
    /// so any change to it refreshes the observation. Use it on a table whose rowid is an
    /// `INTEGER PRIMARY KEY`: the rowids of other tables may be renumbered by `VACUUM`.
    public func observingRows<T>(_ rowIDs: some Sequence<Int64>, of table: String, _ body: () throws -> T) throws -> T {
        let state = connection.authorizer
        guard let outer = state.readRegion else { return try body() }
        // Statements compiled before (cached) must report their reads again, here and after.
        state.readRegion = DatabaseRegion()
        installAuthorizer()
        defer {
            let inner = state.readRegion ?? DatabaseRegion()
            state.readRegion = outer.union(inner.narrowed(toRows: Set(rowIDs), of: table))
            if !isClosed { installAuthorizer() }
        }
        return try body()
    }
}

/// The transaction observer of one ``ValueObservation``, registered on the writer: it signals
/// the observation when a committed transaction changed the region the last fetch read.
///
/// A fetch runs on another connection (a pool's reader) while commits continue on the writer,
/// so changes committed from the start of a fetch are collected and compared with what the
/// fetch read once it is known: a commit that lands after the fetch's snapshot is never missed.
final class ObservationObserver: TransactionObserver, @unchecked Sendable {
    private struct State {
        /// The region the last fetch read; nil before the first fetch ends.
        var region: DatabaseRegion?
        /// Changes committed since the running fetch started (nil when no fetch runs).
        var committedDuringFetch: DatabaseChanges?
        var isStopped = false
    }

    private let state = LockedValue(State())
    private let changed: AsyncStream<Void>.Continuation

    init(_ changed: AsyncStream<Void>.Continuation) { self.changed = changed }

    /// Rows are collected by the connection's hooks (``ConnectionHooks/transactionChanges``).
    func observes(_ event: DatabaseEvent) -> Bool { false }

    func databaseDidChange(_ event: DatabaseEvent) {}

    func databaseDidCommit(_ db: Database) {
        let changes = db.hooks.committedChanges
        guard !changes.isEmpty else { return }
        let signal = state.withLock { state -> Bool in
            if state.isStopped { return false }
            state.committedDuringFetch?.formUnion(changes)
            guard let region = state.region else { return false }
            return region.isModified(by: changes)
        }
        if signal { changed.yield() }
    }

    func databaseDidRollback(_ db: Database) {}

    func fetchWillStart() {
        state.withLock { $0.committedDuringFetch = DatabaseChanges() }
    }

    func fetchDidEnd(reading region: DatabaseRegion) {
        let signal = state.withLock { state -> Bool in
            state.region = region
            let committed = state.committedDuringFetch ?? DatabaseChanges()
            state.committedDuringFetch = nil
            return !state.isStopped && region.isModified(by: committed)
        }
        if signal { changed.yield() }
    }

    func stop() {
        state.withLock { $0.isStopped = true }
        changed.finish()
    }
}
