import StrataSQLite

/// Turns the difference between a live database and a desired schema into a proven plan.
///
/// The phases, one file each:
/// 1. **Diff** (`Planner+Diff.swift`): the desired schema's features are checked against the
///    connection's SQLite, and the ``SchemaDiff`` is computed with rename hints and options
///    resolved (`Diff/`).
/// 2. **Preflight** (`Planner+Preflight.swift`): destructive changes are listed (and refused
///    unless allowed); the data is checked for what the change needs (no NULLs in a column that
///    becomes NOT NULL...), and those conditions become guards inside the applied statements.
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
///    of the tables touched). `Apply/Database+ApplySchemaChange.swift` applies it.
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

        // 2. Preflight.
        let destructive = try destructiveChanges(diff)
        var changed = diff.changedTables
        for i in changed.indices where !changed[i].live.isVirtual { try preflight(&changed[i]) }

        // 3. Steps, on a schema-only copy of the part of the live database the change touches.
        let touched = Set(changed.map(\.live.key) + diff.droppedTables.map(\.key))
        let scope = PlanScope(live: live, desired: desired, diff: diff, touchedTables: touched)
        let scratch = try SchemaCopy.make(of: db, scope: scope)
        defer { scratch.close() }
        var builder = StepBuilder(scratch: scratch)
        try dropDependents(diff, touchedTables: touched, pairs: changed, scope: scope, into: &builder)
        try planTables(diff, changed: changed, into: &builder)
        let target = scope.desiredPart(of: desired, diff: diff)
        try createMissingObjects(target, into: &builder)
        let fullTextChecks = try keepFullTextIndexesInStep(diff, changed: changed, into: &builder)

        // 4. Proof.
        try prove(
            scratch, yields: target, names: diff.exactNameComparison, fullTextChecks: fullTextChecks, changed: changed)

        // 5. Plan.
        return assemble(
            diff, changed: changed, builder: builder, destructive: destructive, fullTextChecks: fullTextChecks)
    }
}
