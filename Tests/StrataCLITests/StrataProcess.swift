import Foundation
import StrataTestSupport

/// Runs the built `strata` executable the way a user does, capturing stdout, stderr and the exit code.
struct StrataProcess {
    struct Result: CustomStringConvertible {
        let stdout: String
        let stderr: String
        let exitCode: Int32
        var description: String { "exit \(exitCode)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
    }

    /// The `strata` binary next to the test bundle (SwiftPM puts both in `.build/<config>`),
    /// else in the package's `.build/debug`.
    static let executable: URL = {
        var candidates: [URL] = []
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("strata"))
        }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("strata"))
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug/strata"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates.last!
    }()

    /// Runs `strata arguments...` in `directory` and waits for it.
    static func run(_ arguments: [String], in directory: String? = nil) throws -> Result {
        let output = TemporaryDirectory("strata-output")
        let outURL = URL(fileURLWithPath: output.file("stdout"))
        let errURL = URL(fileURLWithPath: output.file("stderr"))
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardOutput = outHandle
        process.standardError = errHandle
        try process.run()
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        return Result(
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self),
            exitCode: process.terminationStatus)
    }
}

/// Writes migration files into a new temporary folder.
func migrationFolder(_ files: [String: String]) throws -> TemporaryDirectory {
    let dir = TemporaryDirectory("migrations")
    for (name, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: dir.file(name))) }
    return dir
}
