import Foundation

/// Hands out up to `capacity` connection slots to accesses, first come first served.
///
/// Each access asks for a slot with a *grant* callback, called exactly once: with a slot (the
/// caller then owns it until ``release(_:)``) or with an error (closed, cancelled, preparation
/// failed). Waiting accesses are served strictly in submission order, which is what keeps a
/// ``DatabasePool``'s writes in order: its writer is a scheduler of capacity one.
///
/// A scheduler starts *gated* when a preparation must run first: accesses queue up until
/// ``openGate()`` serves them in order, or ``failGate(_:)`` fails them all (and every later one).
///
/// All state lives behind one lock; callbacks always run after the lock is released.
final class ConnectionScheduler: Sendable {
    typealias Grant = @Sendable (Result<ConnectionSlot, any Error>) -> Void

    private enum Gate {
        case pending
        case open
        case failed(any Error)
    }

    private struct Waiter {
        let id: UInt64
        let grant: Grant
    }

    private struct State {
        var gate: Gate
        var idle: [ConnectionSlot] = []
        var slots: [ConnectionSlot] = []
        var busyCount = 0
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        var isClosing = false
        var isDrained = false
        var drainHandlers: [@Sendable () -> Void] = []
    }

    /// Work computed under the lock, performed after it is released.
    private typealias Actions = [@Sendable () -> Void]

    let capacity: Int
    private let makeSlot: @Sendable (Int) -> ConnectionSlot
    private let closedError: @Sendable () -> any Error
    private let state: LockedValue<State>

    /// - Parameters:
    ///   - capacity: the most slots (connections) ever created.
    ///   - gated: when true, accesses wait for ``openGate()`` or ``failGate(_:)``.
    ///   - closedError: the error given to accesses submitted after ``beginClose()``.
    ///   - makeSlot: creates slot number `n` (0-based) when all existing slots are busy.
    init(
        capacity: Int, gated: Bool, closedError: @escaping @Sendable () -> any Error,
        makeSlot: @escaping @Sendable (Int) -> ConnectionSlot
    ) {
        self.capacity = capacity
        self.makeSlot = makeSlot
        self.closedError = closedError
        self.state = LockedValue(State(gate: gated ? .pending : .open))
    }

    /// A fresh identifier for ``enqueue(id:checkingCancellation:grant:)`` and ``cancel(id:)``.
    func makeID() -> UInt64 {
        state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
    }

    /// Asks for a slot. When `checkingCancellation` is true this must be called from the task
    /// doing the access: a task already cancelled is refused with `CancellationError`. Checking
    /// under the lock closes the race with ``cancel(id:)`` running concurrently.
    func enqueue(id: UInt64, checkingCancellation: Bool, grant: @escaping Grant) {
        let actions: Actions = state.withLock { state in
            if state.isClosing {
                let error = closedError()
                return [{ grant(.failure(error)) }]
            }
            if case .failed(let error) = state.gate {
                return [{ grant(.failure(error)) }]
            }
            if checkingCancellation && Task.isCancelled {
                return [{ grant(.failure(CancellationError())) }]
            }
            state.waiters.append(Waiter(id: id, grant: grant))
            return serveWaiters(&state)
        }
        for action in actions { action() }
    }

