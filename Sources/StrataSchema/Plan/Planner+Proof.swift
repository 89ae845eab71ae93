import StrataSQLite

extension Planner {
    /// Phase 4, the proof: every statement of the plan, in order, has run on this schema-only copy
    /// of the live database (trials that were not kept were rolled back to their savepoints); the
    /// result must be exactly the desired schema, or the plan is a bug and is never applied.
    /// The stored names `names` lists (the plan's case-only renames, or every name with
    /// ``SchemaChangeOptions/exactNames``) must be exactly the desired ones, letter case included.
    /// Then each FTS table over external content whose content the plan touches (`fullTextChecks`)
    /// must pass its module's `integrity-check` on the copy: over empty content it fails only when
    /// the FTS table reads what its content no longer has (a column, the rowid), a change that is
    /// refused naming both tables.
    func prove(
        _ scratch: Database, yields target: DatabaseSchema, names: SchemaDiff.NameComparison,
        fullTextChecks: [FullTextContent], changed: [TableChange]
    ) throws {
        let diff = SchemaDiff(from: try DatabaseSchema.read(from: scratch), to: target, names: names)
        if !diff.isEmpty {
            throw SchemaError(
                code: .planDidNotConverge,
                message: "proof failed, the plan does not yield the desired schema (a bug in Strata; nothing was "
                    + "applied): " + diff.descriptions.joined(separator: "; "))
        }
        for f in fullTextChecks {
            do {
                try scratch.execute(sql: f.integrityCheckSQL)
            } catch let error as SQLiteError {
                throw fullTextRefusal(f, reason: error.message, in: scratch, changed: changed)
            }
        }
    }
}
