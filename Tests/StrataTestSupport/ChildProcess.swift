import Foundation
import Testing

/// The `StrataTestHelper` and `strata` executables, run as separate processes.
public enum ChildProcess {
    public struct Result: CustomStringConvertible, Sendable {
        public var stdout: String
        public var stderr: String
        public var status: Int32
        /// The same as ``status``.
        public var exitCode: Int32 { status }
        public var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
    }

    public struct NotFound: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// An executable SwiftPM built next to the test bundle (or in the package's .build/debug).
    /// `STRATA_TEST_EXECUTABLES=DIR` looks in DIR first: CI runs the command-line suites against
    /// the release build's `strata` that way (the optimiser once broke what the debug build ran).
    public static func executable(_ name: String) throws -> URL {
        var directories: [URL] = []
        if let chosen = ProcessInfo.processInfo.environment["STRATA_TEST_EXECUTABLES"], !chosen.isEmpty {
            directories.append(URL(fileURLWithPath: chosen))
        }
        directories += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        directories.append(packageRoot.appendingPathComponent(".build/debug"))
        for directory in directories {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw NotFound(description: "\(name) not found in \(directories.map(\.path)); run `swift build` first")
    }

    /// Starts `name arguments...` with stdout and stderr going to files in `output`.
    /// `environment` adds to (or replaces) variables of this process's environment.
    public static func launch(
        _ name: String, _ arguments: [String], output: TemporaryDirectory, stdin: Pipe? = nil,
        in directory: String? = nil,
        environment: [String: String] = [:]
    ) throws -> Process {
        let process = Process()
        process.executableURL = try executable(name)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        for file in ["stdout", "stderr"] {
            _ = FileManager.default.createFile(atPath: output.file(file), contents: nil)
        }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output.file("stdout")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: output.file("stderr")))
        if let stdin { process.standardInput = stdin }
        try process.run()
        return process
    }

    /// The process's outcome once it exits, at most `seconds` after the call (then it is killed
    /// and an issue recorded: see ``BoundedWait/exit(of:seconds:_:sourceLocation:)``).
    public static func result(
        of process: Process, output: TemporaryDirectory, seconds: Double = BoundedWait.processSeconds,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Result {
        BoundedWait.exit(
            of: process, seconds: seconds, "\(process.executableURL?.lastPathComponent ?? "a child process")",
            sourceLocation: sourceLocation)
        return Result(
            stdout: String(decoding: fileBytes(output.file("stdout")), as: UTF8.self),
            stderr: String(decoding: fileBytes(output.file("stderr")), as: UTF8.self),
            status: process.terminationStatus)
    }

    /// Runs `name arguments...` to completion (in `directory` when given).
    public static func run(
        _ name: String, _ arguments: [String], in directory: String? = nil, environment: [String: String] = [:]
    ) throws -> Result {
        let output = TemporaryDirectory("strata-child")
        return result(
            of: try launch(name, arguments, output: output, in: directory, environment: environment), output: output)
    }

    /// Runs the `strata` command line.
    public static func strata(_ arguments: [String], in directory: String? = nil) throws -> Result {
        try run("strata", arguments, in: directory)
    }
}

/// A helper process holding an exclusive lock on a database until released.
public final class LockHolder: @unchecked Sendable {
    private let process: Process
    private let input = Pipe()
    private let output = TemporaryDirectory("strata-lock")

    public init(path: String) throws {
        process = try ChildProcess.launch("StrataTestHelper", ["lock", path], output: output, stdin: input)
        // Wait until the helper says it holds the lock (polling its output file).
        for _ in 0..<1000 {
            if String(decoding: fileBytes(output.file("stdout")), as: UTF8.self).contains("locked") { return }
            if !process.isRunning { break }
            usleep(10_000)
        }
        let r = ChildProcess.result(of: process, output: output)
        throw ChildProcess.NotFound(description: "the lock helper did not lock \(path): \(r)")
    }

    public func release() {
        input.fileHandleForWriting.write(Data("\n".utf8))
        BoundedWait.exit(of: process, seconds: BoundedWait.seconds, "the lock helper, released")
    }
}
