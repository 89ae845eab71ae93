import Foundation

/// A failure the CLI reports on stderr as one line, with an exit code.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32 = 1
    var description: String { message }

    /// Exit code 3: destructive changes were refused.
    static let refusedExitCode: Int32 = 3
}

enum CLIOutput {
    /// Writes `text` and a newline to stdout.
    static func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes `strata: message` to stderr.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data(("strata: " + message + "\n").utf8))
    }

    /// Writes a line to stderr without prefix.
    static func note(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
