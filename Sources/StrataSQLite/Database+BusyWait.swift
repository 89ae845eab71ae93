import CSQLite
import Foundation

extension Database {
    /// Sets how the connection waits for a lock held by another connection: SQLite's own
    /// `sqlite3_busy_timeout`, or, with ``Configuration/busyWaitHandler``, a busy handler that
    /// sleeps on the same schedule and reports each wait to the handler.
    func installBusyTimeout() {
        let timeout = min(max(0, configuration.busyTimeout) * 1000, Double(Int32.max))
        guard let handler = configuration.busyWaitHandler else {
            sqlite3_busy_timeout(handle, Int32(timeout))
            return
        }
        let wait = BusyWait(timeoutMilliseconds: Int(timeout), handler: handler)
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
}

/// The busy handler's state: SQLite's `sqliteDefaultBusyCallback` schedule (short sleeps first,
/// then 100 ms each) up to the timeout, telling the handler how long the wait has lasted.
final class BusyWait {
    private static let delays = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]
    private static let totals = [0, 1, 3, 8, 18, 33, 53, 78, 103, 128, 178, 228]
    let timeoutMilliseconds: Int
    let handler: @Sendable (Double) -> Void

    init(timeoutMilliseconds: Int, handler: @escaping @Sendable (Double) -> Void) {
        self.timeoutMilliseconds = timeoutMilliseconds
        self.handler = handler
    }

    /// Sleeps before retry number `attempts + 1` and returns 1, or returns 0 once the timeout is spent.
    func retry(after attempts: Int) -> Int32 {
        let last = Self.delays.count - 1
        var delay = attempts <= last ? Self.delays[attempts] : Self.delays[last]
        let prior = attempts <= last ? Self.totals[attempts] : Self.totals[last] + Self.delays[last] * (attempts - last)
        if prior + delay > timeoutMilliseconds {
            delay = timeoutMilliseconds - prior
            if delay <= 0 { return 0 }
        }
        usleep(useconds_t(delay * 1000))
        handler(Double(prior + delay) / 1000)
        return 1
    }
}
