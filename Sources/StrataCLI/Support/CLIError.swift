import ArgumentParser
import Foundation
import Strata

/// A failure the CLI reports on stderr as one line (`strata: message`), with an exit code.
///
/// This file is the one place where an error becomes what the user sees: ``init(_:database:schema:activity:)``
/// turns any library error (read through ``StrataError``: its code, message, culprit and cause)
/// into a message and an exit code, and ``exitCode(reporting:)`` prints whatever reaches `main`
/// (usage errors included). A `CLIError` is itself a ``StrataError``: its ``code`` says which exit
/// code it has, its ``culprit`` is the path or option its message names first, and its
/// ``underlyingError`` the library error it reports. The exit codes are a contract:
/// 0 done (or nothing to do), 1 error (usage errors too; the database is unchanged),
/// 2 `lint` findings at or above `--fail-on` (``findingsExitCode``), 3 refused because destructive changes were not allowed.
struct CLIError: StrataError {
    /// What the command's outcome is, each code with its exit code.
    struct Code: StrataErrorCode {
        let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }

        /// Exit code 1: an error; the database is unchanged (a usage error too).
        static let failed = Code(rawValue: "failed")
        /// Exit code 2: `strata lint` found changes at or above `--fail-on`.
        static let findings = Code(rawValue: "findings")
        /// Exit code 3: destructive changes were refused.
        static let refused = Code(rawValue: "refused")

        /// The process's exit code for this outcome.
        var exitCode: Int32 {
            switch self {
            case .refused: CLIError.refusedExitCode
            case .findings: CLIError.findingsExitCode
            default: CLIError.failureExitCode
            }
        }

