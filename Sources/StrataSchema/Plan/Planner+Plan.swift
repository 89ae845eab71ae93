import StrataSQLite

extension Planner {
    /// Phase 5: the proven steps, with what applying them must check: the foreign keys of the
    /// tables changed or created and of their children, and the children of tables rebuilt or
    /// dropped (whose rows the foreign key check must not miss). A plan that makes destructive
    /// changes is refused here unless ``SchemaChangeOptions/allowDestructive``, the refusal
    /// carrying it.
    func assemble(
        _ diff: SchemaDiff, changed: [TableChange], builder: StepBuilder, preflight: Preflight,
        fullTextChecks: [FullTextContent]
    ) throws -> Plan {
        var checkTables = Set<String>()
        for p in changed { checkTables.insert(p.desired.key) }
        for t in desired.tables where !t.isVirtual {
            if t.foreignKeys.contains(where: { checkTables.contains($0.parentTable.asciiLowercased()) })
                || diff.createdTables.contains(where: { $0.key == t.key })
            {
                checkTables.insert(t.key)
            }
        }
        let rebuiltOrDropped = Set(builder.rebuiltTables + diff.droppedTables.map(\.key))
        let rebuiltLiveKeys = Set(changed.filter { rebuiltOrDropped.contains($0.desired.key) }.map(\.live.key))
            .union(diff.droppedTables.map(\.key))
        let children = live.tables.filter { child in
            child.foreignKeys.contains { rebuiltLiveKeys.contains($0.parentTable.asciiLowercased()) }
        }.map(\.name)
        var tableRenames = [String: String]()
        for p in changed where p.isRenamed { tableRenames[p.live.key] = p.desired.name }

        var plan = try estimated(
            Plan(
                steps: builder.steps, destructiveChanges: preflight.destructiveChanges.map(\.description), diff: diff,
                base: live, desired: desired,
                foreignKeyCheckTables: desired.tables.filter { checkTables.contains($0.key) }.map(\.name),
                childrenOfRebuiltTables: children, tableRenames: tableRenames, fullTextChecks: fullTextChecks))
        plan = try markedOnline(plan)
        if !plan.destructiveChanges.isEmpty, !options.allowDestructive { throw preflight.refusal(plan: plan) }
        return plan
    }
}

extension Planner {
    /// The rebuilds that run online: all with ``SchemaChangeOptions/online``, those estimated at
    /// ``SchemaChangeOptions/onlineRowThreshold`` rows or more otherwise. A table that should go
    /// online but cannot is refused (`unsupported`), naming it and why; nothing is written.
    func markedOnline(_ plan: Plan) throws -> Plan {
        guard options.considersOnline else { return plan }
        var plan = plan
        plan.onlineBatchSize = options.onlineBatchSize
        plan.onlineBatchTime = options.onlineBatchTime
        for i in plan.steps.indices where plan.steps[i].kind == .rebuildTable {
            let step = plan.steps[i]
            guard options.online || step.estimate.rows >= (options.onlineRowThreshold ?? .max) else { continue }
            guard step.onlineRebuild != nil else {
                throw SchemaError(
                    code: .unsupported,
                    message: "table \(step.object): cannot be rebuilt online: "
                        + "\(step.onlineRefusal ?? "its rows have no rowid to follow"); rebuild it offline (without the "
                        + "online option; nothing was changed)",
                    culprit: step.object)
            }
            plan.steps[i] = step.markedOnline()
        }
        return plan
    }
}
