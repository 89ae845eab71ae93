import ArgumentParser
import Foundation
import Strata
import StrataSQLite

/// The `strata` command: plan and apply schema changes, run versioned migrations.
///
/// Exit codes (a contract scripts rely on): 0 done or nothing to do; 1 error, database
/// unchanged; 2 `lint` findings at or above `--fail-on`; 3 refused because destructive changes were not allowed
/// (or, for `restore`, rows written since the upgrade would be lost without `--accept-loss`).
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Safe schema evolution for SQLite.",
        discussion: """
            Exit codes: 0 done (or nothing to do), 1 error (the database is unchanged), \
            2 lint findings at or above --fail-on, 3 refused because destructive changes were not allowed \
            (restore: rows would be lost without --accept-loss).
            """,
        version: strataVersion,
        subcommands: StrataCommand.allSubcommands
    )
}

let strataVersion = "0.1.0"

@main
enum Main {
    static func main() {
        let code: Int32
        do {
            try Main.checkArgumentsAreUTF8()
            var command = try StrataCommand.parseAsRoot()
            DurableFile.installProcessHook(FileStepSeam.fromEnvironment())
            try command.run()
            code = 0
        } catch {
            // Every error, usage errors included, is printed and given its exit code in one place.
            code = CLIError.exitCode(reporting: error)
        }
        exit(code)
    }

    /// Refuses an argument that is not UTF-8 (a file name in another encoding): Swift reads
    /// such bytes as U+FFFD, so `--db $'\xff'` would open or create a file of another name.
    /// The error shows the argument's invalid bytes as `\xFF`.
    static func checkArgumentsAreUTF8() throws {
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
            if String(validating: bytes, as: UTF8.self) != nil { continue }
            let escaped = bytes.reduce(into: "") { text, byte in
                if (0x20..<0x7F).contains(byte) { return text.append(Character(UnicodeScalar(byte))) }
                let hex = String(byte, radix: 16, uppercase: true)
                text += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
            throw CLIError(
                message: "argument \(index) (\(SQLiteText.excerpt(escaped))) is not UTF-8 text: "
                    + "strata takes paths and names in UTF-8 (rename the file, or reach it through a link with a UTF-8 name)"
            )
        }
    }
}

/// The tests' seam into the file writes of a command (`DurableFile.hook`), off unless the
/// environment asks: `STRATA_TEST_FILE_STEPS=LOG` appends one line per step (`sync-file PATH`,
/// `rename FROM -> TO`...) to LOG; `STRATA_TEST_FILE_FAIL=N` makes the Nth step fail with EIO,
/// `STRATA_TEST_FILE_FAIL=TEXT` (not a number) the first step whose line contains TEXT.
enum FileStepSeam {
    private final class Counter: @unchecked Sendable {
        let lock = NSLock()
        var count = 0
        var matched = false
        /// True the first time only.
        func firstMatch() -> Bool {
            lock.withLock {
                defer { matched = true }
                return !matched
            }
        }
        func next() -> Int {
            lock.withLock {
                count += 1
                return count
            }
        }
    }

    static func fromEnvironment() -> DurableFile.Hook? {
        let environment = ProcessInfo.processInfo.environment
        let log = environment["STRATA_TEST_FILE_STEPS"]
        let fail = environment["STRATA_TEST_FILE_FAIL"]
        let failAt = fail.flatMap { Int($0) }
        let failOn = failAt == nil ? fail : nil
        guard log != nil || fail != nil else { return nil }
        let counter = Counter()
        return { step throws(FileSystem.Failure) in
            let number = counter.next()
            if let log, let handle = FileHandle(forWritingAtPath: log) ?? createLog(log) {
                handle.seekToEndOfFile()
                handle.write(Data("\(step)\n".utf8))
                try? handle.close()
            }
            if number == failAt { throw FileSystem.Failure(code: EIO) }
            if let failOn, "\(step)".contains(failOn), counter.firstMatch() { throw FileSystem.Failure(code: EIO) }
        }
    }

    private static func createLog(_ path: String) -> FileHandle? {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return FileHandle(forWritingAtPath: path)
    }
}
