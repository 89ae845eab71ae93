import Foundation

/// One connection of a ``DatabaseQueue`` or ``DatabasePool`` and the serial dispatch queue that
/// runs every access to it.
///
/// The `Database` is not `Sendable`; this class is `@unchecked Sendable` under one rule: the
/// connection is touched only on ``queue`` (checked with `dispatchPrecondition`), and only by the
/// holder of the slot granted by its ``ConnectionScheduler``. The connection is opened lazily, on
/// the queue, at the first access.
final class ConnectionSlot: @unchecked Sendable {
    /// The serial queue every access to the connection runs on.
    let queue: DispatchQueue
    private let open: @Sendable () throws -> Database
    /// Only touched on `queue`.
    private var database: Database?

    init(label: String, owner: AccessOwner, open: @escaping @Sendable () throws -> Database) {
        self.queue = DispatchQueue(label: label)
        self.open = open
        owner.mark(queue)
        queue.setSpecific(key: Self.currentKey, value: Reference(self))
    }

    /// The slot whose queue the calling code runs on, if any.
    static var current: ConnectionSlot? { DispatchQueue.getSpecific(key: currentKey)?.slot }

    /// The connection, if opened. Must run on ``queue``.
    var openedDatabase: Database? {
        dispatchPrecondition(condition: .onQueue(queue))
        return database
    }

    private final class Reference {
        weak var slot: ConnectionSlot?
        init(_ slot: ConnectionSlot) { self.slot = slot }
    }
    nonisolated(unsafe) private static let currentKey = DispatchSpecificKey<Reference>()

    /// Runs `body` with the connection, opening it first if needed. Must run on ``queue``.
    func withDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        dispatchPrecondition(condition: .onQueue(queue))
        if let database { return try body(database) }
        let opened = try open()
        database = opened
        return try body(opened)
    }

    /// Closes the connection if it was opened. Must run on ``queue``.
    func closeDatabase() {
        dispatchPrecondition(condition: .onQueue(queue))
        database?.close()
        database = nil
    }
}

/// The identity of a ``DatabaseQueue`` or ``DatabasePool`` carried by each of its dispatch
/// queues, so that a synchronous access made from inside one of its own closures is refused with
/// an error instead of deadlocking.
final class AccessOwner: @unchecked Sendable {
    // `DispatchSpecificKey` is immutable after creation; reading and setting queue-specific
    // values is thread-safe in libdispatch.
    private let key = DispatchSpecificKey<Bool>()

    /// Tags `queue` as belonging to this owner.
    func mark(_ queue: DispatchQueue) { queue.setSpecific(key: key, value: true) }

    /// True when the current code runs on one of this owner's queues.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) ?? false }
}
