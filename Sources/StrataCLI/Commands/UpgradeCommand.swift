import ArgumentParser
import Foundation
import Strata

/// `strata upgrade`: the upgrade safety beside a database (`strata upgrade status`).
struct UpgradeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upgrade",
        abstract: "Show the upgrade safety of a database: its restore points and its last upgrade.",
        subcommands: [Status.self])

    /// `strata upgrade status --db FILE`: reads `<database>-strata-upgrade/upgrade.json`; writes nothing.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "List the restore points of a database and whether its last upgrade is confirmed.",
            discussion: """
                Reads the upgrade state beside the database (<database>-strata-upgrade/upgrade.json) \
                and writes nothing. The last upgrade is upgrading (it did not finish), unconfirmed \
                (with the launches counted since), confirmed, or restored; held-back upgrades are \
                not run again by the app build that held them back. Each restore point's file is \
                checked to be there with its recorded size (`strata restore` checks its contents).
                """)

        @OptionGroup var databaseArguments: DatabaseArguments
        var database: String { databaseArguments.path }

        @OptionGroup var output: FormatArguments

        func run() throws {
            let status: UpgradeStatus
            do {
                try DatabaseOpener.requireExisting(database)
                status = try CLIError.reporting(database: database) { try UpgradeStatus(forDatabaseAt: database) }
            } catch {
                let failure = CLIError(error, database: database)
                if output.isJSON { CLIJSON.print(CommandFailureJSON(database: database, failure: failure)) }
                throw failure
            }
            let document = UpgradeStatusJSON(database: database, status: status)
            if output.isJSON {
                CLIJSON.print(document)
            } else {
                CLIOutput.print(document.text)
            }
        }
    }
}

/// `strata upgrade status --format json` (documented in the CLI reference, Sources/Strata/Strata.docc/CommandLineTool.md).
struct UpgradeStatusJSON: Encodable {
    struct Point: Encodable {
        var restorePoint: RestorePointReport
        /// `ok`, `missing`, or `size differs` (the file's size is not the recorded one).
        var file: String
    }

    struct Upgrade: Encodable {
        /// `upgrading`, `unconfirmed`, `confirmed` or `restored`.
        var phase: String
        var migrations: [String]
        var fromVersion: String
        var toVersion: String
        var restorePoint: String?
        var restorePointReason: String
        var launchesWithoutSuccess: Int
        var successfulLaunches: Int
        var restoredBecause: String?
    }

    struct Held: Encodable {
        var migrations: [String]
        var fromVersion: String
        var toVersion: String
        var reason: String
        var at: String
    }

    var database: String
    /// The state file read (absent when the database has no restore folder).
    var stateFile: String
    var restorePoints: [Point]
    var restorePointBytes: Int64
    var lastUpgrade: Upgrade?
    var heldBack: [Held]

    init(database: String, status: UpgradeStatus) {
        self.database = database
        stateFile = UpgradeStore(databasePath: database).manifestPath
        restorePoints = status.restorePoints.map { point in
            let report = RestorePointReport(point, database: database)
            let info = try? FileSystem.info(report.path, followingLinks: false)
            let size = info?.kind == .regular ? info?.size : nil
            return Point(
                restorePoint: report, file: size == nil ? "missing" : size == point.bytes ? "ok" : "size differs")
        }
        restorePointBytes = status.restorePoints.reduce(0) { $0 + $1.bytes }
        lastUpgrade = status.lastUpgrade.map {
            Upgrade(
                phase: $0.phase.rawValue, migrations: $0.migrations, fromVersion: $0.fromVersion,
                toVersion: $0.toVersion, restorePoint: $0.restorePointID, restorePointReason: $0.restorePointReason,
                launchesWithoutSuccess: $0.launchesWithoutSuccess, successfulLaunches: $0.successfulLaunches,
                restoredBecause: $0.restoredBecause)
        }
        heldBack = status.heldBack.map {
            Held(
                migrations: $0.migrations, fromVersion: $0.fromVersion, toVersion: $0.toVersion, reason: $0.reason,
                at: $0.at)
        }
    }

    /// The text report.
    var text: String {
        var lines: [String] = []
        if let upgrade = lastUpgrade {
            var state: String
            switch upgrade.phase {
            case "unconfirmed":
                func launches(_ n: Int) -> String { "\(n) launch\(n == 1 ? "" : "es")" }
                state =
                    "unconfirmed (\(launches(upgrade.launchesWithoutSuccess)) without success, "
                    + "\(launches(upgrade.successfulLaunches)) successful)"
            case "restored":
                let because = upgrade.restoredBecause ?? "on request"
                state = "restored (\(because.hasPrefix("restored ") ? String(because.dropFirst(9)) : because))"
            case "upgrading": state = "upgrading (it did not finish)"
            default: state = upgrade.phase
            }
            if upgrade.phase == "confirmed", let because = upgrade.restoredBecause { state += " (\(because))" }
            lines.append("\(database): last upgrade from \(upgrade.fromVersion) to \(upgrade.toVersion): \(state)")
            lines.append("  ran: \(upgrade.migrations.joined(separator: ", "))")
            lines.append(
                "  restore point: \(upgrade.restorePoint ?? "none") (\(upgrade.restorePointReason))")
        } else {
            lines.append("\(database): no upgrade followed")
        }
        if restorePoints.isEmpty {
            lines.append("Restore points: none")
        } else {
            lines.append(
                "Restore points (\(restorePoints.count), \(RestorePointReport.size(restorePointBytes))), oldest first:")
            for point in restorePoints {
                let p = point.restorePoint
                lines.append(
                    "  \(p.id)  \(RestorePointReport.size(p.bytes))  \(p.fromVersion) -> \(p.toVersion)  \(p.createdAt)"
                        + (p.encrypted ? "  encrypted" : "")
                        + (point.file == "ok" ? "" : "  FILE \(point.file.uppercased())"))
                lines.append("    \(p.reason)")
            }
        }
        if heldBack.isEmpty {
            lines.append("Held back: none")
        } else {
            lines.append("Held back (not run again by the build that held them back):")
            for held in heldBack {
                lines.append(
                    "  \(held.migrations.joined(separator: ", ")) (from \(held.fromVersion)): \(held.reason), \(held.at)"
                )
            }
        }
        return lines.joined(separator: "\n")
    }
}
