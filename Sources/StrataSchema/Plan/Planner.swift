import StrataSQLite

/// Turns the difference between a live database and a desired schema into a proven plan.
///
/// The phases, one file each:
/// 1. **Diff** (`Planner+Features.swift`, then `Diff/`): the desired schema's features are checked against the
///    connection's SQLite, and the ``SchemaDiff`` is computed with rename hints and options
///    resolved (`Diff/`).
/// 2. **Preflight** (`Planner+Preflight.swift`): a ``Preflight`` value: the destructive changes
///    listed, the data checked for what the change needs (no NULLs in a column that becomes NOT
///    NULL...: conditions that become guards inside the applied statements), the columns
///    backfilled.
/// 3. **Steps**, each run on a schema-only copy of the live database as it is planned
///    (`StepBuilder.swift`): (A) the views, triggers and indexes that change or depend on a table
///    that goes away (`Planner+Dependents.swift`); (B) the tables in foreign-key order
///    (`Planner+Tables.swift`): native renames and ALTERs where the **trial of native forms** on
///    the copy gives exactly the desired table (`Planner+NativeTrial.swift`), a safe rebuild
///    otherwise (`Planner+Rebuild.swift`); (C) the indexes, views and triggers that are missing
///    (`Planner+Objects.swift`); (D) the FTS tables over external content whose content rows a
///    step may have given new rowids or values, indexed again (`Planner+FullText.swift`).
/// 4. **Proof** (`Planner+Proof.swift`): the copy must now equal the desired schema, or the plan
///    is a bug and is never applied.
/// 5. **Plan** (`Planner+Plan.swift`): the steps with what applying needs to check (foreign keys
///    of the tables touched); refused when it makes destructive changes not allowed, the refusal
///    carrying the plan (``SchemaError/plan``). `Apply/Database+ApplySchemaChange.swift` applies it.
struct Planner {
    let db: Database
    let live: DatabaseSchema
    let desired: DatabaseSchema
    let options: SchemaChangeOptions
    let rowCounts = RowCounts()

    typealias TableChange = SchemaDiff.TableChange

    var capabilities: SQLiteCapabilities { db.capabilities }

    func plan() throws -> Plan {
        // 1. Diff.
        try checkFeatures()
        let diff = try SchemaDiff(from: live, to: desired, renames: options.renames, exactNames: options.exactNames)

        // 2. Preflight. Destructive changes not allowed are refused with the plan that allowing
        // them would apply (assemble), so that plan is made too; a broken data condition fails
        // now, unless the refusal comes first (then there is no plan to show).
        let preflight = try preflight(diff)
        let refusing = !preflight.destructiveChanges.isEmpty && !options.allowDestructive
        if let error = preflight.violationError { throw refusing ? preflight.refusal(plan: nil) : error }
        do {
            return try plan(diff, preflight: preflight)
        } catch let error as SchemaError where refusing && error.code != .destructiveChangesRefused {
            throw preflight.refusal(plan: nil)
        } catch is SQLiteError where refusing {
            throw preflight.refusal(plan: nil)
        }
    }

    /// Phases 3 to 5, after the preflight.
    private func plan(_ diff: SchemaDiff, preflight: Preflight) throws -> Plan {
        let changed = diff.changedTables
        // 3. Steps, on a schema-only copy of the part of the live database the change touches.
        let touched = Set(changed.map(\.live.key) + diff.droppedTables.map(\.key))
        let scope = PlanScope(live: live, desired: desired, diff: diff, touchedTables: touched)
        let scratch = try SchemaCopy.make(of: db, including: scope.contains)
        defer { scratch.close() }
        var builder = StepBuilder(scratch: scratch)
        try dropDependents(diff, touchedTables: touched, pairs: changed, scope: scope, into: &builder)
        try planTables(diff, changed: changed, preflight: preflight, into: &builder)
        let target = scope.desiredPart(of: desired, diff: diff)
        try createMissingObjects(target, into: &builder)
        let fullTextChecks = try keepFullTextIndexesInStep(diff, changed: changed, into: &builder)

        // 4. Proof.
        try prove(
            scratch, yields: target, names: diff.exactNameComparison, fullTextChecks: fullTextChecks, changed: changed)

        // 5. Plan (refused here when it makes destructive changes not allowed).
        return try assemble(
            diff, changed: changed, builder: builder, preflight: preflight, fullTextChecks: fullTextChecks)
    }
}
