import Foundation

/// Where and when `ValueObservation.start(in:scheduling:onError:onChange:)` delivers values,
/// with GRDB's names: `.async(onQueue:)`, `.immediate`, `.mainActor`.
///
/// ```swift
/// let cancellable = observation.start(in: pool, scheduling: .async(onQueue: .main)) { error in
///     print(error)
/// } onChange: { notes in
///     print(notes.count)
/// }
/// ```
public protocol ValueObservationScheduler: Sendable {
    /// True when the first value is fetched and delivered before `start` returns, on the
    /// calling thread.
    func immediateInitialValue() -> Bool
    /// Runs `action` (a delivery) where this scheduler delivers, in the order of the calls.
    func schedule(_ action: @escaping @Sendable () -> Void)
}

/// A scheduler that delivers on the main actor, for UI code: ``ImmediateValueObservationScheduler``
/// (`.immediate`) and ``DelayedMainActorValueObservationScheduler`` (`.mainActor`).
public protocol ValueObservationMainActorScheduler: ValueObservationScheduler {}

extension ValueObservationMainActorScheduler {
    /// Deliveries go to the main queue, in order; it is the main actor's executor.
    public func schedule(_ action: @escaping @Sendable () -> Void) {
        DispatchQueue.main.async(execute: action)
    }
}

/// Delivers every value asynchronously on a dispatch queue.
///
/// ```swift
/// observation.start(in: pool, scheduling: .async(onQueue: .main), onError: { _ in }, onChange: { print($0) })
/// ```
public struct AsyncValueObservationScheduler: ValueObservationScheduler {
    let queue: DispatchQueue

    /// Deliveries on `queue`.
    public init(queue: DispatchQueue) { self.queue = queue }

    public func immediateInitialValue() -> Bool { false }

    public func schedule(_ action: @escaping @Sendable () -> Void) { queue.async(execute: action) }
}

/// Delivers the first value synchronously, before `start` returns (the start must then be
/// called on the main actor), and the later ones asynchronously on the main actor. A screen
/// never shows an empty state before its first value.
///
/// ```swift
/// let cancellable = observation.start(in: pool, scheduling: .immediate) { _ in } onChange: { print($0) }
/// // here the first value is already printed
/// ```
public struct ImmediateValueObservationScheduler: ValueObservationMainActorScheduler {
    /// The scheduler.
    public init() {}

    public func immediateInitialValue() -> Bool { true }
}

/// Delivers every value asynchronously on the main actor (the default of the main-actor `start`).
///
/// ```swift
/// let cancellable = observation.start(in: pool, scheduling: .mainActor) { _ in } onChange: { print($0) }
/// ```
public struct DelayedMainActorValueObservationScheduler: ValueObservationMainActorScheduler {
    /// The scheduler.
    public init() {}

    public func immediateInitialValue() -> Bool { false }
}

extension ValueObservationScheduler where Self == AsyncValueObservationScheduler {
    /// Every value asynchronously on `queue`.
    ///
    /// ```swift
    /// observation.start(in: pool, scheduling: .async(onQueue: .main), onError: { _ in }, onChange: { print($0) })
    /// ```
    public static func async(onQueue queue: DispatchQueue) -> AsyncValueObservationScheduler {
        AsyncValueObservationScheduler(queue: queue)
    }
}

extension ValueObservationScheduler where Self == ImmediateValueObservationScheduler {
    /// The first value before `start` returns, then the others on the main actor.
    public static var immediate: ImmediateValueObservationScheduler { ImmediateValueObservationScheduler() }
}

extension ValueObservationScheduler where Self == DelayedMainActorValueObservationScheduler {
    /// Every value asynchronously on the main actor.
    public static var mainActor: DelayedMainActorValueObservationScheduler {
        DelayedMainActorValueObservationScheduler()
    }
}

/// A running observation, stopped by ``cancel()`` or when the cancellable is released.
///
/// ```swift
/// let cancellable = observation.start(in: pool, scheduling: .immediate) { _ in } onChange: { print($0) }
/// cancellable.cancel()
/// ```
public final class AnyDatabaseCancellable: Sendable, Hashable {
    private let onCancel: LockedValue<(@Sendable () -> Void)?>

    /// A cancellable that calls `cancel` once, on the first ``cancel()`` or when released.
    public init(cancel: @escaping @Sendable () -> Void) { onCancel = LockedValue(cancel) }

