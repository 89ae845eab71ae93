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
