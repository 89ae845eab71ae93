import ArgumentParser
import Foundation
import Strata

/// `strata migrate`: applies the pending migration files to a database.
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply the pending migration files (DIR/NNNN_name.sql) to a database.",
        discussion: """
            Each migration runs in its own transaction, with foreign keys off and a foreign key \
            check before commit, and is recorded in the strata_migrations table. A database that \
            applied migrations missing from DIR, or whose applied files were edited, is refused.
            """)

    @Option(name: .customLong("db"), help: "The database file (created when missing).")
    var database: String

    @Option(name: .customLong("migrations"), help: "The folder of migration files.")
    var migrationsPath: String

    @Option(name: .customLong("to"), help: "Stop after this migration (identifier or number).")
    var target: String?

    @Flag(name: .customLong("dry-run"), help: "Run the pending migrations on an in-memory copy and report; the database is unchanged.")
    var dryRun = false

    @OptionGroup var connection: ConnectionArguments

    func run() throws {
        let directory = try MigrationCommandSupport.loadDirectory(migrationsPath)
        var migrator = MigrationCommandSupport.migrator(for: directory)
        let target = try self.target.map { try MigrationCommandSupport.resolveTarget($0, in: directory) }
        if dryRun {
            try runDry(migrator, upTo: target)
            return
        }
        let db = try MigrationCommandSupport.openDatabase(database, mustExist: false, configuration: connection.configuration)
        defer { db.close() }

        migrator.eventHandler = { event in
            switch event {
            case .finished(let identifier, let duration):
                let ms = Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000
                CLIOutput.print("Applied \(identifier) (\(Int(ms.rounded())) ms)")
            case .adopted, .erasingDatabase, .checksumMismatch:
                CLIOutput.note(event.description)
            case .started, .progress, .failed:
                break
            }
        }
        let applied = try MigrationCommandSupport.reportingErrors {
            try target.map { try migrator.migrate(db, upTo: $0) } ?? migrator.migrate(db)
        }
        CLIOutput.print(applied.isEmpty
            ? "Nothing to migrate: \(database) is up to date."
            : "Applied \(MigrationCommandSupport.count(applied.count, "migration")) to \(database).")
    }

    /// Migrates a private in-memory copy of the database (an empty one when the file does not
    /// exist): no copy of the data is ever written to a file.
    private func runDry(_ migrator: Migrator, upTo target: String?) throws {
        var scratch = try MigrationCommandSupport.reportingErrors { try Database(inMemory: Configuration()) }
        var encryptedCopyFolder: String?
        defer {
            scratch.close()
            if let encryptedCopyFolder { try? FileManager.default.removeItem(atPath: encryptedCopyFolder) }
        }
        if FileManager.default.fileExists(atPath: database) {
            let db = try MigrationCommandSupport.openDatabase(database, mustExist: true, readOnly: true, configuration: connection.configuration)
            defer { db.close() }
            do {
                if db.isEncrypted {
                    // An in-memory database cannot be keyed, and the cipher refuses to back an
                    // encrypted database up into a plaintext one: the copy is a private temporary
                    // file encrypted with the same key (no plaintext copy reaches the disk).
                    let folder = NSTemporaryDirectory() + "/strata-dry-run-" + UUID().uuidString
                    try FileManager.default.createDirectory(
                        atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
                    encryptedCopyFolder = folder
                    try db.backup(toPath: folder + "/copy.sqlite")
                    scratch.close()
                    scratch = try Database(path: folder + "/copy.sqlite", configuration: connection.configuration)
                } else {
                    try db.backup(to: scratch)
                }
            } catch let error as SQLiteError {
                throw CLIError(message: SchemaCommandSupport.describe(error, database: database))
            } catch let error as BackupError {
                throw CLIError(message: "\(database): cannot copy the database for the dry run: \(error)")
            }
        }
        let applied = try MigrationCommandSupport.reportingErrors {
            try target.map { try migrator.migrate(scratch, upTo: $0) } ?? migrator.migrate(scratch)
        }
        for identifier in applied { CLIOutput.print("Would apply \(identifier)") }
        CLIOutput.print(applied.isEmpty
            ? "Nothing to migrate: \(database) is up to date."
            : "Dry run: \(MigrationCommandSupport.count(applied.count, "migration")) would be applied to \(database) (checked on a temporary copy; the database is unchanged).")
    }
}
