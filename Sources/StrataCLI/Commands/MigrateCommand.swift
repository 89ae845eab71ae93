import ArgumentParser
import Foundation
import Strata
import StrataSQLite

/// `strata migrate`: applies the pending migration files to a database, or to many.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the pending migration files (DIR/NNNN_name.sql) to a database.",
        discussion: """
            Each migration runs in its own transaction, with foreign keys off and a foreign key \
            check before commit, and is recorded in the strata_migrations table. A database that \
            applied migrations missing from DIR, or whose applied files were edited, is refused.

            Several databases (several --db values, a quoted glob pattern, or --db-list): each one \
            is migrated on its own, all its pending migrations in one transaction (all or none), up \
            to --jobs at once; one failing database never affects another. Each database's result is \
            reported, then a summary. Exit 0 when all succeeded, else 1.
            """)

    @OptionGroup var selection: DatabaseSelection

    @OptionGroup var migrationsArguments: MigrationsArguments
    var migrationsPath: String { migrationsArguments.path }

    @Option(name: .customLong("to"), help: "Stop after this migration (identifier or number).")
    var target: String?

    @Flag(
        name: .customLong("dry-run"),
        help: "Run the pending migrations on an in-memory copy and report; the database is unchanged.")
    var dryRun = false

    @Flag(
        name: .customLong("restore-point"),
        help: ArgumentHelp(
            "Write a restore point before the upgrade (`strata restore` takes the upgrade back).",
            discussion: "The restore point is a checked copy in <database>-strata-upgrade/, encrypted with the "
                + "database's key; its id, path and size are reported. None is written when nothing is pending."))
    var restorePoint = false

    @OptionGroup var output: FormatArguments

    @OptionGroup var connection: ConnectionArguments

    func validate() throws {
        if restorePoint, dryRun {
            throw ValidationError("--restore-point writes a restore point; --dry-run writes nothing")
        }
    }

    func run() throws {
        let directory = try migrationsArguments.load()
        let target = try self.target.map { try MigrationFolder.resolveTarget($0, in: directory) }
        guard selection.isBatch else {
            try runSingle(selection.databases[0], directory: directory, target: target)
            return
        }
        let databases = try selection.resolve()
        let json = output.isJSON
        let outcomes = DatabaseBatch.run(
            databases, jobs: selection.jobCount, continueOnError: selection.continueOnError,
            report: { outcome in if !json { CLIOutput.print(outcome.textLine) } },
            job: { [self] path in
                migrateOne(path, directory: directory, target: target, batch: true, onApplied: nil)
            })
        if json { CLIJSON.print(MigrateJSON(outcomes, dryRun: dryRun)) }
        try DatabaseBatch.finish(outcomes, json: json)
    }

    /// One database: the output of this mode never changed (text), or the JSON document with one entry.
    private func runSingle(_ database: String, directory: MigrationDirectory, target: String?) throws {
        let json = output.isJSON
        var onApplied: (@Sendable (String, Int) -> Void)?
        if !json, !dryRun {
            onApplied = { identifier, ms in CLIOutput.print("Applied \(identifier) (\(ms) ms)") }
        }
        let outcome = migrateOne(database, directory: directory, target: target, batch: false, onApplied: onApplied)
        if json {
            CLIJSON.print(MigrateJSON([outcome], dryRun: dryRun))
        }
        if let error = outcome.error { throw error }
        guard !json else { return }
        if let restorePoint = outcome.restorePoint { CLIOutput.print(restorePoint.text) }
        if dryRun {
            for run in outcome.migrations { CLIOutput.print("Would apply \(run.identifier)") }
        }
        CLIOutput.print(outcome.text)
    }

    /// Migrates (or dry-runs) one database; every error is caught into the outcome.
    private func migrateOne(
        _ database: String, directory: MigrationDirectory, target: String?, batch: Bool,
        onApplied: (@Sendable (String, Int) -> Void)?
    ) -> DatabaseOutcome {
        var migrator = MigrationFolder.migrator(for: directory)
        // In a batch, a database is migrated all or nothing; alone, migration by migration (as always).
        migrator.transactionMode = batch ? .singleTransaction : .perMigration
        // The durations of the migrations applied, as the events report them (from the migrating thread).
        let durations = LockedValue<[String: Int]>([:])
        migrator.eventHandler = { event in
            switch event {
            case .finished(let identifier, let duration):
                let ms = Int(
                    (Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000)
                        .rounded())
                durations.withLock { $0[identifier] = ms }
                onApplied?(identifier, ms)
            case .adopted, .erasingDatabase, .checksumMismatch:
                CLIOutput.note(event.description)
            case .started, .progress, .failed:
                break
            }
        }
        do {
            var restorePoint: RestorePointOutcome?
            let applied =
                try dryRun
                ? runDry(database, migrator, upTo: target)
                : runReal(database, migrator, upTo: target, restorePoint: &restorePoint)
            let recorded = durations.withLock { $0 }
            let runs = applied.map {
                DatabaseOutcome.MigrationRun(identifier: $0, milliseconds: dryRun ? nil : recorded[$0])
            }
            let count = CLIOutput.count(applied.count, "migration")
            let text: String
            if applied.isEmpty {
                text = batch ? "up to date" : "Nothing to migrate: \(database) is up to date."
            } else if dryRun {
                text =
                    batch
                    ? "would apply \(count) (\(applied.joined(separator: ", "))); unchanged"
                    : "Dry run: \(count) would be applied to \(database) (checked on a temporary copy; the database is unchanged)."
            } else {
                text =
                    batch
                    ? "applied \(count) (\(applied.joined(separator: ", ")))"
                    : "Applied \(count) to \(database)."
            }
            var outcome = DatabaseOutcome(database: database, result: .ok, text: text, migrations: runs)
            outcome.restorePoint = restorePoint
            if batch, let point = restorePoint?.restorePoint { outcome.text += "; restore point \(point.text)" }
            return outcome
        } catch {
            return .failure(database, CLIError(error, database: database))
        }
    }

    private func runReal(
        _ database: String, _ migrator: Migrator, upTo target: String?, restorePoint: inout RestorePointOutcome?
    ) throws -> [String] {
        let db = try connection.open(database, .write).db
        defer { db.close() }
        if self.restorePoint {
            // The upgrade safety without its launch counting: this command is not the app.
            let last = target.flatMap { t in migrator.migrations.firstIndex { $0.identifier == t } }
            let outcome = try CLIError.reporting(database: database) {
                try migrator.migrate(
                    db, upTo: last ?? migrator.migrations.count - 1, safety: CommandLineUpgradeSafety.safety,
                    countingLaunch: false)
            }
            restorePoint = try CommandLineUpgradeSafety.report(outcome, database: database)
            return outcome.applied
        }
        return try CLIError.reporting {
            try target.map { try migrator.migrate(db, upTo: $0) } ?? migrator.migrate(db)
        }
    }

    /// Migrates a private in-memory copy of the database (an empty one when the file does not
    /// exist): no plaintext copy of the data is ever written to a file (an encrypted database is
    /// copied to a temporary file encrypted with the same key, removed afterwards).
    private func runDry(_ database: String, _ migrator: Migrator, upTo target: String?) throws -> [String] {
        var scratch = try DatabaseOpener.scratch()
        var encryptedCopyFolder: String?
        defer {
            scratch.close()
            if let encryptedCopyFolder { try? FileManager.default.removeItem(atPath: encryptedCopyFolder) }
        }
        if FileManager.default.fileExists(atPath: database) {
            let db = try connection.open(database, .readExisting).db
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
                    scratch =
                        try DatabaseOpener.open(
                            folder + "/copy.sqlite", .write, configuration: connection.configuration(for: database),
                            reportedAs: database
                        ).db
                } else {
                    try db.backup(to: scratch)
                }
            } catch let error as SQLiteError {
                throw CLIError(error, database: database)
            } catch let error as BackupError {
                throw CLIError(error, database: database, activity: "cannot copy the database for the dry run")
            }
        }
        return try CLIError.reporting {
            try target.map { try migrator.migrate(scratch, upTo: $0) } ?? migrator.migrate(scratch)
        }
    }
}

/// `strata migrate --format json` (documented in the CLI reference, Sources/Strata/Strata.docc/CommandLineTool.md).
typealias MigrateJSON = BatchJSON<MigrateJSONEntry>

/// One database of `strata migrate --format json`: the migrations applied (or that would be).
struct MigrateJSONEntry: BatchJSONEntry {
    struct Applied: Encodable {
        var identifier: String
        var durationMilliseconds: Int?
    }

    var database: String
    var result: DatabaseOutcome.Result
    var applied: [Applied]
    /// `--restore-point`: the restore point written before the upgrade (absent when none was).
    var restorePoint: RestorePointReport?
    /// `--restore-point`: why one was or was not written.
    var restorePointReason: String?
    var error: String?

    init(_ outcome: DatabaseOutcome) {
        database = outcome.database
        result = outcome.result
        applied = outcome.migrations.map { Applied(identifier: $0.identifier, durationMilliseconds: $0.milliseconds) }
        restorePoint = outcome.restorePoint?.restorePoint
        restorePointReason = outcome.restorePoint?.reason
        error = outcome.error?.message
    }
}
