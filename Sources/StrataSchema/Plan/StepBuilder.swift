import StrataSQLite

/// Collects plan steps, running each on the schema-only copy of the live database as it is
/// added: the copy is where the plan is proven (``Planner/prove(_:yields:)``), and where native
/// forms are tried (``trial(_:accept:)``) before they are kept.
struct StepBuilder {
    let scratch: Database
    var steps: [PlanStep] = []
    /// Keys (desired names) of the tables rebuilt.
    var rebuiltTables: [String] = []
    private var trialCounter = 0

    init(scratch: Database) { self.scratch = scratch }

    /// Adds a step that must succeed on the copy.
    mutating func add(_ step: PlanStep) throws {
        for sql in step.statements {
            do {
                try scratch.execute(sql: sql)
            } catch let error as SQLiteError {
                throw SchemaError(
                    code: .planDidNotConverge,
                    message: "\(step.kind.rawValue) \(step.object): planned statement failed on the schema copy "
                        + "(a bug in Strata; nothing was applied): `\(TemporaryNames.userFacing(sql, statements: step.statements))`: "
                        + TemporaryNames.userFacing(error.message, statements: step.statements),
                    culprit: step.object, underlying: error)
            }
        }
        steps.append(step)
    }

    /// Tries `steps` on the copy; keeps them when they run and `accept` holds, else undoes them.
    mutating func trial(_ candidate: [PlanStep], accept: (Database) throws -> Bool) throws -> Bool {
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
