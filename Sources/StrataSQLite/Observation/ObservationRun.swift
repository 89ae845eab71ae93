import Foundation

/// One running ``ValueObservation``: its transaction observer on the writer, the signals that
/// a relevant commit happened, and the fetch loop. `values(in:)` and `start(in:scheduling:...)`
/// are both built on it.
///
/// The observer is registered on the writer before the first fetch, so no commit falls in
/// between; each fetch reports the region it read to the observer, which compares it with the
/// changes committed since the fetch started (see ``ObservationObserver``).
final class ObservationRun<Value: Sendable>: Sendable {
    let observation: ValueObservation<Value>
    let observer: ObservationObserver
    private let changes: AsyncStream<Void>
    private let changed: AsyncStream<Void>.Continuation

    init(_ observation: ValueObservation<Value>) {
        self.observation = observation
        (changes, changed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        observer = ObservationObserver(changed)
    }

    /// Registers the observer on the writer.
    func register(in writer: some DatabaseWriter) async throws {
        let observer = self.observer
        try await writer.writeWithoutTransaction { db in db.add(transactionObserver: observer) }
    }

    /// Registers the observer on the writer, blocking the calling thread.
    func registerSynchronously(in writer: some DatabaseWriter) throws {
        let observer = self.observer
        try writer.writeWithoutTransaction { (db: Database) in db.add(transactionObserver: observer) }
    }

    /// One fetch in a read transaction on `db`, its region reported to the observer.
    func fetch(_ db: Database) throws -> Value {
        observer.fetchWillStart()
        let (value, region) = try db.trackingReads { try observation.fetch(db) }
        observer.fetchDidEnd(reading: observation.region ?? region)
        return value
    }

    /// Fetches the current value on the calling thread (blocking it): the `.immediate` start.
    func fetchSynchronously(in writer: some DatabaseWriter) throws -> Value {
        try writer.readWithoutTransaction { (db: Database) in try DatabaseAccess.read(db) { try fetch($0) } }
    }

    /// Fetches (first at once unless `initial` is the value already fetched and delivered), then
    /// again after each relevant commit, handing each value that is not a duplicate to `emit`;
    /// returns when the task is cancelled or the writer closes (with its closed error).
    func loop(
        in writer: some DatabaseWriter, polling: Duration?, initial: Value?,
        emit: (Value) -> Void
    ) async throws {
        var poller: Task<Void, Never>?
        defer { poller?.cancel() }
        if let polling {
            // The first version is read before the first fetch, never by the poller when it
            // first runs: a commit by another connection between the first fetch and a poller
            // that started late would otherwise become the baseline, and never be seen.
            let baseline = try await Self.dataVersion(of: writer)
            poller = Self.poll(writer, every: polling, from: baseline, changed)
        }
        var last: Value? = initial
        var pending: Void? = initial == nil ? () : nil  // the first fetch
        var iterator = changes.makeAsyncIterator()
        while !Task.isCancelled {
            if pending == nil { pending = await iterator.next() }
            if Task.isCancelled { break }
            // No more signal: the writer's connection closed. The read below then fails with
            // the queue's or pool's "closed" error, which ends the observation.
            let isLast = pending == nil
            pending = nil
            let value = try await writer.read { db in try self.fetch(db) }
            if Task.isCancelled || isLast { break }
            if let previous = last, let isDuplicate = observation.isDuplicate, isDuplicate(previous, value) {
                continue
            }
            last = value
            emit(value)
        }
    }

    /// Stops the observer and removes it from the writer, after any access already queued
    /// there. The calling task may be cancelled, which would withdraw the access: the removal
    /// runs in a task of its own.
    func end(in writer: some DatabaseWriter) async {
        observer.stop()
        let observer = self.observer
        await Task.detached {
            _ = try? await writer.writeWithoutTransaction { db in db.remove(transactionObserver: observer) }
        }.value
    }

    /// `PRAGMA data_version` on the writer's connection. Only values read on one connection
    /// compare: it changes when another connection commits.
    private static func dataVersion(of writer: some DatabaseWriter) async throws -> Int {
        try await writer.writeWithoutTransaction { db in try db.fetchValue(Int.self, sql: "PRAGMA data_version") ?? 0 }
    }

    /// Polls `PRAGMA data_version` on the writer, starting from `baseline`, read before the
    /// observation's first fetch: a change signals a fetch.
    private static func poll(
        _ writer: some DatabaseWriter, every interval: Duration, from baseline: Int,
        _ changed: AsyncStream<Void>.Continuation
    ) -> Task<Void, Never> {
        Task {
            var version = baseline
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                // A closed writer ends the polling; the fetch loop ends with the closed error.
                guard let current = try? await dataVersion(of: writer) else { return }
                if version != current { changed.yield() }
                version = current
            }
        }
    }
}
