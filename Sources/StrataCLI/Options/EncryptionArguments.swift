import ArgumentParser
import Foundation
import Strata

/// `--key-file` and `--key-env`, for every command that opens a database (through
/// ``ConnectionArguments``). A key is never taken from the command line: argv is visible to
/// every user of the machine (`ps`) and lands in shell histories.
struct EncryptionArguments: ParsableArguments {
    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp(
            "Open an encrypted database with the passphrase in this file (one trailing newline is ignored; "
                + "x'<64 hex digits>' is a raw key). Needs an encryption-capable SQLite.",
            valueName: "path"))
    var keyFile: String?

    @Option(
        name: .customLong("key-env"),
        help: ArgumentHelp(
            "Open an encrypted database with the passphrase in this environment variable.", valueName: "name"))
    var keyEnvironmentVariable: String?

    /// Both options at once is a usage error; a missing or empty key file or variable is reported
    /// (one line naming it) when the database is opened, before its file is touched.
    func validate() throws {
        _ = try KeySource(file: keyFile, environment: keyEnvironmentVariable, options: ("--key-file", "--key-env"))
    }

    /// Where the key comes from, or nil when none was given.
    var source: KeySource? {
        try? KeySource(file: keyFile, environment: keyEnvironmentVariable, options: ("--key-file", "--key-env"))
    }

    /// `configuration` with the key, read from its file or variable each time a connection opens.
    func apply(to configuration: inout Configuration) {
        guard let source else { return }
        configuration.encryptionKey = { .passphrase(bytes: try source.read()) }
    }
}

/// A key in a file or an environment variable.
enum KeySource: Sendable {
    case file(String)
    case environment(String)

    /// The source the two options name; nil when neither is given. Both is a usage error.
    init?(file: String?, environment: String?, options: (file: String, environment: String)) throws {
        switch (file, environment) {
        case (nil, nil): return nil
        case (let file?, nil): self = .file(file)
        case (nil, let name?): self = .environment(name)
        case (_?, _?): throw ValidationError("give \(options.file) or \(options.environment), not both")
        }
    }

    /// The key's bytes: the file's (without one trailing newline) or the variable's. Errors name
    /// the file or the variable, never the key.
    func read() throws -> [UInt8] {
        switch self {
        case .file(let path):
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CLIError(message: "\(path): no such key file")
            }
            guard !isDirectory.boolValue else { throw CLIError(message: "\(path): is a directory, not a key file") }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CLIError(message: "\(path): cannot read the key file (permission denied?)")
            }
            var bytes = [UInt8](data)
            if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
            guard !bytes.isEmpty else { throw CLIError(message: "\(path): the key file is empty") }
            return bytes
        case .environment(let name):
            guard let value = ProcessInfo.processInfo.environment[name] else {
                throw CLIError(message: "\(name): no such environment variable (it should hold the key)")
            }
            guard !value.isEmpty else { throw CLIError(message: "\(name): the environment variable is empty") }
            return Array(value.utf8)
        }
    }
}
