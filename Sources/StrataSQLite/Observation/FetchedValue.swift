import Observation

/// A value kept up to date by a ``ValueObservation``, for SwiftUI: an `@Observable` object a
/// view keeps in `@State`, so the view is redrawn when a commit changes what it shows.
///
/// ```swift
/// @MainActor func noteTitles(in pool: DatabasePool) -> FetchedValue<[String]> {
///     let titles = ValueObservation.tracking { db in
///         try db.fetchColumn(String.self, sql: "SELECT title FROM note ORDER BY title")
///     }
///     return FetchedValue([], observing: titles, in: pool)   // value is the current titles already
/// }
/// ```
///
/// In a view: `@State private var titles = FetchedValue<[String]>([])`, then
/// `.task { titles.observe(observation, in: pool) }`; the body reads `titles.value`.
///
/// - Everything happens on the main actor: ``value`` and ``error`` change there, and
///   `withObservationTracking` (what SwiftUI uses) sees each change.
/// - With `.immediate` (the default) ``observe(_:in:scheduling:)`` fetches the current value
///   before it returns (the main thread waits for the read); with `.mainActor` the value
///   arrives asynchronously and ``value`` keeps its initial value meanwhile.
/// - An error thrown by the fetch (or the writer closing) ends the observation and is kept in
///   ``error``; ``value`` keeps the last value.
/// - The observation stops with ``cancel()``, with the next ``observe(_:in:scheduling:)``, or
///   when the object is released.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor @Observable
public final class FetchedValue<Value: Sendable> {
    /// The last value fetched (the initial value before the first fetch).
    public private(set) var value: Value
    /// The error that ended the observation, if any.
    public private(set) var error: (any Error)?
    @ObservationIgnored private var cancellable: AnyDatabaseCancellable?

    /// A holder showing `initial` until an observation starts.
    ///
    /// ```swift
    /// let titles = FetchedValue<[String]>([])
    /// ```
    public init(_ initial: Value) {
        value = initial
    }

    /// A holder fed by `observation` at once (see ``observe(_:in:scheduling:)``).
    ///
    /// ```swift
    /// let count = FetchedValue(0, observing: ValueObservation.tracking { db in
    ///     try db.fetchValue(Int.self, sql: "SELECT count(*) FROM note") ?? 0
    /// }, in: pool)
    /// ```
    public convenience init(
        _ initial: Value, observing observation: ValueObservation<Value>, in writer: some DatabaseWriter,
        scheduling scheduler: some ValueObservationMainActorScheduler = .immediate
    ) {
        self.init(initial)
        observe(observation, in: writer, scheduling: scheduler)
    }

    /// Starts feeding ``value`` from `observation` (stopping the previous observation, if any).
    ///
    /// ```swift
    /// titles.observe(observation, in: pool)
    /// ```
    public func observe(
        _ observation: ValueObservation<Value>, in writer: some DatabaseWriter,
        scheduling scheduler: some ValueObservationMainActorScheduler = .immediate
    ) {
        cancellable?.cancel()
        error = nil
        cancellable = observation.start(in: writer, scheduling: scheduler) { [weak self] error in
            self?.error = error
            self?.cancellable = nil
        } onChange: { [weak self] value in
            self?.value = value
        }
    }

    /// Stops the observation: ``value`` changes no more.
    ///
    /// ```swift
    /// titles.cancel()
    /// ```
    public func cancel() {
        cancellable?.cancel()
        cancellable = nil
    }

    /// True while an observation feeds ``value``.
    public var isObserving: Bool { cancellable.map { !$0.isCancelled } ?? false }
}
