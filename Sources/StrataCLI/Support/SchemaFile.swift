import ArgumentParser
import Foundation
import Strata

enum SchemaCommandSupport {
    /// Reads a UTF-8 text file, with errors that name it.
    static func readTextFile(_ path: String, what: String) throws -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIError(message: "\(path): no such \(what)")
        }
        guard !isDirectory.boolValue else { throw CLIError(message: "\(path): is a directory, not a \(what)") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError(message: "\(path): cannot read the \(what) (permission denied?)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIError(message: "\(path): the \(what) is not UTF-8 text")
        }
        return text
    }

    /// Opens an existing database read-only, or an empty in-memory one when `path` does not exist
    /// (so planning never creates a file).
    static func openForReading(
        _ path: String, _ configuration: Configuration = Configuration()
    ) throws -> (Database, exists: Bool) {
        if !FileManager.default.fileExists(atPath: path) {
            return (try Database(inMemory: Configuration()), false)
        }
        var configuration = configuration
        configuration.openMode = .readOnly
        return (try open(path, configuration), true)
    }

    /// Opens (creating) a database for writing.
    static func openForWriting(_ path: String, _ configuration: Configuration = Configuration()) throws -> Database {
        try open(path, configuration)
    }

    private static func open(_ path: String, _ configuration: Configuration) throws -> Database {
        try CLIError.reporting(database: path) { try Database(path: path, configuration: configuration) }
    }
}
