import StrataSQLite

/// Collects plan steps, running each on the schema-only copy of the live database as it is
/// added: the copy is where the plan is proven (``Planner/prove(_:yields:)``), and where native
/// forms are tried (``trial(_:accept:)``) before they are kept.
struct StepBuilder {
    let scratch: Database
    var steps: [PlanStep] = []
    /// Keys (desired names) of the tables rebuilt.
    var rebuiltTables: [String] = []
    /// Key (lowercased desired name) of each table created, changed or recreated -> the number of
    /// steps once its last step was added: what came before or after it.
    var tableStepsEnd: [String: Int] = [:]
    private var trialCounter = 0

    init(scratch: Database) { self.scratch = scratch }

    /// Adds a step that must succeed on the copy.
    mutating func add(_ step: PlanStep) throws {
        if let drops = PlannerFaults.dropsStep, drops(step) { return }
        for sql in step.statements {
            do {
                try scratch.execute(sql: sql)
            } catch let error as SQLiteError {
                throw SchemaError(
                    code: .planDidNotConverge,
                    message: "\(step.kind.rawValue) \(step.object): planned statement failed on the schema copy "
                        + "(a bug in Strata; nothing was applied): `\(TemporaryNames.userFacing(sql, renames: step.temporaryTables))`: "
                        + TemporaryNames.userFacing(error.message, renames: step.temporaryTables),
                    culprit: step.object, underlying: error)
            }
        }
        steps.append(step)
    }

    /// Tries `steps` on the copy; keeps them when they run and `accept` holds, else undoes them.
    mutating func trial(_ candidate: [PlanStep], accept: (Database) throws -> Bool) throws -> Bool {
        var candidate = candidate
        if let drops = PlannerFaults.dropsStep { candidate.removeAll(where: drops) }
        trialCounter += 1
        let savepoint = "strata_trial_\(trialCounter)"
        try scratch.execute(sql: "SAVEPOINT \(savepoint)")
        var ok = true
        do {
            for step in candidate {
                for sql in step.statements { try scratch.execute(sql: sql) }
            }
            ok = try accept(scratch)
        } catch is SQLiteError {
            ok = false
        }
        if !ok { try scratch.execute(sql: "ROLLBACK TO \(savepoint)") }
        try scratch.execute(sql: "RELEASE \(savepoint)")
        if ok { steps += candidate }
        return ok
    }
}

/// Faults planted in the planner by tests, to show that the nets behind it catch them (a plan that
/// misses the desired schema must fail the proof). Package-only: never part of the public API, and
/// off unless a test binds a value for the duration of one call (`$dropsStep.withValue(...)`).
package enum PlannerFaults {
    /// A step for which this returns true is left out, of the plan and of the schema copy alike,
    /// as a planner bug that forgets a step would.
    @TaskLocal package static var dropsStep: (@Sendable (PlanStep) -> Bool)? = nil
}
