import Foundation
import StrataSQLite

/// The "waiting for a lock" line: printed once per run, only when stderr is a terminal (a
/// script reading stderr gets the error at the end of the wait, as before).
enum LockWaitNotice {
    static let isEnabled = isatty(STDERR_FILENO) == 1
    /// Whether the line was printed, set once from whichever connection waits first.
    private static let printed = LockedValue(false)

    static func waited(_ seconds: Double, on path: String, limit: Double) {
        guard seconds >= 1, setOnce() else { return }
        let limitText = limit == limit.rounded() ? "\(Int(limit))" : "\(limit)"
        CLIOutput.note(
            "strata: \(path): waiting for a lock held by another connection "
                + "(gives up after \(limitText) s; change with --busy-timeout)...")
    }

    /// Sets ``printed``; true for the one caller that set it.
    private static func setOnce() -> Bool {
        printed.withLock { printed in
            defer { printed = true }
            return !printed
        }
    }
}
