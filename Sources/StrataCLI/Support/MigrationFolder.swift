import Foundation
import Strata

/// A migrations folder as `migrate`, `status`, `new`, `check`, `squash` and `history` use it.
enum MigrationFolder {
    /// The migration folder, loaded and checked; its errors name the file.
    static func load(_ path: String) throws -> MigrationDirectory {
        try SquashFiles.refuseIfInterrupted(path)
        return try CLIError.reporting { try MigrationDirectory(path: path) }
    }

    /// A migrator holding every file of `directory`.
    static func migrator(for directory: MigrationDirectory) -> Migrator {
        var migrator = Migrator()
        migrator.registerMigrations(from: directory)
        return migrator
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
        let scratch = try DatabaseOpener.scratch(configuration)
        _ = try CLIError.reporting { try migrator(for: directory).migrate(scratch) }
        return scratch
    }
}