    deinit { cancel() }

    /// Stops the observation: no value or error is delivered after this call returns when it
    /// is made where values are delivered (the main actor, or the scheduler's queue); the
    /// observer leaves the writer shortly after. Calling it again does nothing.
    public func cancel() {
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    /// True once cancelled.
    public var isCancelled: Bool { onCancel.withLock { $0 == nil } }

    public static func == (lhs: AnyDatabaseCancellable, rhs: AnyDatabaseCancellable) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension ValueObservation {
    /// Starts the observation and delivers its values with `scheduler`: the current value
    /// first, then a value after each commit that changed the region the fetch read, until
    /// the returned cancellable is cancelled or released, the fetch throws, or the writer closes
    /// (`onError` then receives the error, and nothing follows).
    ///
    /// ```swift
    /// let cancellable = observation.start(in: pool, scheduling: .async(onQueue: .main)) { error in
    ///     print("observation failed: \(error)")
    /// } onChange: { notes in
    ///     print("\(notes.count) notes")
    /// }
    /// ```
    ///
    /// With ``ImmediateValueObservationScheduler`` (`.immediate`) the first value is fetched on
    /// the calling thread, which blocks meanwhile, and `onChange` (or `onError`) is called
    /// before `start` returns.
    public func start(
        in writer: some DatabaseWriter, scheduling scheduler: some ValueObservationScheduler,
        onError: @escaping @Sendable (any Error) -> Void, onChange: @escaping @Sendable (Value) -> Void
    ) -> AnyDatabaseCancellable {
        let isCancelled = LockedValue(false)
        let run = ObservationRun(self)
        // Each delivery checks the flag where it runs: a cancel made there stops every later one.
        let deliver: @Sendable (Result<Value, any Error>) -> Void = { result in
            scheduler.schedule {
                guard !isCancelled.withLock({ $0 }) else { return }
                switch result {
                case .success(let value): onChange(value)
                case .failure(let error): onError(error)
                }
            }
        }
        var initial: Value?
        if scheduler.immediateInitialValue() {
            do {
                try run.registerSynchronously(in: writer)
                let value = try run.fetchSynchronously(in: writer)
                initial = value
                onChange(value)
            } catch {
                onError(error)
                isCancelled.withLock { $0 = true }
                let observer = run.observer
                observer.stop()
                Task.detached {
                    _ = try? await writer.writeWithoutTransaction { db in db.remove(transactionObserver: observer) }
                }
                let ended = AnyDatabaseCancellable {}
                ended.cancel()
                return ended
            }
        }
        let first = initial
        let task = Task {
            do {
                if first == nil { try await run.register(in: writer) }
                try await run.loop(in: writer, polling: nil, initial: first) { deliver(.success($0)) }
            } catch is CancellationError {
            } catch {
                if !Task.isCancelled { deliver(.failure(error)) }
            }
            await run.end(in: writer)
        }
        return AnyDatabaseCancellable {
            isCancelled.withLock { $0 = true }
            task.cancel()
        }
    }

    /// Starts the observation and delivers its values on the main actor: with `.mainActor`
    /// (the default) asynchronously, with `.immediate` the first one before this call returns.
    ///
    /// ```swift
    /// @MainActor func showNotes(in pool: DatabasePool) -> AnyDatabaseCancellable {
    ///     let observation = ValueObservation.tracking { db in
    ///         try db.fetchColumn(String.self, sql: "SELECT body FROM note ORDER BY id")
    ///     }
    ///     return observation.start(in: pool, scheduling: .immediate) { error in
    ///         print("observation failed: \(error)")
    ///     } onChange: { bodies in
    ///         print(bodies)   // already called once when start returns
    ///     }
    /// }
    /// ```
    ///
    /// Cancelling on the main actor stops every delivery at once.
    @MainActor
    public func start(
        in writer: some DatabaseWriter,
        scheduling scheduler: some ValueObservationMainActorScheduler = .mainActor,
        onError: @escaping @MainActor (any Error) -> Void, onChange: @escaping @MainActor (Value) -> Void
    ) -> AnyDatabaseCancellable {
        let nonisolatedScheduler: some ValueObservationScheduler = scheduler
        return start(
            in: writer, scheduling: nonisolatedScheduler,
            onError: { error in MainActor.assumeIsolated { onError(error) } },
            onChange: { value in MainActor.assumeIsolated { onChange(value) } })
    }
}
