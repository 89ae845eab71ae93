import ArgumentParser
import Foundation
import Strata

/// `strata apply`: brings a database (or many) to the desired schema.
struct ApplyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Bring a database to the desired schema, in one transaction.",
        discussion: """
            The plan is proven on a schema-only copy first, then applied atomically: on any error \
            the database is unchanged. A database that does not exist is created.

            Several databases (several --db values, a quoted glob pattern, or --db-list): each one \
            is planned and applied on its own, in its own transaction, up to --jobs at once; one \
            failing database never affects another. Each database's result is reported, then a \
            summary. Exit 0 when all succeeded, 1 when any failed, else 3 when any was refused.
            """)

    @OptionGroup var selection: DatabaseSelection

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

    @Flag(
        name: .customLong("record-fingerprint"),
        help: ArgumentHelp(
            "Also record the launch fingerprint of the schema file's text, as migrateSchema(to:) does.",
            discussion:
                "An app that then migrates to the same text takes the fast path. Off by default: apply writes only the schema it is given."
        ))
    var recordFingerprint = false

    @Flag(name: .customLong("force-backup"), help: "Let --backup replace a regular file already at its path.")
    var forceBackup = false

    @Flag(
        name: .customLong("restore-point"),
        help: ArgumentHelp(
            "Write a restore point before applying (`strata restore` takes the change back).",
            discussion: "The restore point is a checked copy in <database>-strata-upgrade/, encrypted with the "
                + "database's key; its id, path and size are reported. None is written when there is nothing to "
                + "apply or the database is created by this command."))
    var restorePoint = false

    @OptionGroup var output: FormatArguments

    func validate() throws {
        if forceBackup, backup == nil { throw ValidationError("--force-backup needs --backup PATH") }
        if backup != nil, selection.isBatch { throw ValidationError("--backup PATH takes one database, not a batch") }
        if restorePoint, dryRun {
            throw ValidationError("--restore-point writes a restore point; --dry-run writes nothing")
        }
    }

    func run() throws {
        let desired = try loadDesiredSchema()
        let options = try arguments.options
        guard selection.isBatch else {
            let outcome = applyOne(selection.databases[0], desired: desired, options: options, batch: false)
            if output.isJSON {
                CLIJSON.print(ApplyJSON([outcome], dryRun: dryRun))
            } else {
                printSingle(outcome)
            }
            if let error = outcome.error { throw error }
            return
        }
        let databases = try selection.resolve()
        let json = output.isJSON
        let outcomes = DatabaseBatch.run(
            databases, jobs: selection.jobCount, continueOnError: selection.continueOnError,
            report: { outcome in if !json { CLIOutput.print(outcome.textLine) } },
            job: { [self] path in applyOne(path, desired: desired, options: options, batch: true) })
        if json { CLIJSON.print(ApplyJSON(outcomes, dryRun: dryRun)) }
        try DatabaseBatch.finish(outcomes, json: json)
    }

    /// The desired schema, loaded once before any database is touched (a batch plans every
    /// database against this one value). Its errors name the schema file; with one database, a
    /// schema that does not parse is that database's failed outcome (in the JSON document too).
    private func loadDesiredSchema() throws -> DesiredSchemaFile {
        do {
            let (schema, text) = try arguments.schemaFile.parseKeepingText()
            return DesiredSchemaFile(schema: schema, text: text)
        } catch let error as CLIError {
            throw error  // the file cannot be read
        } catch {
            let failure = CLIError(error, database: arguments.schemaFile.path, schema: arguments.schemaFile.path)
            if !selection.isBatch, output.isJSON {
                CLIJSON.print(ApplyJSON([.failure(selection.databases[0], failure)], dryRun: dryRun))
            }
            throw failure
        }
    }

    /// The text output of one database, as it always was.
    private func printSingle(_ outcome: DatabaseOutcome) {
        if let backup = outcome.backup { CLIOutput.note("Backed up \(outcome.database) to \(backup).") }
        guard outcome.error == nil, let plan = outcome.plan else { return }
        if let restorePoint = outcome.restorePoint { CLIOutput.print(restorePoint.text) }
        if dryRun {
            CLIOutput.print(plan.isEmpty ? plan.summary : plan.sqlScript().trimmingCharacters(in: .newlines))
        } else if plan.isEmpty {
            CLIOutput.print("No changes.")
        } else {
            CLIOutput.print(plan.summary)
            CLIOutput.print(outcome.text)
        }
    }

    /// Plans and applies (or, in a dry run, plans) one database; every error is caught into the outcome.
    private func applyOne(
        _ path: String, desired: DesiredSchemaFile, options: SchemaChangeOptions, batch: Bool
    ) -> DatabaseOutcome {
        var outcome = DatabaseOutcome(database: path, result: .ok, text: "")
        do {
            let plan =
                try dryRun
                ? planOnly(path, desired: desired, options: options)
                : apply(
                    path, desired: desired, options: options, backedUp: &outcome.backup,
                    restorePoint: &outcome.restorePoint, showsProgress: !batch)
            outcome.plan = plan
            let count = CLIOutput.count(plan.steps.count, "change")
            if plan.isEmpty {
                outcome.text = batch ? "no changes" : "No changes."
            } else if dryRun {
                outcome.text = "would apply \(count); unchanged"
            } else {
                outcome.text = batch ? "applied \(count)" : "Applied \(count) to \(path)."
            }
            if batch, let point = outcome.restorePoint?.restorePoint { outcome.text += "; restore point \(point.text)" }
        } catch {
            var refused: [String] = []
            if let error = error as? SchemaError, error.code == .destructiveChangesRefused {
                refused = error.destructiveChanges
            }
            let failure = DatabaseOutcome.failure(
                path, CLIError(error, database: path, schema: arguments.schemaFile.path), refused: refused)
            outcome.result = failure.result
            outcome.error = failure.error
            outcome.refused = failure.refused
        }
        return outcome
    }

    private func planOnly(_ path: String, desired: DesiredSchemaFile, options: SchemaChangeOptions) throws -> Plan {
        let db = try arguments.connection.open(path, .readOrEmpty).db
        defer { db.close() }
        return try db.planSchemaChange(to: desired.schema, options: options)
    }

    private func apply(
        _ path: String, desired: DesiredSchemaFile, options: SchemaChangeOptions, backedUp: inout String?,
        restorePoint: inout RestorePointOutcome?, showsProgress: Bool
    ) throws -> Plan {
        // The desired schema was validated (by loading it) before a missing database file is created.
        let (db, existed) = try arguments.connection.open(path, .write).pair
        defer { db.close() }
        do {
            let plan = try db.planSchemaChange(to: desired.schema, options: options)
            if let backup {
                try writeBackup(of: db, to: backup)
                backedUp = backup
            }
            // With --record-fingerprint, the launch fingerprint of the schema file's text is
            // recorded as `migrateSchema(to:)` records it (also after an empty plan), so an app that
            // then migrates to the same text takes the fast path. Not by default: the file's text is
            // not necessarily the app's, and an apply with nothing to do writes nothing.
            let fingerprintText = recordFingerprint ? desired.text : nil
            if self.restorePoint {
                guard existed, !plan.isEmpty else {
                    restorePoint = RestorePointOutcome(
                        restorePoint: nil,
                        reason: existed ? "nothing to apply" : "the database is created by this command")
                    try applyPlan(
                        plan, to: db, fingerprintText: fingerprintText, options: options, showsProgress: showsProgress)
                    return plan
                }
                // The upgrade safety without its launch counting: this command is not the app.
                let line = showsProgress ? ProgressLine.forStandardError() : nil
                defer { line?.finish() }
                let outcome = try db.applySchemaChange(
                    plan, safety: CommandLineUpgradeSafety.safety, countingLaunch: false,
                    recordingFingerprintOf: fingerprintText, options: options, progress: line?.update)
                restorePoint = try CommandLineUpgradeSafety.report(outcome, database: path)
                // Another process brought the file to the schema while this one waited for the
                // restore folder's lock: nothing ran, and the plan reported is the file's (empty).
                if outcome.kind == .upToDate { return try db.planSchemaChange(to: plan.desired, options: options) }
                return plan
            }
            try applyPlan(
                plan, to: db, fingerprintText: fingerprintText, options: options, showsProgress: showsProgress)
            return plan
        } catch {
            // A database this command created is removed again when nothing could be applied.
            if !existed {
                db.close()
                try? FileManager.default.removeItem(atPath: path)
            }
            throw error
        }
    }

    /// Applies `plan`: a progress line on a terminal for one database, nothing extra otherwise.
    private func applyPlan(
        _ plan: Plan, to db: Database, fingerprintText: String?, options: SchemaChangeOptions, showsProgress: Bool
    ) throws {
        do {
            // One database: a progress line on a terminal, nothing extra in a pipe or a file.
            // A batch applies several at once, and reports each result as a line instead.
            if !plan.isEmpty, showsProgress, let line = ProgressLine.forStandardError() {
                defer { line.finish() }
                try db.applySchemaChange(
                    plan, recordingFingerprintOf: fingerprintText, options: options, progress: line.update)
            } else {
                try db.applySchemaChange(plan, recordingFingerprintOf: fingerprintText, options: options)
            }
        }
    }

    /// Backs `db` up to `backup`; errors name the backup path (see `CLIError`).
    private func writeBackup(of db: Database, to backup: String) throws {
        try db.backup(toPath: backup, replacingExisting: forceBackup)
    }
}

/// The desired schema of `apply`: parsed once, and the text it was parsed from.
struct DesiredSchemaFile {
    var schema: DatabaseSchema
    var text: String
}

/// `strata apply --format json` (documented in the CLI reference, Sources/Strata/Strata.docc/CommandLineTool.md).
typealias ApplyJSON = BatchJSON<ApplyJSONEntry>

/// One database of `strata apply --format json`: its plan, what was refused, the backup made.
struct ApplyJSONEntry: BatchJSONEntry {
    var database: String
    var result: DatabaseOutcome.Result
    var plan: PlanJSON.Document?
    var refused: [String]
    var backup: String?
    /// `--restore-point`: the restore point written before applying (absent when none was).
    var restorePoint: RestorePointReport?
    /// `--restore-point`: why one was or was not written.
    var restorePointReason: String?
    var error: String?

    init(_ outcome: DatabaseOutcome) {
        database = outcome.database
        result = outcome.result
        plan = outcome.plan.map { PlanJSON.document($0) }
        refused = outcome.refused
        backup = outcome.backup
        restorePoint = outcome.restorePoint?.restorePoint
        restorePointReason = outcome.restorePoint?.reason
        error = outcome.error?.message
    }
}
