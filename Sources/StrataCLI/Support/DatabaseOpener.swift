import Foundation
import Strata

/// The one way the CLI opens a database: every command goes through ``open(_:_:configuration:)``
/// (a file) or ``scratch(_:)`` (a private in-memory database), so that a missing file, a
/// read-only open and an error naming the database behave the same in every command.
enum DatabaseOpener {
    /// How a command uses the database file.
    enum Mode {
        /// Read-only; a missing file is refused (`PATH: no such database file`) before anything
        /// is created.
        case readExisting
        /// Read-only when the file exists; when it does not, a private empty in-memory database
        /// (planning never creates a file): see ``Opened/existed``.
        case readOrEmpty
        /// Read-write, creating the file when it is missing.
        case write
    }

    /// An open database, and whether its file existed.
    struct Opened {
        var db: Database
        var existed: Bool

        /// `(db, existed)`, to destructure.
        var pair: (Database, Bool) { (db, existed) }
    }

    /// Opens the database at `path` for `mode` with `configuration` (see
    /// ``ConnectionArguments/configuration(for:)``); errors name the database (`reportedAs`,
    /// the path by default).
    static func open(
        _ path: String, _ mode: Mode, configuration: Configuration = Configuration(), reportedAs name: String? = nil
    ) throws -> Opened {
        let existed = FileManager.default.fileExists(atPath: path)
        var configuration = configuration
        switch mode {
        case .readExisting:
            try requireExisting(path)
        case .readOrEmpty where !existed:
            return Opened(db: try scratch(), existed: false)
        case .readOrEmpty, .write:
            break
        }
        if mode == .readExisting || mode == .readOrEmpty { configuration.openMode = .readOnly }
        let db = try CLIError.reporting(database: name ?? path) {
            try Database(path: path, configuration: configuration)
        }
        return Opened(db: db, existed: existed)
    }

    /// Refuses a database file that does not exist: `PATH: no such database file`.
    static func requireExisting(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CLIError(message: "\(path): no such database file", culprit: path)
        }
    }

    /// A private in-memory database (a scratch copy, a dry run, a replay of migrations).
    static func scratch(_ configuration: Configuration = Configuration()) throws -> Database {
        try CLIError.reporting { try Database(inMemory: configuration) }
    }
}

extension ConnectionArguments {
    /// Opens the database at `path` for `mode`, configured by these options (busy timeout,
    /// lock-wait notice, `--trace`, key): ``DatabaseOpener/open(_:_:configuration:reportedAs:)``.
    func open(_ path: String, _ mode: DatabaseOpener.Mode) throws -> DatabaseOpener.Opened {
        try DatabaseOpener.open(path, mode, configuration: configuration(for: path))
    }
}
