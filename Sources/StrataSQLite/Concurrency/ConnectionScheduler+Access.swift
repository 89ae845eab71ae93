import Foundation

extension ConnectionScheduler {
    /// Runs `body` on a granted connection, off the Swift concurrency thread pool.
    ///
    /// The calling task suspends (it blocks no thread) until a slot is granted; `body` then
    /// runs on the slot's dispatch queue, the slot is released, and the task resumes with the
    /// result. Cancelling the task while it waits withdraws the access: it throws
    /// `CancellationError` and `body` never runs. Once `body` has started it runs to the end.
    func run<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let id = makeID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                enqueue(id: id, checkingCancellation: true) { granted in
                    switch granted {
                    case .failure(let error):
                        continuation.resume(throwing: error)
                    case .success(let slot):
                        slot.queue.async {
                            let result = Result { try slot.withDatabase(body) }
                            self.release(slot)
                            continuation.resume(with: result)
                        }
                    }
                }
            }
        } onCancel: {
            cancel(id: id)
        }
    }

    /// Runs `body` on a granted connection, blocking the calling thread until it is done.
    ///
    /// `body` runs on the calling thread, inside `DispatchQueue.sync` on the slot's queue, so it
    /// need not be `Sendable`. The caller must check reentrancy first (see ``AccessOwner``).
    func runSync<T>(_ body: (Database) throws -> T) throws -> T {
        let semaphore = DispatchSemaphore(value: 0)
        let granted = LockedValue<Result<ConnectionSlot, any Error>?>(nil)
        enqueue(id: makeID(), checkingCancellation: false) { result in
            granted.withLock { $0 = result }
            semaphore.signal()
        }
        semaphore.wait()
        guard let result = granted.withLock({ $0 }) else {
            preconditionFailure("a grant signalled without a result")
        }
        let slot = try result.get()
        defer { release(slot) }
        return try slot.queue.sync { try slot.withDatabase(body) }
    }
}
