import StrataSQLite

/// The upgrade airbag: restore points before an upgrade, confirmation after it, and recovery
/// from a crash loop (an upgrade that commits and then keeps the app from launching).
///
/// ```swift
/// var migrator = Migrator()
/// migrator.registerMigration("0001_create_note", sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT)")
/// migrator.upgradeSafety = UpgradeSafety()          // a restore point before every upgrade
/// let outcome = try migrator.migrate(db, safety: UpgradeSafety())
/// // ... once the app has shown its first screen:
/// try UpgradeSafety.launchSucceeded(forDatabaseAt: db.path)
/// ```
///
/// How it goes:
/// 1. Before an upgrade runs, the policy (``restorePoints``, ``maximumRestorePointBytes``)
///    decides whether a ``RestorePoint`` is written; the reason is recorded. A restore point that
///    cannot be written (a full disk) stops the upgrade before it starts.
/// 2. Once the upgrade commits it is *unconfirmed*. Every later open of the database counts a
///    launch, durably; the app reports a launch that went well with ``launchSucceeded(forDatabaseAt:confirmingLaunches:)``
///    (``confirmingLaunches`` of them confirm the upgrade) or confirms at once with
///    ``confirmUpgrade(ofDatabaseAt:)``. A confirmed upgrade's restore points are removed.
/// 3. When the database has been opened ``crashLoopLaunches`` times in a row without a
///    successful launch, the next open restores the restore point before anything else runs,
///    and holds the upgrade back: the same migrations (same identifiers and checksums, from the
///    same version) are not run again; a build with other migrations upgrades normally. The
///    app reads what happened in the returned ``UpgradeOutcome`` or in ``UpgradeStatus``.
public struct UpgradeSafety: Sendable, Hashable {
    /// When a restore point is written before an upgrade.
    public enum RestorePoints: String, Sendable, Hashable, CaseIterable {
        /// Never: the airbag only counts launches (no way back).
        case never
        /// Before every upgrade.
        case always
        /// Only before an upgrade that can lose data: it drops or rewrites something, or runs
        /// a data step (a statement other than `CREATE` and `ALTER TABLE ... ADD COLUMN`, or a
        /// migration written in Swift).
        case whenDestructiveOrDataSteps
    }

    /// When a restore point is written. Default ``RestorePoints/always``.
    public var restorePoints: RestorePoints
    /// No restore point above this size of the database (bytes in use, `page_count` minus
    /// `freelist_count` pages); nil for no limit.
    public var maximumRestorePointBytes: Int64?
    /// How many restore points are kept at most (the oldest go first). Default 2.
    public var keptRestorePoints: Int
    /// How many successful launches confirm an upgrade; nil to confirm only with
    /// ``confirmUpgrade(ofDatabaseAt:)``. Default 3.
    public var confirmingLaunches: Int?
    /// How many opens in a row without a successful launch make the next open restore. Default 2.
    public var crashLoopLaunches: Int

    /// The airbag's settings.
    ///
    /// ```swift
    /// let safety = UpgradeSafety(restorePoints: .whenDestructiveOrDataSteps, maximumRestorePointBytes: 2 << 30)
    /// ```
    public init(
        restorePoints: RestorePoints = .always, maximumRestorePointBytes: Int64? = nil, keptRestorePoints: Int = 2,
        confirmingLaunches: Int? = 3, crashLoopLaunches: Int = 2
    ) {
        self.restorePoints = restorePoints
        self.maximumRestorePointBytes = maximumRestorePointBytes
        self.keptRestorePoints = max(1, keptRestorePoints)
        self.confirmingLaunches = confirmingLaunches.map { max(1, $0) }
        self.crashLoopLaunches = max(1, crashLoopLaunches)
    }

