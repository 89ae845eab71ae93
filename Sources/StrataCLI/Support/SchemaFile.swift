import Foundation
import Strata

/// The one loader of the text files the CLI reads (a desired schema, a database list, a
/// generated Swift file): errors name the file, and a desired schema is parsed once, before any
/// database is touched.
enum SchemaFile {
    /// Reads a UTF-8 text file, with errors that name it (`what` says what it is: `schema file`).
    static func readText(_ path: String, what: String = "schema file") throws -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIError(message: "\(path): no such \(what)", culprit: path)
        }
        guard !isDirectory.boolValue else {
            throw CLIError(message: "\(path): is a directory, not a \(what)", culprit: path)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError(message: "\(path): cannot read the \(what) (permission denied?)", culprit: path)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIError(message: "\(path): the \(what) is not UTF-8 text", culprit: path)
        }
        return text
    }

    /// The desired schema in the file at `path`, with its text: read (errors name the file) and
    /// parsed. A parse error is thrown as the library's error (a `SchemaError`), for a command
    /// that reports it its own way; ``load(_:)`` reports it naming the file.
    static func parse(_ path: String) throws -> (schema: DatabaseSchema, text: String) {
        let text = try readText(path)
        return (try DatabaseSchema(sql: text), text)
    }

    /// ``parse(_:)``, its errors naming the schema file (`schema.sql: statement 2 ...`).
    static func load(_ path: String) throws -> (schema: DatabaseSchema, text: String) {
        try CLIError.reporting(database: path, schema: path) { try parse(path) }
    }
}
