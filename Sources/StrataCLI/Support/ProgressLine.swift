import Foundation
import Strata

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One self-rewriting progress line on stderr while a plan is applied, shown only when stderr
/// is a terminal (pipes, files and CI logs get nothing extra), and erased when the work ends.
///
/// ```
/// [1/3] rebuild table item: 412,000 of 1,000,000 rows copied (41%)
/// ```
final class ProgressLine {
    /// A line when stderr is a terminal, else nil.
    static func forStandardError() -> ProgressLine? {
        isatty(STDERR_FILENO) == 1 ? ProgressLine() : nil
    }

    private var step = ""
    private var lastWrite: UInt64 = 0
    private var isShown = false

    /// Updates the line for `event`; row counts are redrawn at most ten times a second.
    func update(_ event: SchemaChangeEvent) {
        switch event {
        case .stepStarted(let s, let index, let count):
            // The kind and the object only: the summary can be longer than the terminal is wide.
            step = "[\(index + 1)/\(count)] \(s.kind.rawValue) \(s.object)"
            draw(step, force: true)
        case .rowsCopied(_, let copied, let total):
            let percent = total > 0 ? copied * 100 / total : 100
            draw(
                "\(step): \(Self.grouped(copied)) of \(Self.grouped(total)) rows copied (\(percent)%)",
                force: copied == total)
        case .indexBuilt(let name, _):
            draw("\(step): index \(name) built", force: false)
        case .stepFinished:
            break
        }
    }

    /// Erases the line.
    func finish() {
        guard isShown else { return }
        write("\r\u{1B}[K")
        isShown = false
    }

    private func draw(_ text: String, force: Bool) {
        let now = DispatchTime.now().uptimeNanoseconds
        guard force || now - lastWrite >= 100_000_000 else { return }
        lastWrite = now
        // Cut to the terminal's width so the line never wraps (a wrapped line cannot be rewritten).
        var size = winsize()
        let width = ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 1 ? Int(size.ws_col) - 1 : 79
        let shown = text.count > width ? String(text.prefix(max(1, width - 1))) + "…" : text
        write("\r\u{1B}[K" + shown)
        isShown = true
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func grouped(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }
}
