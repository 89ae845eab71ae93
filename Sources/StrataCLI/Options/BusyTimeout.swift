import ArgumentParser
import Foundation

/// A `--busy-timeout` value: a plain number is milliseconds (as it always was), `Ns` seconds,
/// `Nms` milliseconds.
struct BusyTimeout: ExpressibleByArgument, Sendable {
    var seconds: Double

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let value: Double?
        if text.hasSuffix("ms") {
            value = Double(text.dropLast(2)).map { $0 / 1000 }
        } else if text.hasSuffix("s") {
            value = Double(text.dropLast())
        } else {
            value = Double(text).map { $0 / 1000 }
        }
        guard let value, value.isFinite, value >= 0 else { return nil }
        seconds = value
    }

    static var defaultCompletionKind: CompletionKind { .default }
}

/// The "waiting for a lock" line: printed once per run, only when stderr is a terminal (a
/// script reading stderr gets the error at the end of the wait, as before).
enum LockWaitNotice {
    static let isEnabled = isatty(STDERR_FILENO) == 1
    private static let printed = LockedFlag()

    static func waited(_ seconds: Double, on path: String, limit: Double) {
        guard seconds >= 1, printed.setOnce() else { return }
        let limitText = limit == limit.rounded() ? "\(Int(limit))" : "\(limit)"
        CLIOutput.note(
            "strata: \(path): waiting for a lock held by another connection "
                + "(gives up after \(limitText) s; change with --busy-timeout)...")
    }
}

/// A flag set once, from any thread.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var isSet = false

    /// Sets the flag; true for the one caller that set it.
    func setOnce() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if isSet { return false }
        isSet = true
        return true
    }
}
