import StrataSQLite

// The engine's entry points, all in this file: plan (`planSchemaChange`), apply
// (`applySchemaChange`), or both in one call (`migrateSchema`), for a desired schema given as SQL
// text, as a `DatabaseSchema` or as a `SchemaDefinition`, each with and without progress. The
// work is done behind them, one folder per phase (see ARCHITECTURE.md, "Inside StrataSchema"):
// `Plan/Database+PlanSchemaChange.swift`, `Apply/Database+ApplySchemaChange.swift`,
// `Apply/Database+MigrateSchema.swift`.

// MARK: - Plan

extension Database {
    /// Plans the changes that turn this database into the schema described by `desiredSQL`.
    /// The plan is proven on a schema-only copy before it is returned; nothing is written.
    ///
    /// ```swift
    /// let plan = try db.planSchemaChange(to: """
    ///     CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER DEFAULT 0);
    ///     """)
    /// print(plan.summary)
    /// ```
    ///
    /// Throws ``SchemaError``: invalid desired SQL, destructive changes not allowed (listing each,
    /// with the plan that allowing them would apply: ``SchemaError/plan``), a failed preflight, an
    /// unresolved rename hint.
    public func planSchemaChange(
        to desiredSQL: String, options: SchemaChangeOptions = SchemaChangeOptions()
    ) throws -> Plan {
        try planSchemaChange(to: desiredSchema(sql: desiredSQL), options: options)
    }

    /// Plans the changes that turn this database into `desired`.
    public func planSchemaChange(
        to desired: DatabaseSchema, options: SchemaChangeOptions = SchemaChangeOptions()
    ) throws -> Plan {
        try makePlan(to: desired, options: options)
    }

    /// Plans the changes that bring this database to a schema declared in Swift; nothing is
    /// written. Same as ``planSchemaChange(to:options:)-(String,_)`` with the definition's SQL.
    ///
    /// ```swift
    /// let plan = try db.planSchemaChange(to: schema)
    /// print(plan.summary)
    /// ```
    ///
    /// Renames declared with ``ColumnBuilder/renamed(from:)`` and
    /// ``SchemaDefinition/table(_:options:renamedFrom:body:)`` are honored.
    public func planSchemaChange(
        to definition: SchemaDefinition, options: SchemaChangeOptions = SchemaChangeOptions()
    ) throws -> Plan {
        try definition.validate()
        return try planSchemaChange(to: desiredSchema(sql: definition.sql), options: definition.engineOptions(options))
    }
}

// MARK: - Apply

extension Database {
    /// Applies a plan made by ``planSchemaChange(to:options:)-(String,_)`` in one
    /// `BEGIN EXCLUSIVE` transaction.
    ///
    /// Foreign keys are turned off outside the transaction (so no ON DELETE action fires when a
    /// table is rebuilt) and restored on every path; violations that did not exist before make
    /// the whole plan roll back. Called inside a transaction (a migration), the plan runs in a
    /// savepoint; foreign keys must then already be off if the plan rebuilds a referenced table.
    /// On any failure the database is left exactly as it was.
    public func applySchemaChange(_ plan: Plan) throws {
        try applySchemaChange(plan, recording: nil, progress: nil)
    }

    /// Applies `plan` like ``applySchemaChange(_:)``, reporting its progress to `progress`: each
    /// step as it starts and finishes, the rows a rebuild has copied so far (from SQLite's
    /// progress handler, while the copy runs), each index built. An error thrown by `progress`
    /// stops the plan, even in the middle of a copy, and rolls everything back: the database is
    /// left exactly as it was, and the error is rethrown as is.
    ///
    /// ```swift
    /// try db.applySchemaChange(plan) { event in
    ///     print(event)                                  // "[1/3] rebuild table item: ..."
    ///     if Task.isCancelled { throw CancellationError() }
    /// }
    /// ```
    public func applySchemaChange(_ plan: Plan, progress: (SchemaChangeEvent) throws -> Void) throws {
        try withoutActuallyEscaping(progress) { progress in
            try applySchemaChange(plan, recording: nil, progress: ProgressReporter(report: progress))
        }
    }
}

// MARK: - Plan and apply

