import Foundation

/// A value protected by a lock. (`Synchronization.Mutex` would need macOS 15 / iOS 18; apps
/// support older systems.)
///
/// Internal to the package (`package`): it is a tool for Strata's own code, not API. It is
/// `Sendable` only when its value is, so `LockedValue(db)` cannot carry a non-`Sendable`
/// `Database` into another task unnoticed; ``UnsafeSendableLockedValue`` is the explicit escape
/// hatch for a value whose every use is serialized by the lock.
package final class LockedValue<Value> {
    private let lock = NSLock()
    private var value: Value

    /// A lock around `value`.
    ///
    /// ```swift
    /// let counter = LockedValue(0)
    /// counter.withLock { $0 += 1 }
    /// ```
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    @discardableResult
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension LockedValue: @unchecked Sendable where Value: Sendable {}

/// A ``LockedValue`` that is `Sendable` whatever its value: the caller vouches that the value is
/// only ever touched under the lock (an SQLite handle whose use the lock serializes). Named
/// unsafe, as GRDB names its always-Sendable wrappers.
package final class UnsafeSendableLockedValue<Value>: @unchecked Sendable {
    private let locked: LockedValue<Value>

    package init(_ value: Value) { locked = LockedValue(value) }

    /// Runs `body` with exclusive access to the value.
    @discardableResult
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T { try locked.withLock(body) }
}
