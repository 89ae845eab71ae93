import ArgumentParser
import Foundation
import Strata

/// `strata restore`: takes an upgrade back, returning a database to one of its restore points.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Return a database to a restore point: its schema and rows before an upgrade.",
        discussion: """
            Restore points are written before an upgrade by `strata apply --restore-point`, \
            `strata migrate --restore-point` and an app's upgrade safety (`strata upgrade status` \
            lists them). The restore point is checked first (size, checksum, integrity, the state \
            its record describes); the restore runs in one transaction and on any failure the \
            database is unchanged. When nothing was written since the upgrade the database becomes \
            exactly the restore point; otherwise the rows written since are carried back to the \
            older schema, the columns the upgrade dropped filled from the restore point. A restore \
            that would lose rows or values written since (a table or column the older schema does \
            not have) is refused, naming the table or column, with exit code 3, unless --accept-loss.
            """)

    @OptionGroup var databaseArguments: DatabaseArguments
    var database: String { databaseArguments.path }

    @Option(
        name: .customLong("restore-point"),
        help: ArgumentHelp("The restore point to return to (default: the newest).", valueName: "id"))
    var restorePointID: String?

    @Flag(
        name: .customLong("accept-loss"),
        help: "Restore even when rows or values written since the upgrade have no place in the older schema.")
    var acceptLoss = false

    @OptionGroup var output: FormatArguments

    @OptionGroup var connection: ConnectionArguments

    func run() throws {
        do {
            let report = try restore()
            if output.isJSON {
                CLIJSON.print(RestoreJSON(database: database, report: report))
                return
            }
            let point = report.restorePoint
            CLIOutput.print(
                "Restored \(database) to restore point \(point.id) (\(point.fromVersion), before the upgrade to \(point.toVersion))."
            )
            if report.isExact {
                CLIOutput.print("Nothing was written since the upgrade: the database is exactly the restore point.")
            } else {
                let tables = report.carriedForward
                CLIOutput.print(
                    tables.isEmpty
                        ? "No table held rows written since the upgrade; the others have the restore point's rows."
                        : "Rows written since the upgrade carried back: \(tables.joined(separator: ", ")); the other tables have the restore point's rows."
                )
            }
            for loss in report.accepted { CLIOutput.print("Lost (accepted): \(loss)") }
        } catch {
            let failure = CLIError(error, database: database)
            if output.isJSON { CLIJSON.print(RestoreJSON(database: database, failure: failure)) }
            throw failure
        }
    }

    private func restore() throws -> RestoreReport {
        try DatabaseOpener.requireExisting(database)
        let db = try connection.open(database, .write).db
        defer { db.close() }
        return try db.restore(toRestorePoint: restorePointID, acceptingLoss: acceptLoss)
    }
}

/// `strata restore --format json` (documented in the CLI reference, Sources/Strata/Strata.docc/CommandLineTool.md).
struct RestoreJSON: Encodable {
    var database: String
    /// `ok`, `failed`, or `refused` (a loss not accepted, exit 3).
    var result: DatabaseOutcome.Result
    /// The restore point returned to.
    var restorePoint: RestorePointReport?
    /// True when the database is now exactly the restore point (nothing was written since the upgrade).
    var exact: Bool?
    /// Tables whose rows written since the upgrade were carried back to the older schema.
    var carriedBack: [String]?
    /// What was lost because --accept-loss was given, one line each.
    var acceptedLoss: [String]?
    /// The table or `table.column` (or the file) the error names first.
    var culprit: String?
    var error: String?

    init(database: String, report: RestoreReport) {
        self.database = database
        result = .ok
        restorePoint = RestorePointReport(report.restorePoint, database: database)
        exact = report.isExact
        carriedBack = report.carriedForward
        acceptedLoss = report.accepted
    }

    init(database: String, failure: CLIError) {
        self.database = database
        result = failure.code == .refused ? .refused : .failed
        culprit = failure.culprit
        error = failure.message
    }
}
