import StrataSQLite

extension Planner {
    /// Phase B: the tables. Dropped tables go first (children before parents); then created and
    /// changed tables in the desired file's order, parents before children. A changed table is
    /// renamed and altered natively where the trial on the copy shows that gives exactly the
    /// desired table (Planner+NativeTrial.swift), else rebuilt (Planner+Rebuild.swift).
    func planTables(
        _ diff: SchemaDiff, changed: [TableChange], preflight: Preflight, into builder: inout StepBuilder
    ) throws {
        for t in ForeignKeyOrder.childrenFirst(diff.droppedTables) {
            try builder.add(.dropTable(t))
        }
        let pending = Set(diff.createdTables.map(\.key) + changed.map(\.desired.key))
        let ordered = ForeignKeyOrder.parentsFirst(desired.tables.filter { pending.contains($0.key) })
        var planned = Set<String>()
        for d in ordered where !planned.contains(d.key) {
            if let p = changed.first(where: { $0.desired.key == d.key }) {
                try planChange(p, backfill: preflight.backfill(of: p), into: &builder)
                builder.tableStepsEnd[d.key] = builder.steps.count
            } else {
                // A new table taking the old name of a table renamed away (t -> u, and a new t):
                // the rename frees the name first.
                if let p = changed.first(where: { $0.isRenamed && $0.live.key == d.key }),
                    !planned.contains(p.desired.key)
                {
                    try planChange(p, backfill: preflight.backfill(of: p), into: &builder)
                    builder.tableStepsEnd[p.desired.key] = builder.steps.count
                    planned.insert(p.desired.key)
                }
                try builder.add(.createTable(d))
                builder.tableStepsEnd[d.key] = builder.steps.count
            }
            planned.insert(d.key)
        }
    }

    /// Phase B for one changed table: native renames, then native drops/adds if they give exactly
    /// the desired table, else one rebuild. `backfill`: the preflight's (``Preflight/backfills``).
    func planChange(_ p: TableChange, backfill: Set<String>, into builder: inout StepBuilder) throws {
        let d = p.desired
        if p.live.isVirtual {
            try recreateVirtualTable(p, into: &builder)
            return
        }
        var renamed = NativeRenames(currentName: p.live.name)
        if options.useNativeAlter {
            renamed = try nativeRenames(p, into: &builder)
        }
        let currentName = renamed.currentName
        guard let current = try SchemaReader(db: builder.scratch).readTable(named: currentName) else {
            throw SchemaError(
                code: .planDidNotConverge, message: "table \(currentName) vanished from the schema copy",
                culprit: currentName)
        }
        // The same definition is not enough when a rename could not be made natively (the columns
        // of a swap have the same definitions): the rows must still move, by a rebuild. Nor when
        // a stored name compared exactly still differs by case (the rebuild creates the table
        // from the desired text, so it gives the desired names).
        if SchemaDiff.sameDefinition(current, d), current.name.asciiCaseInsensitiveEquals(d.name),
            p.hasExactNames(current),
            p.columnRenames.allSatisfy({ renamed.columns.contains($0.to.asciiLowercased()) })
        {
            return
        }
        if options.useNativeAlter, try nativeAlter(p, current: current, backfill: backfill, into: &builder) { return }

        try moveDependents(of: currentName, usingAnyOf: nil, into: &builder)
        try builder.add(
            rebuildStep(from: current, to: d, pair: p, renamedNatively: renamed.columns, backfill: backfill))
        builder.rebuiltTables.append(d.key)
    }

    /// A changed virtual table is dropped and created again. An FTS table over external content is
    /// indexed again from its content table (nothing lost); any other loses its rows, which the
    /// preflight lists as destructive.
    func recreateVirtualTable(_ p: TableChange, into builder: inout StepBuilder) throws {
        let d = p.desired
        let fromContent = Self.isRebuiltFromContent(p.live) && Self.isRebuiltFromContent(d)
        try builder.add(.dropVirtualTableToRecreate(p.live.name, fromContent: fromContent))
        try builder.add(.createTable(d))
    }

    /// An FTS4/FTS5 table over external content (`content=table`): it holds no rows of its own, so
    /// recreating it (a new tokenizer, new options) and indexing its content table again with
    /// `'rebuild'` loses nothing (``PlanStep/createTable(_:)`` does: such a table starts empty,
    /// see <https://www.sqlite.org/fts5.html#external_content_tables>). A contentless table (`content=''`) cannot be rebuilt.
    static func isRebuiltFromContent(_ t: TableInfo) -> Bool {
        guard t.isVirtual, let module = t.module?.asciiLowercased(), ["fts4", "fts5"].contains(module),
            let content = VirtualTableArguments(sql: t.sql)?.option("content"), !content.isEmpty
        else { return false }
        return true
    }
}