extension Database {
    /// Plans and applies in one call; returns the plan that was applied (empty if none was needed).
    ///
    /// ```swift
    /// try db.migrateSchema(to: String(contentsOfFile: "schema.sql"), options: .init(allowDestructive: false))
    /// ```
    ///
    /// **Launch fast path.** Each call that leaves the database equal to `desiredSQL` records a
    /// fingerprint in Strata's table `strata_schema_fingerprint`, in the applying transaction: a
    /// digest of the text (keyed with Strata's planner version, the SQLite version and the renames and `useNativeAlter` of `options`),
    /// `PRAGMA schema_version` and a digest of `sqlite_master`. The next call with the same text
    /// and options on an unchanged database reads them back and returns an empty plan
    /// (``Plan/isVerifiedByFingerprint``) without planning: a hash, a PRAGMA and two small reads.
    /// Any change to the schema by anyone, another text, another Strata or SQLite version, or a
    /// missing or edited row runs the full plan. The fingerprint is not a secret: a writer of the
    /// file who forges a row for the file's current `sqlite_master` is believed (such a writer
    /// can replace the schema itself anyway).
    @discardableResult
    public func migrateSchema(
        to desiredSQL: String, options: SchemaChangeOptions = SchemaChangeOptions()
    ) throws -> Plan {
        try migrateSchema(to: desiredSQL, options: options, reporter: nil)
    }

    /// Plans and applies in one call, reporting the apply's progress to `progress` (see
    /// ``applySchemaChange(_:progress:)``); an error thrown by `progress` rolls everything back.
    ///
    /// ```swift
    /// try db.migrateSchema(to: schemaSQL) { event in print(event) }
    /// ```
    @discardableResult
    public func migrateSchema(
        to desiredSQL: String, options: SchemaChangeOptions = SchemaChangeOptions(),
        progress: (SchemaChangeEvent) throws -> Void
    ) throws -> Plan {
        try withoutActuallyEscaping(progress) { progress in
            try migrateSchema(to: desiredSQL, options: options, reporter: ProgressReporter(report: progress))
        }
    }

    /// Plans, and applies only if the plan is expected to take no longer than `budget` at `rate`;
    /// otherwise writes nothing and returns the plan deferred, to run later with progress
    /// (``SchemaMigrationOutcome/run(in:progress:)``), after the app has shown its UI.
    ///
    /// ```swift
    /// let outcome = try db.migrateSchema(to: schemaSQL, budget: .seconds(1))
    /// if outcome.isDeferred {
    ///     print("later:", outcome.plan.estimate, outcome.expectedDuration)
    /// }
    /// ```
    ///
    /// The expected duration is ``Plan/estimate`` at `rate` (``PlanEstimate/expectedDuration(at:)``;
    /// ``PlanEstimate/Rate/calibrated()`` measures this device). For a table without
    /// `sqlite_stat1` statistics, rows are counted as far as the budget's rows at `rate` (so a
    /// table too large for the budget is known to be), about a tenth of the budget at most; run
    /// `ANALYZE` to make that check instant. An unchanged database takes the launch fast path of
    /// ``migrateSchema(to:options:)-(String,_)`` and an empty plan records its fingerprint, as
    /// that method does.
    public func migrateSchema(
        to desiredSQL: String, options: SchemaChangeOptions = SchemaChangeOptions(), budget: Duration,
        rate: PlanEstimate.Rate = .default
    ) throws -> SchemaMigrationOutcome {
        try migrateSchemaWithin(budget, to: desiredSQL, options: options, rate: rate)
    }

    /// Plans and applies `desired` in one call (no launch fingerprint: there is no text to
    /// digest).
    @discardableResult
    public func migrateSchema(
        to desired: DatabaseSchema, options: SchemaChangeOptions = SchemaChangeOptions()
    ) throws -> Plan {
        try migrateSchema(to: desired, options: options, reporter: nil)
    }

    /// Plans and applies `desired` in one call, reporting the apply's progress to `progress` (see
    /// ``applySchemaChange(_:progress:)``); an error thrown by `progress` rolls everything back.
    @discardableResult
    public func migrateSchema(
        to desired: DatabaseSchema, options: SchemaChangeOptions = SchemaChangeOptions(),
        progress: (SchemaChangeEvent) throws -> Void
    ) throws -> Plan {
        try withoutActuallyEscaping(progress) { progress in
            try migrateSchema(to: desired, options: options, reporter: ProgressReporter(report: progress))
        }
    }

    /// Brings this database to a schema declared in Swift: plans the difference, proves it on a
    /// schema-only copy, and applies it in one transaction (native `ALTER TABLE` where it gives
    /// exactly the result, the safe rebuild where not).
    ///
    /// ```swift
    /// let schema = SchemaDefinition { s in
    ///     s.table("player") { t in
    ///         t.autoIncrementedPrimaryKey("id")
    ///         t.column("name", .text).notNull()
    ///         t.column("email", .text).unique()  // new UNIQUE column: rebuilds "player"
    ///     }
    /// }
    /// try db.migrateSchema(to: schema)
    /// ```
    ///
    /// Dropping tables or columns is refused unless `options.allowDestructive` is set.
    @discardableResult
    public func migrateSchema(
        to definition: SchemaDefinition, options: SchemaChangeOptions = SchemaChangeOptions()
    ) throws -> Plan {
        try migrateSchema(to: definition, options: options, reporter: nil)
    }