        /// The code whose exit code is `exitCode` (an unknown one is a failure).
        init(exitCode: Int32) {
            switch exitCode {
            case CLIError.refusedExitCode: self = .refused
            case CLIError.findingsExitCode: self = .findings
            default: self = .failed
            }
        }
    }

    var code: Code
    /// The line printed after `strata: ` (several lines for a refusal), naming the culprit first.
    var message: String
    /// The database, file, option or migration the message names first, when known.
    var culprit: String?
    /// The library error this one reports, if any.
    var underlyingError: (any Error)?

    /// The process's exit code.
    var exitCode: Int32 { code.exitCode }
    /// The ``message``, exactly as printed.
    var description: String { describe(culprit: nil, cause: nil) }

    /// Exit code 1: an error, the database is unchanged (a usage error too).
    static let failureExitCode: Int32 = 1
    /// Exit code 2: `strata lint` found changes at or above `--fail-on`.
    static let findingsExitCode: Int32 = 2
    /// Exit code 3: destructive changes were refused.
    static let refusedExitCode: Int32 = 3

    init(
        message: String, exitCode: Int32 = CLIError.failureExitCode, culprit: String? = nil,
        underlyingError: (any Error)? = nil
    ) {
        self.code = Code(exitCode: exitCode)
        // Every line the CLI prints for an error is bounded, as every library error is.
        self.message = StrataErrorText.boundedLines(message)
        self.culprit = culprit
        self.underlyingError = underlyingError
    }

    /// The CLI error for `error`, thrown while working on `database` (a path, or the schema
    /// file when there is no database) with the desired schema file `schema`. `activity` says
    /// what was being done when it matters to the user (`cannot copy the database for the dry run`).
    ///
    /// - a ``CLIError`` is kept;
    /// - a ``StrataError`` is read through the protocol (``init(reporting:database:schema:activity:)``);
    /// - anything else is prefixed with the database.
    init(_ error: any Error, database: String? = nil, schema: String? = nil, activity: String? = nil) {
        switch error {
        case let error as CLIError:
            self = error
        case let error as any StrataError:
            self.init(reporting: error, database: database, schema: schema, activity: activity)
        default:
            self.init(
                message: database.map { "\($0): \(error)" } ?? "\(error)", culprit: database, underlyingError: error)
        }
    }

    /// A library error as the CLI reports it, from its code, message, culprit and cause:
    ///
    /// - refused destructive changes (`destructive-changes-refused`) are listed one per line, exit 3;
    /// - invalid desired SQL (`invalid-sql`) names the schema file;
    /// - a backup error names the backup path (or the database and the activity), with the
    ///   `--force-backup` hint for a file already there;
    /// - an upgrade error (a restore point, a restore, the upgrade state) names its culprit; a restore
    ///   that would lose rows is a refusal, exit 3 (`--accept-loss`);
    /// - a migration error, whose message names a culprit outside the database (a migration or
    ///   its file), and any error without a database, is its description;
    /// - an SQLite error, or an SQLite lock, read-only or open failure behind another error, is
    ///   described for the database (``describe(_:database:)``);
    /// - any other is prefixed with the database.
    private init(reporting error: some StrataError, database: String?, schema: String?, activity: String?) {
        let sqlite = (error as? SQLiteError) ?? (error.underlyingError as? SQLiteError)
        let schemaCode = error.code as? SchemaError.Code
        let message: String
        var exitCode = CLIError.failureExitCode
        var culprit = database
        if schemaCode == .destructiveChangesRefused, let database, let refusal = error as? SchemaError {
            let count = refusal.destructiveChanges.count
            var lines = [
                "\(database): refused \(count) destructive change\(count == 1 ? "" : "s") (pass --allow-destructive to apply):"
            ]
            lines += refusal.destructiveChanges.map { "  - \($0)" }
            message = lines.joined(separator: "\n")
            exitCode = CLIError.refusedExitCode
        } else if schemaCode == .invalidSQL, database != nil {
            culprit = schema ?? "schema"
            message = "\(schema ?? "schema"): \(error.message)"
        } else if let backup = error as? BackupError {
            if let activity, let database {
                message = "\(database): \(activity): \(backup)"
            } else {
                culprit = backup.path
                message =
                    backup.code == .destinationExists
                    ? "\(backup.path): already exists (pass --force-backup to replace it)" : backup.description
            }
        } else if let upgrade = error as? UpgradeError {
            // A loss the restore refused is a refusal like destructive changes: exit 3.
            culprit = upgrade.culprit ?? database
            var text = upgrade.description
            if upgrade.code == .restoreWouldLoseRows {
                exitCode = CLIError.refusedExitCode
                text = text.replacingOccurrences(
                    of: "(accept the loss to restore anyway)", with: "(pass --accept-loss to restore anyway)")
            }
            // The message names its culprit first; the database in front unless it is that culprit.
            message = database.map { text.hasPrefix("\($0): ") ? text : "\($0): " + text } ?? text
        } else if error is MigrationError || database == nil {
            culprit = error.culprit
            message = error.description
        } else if let sqlite, let database, error is SQLiteError || CLIError.isAboutTheFile(sqlite) {
            message = CLIError.describe(sqlite, database: database)
        } else {
            message = "\(database ?? ""): \(error.description)"
        }
        self.init(message: message, exitCode: exitCode, culprit: culprit, underlyingError: error)
    }

    /// An SQLite failure about the database file rather than a statement: a lock, a read-only
    /// file, a file that cannot be opened.
    private static func isAboutTheFile(_ error: SQLiteError) -> Bool {
        error.isBusy || [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode)
    }

    /// This error with its message on one line of at most `limit` characters when it exits 1:
    /// SQLite quotes an unrecognized token whole, and an unterminated string in a schema file is
    /// the rest of the file, which must not be printed.
    func shortened(limit: Int = 400) -> CLIError {
        guard exitCode == CLIError.failureExitCode else { return self }
        var short = self
        short.message = SQLiteText.excerpt(message, limit: limit)
        return short
    }

    /// Prints `error` as `main` reports it, and returns the process's exit code: a CLI error's
    /// message and code; help and version (exit 0) and usage errors (exit 1) as ArgumentParser
    /// prints them; any other error's description (exit 1).
    static func exitCode(reporting error: any Error) -> Int32 {
        switch error {
        case let error as CLIError:
            if !error.message.isEmpty { CLIOutput.error(error.message) }
            return error.exitCode
        case let error as ExitCode:
            return error.rawValue
        default:
            let exitCode = StrataCommand.exitCode(for: error)
            if exitCode == .success {
                StrataCommand.exit(withError: error)  // help and version: printed, exit 0
            }
            if error is ValidationError || exitCode == .validationFailure {
                CLIOutput.error(StrataErrorText.boundedLines(StrataCommand.fullMessage(for: error)))
            } else {
                CLIOutput.error(StrataErrorText.boundedLines(String(describing: error)))
            }
            return failureExitCode
        }
    }

    /// One line for an SQLite error, naming the database first.
    static func describe(_ error: SQLiteError, database: String) -> String {
        var message = error.message
        if message.hasSuffix(": \(database)") { message = String(message.dropLast(database.count + 2)) }
        switch error.resultCode {
        case .SQLITE_NOTADB where message.hasPrefix("wrong key"): return "\(database): \(message)"
        case .SQLITE_NOTADB:
            return
                "\(database): not an SQLite database (\(message)); if it is encrypted, give its key with --key-file or --key-env"
        case .SQLITE_BUSY where isWriteLockStatement(error.sql) && onlyReadersHoldLocks(database):
            // https://www.sqlite.org/lockingv3.html: in rollback-journal mode a writer needs an
            // EXCLUSIVE lock to write the file, which waits until every reader's SHARED lock is gone.
            return "\(database): the database is busy: another connection is reading it, and in rollback-journal mode "
                + "no change can be written while a read transaction is open; nothing was changed (retry when the "
                + "reader is done, wait longer with --busy-timeout MS, or put the database in WAL mode, where readers "
                + "never block a writer)"
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return "\(database): the database is locked by another connection (\(message))"
        case .SQLITE_READONLY where error.extendedResultCode == .SQLITE_READONLY_ROLLBACK:
            // A hot journal: a writer was interrupted mid-transaction; the journal holds the pages
            // to restore, and restoring them needs write access. https://www.sqlite.org/atomiccommit.html#hot_rollback_journals
            return "\(database): a hot journal (\(database)-journal) from an interrupted write is present, and the "
                + "database cannot be read until it is rolled back: open the database read-write to recover it (for "
                + "example with `strata apply` or `strata migrate`, or any program that writes to it); nothing was changed"
        case .SQLITE_READONLY: return "\(database): the database is read-only (\(message))"
        case .SQLITE_CANTOPEN where message.hasPrefix("not a regular file"):
            return "\(database): \(message)"  // a FIFO, a socket, a device, a directory: refused before opening
        case .SQLITE_CANTOPEN:
            // SQLite's message does not say why; the usual cause for an existing file is a
            // directory where the journal cannot be created.
            let folder = FilePath.parent(of: database)
            if FileManager.default.fileExists(atPath: database), !FileManager.default.isWritableFile(atPath: folder) {
                return "\(database): cannot write the database: its directory \(folder) is not writable "
                    + "(SQLite creates its journal there) (\(message))"
            }
            return "\(database): cannot open the database file (\(message))"
        case .SQLITE_CORRUPT: return "\(database): the database file is corrupt (\(message))"
        default:
            if let sql = error.sql {
                return
                    "\(database): \(message) (in `\(StrataErrorText.bounded(sql, limit: StrataErrorText.quoteLimit))`)"
            }
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

    /// Runs `body`; an error it throws becomes a ``CLIError`` (see ``init(_:database:schema:activity:)``).
    static func reporting<T>(database: String? = nil, schema: String? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw CLIError(error, database: database, schema: schema)
        }
    }
}
