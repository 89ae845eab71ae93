import Foundation
import Strata

/// Helpers shared by `migrate`, `status`, `new` and `check`.
enum MigrationCommandSupport {
    /// The migration folder, loaded and checked; its errors name the file.
    static func loadDirectory(_ path: String) throws -> MigrationDirectory {
        do {
            return try MigrationDirectory(path: path)
        } catch let error as MigrationError {
            throw CLIError(message: error.description)
        }
    }

    /// A migrator holding every file of `directory`.
    static func migrator(for directory: MigrationDirectory) -> Migrator {
        var migrator = Migrator()
        migrator.registerMigrations(from: directory)
        return migrator
    }

    /// Opens the database at `path`; `mustExist` refuses to create it.
    static func openDatabase(
        _ path: String, mustExist: Bool, readOnly: Bool = false, configuration: Configuration = Configuration()
    ) throws -> Database {
        if mustExist, !FileManager.default.fileExists(atPath: path) {
            throw CLIError(message: "\(path): no such database file")
        }
        var configuration = configuration
        if readOnly { configuration.openMode = .readOnly }
        do {
            return try Database(path: path, configuration: configuration)
        } catch let error as SQLiteError {
            throw CLIError(message: SchemaCommandSupport.describe(error, database: path))
        }
    }

    /// The registered identifier that `target` names: an identifier, or a file number (`3`, `0003`).
    static func resolveTarget(_ target: String, in directory: MigrationDirectory) throws -> String {
        if let file = directory.files.first(where: { $0.identifier == target || $0.fileName == target }) {
            return file.identifier
        }
        if let number = Int(target), let file = directory.files.first(where: { $0.number == number }) {
            return file.identifier
        }
        throw CLIError(message: "\(target): no migration with this identifier or number in \(directory.path)")
    }

    /// Runs `body`, turning library errors into one-line CLI errors.
    @discardableResult
    static func reportingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CLIError {
            throw error
        } catch let error as MigrationError {
            throw CLIError(message: error.description)
        } catch {
            throw CLIError(message: "\(error)")
        }
    }

    /// Runs `body`; the message of an error that exits 1 comes out on one line of at most
    /// `limit` characters. SQLite quotes an unrecognized token whole, and an unterminated string
    /// in a schema file is the rest of the file: it must not be printed.
    static func shortErrors<T>(limit: Int = 400, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var error as CLIError where error.exitCode == 1 {
            error.message = SQLiteText.excerpt(error.message, limit: limit)
            throw error
        }
    }

    /// A private in-memory database migrated through every file of `directory`.
    /// `oldestSQLite` limits the scratch database's capabilities (see `Configuration.capabilityLimit`),
    /// so that a plan made on it uses no native form newer than that version.
    static func migratedScratchDatabase(_ directory: MigrationDirectory, oldestSQLite: SQLiteVersion? = nil) throws -> Database {
        var configuration = Configuration()
        configuration.capabilityLimit = oldestSQLite
        let scratch = try reportingErrors { try Database(inMemory: configuration) }
        try reportingErrors { try migrator(for: directory).migrate(scratch) }
        return scratch
    }

    /// `n thing` / `n things`.
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
