import CSQLite
import Foundation

extension Database {
    /// Installs the connection's busy handler: when another connection holds a lock, a statement
    /// waits up to ``Configuration/busyTimeout`` on SQLite's own schedule (1, 2, 5, 10... ms,
    /// then 100 ms each), reporting each wait to ``Configuration/busyWaitHandler`` when set. A
    /// wait ends early when a connection of this process that holds this file's lock wakes its
    /// waiters (``wakeConnectionsWaitingForThisFile()``): an online rebuild does after each batch,
    /// so that the app's writes go in at once instead of at their next poll. The deadline is kept
    /// on the clock, however often a wait is woken. A zero timeout installs no handler (a lock
    /// held elsewhere fails at once).
    ///
    /// `PRAGMA busy_timeout` therefore reads 0 (SQLite reports only its own handler's timeout);
    /// setting it replaces this handler with SQLite's, which no connection can wake.
    func installBusyTimeout() {
        let timeout = configuration.busyTimeout
        let milliseconds = timeout.isNaN ? 0 : min(max(0, timeout) * 1000, Double(Int32.max))
        let file = sqlite3_db_filename(handle, "main").map { String(cString: $0) } ?? ""
        connection.lockFile = file.isEmpty ? nil : file
        guard milliseconds >= 1 else {
            sqlite3_busy_handler(handle, nil, nil)
            connection.busyWait = nil
            return
        }
        let wait = BusyWait(
            timeoutMilliseconds: Int(milliseconds), file: connection.lockFile,
            handler: configuration.busyWaitHandler)
        connection.busyWait = wait
        // "If the busy callback returns 0, then no additional attempts are made to access the
        // database and SQLITE_BUSY is returned [...]. If the callback returns non-zero, then
        // another attempt is made." https://www.sqlite.org/c3ref/busy_handler.html
        sqlite3_busy_handler(
            handle,
            { context, attempts in
                guard let context else { return 0 }
                return Unmanaged<BusyWait>.fromOpaque(context).takeUnretainedValue().retry(after: Int(attempts))
            },
            Unmanaged.passUnretained(wait).toOpaque())
    }

    /// The busy handler's timeout in milliseconds; nil when none is installed (a zero timeout).
    package var busyTimeoutMilliseconds: Int? { connection.busyWait?.timeoutMilliseconds }

    /// Runs `body` with no busy handler (a lock held by another connection fails at once with
    /// SQLITE_BUSY), then installs the connection's own again.
    package func withoutWaitingForLocks<T>(_ body: () throws -> T) rethrows -> T {
        sqlite3_busy_handler(handle, nil, nil)
        defer { installBusyTimeout() }
        return try body()
    }

    /// Wakes the connections of this process that wait in their busy handler for a lock on this
    /// database's file, so that they retry now rather than at their next poll; call it just after
    /// releasing the lock. Returns how many were waiting (0 for an in-memory database).
    ///
    /// ``execute(sql:arguments:)`` does it whenever it leaves the connection outside a
    /// transaction (a commit, a rollback, a write in autocommit mode), so that a transaction's
    /// end wakes them.
    @discardableResult
    package func wakeConnectionsWaitingForThisFile() -> Int {
        guard let file = connection.lockFile else { return 0 }
        let woken = LockWaiters.wake(file: file)
        connection.wokenAtLastRelease = woken
        return woken
    }

    /// How many waiting connections the last ``wakeConnectionsWaitingForThisFile()`` woke (the
    /// one at the end of the last transaction, for one).
    package var connectionsWokenAtLastRelease: Int { connection.wokenAtLastRelease }

    /// Waits, at most `seconds`, until the connections woken by
    /// ``wakeConnectionsWaitingForThisFile()`` have left their busy handler to retry; returns
    /// false when one still has not.
    @discardableResult
    package func waitForWokenConnectionsToRetry(atMost seconds: Double) -> Bool {
        guard let file = connection.lockFile else { return true }
        return LockWaiters.waitForWoken(file: file, atMost: seconds)
    }

