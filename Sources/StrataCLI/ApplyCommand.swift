import ArgumentParser
import Foundation
import Strata

/// `strata apply`: brings a database to the desired schema.
struct ApplyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Bring a database to the desired schema, in one transaction.",
        discussion: """
            The plan is proven on a schema-only copy first, then applied atomically: on any error \
            the database is unchanged. A database that does not exist is created.
            """)

    @OptionGroup var arguments: SchemaChangeArguments

    @Flag(name: .customLong("dry-run"), help: "Print the SQL apply would run; write nothing.")
    var dryRun = false

    @Option(
        name: .customLong("backup"),
        help: ArgumentHelp(
            "Write a consistent copy of the database to this new file before applying.",
            discussion: "The copy gets the database's permissions. An existing file is refused (see --force-backup); "
                + "so are a directory, a link, and the database itself or its -journal, -wal or -shm file.",
            valueName: "path"))
    var backup: String?

    @Flag(name: .customLong("force-backup"), help: "Let --backup replace a regular file already at its path.")
    var forceBackup = false

    func validate() throws {
        if forceBackup, backup == nil { throw ValidationError("--force-backup needs --backup PATH") }
    }

    func run() throws {
        let desiredSQL = try arguments.readSchema()
        let path = arguments.database
        if dryRun {
            let (db, _) = try SchemaCommandSupport.openForReading(path, arguments.connection.configuration)
            defer { db.close() }
            let plan = try SchemaCommandSupport.reportingErrors(database: path, schema: arguments.schema) {
                try db.planSchemaChange(to: desiredSQL, options: try arguments.options)
            }
            CLIOutput.print(plan.isEmpty ? plan.summary : plan.sqlScript().trimmingCharacters(in: .newlines))
            return
        }
        // Validate the desired schema before a missing database file is created.
        _ = try SchemaCommandSupport.reportingErrors(database: path, schema: arguments.schema) {
            try DatabaseSchema(sql: desiredSQL)
        }
        let existed = FileManager.default.fileExists(atPath: path)
        let db = try SchemaCommandSupport.openForWriting(path, arguments.connection.configuration)
        defer { db.close() }
        do {
            let plan = try SchemaCommandSupport.reportingErrors(database: path, schema: arguments.schema) {
                try db.planSchemaChange(to: desiredSQL, options: try arguments.options)
            }
            if let backup {
                try writeBackup(of: db, to: backup)
                CLIOutput.note("Backed up \(path) to \(backup).")
            }
            if plan.isEmpty {
                CLIOutput.print("No changes.")
                return
            }
            try SchemaCommandSupport.reportingErrors(database: path, schema: arguments.schema) {
                try db.applySchemaChange(plan)
            }
            CLIOutput.print(plan.summary)
            CLIOutput.print("Applied \(plan.steps.count) change\(plan.steps.count == 1 ? "" : "s") to \(path).")
        } catch {
            // A database this command created is removed again when nothing could be applied.
            if !existed {
                db.close()
                try? FileManager.default.removeItem(atPath: path)
            }
            throw error
        }
    }

    /// Backs `db` up to `backup`; errors name the backup path.
    private func writeBackup(of db: Database, to backup: String) throws {
        do {
            try db.backup(toPath: backup, replacingExisting: forceBackup)
        } catch let error as BackupError where error.kind == .destinationExists {
            throw CLIError(message: "\(backup): already exists (pass --force-backup to replace it)")
        } catch let error as BackupError {
            throw CLIError(message: error.description)
        }
    }
}
