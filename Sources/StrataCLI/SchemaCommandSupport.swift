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
        case .SQLITE_NOTADB where message.hasPrefix("wrong key"): return "\(database): \(message)"
        case .SQLITE_NOTADB:
            return "\(database): not an SQLite database (\(message)); if it is encrypted, give its key with --key-file or --key-env"
        case .SQLITE_BUSY where isWriteLockStatement(error.sql) && onlyReadersHoldLocks(database):
            // https://www.sqlite.org/lockingv3.html: in rollback-journal mode a writer needs an
            // EXCLUSIVE lock to write the file, which waits until every reader's SHARED lock is gone.
            return "\(database): the database is busy: another connection is reading it, and in rollback-journal mode "
                + "no change can be written while a read transaction is open; nothing was changed (retry when the "
                + "reader is done, wait longer with --busy-timeout MS, or put the database in WAL mode, where readers "
                + "never block a writer)"
        case .SQLITE_BUSY, .SQLITE_LOCKED: return "\(database): the database is locked by another connection (\(message))"
        case .SQLITE_READONLY where error.extendedResultCode == .SQLITE_READONLY_ROLLBACK:
            // A hot journal: a writer was interrupted mid-transaction; the journal holds the pages
            // to restore, and restoring them needs write access. https://www.sqlite.org/atomiccommit.html#hot_rollback_journals
            return "\(database): a hot journal (\(database)-journal) from an interrupted write is present, and the "
                + "database cannot be read until it is rolled back: open the database read-write to recover it (for "
                + "example with `strata apply` or `strata migrate`, or any program that writes to it); nothing was changed"
        case .SQLITE_READONLY: return "\(database): the database is read-only (\(message))"
        case .SQLITE_CANTOPEN:
            // SQLite's message does not say why; the usual cause for an existing file is a
            // directory where the journal cannot be created.
            let directory = (database as NSString).deletingLastPathComponent
            let folder = directory.isEmpty ? "." : directory
            if FileManager.default.fileExists(atPath: database), !FileManager.default.isWritableFile(atPath: folder) {
                return "\(database): cannot write the database: its directory \(folder) is not writable "
                    + "(SQLite creates its journal there) (\(message))"
            }
            return "\(database): cannot open the database file (\(message))"
        case .SQLITE_CORRUPT: return "\(database): the database file is corrupt (\(message))"
        default:
            if let sql = error.sql { return "\(database): \(message) (in `\(sql)`)" }
            return "\(database): \(message)"
        }
    }

    /// Whether `sql` takes the write lock: the `BEGIN EXCLUSIVE` of an apply, or a `COMMIT`.
    private static func isWriteLockStatement(_ sql: String?) -> Bool {
        guard let sql = sql?.uppercased() else { return false }
        return sql.hasPrefix("BEGIN EXCLUSIVE") || sql.hasPrefix("COMMIT") || sql.hasPrefix("END")
    }

    /// After a write failed with SQLITE_BUSY: true when no other connection holds the write
    /// lock, so readers were in the way. The probe takes the write lock (RESERVED, which readers
    /// do not mind) without waiting, and releases it at once.
    private static func onlyReadersHoldLocks(_ path: String) -> Bool {
        var configuration = Configuration()
        configuration.openMode = .readWrite
        configuration.busyTimeout = 0
        guard let probe = try? Database(path: path, configuration: configuration) else { return false }
        defer { probe.close() }
        guard (try? probe.execute(sql: "BEGIN IMMEDIATE")) != nil else { return false }
        probe.rollbackQuietly()
        return true
    }

    /// The CLI error for `error`, as ``reportingErrors(database:schema:_:)`` makes it.
    static func cliError(_ error: any Error, database: String, schema: String?) -> CLIError {
        do {
            try reportingErrors(database: database, schema: schema) { throw error }
        } catch let error as CLIError {
            return error
        } catch {
            return CLIError(message: "\(database): \(error)")
        }
        return CLIError(message: "\(database): \(error)")
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
                if let underlying = error.underlying,
                    underlying.isBusy || [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(underlying.resultCode)
                {
                    throw CLIError(message: describe(underlying, database: database))
                }
                throw CLIError(message: "\(database): \(error.message)")
            }
        } catch let error as SQLiteError {
            throw CLIError(message: describe(error, database: database))
        }
    }
}