    /// Confirms the last upgrade of the database at `path`: it is no longer taken back, and its
    /// restore points are removed. Does nothing when no upgrade is unconfirmed.
    ///
    /// ```swift
    /// try UpgradeSafety.confirmUpgrade(ofDatabaseAt: "app.sqlite")
    /// ```
    public static func confirmUpgrade(ofDatabaseAt path: String) throws {
        let store = UpgradeStore(databasePath: path)
        guard store.exists else { return }
        try store.withLock {
            var manifest = try store.load()
            guard var upgrade = manifest.upgrade, upgrade.phase == .unconfirmed else { return }
            upgrade.phase = .confirmed
            manifest.upgrade = upgrade
            try store.remove(manifest.restorePoints.map(\.id), from: &manifest)
            try store.save(manifest)
        }
    }

    /// Reports that this launch of the app went well (its first screen is shown, say): the
    /// count of launches without success starts again, and after `confirmingLaunches` of them
    /// the upgrade is confirmed. Does nothing when no upgrade is unconfirmed.
    ///
    /// ```swift
    /// try UpgradeSafety.launchSucceeded(forDatabaseAt: "app.sqlite", confirmingLaunches: 3)
    /// ```
    public static func launchSucceeded(forDatabaseAt path: String, confirmingLaunches: Int? = 3) throws {
        let store = UpgradeStore(databasePath: path)
        guard store.exists else { return }
        let confirm: Bool = try store.withLock {
            var manifest = try store.load()
            guard var upgrade = manifest.upgrade, upgrade.phase == .unconfirmed else { return false }
            upgrade.launchesWithoutSuccess = 0
            upgrade.successfulLaunches += 1
            manifest.upgrade = upgrade
            try store.save(manifest)
            return confirmingLaunches.map { upgrade.successfulLaunches >= $0 } ?? false
        }
        if confirm { try confirmUpgrade(ofDatabaseAt: path) }
    }
}

/// What the airbag did at an open.
public struct UpgradeOutcome: Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable {
        /// Nothing to upgrade.
        case upToDate
        /// The upgrade ran (``UpgradeOutcome/applied``), after a restore point when one was kept.
        case upgraded
        /// A crash loop: the database was restored before the upgrade, and the upgrade is held back.
        case restored
        /// The upgrade is held back (an earlier crash loop); nothing ran.
        case heldBack
        /// A crash loop, and the database could not be restored (no restore point was kept, or
        /// the restore refused: ``UpgradeOutcome/message`` says why); it was opened as it is.
        case crashLoopNotRestored
    }

    /// What happened.
    public let kind: Kind
    /// The migrations (or `schema <digest>`) that ran at this open.
    public let applied: [String]
    /// The restore point written before this open's upgrade, if any.
    public let restorePoint: RestorePoint?
    /// Why a restore point was or was not written.
    public let restorePointReason: String?
    /// The restore a crash loop made, if any.
    public let restored: RestoreReport?
    /// The upgrade held back, if any.
    public let heldBack: HeldBackUpgrade?
    /// One line for the app's telemetry and its message to the user.
    public let message: String

    package init(
        kind: Kind, applied: [String], restorePoint: RestorePoint?, restorePointReason: String?,
        restored: RestoreReport?, heldBack: HeldBackUpgrade?, message: String
    ) {
        self.kind = kind
        self.applied = applied
        self.restorePoint = restorePoint
        self.restorePointReason = restorePointReason
        self.restored = restored
        self.heldBack = heldBack
        self.message = message
    }

    /// This outcome, told after `launch`'s when the launch found a crash loop it could not
    /// restore and this open then went on (an upgrade that ran after it): the app reads both.
    package func following(_ launch: UpgradeOutcome?) -> UpgradeOutcome {
        guard let launch, launch.kind == .crashLoopNotRestored, kind != .crashLoopNotRestored else { return self }
        return UpgradeOutcome(
            kind: kind, applied: applied, restorePoint: restorePoint, restorePointReason: restorePointReason,
            restored: restored, heldBack: heldBack, message: launch.message + "; then " + message)
    }
}

