import ArgumentParser
import Foundation
import Strata

/// Options that shape a plan, shared by `plan`, `apply` and `new`.
struct PlanningArguments: ParsableArguments {
    @Flag(name: .customLong("allow-destructive"), help: "Allow dropping tables, columns and virtual tables.")
    var allowDestructive = false

    @Option(
        name: .customLong("rename-table"), parsing: .singleValue,
        help: ArgumentHelp("A table rename, as OLD:NEW (same as a `-- @renamed from=OLD` hint).", valueName: "OLD:NEW"))
    var tableRenames: [String] = []

    @Option(
        name: .customLong("rename-column"), parsing: .singleValue,
        help: ArgumentHelp("A column rename, as TABLE.OLD:NEW (TABLE is the new table name).", valueName: "TABLE.OLD:NEW"))
    var columnRenames: [String] = []

    func validate() throws {
        _ = try makeOptions()
    }

    /// The planning options; throws a ValidationError naming a malformed rename.
    func makeOptions() throws -> SchemaChangeOptions {
        var options = SchemaChangeOptions(allowDestructive: allowDestructive)
        for rename in tableRenames {
            let parts = rename.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--rename-table \(rename): expected OLD:NEW")
            }
            options.renames.append(.table(parts[0], to: parts[1]))
        }
        for rename in columnRenames {
            let parts = rename.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, let dot = parts[0].lastIndex(of: "."), !parts[1].isEmpty else {
                throw ValidationError("--rename-column \(rename): expected TABLE.OLD:NEW")
            }
            let table = String(parts[0][..<dot])
            let column = String(parts[0][parts[0].index(after: dot)...])
            options.renames.append(.column(column, to: parts[1], inTable: table))
        }
        return options
    }
}

/// Options shared by `plan` and `apply`.
struct SchemaChangeArguments: ParsableArguments {
    @Option(name: .customLong("db"), help: "The database file.")
    var database: String

    @Option(name: .customLong("schema"), help: "The desired schema: a .sql file of CREATE statements.")
    var schema: String

    @OptionGroup var planning: PlanningArguments

    var options: SchemaChangeOptions {
        get throws { try planning.makeOptions() }
    }

    /// The desired schema file's text; errors name the file.
    func readSchema() throws -> String {
        try SchemaCommandSupport.readTextFile(schema, what: "schema file")
    }
}

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
    static func openForReading(_ path: String) throws -> (Database, exists: Bool) {
        if !FileManager.default.fileExists(atPath: path) {
            return (try Database(inMemory: Configuration()), false)
        }
        var configuration = Configuration()
        configuration.openMode = .readOnly
        return (try open(path, configuration), true)
    }

    /// Opens (creating) a database for writing.
    static func openForWriting(_ path: String) throws -> Database {
        try open(path, Configuration())
    }

    private static func open(_ path: String, _ configuration: Configuration) throws -> Database {
        do {
            return try Database(path: path, configuration: configuration)
        } catch let error as SQLiteError {
            throw CLIError(message: describe(error, database: path))
        }
    }

    /// One line for an SQLite error, naming the database first.
    static func describe(_ error: SQLiteError, database: String) -> String {
        var message = error.message ?? "\(error)"
        if message.hasSuffix(": \(database)") { message = String(message.dropLast(database.count + 2)) }
        switch error.resultCode {
        case .SQLITE_NOTADB: return "\(database): not an SQLite database (\(message))"
        case .SQLITE_BUSY, .SQLITE_LOCKED: return "\(database): the database is locked by another connection (\(message))"
        case .SQLITE_READONLY: return "\(database): the database is read-only (\(message))"
        case .SQLITE_CANTOPEN: return "\(database): cannot open the database file (\(message))"
        case .SQLITE_CORRUPT: return "\(database): the database file is corrupt (\(message))"
        default:
            if let sql = error.sql { return "\(database): \(message) (in `\(sql)`)" }
            return "\(database): \(message)"
        }
    }

    /// Runs `body`, turning engine and SQLite errors into CLI errors (exit 1, or 3 for refused
    /// destructive changes, each listed).
    static func reportingErrors<T>(database: String, schema: String?, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CLIError {
            throw error
        } catch let error as SchemaError {
            switch error.code {
            case .destructiveChangesRefused:
                var lines = ["\(database): refused \(error.destructiveChanges.count) destructive change"
                    + "\(error.destructiveChanges.count == 1 ? "" : "s") (pass --allow-destructive to apply):"]
                lines += error.destructiveChanges.map { "  - \($0)" }
                throw CLIError(message: lines.joined(separator: "\n"), exitCode: CLIError.refusedExitCode)
            case .invalidSQL:
                throw CLIError(message: "\(schema ?? "schema"): \(error.message)")
            default:
                if let underlying = error.underlying, underlying.isBusy || underlying.resultCode == .SQLITE_READONLY {
                    throw CLIError(message: describe(underlying, database: database))
                }
                throw CLIError(message: "\(database): \(error.message)")
            }
        } catch let error as SQLiteError {
            throw CLIError(message: describe(error, database: database))
        }
    }
}