    /// Runs `body` while the releases of this file's lock by this process's connections (each
    /// ``wakeConnectionsWaitingForThisFile()``) are counted in ``releasesOfThisFile``.
    package func countingReleasesOfThisFile<T>(_ body: () throws -> T) rethrows -> T {
        guard let file = connection.lockFile else { return try body() }
        return try LockWaiters.countingReleases(file: file, body)
    }

    /// How many times this process's connections released this file's lock while
    /// ``countingReleasesOfThisFile(_:)`` ran (0 outside it), and whether one of them is in
    /// ``execute(sql:arguments:)`` now (its commit may be visible before it returns).
    package var releasesOfThisFile: (count: Int, running: Bool) {
        guard let file = connection.lockFile else { return (0, false) }
        return LockWaiters.releases(file: file)
    }

    /// Runs an `execute(sql:)`: counted as running while it does, then, when it leaves the
    /// connection outside a transaction (a commit, a rollback, an autocommit write), a release
    /// that wakes the connections of this process waiting for the file's lock.
    func executing(_ body: () throws -> Void) rethrows {
        guard let file = connection.lockFile else { return try body() }
        let counted = LockWaiters.executionBegins(file: file)
        defer {
            connection.wokenAtLastRelease = LockWaiters.executionEnds(
                file: file, counted: counted, released: !isInTransaction)
        }
        try body()
    }

    /// The connections of this process waiting in their busy handler for this database's file.
    package var connectionsWaitingForThisFile: Int {
        guard let file = connection.lockFile else { return 0 }
        return LockWaiters.waiting(file: file)
    }
}

/// The busy handler's state: SQLite's `sqliteDefaultBusyCallback` schedule (short sleeps first,
/// then 100 ms each) up to the timeout, measured on the clock from the first retry; each sleep
/// ends early when woken through ``LockWaiters``.
final class BusyWait {
    private static let delays = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]
    let timeoutMilliseconds: Int
    /// The database file, the key under which other connections wake this one (nil in memory).
    let file: String?
    let handler: (@Sendable (Double) -> Void)?
    private var started = ContinuousClock.now

    init(timeoutMilliseconds: Int, file: String?, handler: (@Sendable (Double) -> Void)?) {
        self.timeoutMilliseconds = timeoutMilliseconds
        self.file = file
        self.handler = handler
    }

    /// Sleeps before retry number `attempts + 1` and returns 1, or returns 0 once the timeout is spent.
    func retry(after attempts: Int) -> Int32 {
        let now = ContinuousClock.now
        if attempts == 0 { started = now }
        let deadline = started + .milliseconds(timeoutMilliseconds)
        guard now < deadline else { return 0 }
        let delay = Self.delays[min(attempts, Self.delays.count - 1)]
        let until = min(now + .milliseconds(delay), deadline)
        if let file {
            LockWaiters.sleep(file: file, until: until)
        } else {
            let seconds = (until - now).inSeconds
            usleep(useconds_t(max(0, seconds) * 1_000_000))
        }
        handler?((ContinuousClock.now - started).inSeconds)
        return 1
    }
}

/// The connections of this process waiting in their busy handler, per database file, so that
/// a connection that releases a lock can wake them (``Database/wakeConnectionsWaitingForThisFile()``).
/// A connection of another process is not here: it polls on SQLite's schedule.
enum LockWaiters {
    final class File {
        let condition = NSCondition()
        /// Connections in their busy handler now (under `condition`).
        var waiting = 0
        /// Bumped by each wake (under `condition`).
        var wakes = 0
        /// Connections woken and not yet out of their busy handler (under `condition`).
        var woken = 0
        /// Threads using this entry, so that the registry drops it when none is (under the registry's lock).
        var users = 0
    }

    private struct Registry {
        /// The files some connection waits for now.
        var files: [String: File] = [:]
        /// The files whose releases are counted (``countingReleases(file:_:)``).
        var releases: [String: Releases] = [:]
    }

    private struct Releases {
        /// How many callers of ``countingReleases(file:_:)`` are counting.
        var counters = 0
        /// The releases so far.
        var count = 0
        /// The `execute(sql:)` calls running now (a write that committed is seen by other
        /// connections before its statement returns, after its checkpoint, say).
        var running = 0
    }

    private static let registry = UnsafeSendableLockedValue(Registry())

