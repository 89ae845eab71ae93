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

/// `--busy-timeout` and `--trace`, for every command that opens a database.
struct ConnectionArguments: ParsableArguments {
    @Option(
        name: .customLong("busy-timeout"),
        help: ArgumentHelp(
            "How long to wait for a lock held by another connection: milliseconds (500), or seconds with "
                + "an s suffix (30s, 1.5s). Default 5s.",
            discussion: "On a terminal, a wait longer than a second is reported once on stderr.",
            valueName: "time"))
    var busyTimeout: BusyTimeout?

    @Flag(help: "Print each SQL statement run on the database to standard error (bound values hidden).")
    var trace = false

    @OptionGroup var encryption: EncryptionArguments

    /// Connection settings for the database at `path`: Strata's defaults, with the busy timeout
    /// given, and a note on stderr once a lock wait passes a second (when stderr is a terminal).
    func configuration(for path: String) -> Configuration {
        var configuration = Configuration()
        if let busyTimeout { configuration.busyTimeout = busyTimeout.seconds }
        if LockWaitNotice.isEnabled {
            let limit = configuration.busyTimeout
            configuration.busyWaitHandler = { waited in LockWaitNotice.waited(waited, on: path, limit: limit) }
        }
        if trace { configuration.tracer = { event in FileHandle.standardError.write(Data("trace: \(event.sql)\n".utf8)) } }
        encryption.apply(to: &configuration)
        return configuration
    }
}

/// A `--busy-timeout` value: a plain number is milliseconds (as it always was), `Ns` seconds,
/// `Nms` milliseconds.
struct BusyTimeout: ExpressibleByArgument, Sendable {
    var seconds: Double

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let value: Double?
        if text.hasSuffix("ms") {
            value = Double(text.dropLast(2)).map { $0 / 1000 }
        } else if text.hasSuffix("s") {
            value = Double(text.dropLast())
        } else {
            value = Double(text).map { $0 / 1000 }
        }
        guard let value, value.isFinite, value >= 0 else { return nil }
        seconds = value
    }

    static var defaultCompletionKind: CompletionKind { .default }
}

/// The "waiting for a lock" line: printed once per run, only when stderr is a terminal (a
/// script reading stderr gets the error at the end of the wait, as before).
enum LockWaitNotice {
    static let isEnabled = isatty(STDERR_FILENO) == 1
    private static let printed = LockedFlag()

    static func waited(_ seconds: Double, on path: String, limit: Double) {
        guard seconds >= 1, printed.setOnce() else { return }
        let limitText = limit == limit.rounded() ? "\(Int(limit))" : "\(limit)"
        CLIOutput.note("strata: \(path): waiting for a lock held by another connection "
            + "(gives up after \(limitText) s; change with --busy-timeout)...")
    }
}

/// A flag set once, from any thread.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var isSet = false

    /// Sets the flag; true for the one caller that set it.
    func setOnce() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if isSet { return false }
        isSet = true
        return true
    }
}

/// Options shared by `plan` and `apply` (each has its own `--db`: `apply` takes several).
struct SchemaChangeArguments: ParsableArguments {
    @Option(name: .customLong("schema"), help: "The desired schema: a .sql file of CREATE statements.")
    var schema: String

    @OptionGroup var planning: PlanningArguments

    @OptionGroup var connection: ConnectionArguments

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
    static func openForReading(_ path: String, _ configuration: Configuration = Configuration()) throws -> (Database, exists: Bool) {
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