/// An upgrade the airbag is about to run.
package struct PendingUpgrade: Sendable {
    /// What it runs: migration identifiers, or `schema <digest>`.
    package var migrations: [String]
    /// A digest of what it runs (checksums) and of the version it starts from.
    package var key: String
    package var fromVersion: String
    package var toVersion: String
    /// Why it can lose data, nil when it cannot (only additions).
    package var destructiveReason: String?

    package init(migrations: [String], key: String, fromVersion: String, toVersion: String, destructiveReason: String?)
    {
        self.migrations = migrations
        self.key = key
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.destructiveReason = destructiveReason
    }

    /// Why `sql` can lose data: the first statement that is not a `CREATE` or an
    /// `ALTER TABLE ... ADD COLUMN`; nil when there is none.
    package static func destructiveStatement(in sql: String) -> String? {
        for statement in SQLScript.statements(in: sql) {
            let words = statement.significantTokens.prefix(5).map { $0.text.uppercased() }
            guard let first = words.first else { continue }
            if first == "CREATE" { continue }
            if first == "ALTER", words.contains("ADD") { continue }
            return statement.text
        }
        return nil
    }
}

extension UpgradeStore {
    /// True when the restore folder exists (nothing to read or count otherwise).
    var exists: Bool { (try? FileSystem.info(folder, followingLinks: false))?.kind == .directory }
}

