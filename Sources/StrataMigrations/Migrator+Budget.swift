import StrataSQLite
import StrataSchema

/// What ``Migrator/migrate(_:budget:rate:)`` did: the migrations applied, and those deferred
/// because a declarative migration among them was expected to exceed what was left of the budget.
public struct MigrationBudgetOutcome: Sendable {
    /// The migrations applied by this call, in order.
    public let applied: [String]
    /// The pending migrations left for later, in order, from the one that did not fit; nothing
    /// of them was written. Empty when every pending migration was applied.
    public let deferred: [String]
    /// The plan of the first deferred migration (declared with `Migration(_:schema:)`), with its
    /// estimate (`Plan.estimate`).
    public let deferredPlan: Plan?
    /// Its expected duration at the rate given.
    public let expectedDuration: Duration?

    /// True when some migrations were deferred.
    public var isDeferred: Bool { !deferred.isEmpty }
}

extension Migrator {
    /// Applies the pending migrations in order, stopping before a declarative migration
    /// (`Migration(_:schema:)`, `Migration(_:schema:data:)`) whose plan is expected to take longer
    /// than what is left of `budget` at `rate`: that migration and the ones after it are returned
    /// deferred, untouched, for ``migrate(_:)-(Database)`` to run later (with ``eventHandler``
    /// reporting progress), once the app has shown its UI.
    ///
    /// ```swift
    /// let outcome = try migrator.migrate(db, budget: .seconds(1))
    /// if outcome.isDeferred {
    ///     // Later, in the background:
    ///     try migrator.migrate(db)
    /// }
    /// ```
    ///
    /// Each declarative migration is planned against the database as the migrations before it
    /// left it (each applied as `migrate(_:upTo:)` does), and estimated as
    /// `Database.migrateSchema(to:options:budget:rate:)` does. The cost of SQL and closure
    /// migrations cannot be known before they run: they are applied, and their time is taken from
    /// the budget.
    public func migrate(
        _ db: Database, budget: Duration, rate: PlanEstimate.Rate = .default
    ) throws
        -> MigrationBudgetOutcome
    {
        let clock = ContinuousClock()
        let start = clock.now
        let pending = try pendingMigrations(db)
        var applied = [String]()
        for (position, identifier) in pending.enumerated() {
            guard let migration = migrations.first(where: { $0.identifier == identifier }) else { continue }
            let declared: (sql: String, options: SchemaChangeOptions)?
            switch migration.body {
            case .schema(let sql, let options), .schemaWithData(let sql, let options, _): declared = (sql, options)
            case .sql, .closure: declared = nil
            }
            if let declared {
                let left = budget - (clock.now - start)
                var options = declared.options
                options.estimateCountLimit = max(options.estimateCountLimit, Database.rowsWithin(left, at: rate))
                // Destructive changes refused, invalid SQL...: the migration itself reports them.
                if let plan = try? db.planSchemaChange(to: declared.sql, options: options) {
                    let expected = plan.estimate.expectedDuration(at: rate)
                    if expected > left {
                        return MigrationBudgetOutcome(
                            applied: applied, deferred: Array(pending[position...]), deferredPlan: plan,
                            expectedDuration: expected)
                    }
                }
            }
            applied += try migrate(db, upTo: identifier)
        }
        return MigrationBudgetOutcome(applied: applied, deferred: [], deferredPlan: nil, expectedDuration: nil)
    }
}
