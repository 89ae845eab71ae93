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

    /// An observation of the value `fetch` returns. `fetch` runs in a read-only transaction.
    ///
    /// ```swift
    /// let count = ValueObservation.tracking { db in
    ///     try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") ?? 0
    /// }
    /// ```
    public static func tracking(_ fetch: @escaping @Sendable (Database) throws -> Value) -> ValueObservation<Value> {
        ValueObservation(fetch: fetch, isDuplicate: nil)
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
            await observation.run(in: writer, polling: externalChangePolling, continuation)
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func run(
        in writer: some DatabaseWriter, polling: Duration?,
        _ continuation: AsyncThrowingStream<Value, any Error>.Continuation
    ) async {
        let (changes, changed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let observer = ObservationObserver(changed)
        var poller: Task<Void, Never>?
        do {
            // The observer is in place before the first fetch, so no commit falls in between.
            try await writer.writeWithoutTransaction { db in db.add(transactionObserver: observer) }
            if let polling { poller = Self.poll(writer, every: polling, changed) }
            var last: Value?
            var pending: Void? = ()  // the first fetch
            var iterator = changes.makeAsyncIterator()
            while !Task.isCancelled {
                if pending == nil { pending = await iterator.next() }
                if Task.isCancelled { break }
                // No more signal: the writer's connection closed. The read below then fails with
                // the queue's or pool's "closed" error, which ends the sequence.
                let isLast = pending == nil
                pending = nil
                let fetch = self.fetch
                let value = try await writer.read { db in
                    observer.fetchWillStart()
                    let (value, tables) = try db.trackingReads { try fetch(db) }
                    observer.fetchDidEnd(reading: tables)
                    return value
                }
                if Task.isCancelled || isLast { break }
                if let previous = last, let isDuplicate, isDuplicate(previous, value) { continue }
                last = value
                continuation.yield(value)
            }
            continuation.finish()
        } catch {
            continuation.finish(throwing: error is CancellationError ? nil : error)
        }
        poller?.cancel()
        observer.stop()
        // Removed on the writer, after any access already queued there. The task may be
        // cancelled, which would withdraw the access: the removal runs in a task of its own.
        await Task.detached {
            _ = try? await writer.writeWithoutTransaction { db in db.remove(transactionObserver: observer) }
        }.value
    }

    /// Polls `PRAGMA data_version` on the writer: it changes when another connection commits.
    private static func poll(
        _ writer: some DatabaseWriter, every interval: Duration, _ changed: AsyncStream<Void>.Continuation
    ) -> Task<Void, Never> {
        Task {
            var version: Int?
            while !Task.isCancelled {
                guard
                    let current = try? await writer.writeWithoutTransaction({ db in
                        try db.fetchValue(Int.self, sql: "PRAGMA data_version")
                    })
                else { return }
                if let version, version != current { changed.yield() }
                version = current
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
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

    /// Runs `body` and returns, beside its result, the tables (lowercased names) that the
    /// statements it ran read, as SQLite's authorizer reported them while compiling them.
    /// Installing the tracking expires the statements compiled earlier, so cached statements are
    /// compiled (and reported) again.
    func trackingReads<T>(_ body: () throws -> T) throws -> (T, Set<String>) {
        let state = connection.authorizer
        let outer = state.readTables
        state.readTables = []
        installAuthorizer()
        defer {
            state.readTables = outer
            if !isClosed { installAuthorizer() }
        }
        let result = try body()
        return (result, state.readTables ?? [])
    }
}

/// The transaction observer of one ``ValueObservation``, registered on the writer: it signals
/// the observation when a committed transaction changed a table the last fetch read.
///
/// A fetch runs on another connection (a pool's reader) while commits continue on the writer,
/// so tables committed from the start of a fetch are collected and compared with what the fetch
/// read once it is known: a commit that lands after the fetch's snapshot is never missed.
final class ObservationObserver: TransactionObserver, @unchecked Sendable {
    private struct State {
        /// The tables the last fetch read; nil before the first fetch ends.
        var region: Set<String>?
        /// Tables committed since the running fetch started (nil when no fetch runs).
        var committedDuringFetch: Set<String>?
        var isStopped = false
    }

    private let state = LockedValue(State())
    private let changed: AsyncStream<Void>.Continuation
    /// Tables changed by the writer's open transaction: only touched on the writer's thread.
    private var transactionTables: Set<String> = []

    init(_ changed: AsyncStream<Void>.Continuation) { self.changed = changed }

    func databaseDidChange(_ event: DatabaseEvent) {
        transactionTables.insert(event.table.asciiLowercasedKey)
    }

    func databaseDidCommit(_ db: Database) {
        let tables = transactionTables
        transactionTables.removeAll()
        guard !tables.isEmpty else { return }
        let signal = state.withLock { state -> Bool in
            if state.isStopped { return false }
            state.committedDuringFetch?.formUnion(tables)
            guard let region = state.region else { return false }
            return Self.intersects(region, tables)
        }
        if signal { changed.yield() }
    }

    func databaseDidRollback(_ db: Database) { transactionTables.removeAll() }

    func fetchWillStart() {
        state.withLock { $0.committedDuringFetch = [] }
    }

    func fetchDidEnd(reading tables: Set<String>) {
        let signal = state.withLock { state -> Bool in
            state.region = tables
            let committed = state.committedDuringFetch ?? []
            state.committedDuringFetch = nil
            return !state.isStopped && Self.intersects(tables, committed)
        }
        if signal { changed.yield() }
    }

    func stop() {
        state.withLock { $0.isStopped = true }
        changed.finish()
    }

    /// A fetch that read no table (a constant, or an old SQLite that does not report
    /// `count(*)` reads) is refreshed by any commit that changed something.
    private static func intersects(_ region: Set<String>, _ tables: Set<String>) -> Bool {
        region.isEmpty ? !tables.isEmpty : !region.isDisjoint(with: tables)
    }
}
