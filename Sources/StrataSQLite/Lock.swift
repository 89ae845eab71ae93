import Foundation

/// A value protected by a lock, usable from any thread. (`Synchronization.Mutex` would need
/// macOS 15 / iOS 18; apps support older systems.)
public final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// A lock around `value`.
    ///
    /// ```swift
    /// let counter = LockedValue(0)
    /// counter.withLock { $0 += 1 }
    /// ```
    public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    @discardableResult
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
