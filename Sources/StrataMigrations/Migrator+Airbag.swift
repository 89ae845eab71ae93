import StrataSQLite
import StrataSchema

extension Migrator {
    /// Applies every pending migration behind the upgrade airbag (`UpgradeSafety`): a restore
    /// point first when the policy asks for one, the launch counted while the last upgrade is
    /// unconfirmed, and after a crash loop the restore point restored, before anything else,
    /// with the upgrade held back.
    ///
    /// ```swift
    /// let outcome = try migrator.migrate(db, safety: UpgradeSafety())
    /// if outcome.kind == .restored { print(outcome.message) }   // tell the user, log it
    /// ```
    ///
    /// An in-memory or temporary database has no restore folder: its migrations run as with
    /// `migrate(db)`. Throws `UpgradeError` when the restore point cannot be written (the
    /// upgrade did not start) or the upgrade state is unreadable, and what `migrate(db)` throws.
    @discardableResult
    public func migrate(_ db: Database, safety: UpgradeSafety) throws -> UpgradeOutcome {
        try migrate(db, upTo: migrations.count - 1, safety: safety, countingLaunch: true)
    }

    /// ``migrate(_:safety:)`` up to the migration at `last`; with `countingLaunch` false (a tool
    /// that is not the app: `strata migrate --restore-point`), no launch is counted and no crash
    /// loop restored: only the restore point and the upgrade's record (held back upgrades are
    /// still not run).
    package func migrate(
        _ db: Database, upTo last: Int, safety: UpgradeSafety, countingLaunch: Bool
    ) throws
        -> UpgradeOutcome
    {
        guard Self.hasFile(db) else {
            let applied = try run(db, upTo: last)
            return UpgradeOutcome(
                kind: applied.isEmpty ? .upToDate : .upgraded, applied: applied, restorePoint: nil,
                restorePointReason: "no restore point: the database is not a file", restored: nil, heldBack: nil,
                message: applied.isEmpty ? "\(db.path): up to date" : "\(db.path): upgraded")
        }
        let launch = countingLaunch ? try UpgradeAirbag.beginLaunch(db, safety: safety) : nil
        if let launch, launch.kind == .restored { return launch }
        // The usual launch: everything applied.
        if last < 0 || isLedgerExactly(migrations[...last], in: db) {
            return launch
                ?? UpgradeOutcome(
                    kind: .upToDate, applied: [], restorePoint: nil, restorePointReason: nil, restored: nil,
                    heldBack: nil, message: "\(db.path): up to date")
        }
        // What is pending is found under the restore folder's lock: another process may have
        // upgraded the file while this one waited for it (then nothing runs and no restore point
        // of the upgraded file is written).
        let outcome = try UpgradeAirbag.run(
            db, safety: safety,
            pending: { () throws -> PendingUpgrade? in
                guard let status = try? self.status(db) else { return nil }
                let pending = pendingMigrations(status, upTo: last)
                guard !pending.isEmpty else { return nil }
                let from = status.applied.last?.identifier ?? "an empty database"
                var identity = "from \(from)\n"
                for migration in pending { identity += "\(migration.identifier) \(migration.checksum ?? "closure")\n" }
                return PendingUpgrade(
                    migrations: pending.map(\.identifier), key: SHA256.hexDigest(of: identity), fromVersion: from,
                    toVersion: pending.last?.identifier ?? from, destructiveReason: Self.destructiveReason(pending))
            },
            countingLaunch: countingLaunch, upgrade: { try run(db, upTo: last) })
        return try (outcome ?? finish(db, upTo: last, launch: launch)).following(launch)
    }

    private func finish(_ db: Database, upTo last: Int, launch: UpgradeOutcome?) throws -> UpgradeOutcome {
        let applied = try run(db, upTo: last)
        if let launch, applied.isEmpty { return launch }
        return UpgradeOutcome(
            kind: applied.isEmpty ? .upToDate : .upgraded, applied: applied, restorePoint: nil,
            restorePointReason: nil, restored: nil, heldBack: nil,
            message: applied.isEmpty ? "\(db.path): up to date" : "\(db.path): upgraded")
    }

    static func hasFile(_ db: Database) -> Bool {
        !db.path.isEmpty && db.path != ":memory:" && !db.path.hasPrefix("file::memory:")
            && !db.path.contains("mode=memory")
    }

    /// Why `pending` can lose data: the first migration written in Swift, the first desired-schema
    /// migration (its plan may drop or rebuild), or the first statement that is not a `CREATE`
    /// or an `ALTER TABLE ... ADD COLUMN`; nil when they only add.
    static func destructiveReason(_ pending: [Migration]) -> String? {
        for migration in pending {
            switch migration.body {
            case .closure: return "migration \(migration.identifier) is written in Swift"
            case .schema, .schemaWithData: return "migration \(migration.identifier) is a desired schema"
            case .sql(let text):
                if let statement = PendingUpgrade.destructiveStatement(in: text) {
                    return "migration \(migration.identifier): \(statement.prefix(200))"
                }
            }
        }
        return nil
    }
}
