import Foundation
import Testing

extension ChildProcess {
    /// The outcome of ``strata(_:in:seconds:memoryKiB:)``.
    public struct BoundedResult: CustomStringConvertible, Sendable {
        public var result: Result
        /// True when the process was still running at the deadline and was killed.
        public var timedOut: Bool
        /// Wall-clock seconds until the process ended (or was killed).
        public var seconds: Double
        public var description: String {
            (timedOut ? "KILLED after \(seconds) s (still running)\n" : "after \(String(format: "%.2f", seconds)) s\n")
                + result.description
        }
    }

    /// Runs the `strata` command line as untrusted input may make it run: killed (SIGKILL)
    /// after `seconds`, with its address space limited to `memoryKiB` (`ulimit -v`), so a test
    /// of a hang or a memory bomb fails instead of hanging or exhausting the machine.
    public static func strata(
        _ arguments: [String], in directory: String? = nil, seconds: Double, memoryKiB: Int = 4_000_000
    ) throws -> BoundedResult {
        let output = TemporaryDirectory("strata-bounded")
        let strata = try executable("strata").path
        // `sh -c 'ulimit -v N && exec "$0" "$@"' strata args...`: the limit applies to strata only.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -v \(memoryKiB) && exec \"$0\" \"$@\"", strata] + arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        for file in ["stdout", "stderr"] {
            _ = FileManager.default.createFile(atPath: output.file(file), contents: nil)
        }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output.file("stdout")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: output.file("stderr")))
        try process.run()
        let start = Date()
        var timedOut = false
        while process.isRunning {
            if Date().timeIntervalSince(start) > seconds {
                kill(process.processIdentifier, SIGKILL)
                timedOut = true
                break
            }
            usleep(10_000)
        }
        let result = ChildProcess.result(of: process, output: output)
        return BoundedResult(result: result, timedOut: timedOut, seconds: Date().timeIntervalSince(start))
    }
}
