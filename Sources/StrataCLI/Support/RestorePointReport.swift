import Foundation
import Strata

/// A restore point as the CLI reports it (`apply` and `migrate` with `--restore-point`,
/// `upgrade status`, `restore`): its id, its file, its size and what it was kept for.
struct RestorePointReport: Encodable, Sendable {
    var id: String
    /// The file: `<database>-strata-upgrade/<id>.sqlite`.
    var path: String
    var bytes: Int64
    var createdAt: String
    var fromVersion: String
    var toVersion: String
    var reason: String
    var encrypted: Bool

    init(_ point: RestorePoint, database: String) {
        id = point.id
        path = point.path(forDatabaseAt: database)
        bytes = point.bytes
        createdAt = point.createdAt
        fromVersion = point.fromVersion
        toVersion = point.toVersion
        reason = point.reason
        encrypted = point.isEncrypted
    }

    /// `rp-… (12.3 kB, app.sqlite-strata-upgrade/rp-….sqlite)`.
    var text: String { "\(id) (\(RestorePointReport.size(bytes)), \(path))" }

    /// 512 B, 12.3 kB, 4.1 MB (powers of 1000, as the plan's estimates).
    static func size(_ bytes: Int64) -> String {
        let value = Double(bytes)
        for (limit, suffix) in [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")] where value >= limit {
            return "\(((value / limit) * 10).rounded() / 10) \(suffix)"
        }
        return "\(bytes) B"
    }
}

/// What `--restore-point` did before an upgrade: the restore point written, or why none was.
struct RestorePointOutcome: Encodable, Sendable {
    /// The restore point written, nil when none was (nothing to upgrade, or a new database).
    var restorePoint: RestorePointReport?
    /// Why one was or was not written.
    var reason: String

    /// The note printed on stderr in text mode.
    var text: String {
        restorePoint.map { "Restore point \($0.text) written before the upgrade." } ?? "No restore point: \(reason)."
    }
}

/// The upgrade safety of `--restore-point`: one restore point before every upgrade, kept until the
/// upgrade is confirmed (`UpgradeSafety.confirmUpgrade`, or an app's successful launches), at most 2.
enum CommandLineUpgradeSafety {
    static let safety = UpgradeSafety(restorePoints: .always)

    /// The outcome as `--restore-point` reports it; a held-back upgrade is an error naming it.
    static func report(_ outcome: UpgradeOutcome, database: String) throws -> RestorePointOutcome {
        if outcome.kind == .heldBack, let held = outcome.heldBack {
            throw CLIError(
                message:
                    "\(database): the upgrade to \(held.toVersion) is held back (\(held.reason), \(held.at)); nothing was changed "
                    + "(`strata upgrade status --db \(database)` shows it; run without --restore-point to apply it anyway)",
                culprit: database)
        }
        return RestorePointOutcome(
            restorePoint: outcome.restorePoint.map { RestorePointReport($0, database: database) },
            reason: outcome.restorePointReason ?? "nothing to upgrade")
    }
}

/// The `--format json` document of `strata restore` and `strata upgrade status` when they fail
/// before they have anything to report (a missing database, an unreadable upgrade state).
struct CommandFailureJSON: Encodable {
    var database: String
    /// `failed`, or `refused` (exit 3).
    var result: DatabaseOutcome.Result
    /// What the error names first: the file, the restore point, the table or `table.column`.
    var culprit: String?
    var error: String

    init(database: String, failure: CLIError) {
        self.database = database
        result = failure.code == .refused ? .refused : .failed
        culprit = failure.culprit
        error = failure.message
    }
}
