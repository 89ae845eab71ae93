import Foundation
import Strata

/// Helpers shared by `migrate`, `status`, `new` and `check`.
enum MigrationCommandSupport {
    /// The migration folder, loaded and checked; its errors name the file.
    static func loadDirectory(_ path: String) throws -> MigrationDirectory {
        try SquashFiles.refuseIfInterrupted(path)
        return try CLIError.reporting { try MigrationDirectory(path: path) }
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
        return try CLIError.reporting(database: path) { try Database(path: path, configuration: configuration) }
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

    /// A private in-memory database migrated through every file of `directory`.
    /// `oldestSQLite` limits the scratch database's capabilities (see `Configuration.capabilityLimit`),
    /// so that a plan made on it uses no native form newer than that version.
    static func migratedScratchDatabase(
        _ directory: MigrationDirectory, oldestSQLite: SQLiteVersion? = nil
    ) throws -> Database {
        var configuration = Configuration()
        configuration.capabilityLimit = oldestSQLite
        let scratch = try CLIError.reporting { try Database(inMemory: configuration) }
        _ = try CLIError.reporting { try migrator(for: directory).migrate(scratch) }
        return scratch
    }

    /// `n thing` / `n things`.
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
