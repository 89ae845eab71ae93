import StrataSQLite

/// What ``StrataSQLite/Database/migrateSchema(to:options:budget:rate:)`` did: applied the plan, or deferred it
/// because its estimate exceeded the budget (then nothing was written).
///
/// ```swift
/// // At launch: never more than a second of schema work before the first screen.
/// let outcome = try db.migrateSchema(to: schemaSQL, budget: .seconds(1))
/// if outcome.isDeferred {
///     // Show the UI (the old schema is untouched), then, in the background:
///     try outcome.run(in: db) { event in print(event) }
/// }
/// ```
public struct SchemaMigrationOutcome: Sendable {
    /// The plan: applied, or (``isDeferred``) the one that would have been.
    public let plan: Plan
    /// True when the plan's expected duration exceeded the budget: nothing was written, not even
    /// the launch fingerprint, and ``run(in:progress:)`` does the work later.
    public let isDeferred: Bool
    /// The plan's expected duration at the rate given (``PlanEstimate/expectedDuration(at:)``).
    public let expectedDuration: Duration
    /// The budget the call was given.
    public let budget: Duration
    let desiredSQL: String
    let options: SchemaChangeOptions

    /// Brings `db` to the desired schema now, whatever it costs, reporting progress as
    /// `migrateSchema(to:options:progress:)` does (it plans again: the database may
    /// have changed since, and a schema already migrated by another process takes the launch
    /// fast path). Returns the plan applied; an error thrown by `progress` rolls everything back.
    @discardableResult
    public func run(in db: Database, progress: (SchemaChangeEvent) throws -> Void = { _ in }) throws -> Plan {
        try db.migrateSchema(to: desiredSQL, options: options, progress: progress)
    }
}

extension Database {
    /// ``migrateSchema(to:options:budget:rate:)`` behind the public entry point.
    func migrateSchemaWithin(
        _ budget: Duration, to desiredSQL: String, options: SchemaChangeOptions, rate: PlanEstimate.Rate
    ) throws -> SchemaMigrationOutcome {
        func outcome(_ plan: Plan, deferred: Bool) -> SchemaMigrationOutcome {
            SchemaMigrationOutcome(
                plan: plan, isDeferred: deferred, expectedDuration: plan.estimate.expectedDuration(at: rate),
                budget: budget, desiredSQL: desiredSQL, options: options)
        }
        let fingerprint = SchemaFingerprint(sql: desiredSQL, options: options, db: self)
        if fingerprint.matches(self) { return outcome(Plan(unchangedFrom: desiredSQL), deferred: false) }
        var planning = options
        planning.estimateCountLimit = max(options.estimateCountLimit, Self.rowsWithin(budget, at: rate))
        let plan = try planSchemaChange(to: desiredSQL, options: planning)
        if plan.isEmpty {
            // Through the one path that records the fingerprint of an empty plan.
            try applySchemaChange(plan, recordingFingerprintOf: desiredSQL, options: options)
            return outcome(plan, deferred: false)
        }
        if plan.estimate.expectedDuration(at: rate) > budget { return outcome(plan, deferred: true) }
        try applySchemaChange(plan, recording: fingerprint, progress: nil)
        return outcome(plan, deferred: false)
    }

    /// The rows copied within `budget` at `rate` (rows alone), plus one: counting a table without
    /// statistics that far tells whether it fits, at about a tenth of the budget (a count reads a
    /// row many times faster than a rebuild copies it). Bounded to 2^40.
    package static func rowsWithin(_ budget: Duration, at rate: PlanEstimate.Rate) -> Int {
        let seconds = max(0, budget.inSeconds)
        return Int(min(seconds * max(0, rate.rowsPerSecond), 1_099_511_627_776)) + 1
    }
}

extension PlanEstimate.Rate {
    /// This device's rate: the default scaled by how fast a small rebuild (a copy of 20,000 rows
    /// and an index over them, in a private in-memory database) runs here against how fast the
    /// default expects it to. Takes a few tens of milliseconds; measure once (at first launch, say) and
    /// keep the result.
    ///
    /// ```swift
    /// let rate = try PlanEstimate.Rate.calibrated()
    /// let outcome = try db.migrateSchema(to: schemaSQL, budget: .seconds(2), rate: rate)
    /// ```
    public static func calibrated() throws -> PlanEstimate.Rate {
        let rows = 20_000
        let db = try Database(inMemory: Configuration())
        defer { db.close() }
        try db.execute(
            sql: """
                CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
                INSERT INTO t SELECT i, 'item number ' || i, i * 0.5 FROM n;
                CREATE TABLE u(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price NUMERIC);
                """)
        let clock = ContinuousClock()
        let start = clock.now
        try db.execute(sql: "INSERT INTO u SELECT * FROM t; CREATE INDEX u_name ON u(name)")
        let measured = clock.now - start
        // 'item number NNNNN' and two numbers: about 34 bytes a row, 26 an index entry.
        let expected = PlanEstimate(rows: rows, bytes: Int64(rows * 60), indexes: 1, indexEntries: rows)
            .expectedDuration(at: .default)
        let ratio = expected / measured
        guard ratio.isFinite, ratio > 0 else { return .default }
        return PlanEstimate.Rate.default.scaled(by: min(max(ratio, 0.001), 1000))
    }
}
