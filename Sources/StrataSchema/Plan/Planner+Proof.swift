import StrataSQLite

extension Planner {
    /// Phase 4, the proof: every statement of the plan, in order, has run on this schema-only copy
    /// of the live database (trials that were not kept were rolled back to their savepoints); the
    /// result must be exactly the desired schema, or the plan is a bug and is never applied.
    /// The stored names `names` lists (the plan's case-only renames, or every name with
    /// ``SchemaChangeOptions/exactNames``) must be exactly the desired ones, letter case included.
    func prove(_ scratch: Database, yields target: DatabaseSchema, names: SchemaDiff.NameComparison) throws {
        let diff = SchemaDiff(from: try DatabaseSchema.read(from: scratch), to: target, names: names)
        if !diff.isEmpty {
            throw SchemaError(
                code: .planDidNotConverge,
                message: "proof failed, the plan does not yield the desired schema (a bug in Strata; nothing was "
                    + "applied): " + diff.descriptions.joined(separator: "; "))
        }
    }
}