/// The airbag's steps, shared by the migrator and `migrateSchema`.
package enum UpgradeAirbag {
    /// The start of an open: counts a launch of an unconfirmed upgrade, and after a crash loop
    /// restores the restore point and holds the upgrade back. Nil when there was nothing to do
    /// but count.
    package static func beginLaunch(_ db: Database, safety: UpgradeSafety) throws -> UpgradeOutcome? {
        let store = try UpgradeStore(restoringDatabase: db)
        guard store.exists else { return nil }
        return try store.withLock {
            var manifest = try store.load()
            store.removeOrphans(manifest)
            guard var upgrade = manifest.upgrade, upgrade.phase == .upgrading || upgrade.phase == .unconfirmed else {
                return nil
            }
            if upgrade.phase == .upgrading, let schemaBefore = upgrade.schemaDigestBefore,
                let ledgerBefore = upgrade.ledgerDigestBefore
            {
                // The process that ran the upgrade stopped after its commit and before recording
                // it: the file is in the state before or the state after (one transaction), and
                // its digests tell which. After: record it as the launch that upgraded would have
                // (unconfirmed, that launch counted, the tables' digests as they are now, before
                // this launch writes anything), so successful launches confirm it.
                let facts = try UpgradeStore.facts(of: db)
                if facts.schemaDigest != schemaBefore || facts.ledgerDigest != ledgerBefore {
                    upgrade.phase = .unconfirmed
                    upgrade.launchesWithoutSuccess += 1
                    if upgrade.restorePointID != nil {
                        upgrade.tableDigests = try TableDigest.digests(of: db, schema: DatabaseSchema.read(from: db))
                    }
                    manifest.upgrade = upgrade
                    try store.save(manifest)
                }
            }
            guard upgrade.launchesWithoutSuccess >= safety.crashLoopLaunches else {
                upgrade.launchesWithoutSuccess += 1
                manifest.upgrade = upgrade
                try store.save(manifest)
                return nil
            }
            let because = "opened \(upgrade.launchesWithoutSuccess) times without a successful launch"
            let held = HeldBackUpgrade(
                key: upgrade.key, migrations: upgrade.migrations, fromVersion: upgrade.fromVersion,
                toVersion: upgrade.toVersion, reason: "crash loop: \(because)", at: UpgradeStore.now())
            guard let id = upgrade.restorePointID, let point = manifest.restorePoints.first(where: { $0.id == id })
            else {
                upgrade.phase = .confirmed  // nothing to go back to: stop counting
                upgrade.restoredBecause = "crash loop (\(because)), but no restore point was kept"
                manifest.upgrade = upgrade
                try store.save(manifest)
                return UpgradeOutcome(
                    kind: .crashLoopNotRestored, applied: [], restorePoint: nil, restorePointReason: nil,
                    restored: nil, heldBack: nil,
                    message:
                        "\(db.path): \(because) after the upgrade to \(upgrade.toVersion), and no restore point was kept (\(upgrade.restorePointReason))"
                )
            }
            let report: RestoreReport
            do {
                // Restored already (a kill after the copy, before this record)? Then only record it.
                let facts = try UpgradeStore.facts(of: db)
                if facts.schemaDigest == point.schemaDigest, facts.ledgerDigest == point.ledgerDigest,
                    upgrade.phase == .unconfirmed
                {
                    report = RestoreReport(restorePoint: point, isExact: true, carriedForward: [], accepted: [])
                } else {
                    report = try db.restore(
                        point, store: store,
                        digestsAfterUpgrade: upgrade.phase == .unconfirmed ? upgrade.tableDigests : nil,
                        acceptingLoss: false)
                }
            } catch {
                upgrade.phase = .confirmed  // not tried again at every launch
                upgrade.restoredBecause = "crash loop (\(because)); the restore refused: \(error)"
                manifest.upgrade = upgrade
                try store.save(manifest)
                return UpgradeOutcome(
                    kind: .crashLoopNotRestored, applied: [], restorePoint: point, restorePointReason: nil,
                    restored: nil, heldBack: nil,
                    message:
                        "\(db.path): \(because) after the upgrade to \(upgrade.toVersion); the restore refused: \(error)"
                )
            }
            upgrade.phase = .restored
            upgrade.restoredBecause = "crash loop: \(because)"
            manifest.upgrade = upgrade
            manifest.heldBack.removeAll { $0.key == held.key }
            manifest.heldBack.append(held)
            try store.save(manifest)
            return UpgradeOutcome(
                kind: .restored, applied: [], restorePoint: point, restorePointReason: nil, restored: report,
                heldBack: held,
                message:
                    "\(db.path): \(because) after the upgrade to \(upgrade.toVersion): restored to \(point.fromVersion) (restore point \(point.id)); the upgrade is held back"
            )
        }
    }

    /// The upgrade held back by the key, if any (nothing is written).
    package static func heldBack(_ db: Database, key: String) throws -> HeldBackUpgrade? {
        let store = try UpgradeStore(restoringDatabase: db)
        guard store.exists else { return nil }
        return try store.load().heldBack.first { $0.key == key }
    }

    /// Runs `upgrade` behind a restore point when the policy asks for one, and records it as
    /// unconfirmed once it commits. An upgrade held back is not run. `countingLaunch` false is
    /// for a tool that is not the app (`strata migrate --restore-point`): its run is not counted
    /// as one of the app's launches without success.
    package static func run(
        _ db: Database, safety: UpgradeSafety, pending: PendingUpgrade, countingLaunch: Bool = true,
        upgrade: () throws -> [String]
    ) throws -> UpgradeOutcome {
        // A pending upgrade known before the lock has no nil case: the force unwrap cannot fail.
        try run(db, safety: safety, pending: { pending }, countingLaunch: countingLaunch, upgrade: upgrade)!
    }

    /// Runs the upgrade `pending` finds, computed under the restore folder's lock: another
    /// process may have run it while this one waited, and then there is nothing to do and no
    /// restore point to write (nil is returned). An upgrade held back is not run.
    package static func run(
        _ db: Database, safety: UpgradeSafety, pending findPending: () throws -> PendingUpgrade?,
        countingLaunch: Bool = true, upgrade: () throws -> [String]
    ) throws -> UpgradeOutcome? {
        let store = try UpgradeStore(restoringDatabase: db)
        return try store.withLock {
            var manifest = try store.load()
            store.removeOrphans(manifest)
            guard let pending = try findPending() else { return nil }
            if let held = manifest.heldBack.first(where: { $0.key == pending.key }) {
                return UpgradeOutcome(
                    kind: .heldBack, applied: [], restorePoint: nil, restorePointReason: nil, restored: nil,
                    heldBack: held,
                    message: "\(db.path): the upgrade to \(pending.toVersion) is held back (\(held.reason), \(held.at))"
                )
            }
            var point: RestorePoint?
            var reason: String
            var earlierLaunches = 0
            // Commits of other connections from here to the tables' digests: the restore point
            // would lack rows the digests count, and an exact restore would lose them.
            let versionBefore = try dataVersion(db)
            if let previous = manifest.upgrade, previous.key == pending.key, previous.phase == .upgrading,
                let id = previous.restorePointID, let kept = manifest.restorePoints.first(where: { $0.id == id })
            {
                // The same upgrade, interrupted: its restore point is the state before it.
                point = kept
                reason = previous.restorePointReason
                earlierLaunches = previous.launchesWithoutSuccess
            } else {
                let bytes = try usedBytes(db)
                switch safety.restorePoints {
                case .never:
                    reason = "no restore point: the policy is never"
                case .whenDestructiveOrDataSteps where pending.destructiveReason == nil:
                    reason = "no restore point: the upgrade only adds (no destructive change, no data step)"
                default:
                    if let limit = safety.maximumRestorePointBytes, bytes > limit {
                        reason = "no restore point: the database holds \(bytes) bytes, above the limit of \(limit)"
                    } else {
                        reason =
                            safety.restorePoints == .always
                            ? "the policy keeps one before every upgrade"
                            : "the upgrade can lose data: \(pending.destructiveReason ?? "")"
                        point = try store.writeRestorePoint(
                            of: db, fromVersion: pending.fromVersion, toVersion: pending.toVersion, reason: reason)
                    }
                }
                if let point { manifest.restorePoints.append(point) }
            }
            var record = UpgradeRecord(
                key: pending.key, migrations: pending.migrations, fromVersion: pending.fromVersion,
                toVersion: pending.toVersion, restorePointID: point?.id, restorePointReason: reason, phase: .upgrading,
                launchesWithoutSuccess: earlierLaunches, successfulLaunches: 0, restoredBecause: nil, tableDigests: [:])
            let before = try UpgradeStore.facts(of: db)
            record.schemaDigestBefore = before.schemaDigest
            record.ledgerDigestBefore = before.ledgerDigest
            manifest.upgrade = record
            try store.save(manifest)
            let applied = try upgrade()
            record.phase = .unconfirmed
            if countingLaunch { record.launchesWithoutSuccess += 1 }  // this launch
            // The tables' digests tell an exact restore from a carried-back one: only with a
            // restore point to restore (they read every row).
            if point != nil {
                let digests = try db.transaction(.deferred) {
                    try TableDigest.digests(of: db, schema: DatabaseSchema.read(from: db))
                }
                if try dataVersion(db) == versionBefore {
                    record.tableDigests = digests
                } else {
                    record.digestsWithheldBecause =
                        "another connection committed during the upgrade: a restore carries every table back"
                }
            }
            manifest.upgrade = record
            try store.prune(&manifest, keeping: safety.keptRestorePoints, protecting: point?.id)
            try store.save(manifest)
            return UpgradeOutcome(
                kind: .upgraded, applied: applied, restorePoint: point, restorePointReason: reason, restored: nil,
                heldBack: nil,
                message:
                    "\(db.path): upgraded to \(pending.toVersion) (\(point.map { "restore point \($0.id)" } ?? reason))"
            )
        }
    }

    /// `PRAGMA data_version`: it changes when another connection (of this process or another)
    /// commits, never for this connection's own commits.
    package static func dataVersion(_ db: Database) throws -> Int64 {
        try db.fetchValue(Int64.self, sql: "PRAGMA data_version") ?? 0
    }

    /// The bytes the database's pages hold (free pages left out): the restore point's size.
    package static func usedBytes(_ db: Database) throws -> Int64 {
        let pages = try db.fetchValue(Int64.self, sql: "PRAGMA page_count") ?? 0
        let free = try db.fetchValue(Int64.self, sql: "PRAGMA freelist_count") ?? 0
        let size = try db.fetchValue(Int64.self, sql: "PRAGMA page_size") ?? 4096
        return (pages - free) * size
    }
}
