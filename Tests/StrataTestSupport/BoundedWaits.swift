import Foundation
import StrataSQLite
import Testing

/// Waits that end (issue 24, item 9): every wait in the test suites has a deadline, and a wait that
/// reaches it fails its test with an issue naming what never happened, instead of hanging the
/// whole run. The deadlines are generous (nothing is measured here: speed belongs to the
/// benchmarks); they only turn a hang into a failure.
public enum BoundedWait {
    /// The default deadline of a wait for a child process.
    public static let processSeconds: Double = 300
    /// The default deadline of other waits (a signal, a semaphore, work off the pool).
    public static let seconds: Double = 60

    /// A wait that reached its deadline.
    public struct TimedOut: Error, CustomStringConvertible {
        public var description: String
    }

    /// Waits for `process` to exit, at most `seconds`. Past that, kills it (SIGKILL), records an
    /// issue and returns false (after the kill has taken effect).
    @discardableResult
    public static func exit(
        of process: Process, seconds: Double = processSeconds, _ what: @autoclosure () -> String = "the child process",
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(5_000) }
        guard process.isRunning else {
            process.waitUntilExit()  // reaped already: returns at once, sets the termination status
            return true
        }
        kill(process.processIdentifier, SIGKILL)
        Issue.record(
            "\(what()) (pid \(process.processIdentifier)) still ran after \(seconds) s: killed",
            sourceLocation: sourceLocation)
        // SIGKILL cannot be caught: the process ends, and is reaped.
        let killDeadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < killDeadline { usleep(5_000) }
        if !process.isRunning { process.waitUntilExit() }
        return false
    }

    /// Waits for `semaphore`, at most `seconds`; records an issue and returns false when it is not
    /// signalled in time.
    @discardableResult
    public static func wait(
        for semaphore: DispatchSemaphore, seconds: Double = seconds, _ what: @autoclosure () -> String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        if semaphore.wait(timeout: .now() + seconds) == .success { return true }
        Issue.record("never happened within \(seconds) s: \(what())", sourceLocation: sourceLocation)
        return false
    }

    /// Runs `body` on a global dispatch queue (off the cooperative pool: it may block) and waits
    /// for its result at most `seconds`. Past that, records an issue and throws ``TimedOut`` (the
    /// blocked work is left behind; the test goes on to fail).
    public static func offThePool<T: Sendable>(
        seconds: Double = seconds, _ what: String, _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await race(seconds: seconds, what) { resume in
            DispatchQueue.global().async { resume(Result(catching: body)) }
        }
    }

    /// Awaits `body` at most `seconds` (a task that honours cancellation or not). Past that,
    /// cancels it, records an issue and throws ``TimedOut``.
    public static func task<T: Sendable>(
        seconds: Double = seconds, _ what: String, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let task = LockedValue<Task<Void, Never>?>(nil)
        defer { task.withLock { $0?.cancel() } }
        return try await race(seconds: seconds, what) { resume in
            task.withLock { $0 = Task { resume(await Result { try await body() }) } }
        }
    }

    /// The first of `start`'s result and the deadline.
    private static func race<T: Sendable>(
        seconds: Double, _ what: String, _ start: (@escaping @Sendable (Result<T, any Error>) -> Void) -> Void
    ) async throws -> T {
        let pending = LockedValue<CheckedContinuation<T, any Error>?>(nil)
        let resume = { @Sendable (result: Result<T, any Error>) in
            pending.withLock { continuation in
                continuation?.resume(with: result)
                continuation = nil
            }
        }
        return try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0 = continuation }
            start(resume)
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                resume(.failure(TimedOut(description: "never happened within \(seconds) s: \(what)")))
            }
        } as T
    }
}

extension Result where Failure == any Error {
    /// The result of an async throwing body.
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