    /// Brings this database to a schema declared in Swift like ``migrateSchema(to:options:)-(SchemaDefinition,_)``,
    /// reporting the apply's progress to `progress` (see ``applySchemaChange(_:progress:)``); an
    /// error thrown by `progress` rolls everything back.
    @discardableResult
    public func migrateSchema(
        to definition: SchemaDefinition, options: SchemaChangeOptions = SchemaChangeOptions(),
        progress: (SchemaChangeEvent) throws -> Void
    ) throws -> Plan {
        try withoutActuallyEscaping(progress) { progress in
            try migrateSchema(to: definition, options: options, reporter: ProgressReporter(report: progress))
        }
    }
}

// MARK: - Plan and apply behind the upgrade airbag

extension Database {
    /// Plans and applies `desiredSQL` like ``migrateSchema(to:options:)-(String,_)``, behind the
    /// upgrade airbag (``UpgradeSafety``): at an app's launch, the equivalent of the migrator's
    /// `migrate(_:safety:)` for a declarative schema.
    ///
    /// ```swift
    /// let outcome = try db.migrateSchema(to: schemaSQL, safety: UpgradeSafety(restorePoints: .whenDestructiveOrDataSteps))
    /// if outcome.kind == .restored { print(outcome.message) }   // a crash loop was taken back: tell the user
    /// // ... once the app has shown its first screen:
    /// try UpgradeSafety.launchSucceeded(forDatabaseAt: db.path)
    /// ```
    ///
    /// In order: an unconfirmed upgrade's launch is counted, and after ``UpgradeSafety/crashLoopLaunches``
    /// opens without a successful launch the restore point is restored before anything else
    /// (``UpgradeOutcome/Kind/restored``); an unchanged database takes the launch fast path
    /// (``UpgradeOutcome/Kind/upToDate``); otherwise the plan is made and, when it is not empty,
    /// applied after a restore point when the policy asks for one
    /// (``UpgradeSafety/RestorePoints/whenDestructiveOrDataSteps``: the plan drops, rebuilds, or
    /// rewrites or checks every row of a table). The upgrade's identity is a SHA-256 of the schema
    /// it starts from, the desired schema and the options that change the plan: after a crash loop
    /// the same desired schema is held back on that file (``UpgradeOutcome/Kind/heldBack``, nothing
    /// runs), while a build with another desired schema upgrades. An in-memory or temporary
    /// database is migrated without the airbag. Throws ``UpgradeError`` when the restore point
    /// cannot be written (nothing was applied) or the upgrade state is unreadable, and what
    /// ``migrateSchema(to:options:)-(String,_)`` throws.
    @discardableResult
    public func migrateSchema(
        to desiredSQL: String, options: SchemaChangeOptions = SchemaChangeOptions(), safety: UpgradeSafety
    ) throws -> UpgradeOutcome {
        try migrateSchema(
            toDesired: { try desiredSchema(sql: desiredSQL) }, text: desiredSQL, options: options, safety: safety)
    }

    /// Plans and applies `desired` behind the upgrade airbag, like
    /// ``migrateSchema(to:options:safety:)-(String,_,_)`` (without the launch fast path: there
    /// is no text to digest).
    ///
    /// ```swift
    /// let desired = try DatabaseSchema(sql: schemaSQL)
    /// let outcome = try db.migrateSchema(to: desired, safety: UpgradeSafety())
    /// print(outcome.kind)
    /// ```
    @discardableResult
    public func migrateSchema(
        to desired: DatabaseSchema, options: SchemaChangeOptions = SchemaChangeOptions(), safety: UpgradeSafety
    ) throws -> UpgradeOutcome {
        try migrateSchema(toDesired: { desired }, text: nil, options: options, safety: safety)
    }

    /// Brings this database to a schema declared in Swift behind the upgrade airbag, like
    /// ``migrateSchema(to:options:safety:)-(String,_,_)`` with the definition's SQL (so an
    /// unchanged database takes the launch fast path).
    ///
    /// ```swift
    /// let outcome = try db.migrateSchema(to: schema, safety: UpgradeSafety())
    /// print(outcome.message)
    /// ```
    @discardableResult
    public func migrateSchema(
        to definition: SchemaDefinition, options: SchemaChangeOptions = SchemaChangeOptions(), safety: UpgradeSafety
    ) throws -> UpgradeOutcome {
        try definition.validate()
        let sql = definition.sql
        return try migrateSchema(
            toDesired: { try desiredSchema(sql: sql) }, text: sql, options: definition.engineOptions(options),
            safety: safety)
    }
}
