import StrataSQLite

// The declarative engine behind the upgrade airbag: `migrateSchema(to:options:safety:)` (the public
// overloads are in `Database+SchemaEngine.swift`) and `strata apply --restore-point`.

extension Database {
    /// Plans `desired` (parsed from `desiredSQL` when there is one, which also gives the launch
    /// fast path) and applies it behind the airbag: the launch counted, a crash loop restored and
    /// held back, a restore point before a non-empty plan as `safety` asks.
    func migrateSchema(
        toDesired desired: () throws -> DatabaseSchema, text desiredSQL: String?, options: SchemaChangeOptions,
        safety: UpgradeSafety
    ) throws -> UpgradeOutcome {
        let fingerprint = desiredSQL.map { SchemaFingerprint(sql: $0, options: options, db: self) }
        guard Self.hasFile(self) else {
            let plan: Plan
            if let desiredSQL {
                plan = try migrateSchema(to: desiredSQL, options: options, reporter: nil)
            } else {
                plan = try migrateSchema(to: try desired(), options: options, reporter: nil)
            }
            let applied = plan.isEmpty ? [] : ["schema \(Self.schemaDigest(plan.desired).prefix(12))"]
            return UpgradeOutcome(
                kind: plan.isEmpty ? .upToDate : .upgraded, applied: applied, restorePoint: nil,
                restorePointReason: "no restore point: the database is not a file", restored: nil, heldBack: nil,
                message: plan.isEmpty ? "\(path): up to date" : "\(path): upgraded")
        }
        let launch = try UpgradeAirbag.beginLaunch(self, safety: safety)
        if let launch, launch.kind == .restored { return launch }
        let upToDate =
            launch
            ?? UpgradeOutcome(
                kind: .upToDate, applied: [], restorePoint: nil, restorePointReason: nil, restored: nil, heldBack: nil,
                message: "\(path): up to date")
        if let fingerprint, fingerprint.matches(self) { return upToDate }
        let plan = try planSchemaChange(to: try desired(), options: options)
        if plan.isEmpty {
            if let desiredSQL {
                try applySchemaChange(plan, recordingFingerprintOf: desiredSQL, options: options)
            }
            return upToDate
        }
        return try applySchemaChange(
            plan, safety: safety, countingLaunch: true, recordingFingerprintOf: desiredSQL, options: options
        ).following(launch)
    }

    /// Applies `plan` (not empty) behind the airbag: a restore point first when `safety` asks
    /// for one (``UpgradeSafety/RestorePoints/whenDestructiveOrDataSteps``: the plan drops,
    /// rebuilds or rewrites rows), the upgrade recorded as unconfirmed once it commits, and an
    /// upgrade held back by an earlier crash loop not run (``UpgradeOutcome/Kind/heldBack``).
    /// What is pending is decided under the restore folder's lock: when another process changed
    /// the schema while this one waited for the lock, the plan is made again from the file (and
    /// when that leaves nothing to do, nothing runs and no restore point is written).
    /// `countingLaunch` false is for a tool that is not the app (`strata apply --restore-point`):
    /// its run is not one of the app's launches.
    package func applySchemaChange(
        _ plan: Plan, safety: UpgradeSafety, countingLaunch: Bool, recordingFingerprintOf desiredSQL: String?,
        options: SchemaChangeOptions, progress: ((SchemaChangeEvent) throws -> Void)? = nil
    ) throws -> UpgradeOutcome {
        var current = plan
        var pending = Self.declarativeUpgrade(plan, options: options)
        let outcome = try UpgradeAirbag.run(
            self, safety: safety,
            pending: { () throws -> PendingUpgrade? in
                let live = try DatabaseSchema.read(from: self)
                if Self.schemaDigest(live) != Self.schemaDigest(plan.base) {
                    current = try planSchemaChange(to: plan.desired, options: options)
                    guard !current.isEmpty else { return nil }
                    pending = Self.declarativeUpgrade(current, options: options)
                }
                return pending
            },
            countingLaunch: countingLaunch,
            upgrade: {
                try applySchemaChange(current, recordingFingerprintOf: desiredSQL, options: options, progress: progress)
                return pending.migrations
            })
        return outcome
            ?? UpgradeOutcome(
                kind: .upToDate, applied: [], restorePoint: nil,
                restorePointReason: "nothing to upgrade: the schema was brought to the desired one meanwhile",
                restored: nil, heldBack: nil, message: "\(path): up to date")
    }

    /// The airbag's identity of a declarative upgrade: a SHA-256 of the schema it starts from,
    /// the schema it goes to, the options that change a plan between the two and the planner's
    /// version, so that the same build (same desired schema, same file) is held back after a
    /// crash loop while a build with another desired schema, or a Strata that plans otherwise,
    /// upgrades.
    package static func declarativeUpgrade(_ plan: Plan, options: SchemaChangeOptions) -> PendingUpgrade {
        let from = schemaDigest(plan.base)
        let to = schemaDigest(plan.desired)
        var identity = "strata declarative upgrade\nplanner \(SchemaFingerprint.plannerVersion)\n"
        identity += "from \(from)\nto \(to)\n"
        identity += "native \(options.useNativeAlter) exactNames \(options.exactNames)\n"
        identity += "renames \(options.renames.map(\.description).joined(separator: "\u{1E}"))\n"
        let version = "schema \(to.prefix(12))"
        return PendingUpgrade(
            migrations: [version], key: SHA256.hexDigest(of: identity),
            fromVersion: plan.base.isEmpty ? "an empty database" : "schema \(from.prefix(12))", toVersion: version,
            destructiveReason: destructiveReason(plan))
    }

    /// A SHA-256 of a schema's statements, normalized (``SQLNormalizer``) and sorted: a restore
    /// that carries rows back can list the objects in another order and spell a column it adds
    /// back quoted (`"legacy" TEXT`), and must still give the same identity, so that the upgrade
    /// it took back stays held back.
    package static func schemaDigest(_ schema: DatabaseSchema) -> String {
        let statements =
            schema.tables.map(\.sql) + schema.indexes.map(\.sql) + schema.views.map(\.sql)
            + schema.triggers.map(\.sql)
        return SHA256.hexDigest(of: statements.map(SQLNormalizer.normalize).sorted().joined(separator: "\u{1}"))
    }

    /// Why `plan` can lose data: its first step that is not an addition (a drop, a rebuild, a
    /// rewrite of every row, a check of every row); nil when it only creates and adds columns.
    static func destructiveReason(_ plan: Plan) -> String? {
        let additions: Set<PlanStep.Kind> = [
            .createTable, .addColumn, .createIndex, .createView, .createTrigger, .createVirtualTable,
        ]
        guard let step = plan.steps.first(where: { $0.isDestructive || !additions.contains($0.kind) }) else {
            return nil
        }
        return "the plan's step \(step.kind.rawValue) \(step.object): \(step.summary.prefix(200))"
    }

    /// False for an in-memory or temporary database (no restore folder).
    static func hasFile(_ db: Database) -> Bool {
        !db.path.isEmpty && db.path != ":memory:" && !db.path.hasPrefix("file::memory:")
            && !db.path.contains("mode=memory")
    }
}