    private static func withFile<T>(_ name: String, _ body: (File) -> T) -> T {
        let file = registry.withLock { registry in
            let file = registry.files[name] ?? File()
            registry.files[name] = file
            file.users += 1
            return file
        }
        defer {
            registry.withLock { registry in
                file.users -= 1
                if file.users == 0 { registry.files[name] = nil }
            }
        }
        return body(file)
    }

    /// Runs `body` while the releases of `name`'s lock by connections of this process are counted
    /// (``releases(file:)``).
    static func countingReleases<T>(file name: String, _ body: () throws -> T) rethrows -> T {
        registry.withLock { $0.releases[name, default: Releases()].counters += 1 }
        defer {
            registry.withLock { registry in
                guard var entry = registry.releases[name] else { return }
                entry.counters -= 1
                registry.releases[name] = entry.counters == 0 ? nil : entry
            }
        }
        return try body()
    }

    /// How many times connections of this process released `name`'s lock while counted, and
    /// whether one of them is in `execute(sql:)` now.
    static func releases(file name: String) -> (count: Int, running: Bool) {
        registry.withLock { registry in
            let entry = registry.releases[name]
            return (entry?.count ?? 0, (entry?.running ?? 0) > 0)
        }
    }

    /// Notes that a connection runs `execute(sql:)` on `name`; returns whether it was counted
    /// (to pass to ``executionEnds(file:counted:released:)``).
    static func executionBegins(file name: String) -> Bool {
        registry.withLock { registry in
            guard !registry.releases.isEmpty, registry.releases[name] != nil else { return false }
            registry.releases[name]!.running += 1
            return true
        }
    }

    /// Notes the end of an `execute(sql:)` on `name`; when it `released` the lock (it left the
    /// connection outside a transaction), counts the release and wakes the waiters. Returns how
    /// many were woken.
    static func executionEnds(file name: String, counted: Bool, released: Bool) -> Int {
        let file: File? = registry.withLock { registry in
            if !registry.releases.isEmpty, registry.releases[name] != nil {
                if counted { registry.releases[name]!.running = max(0, registry.releases[name]!.running - 1) }
                if released { registry.releases[name]!.count += 1 }
            }
            return released && !registry.files.isEmpty ? registry.files[name] : nil
        }
        guard let file else { return 0 }
        return wake(file)
    }

    /// Sleeps until `until`, or until a connection wakes this file's waiters.
    static func sleep(file name: String, until: ContinuousClock.Instant) {
        withFile(name) { file in
            let deadline = Date(timeIntervalSinceNow: max(0, (until - ContinuousClock.now).inSeconds))
            file.condition.lock()
            defer { file.condition.unlock() }
            file.waiting += 1
            let wakes = file.wakes
            while file.wakes == wakes, file.condition.wait(until: deadline) {}
            file.waiting -= 1
            if file.wakes != wakes {
                file.woken -= 1
                if file.woken == 0 { file.condition.broadcast() }
            }
        }
    }

    /// Wakes every connection waiting for `name`; returns how many there were.
    static func wake(file name: String) -> Int {
        executionEnds(file: name, counted: false, released: true)
    }

    private static func wake(_ file: File) -> Int {
        file.condition.lock()
        defer { file.condition.unlock() }
        guard file.waiting > 0 else { return 0 }
        file.wakes += 1
        file.woken = file.waiting
        file.condition.broadcast()
        return file.waiting
    }

    /// Waits, at most `seconds`, until no connection woken by ``wake(file:)`` is still in its
    /// busy handler; returns false when one still is.
    @discardableResult
    static func waitForWoken(file name: String, atMost seconds: Double) -> Bool {
        guard let file = registry.withLock({ $0.files[name] }) else { return true }
        let deadline = Date(timeIntervalSinceNow: max(0, seconds))
        file.condition.lock()
        defer { file.condition.unlock() }
        while file.woken > 0, file.condition.wait(until: deadline) {}
        return file.woken == 0
    }

    /// The connections of this process waiting for `name` now.
    static func waiting(file name: String) -> Int {
        guard let file = registry.withLock({ $0.files[name] }) else { return 0 }
        file.condition.lock()
        defer { file.condition.unlock() }
        return file.waiting
    }
}