    /// Withdraws a waiting access: its grant gets `CancellationError` and it will never run.
    /// Does nothing when the access already holds a slot or has finished.
    func cancel(id: UInt64) {
        let actions: Actions = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return [] }
            let waiter = state.waiters.remove(at: index)
            return [{ waiter.grant(.failure(CancellationError())) }] + drainIfDone(&state)
        }
        for action in actions { action() }
    }

    /// Gives back a slot obtained from a grant or from ``acquireForPreparation()``.
    func release(_ slot: ConnectionSlot) {
        let actions: Actions = state.withLock { state in
            state.busyCount -= 1
            state.idle.append(slot)
            return serveWaiters(&state) + drainIfDone(&state)
        }
        for action in actions { action() }
    }

    /// Takes a slot whatever the gate, for the owner's `init`: it opens the connection (so open
    /// errors throw from `init`) and runs the preparation, before any access can be granted.
    func acquireForPreparation() -> ConnectionSlot {
        state.withLock { state in
            let slot = state.idle.popLast() ?? createSlot(&state)
            state.busyCount += 1
            return slot
        }
    }

    /// Ends the preparation successfully: waiting accesses are served in order.
    func openGate() {
        let actions: Actions = state.withLock { state in
            state.gate = .open
            return serveWaiters(&state)
        }
        for action in actions { action() }
    }

    /// Ends the preparation with `error`: every waiting and later access fails with it.
    func failGate(_ error: any Error) {
        let actions: Actions = state.withLock { state in
            state.gate = .failed(error)
            let waiters = state.waiters
            state.waiters.removeAll()
            return waiters.map { waiter in { waiter.grant(.failure(error)) } } + drainIfDone(&state)
        }
        for action in actions { action() }
    }

    /// Refuses new accesses from now on; accesses already submitted still run.
    func beginClose() {
        state.withLock { $0.isClosing = true }
    }

    /// Calls `handler` once every submitted access has finished (or been cancelled) and all
    /// connections are closed, each on its own queue. Implies ``beginClose()``.
    func closeWhenDrained(_ handler: @escaping @Sendable () -> Void) {
        let actions: Actions = state.withLock { state in
            state.isClosing = true
            if state.isDrained { return [handler] }
            state.drainHandlers.append(handler)
            return drainIfDone(&state)
        }
        for action in actions { action() }
    }

    /// True while the preparation runs: accesses wait for ``openGate()`` or ``failGate(_:)``.
    var isGatePending: Bool {
        state.withLock { state in
            if case .pending = state.gate { return true }
            return false
        }
    }

    /// True once ``beginClose()`` or ``closeWhenDrained(_:)`` was called.
    var isClosing: Bool { state.withLock { $0.isClosing } }

    /// How many accesses wait for a slot (for tests and diagnostics).
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// How many granted accesses hold a slot right now (for tests and diagnostics).
    var busyCount: Int { state.withLock { $0.busyCount } }

    /// How many slots (connections) were created so far (for tests and diagnostics).
    var slotCount: Int { state.withLock { $0.slots.count } }

    // MARK: Under the lock

    private func createSlot(_ state: inout State) -> ConnectionSlot {
        let slot = makeSlot(state.slots.count)
        state.slots.append(slot)
        return slot
    }

    /// Grants slots to the first waiters while the gate is open and slots are free or creatable.
    private func serveWaiters(_ state: inout State) -> Actions {
        guard case .open = state.gate else { return [] }
        var actions: Actions = []
        while !state.waiters.isEmpty {
            let slot: ConnectionSlot
            if let free = state.idle.popLast() {
                slot = free
            } else if state.slots.count < capacity {
                slot = createSlot(&state)
            } else {
                break
            }
            let waiter = state.waiters.removeFirst()
            state.busyCount += 1
            actions.append { waiter.grant(.success(slot)) }
        }
        return actions
    }

    /// Once closing and idle, closes every connection on its queue, then runs the handlers.
    private func drainIfDone(_ state: inout State) -> Actions {
        guard state.isClosing, !state.isDrained, state.busyCount == 0, state.waiters.isEmpty,
            !state.drainHandlers.isEmpty
        else { return [] }
        state.isDrained = true
        let slots = state.slots
        let handlers = state.drainHandlers
        state.drainHandlers.removeAll()
        return [
            {
                let group = DispatchGroup()
                for slot in slots {
                    slot.queue.async(group: group) { slot.closeDatabase() }
                }
                group.notify(queue: .global()) {
                    for handler in handlers { handler() }
                }
            }
        ]
    }
}
