import StrataSQLite

extension Planner {
    /// Phase A: drop what phase C recreates, and what dropping or recreating a table would break.
    ///
    /// A view or trigger that is identical in the desired schema stays where it is while its
    /// table changes natively: `ALTER TABLE ADD COLUMN` leaves it alone, and RENAME TABLE/COLUMN
    /// rewrite its references (phase C recreates it only if the rewritten text then differs from
    /// the desired one). It moves (dropped here or in phase B, recreated in phase C) only when
    /// SQLite requires it:
    /// - it is on, or mentions, a table that is dropped or a virtual table that is recreated;
    /// - its table is rebuilt (``moveDependents(of:usingAnyOf:into:)``, just before the rebuild):
    ///   dropping the old table drops its triggers, and the RENAME that ends the rebuild checks
    ///   every view and trigger (<https://www.sqlite.org/lang_altertable.html#alter_table_rename>);
    /// - it uses a column that `ALTER TABLE DROP COLUMN` removes, which SQLite refuses while any
    ///   view or trigger uses it (<https://www.sqlite.org/lang_altertable.html#alter_table_drop_column>);
    ///   moved only when the trial without moving fails (a name match may be a false alarm);
    /// - it mentions a view that moves.
    func dropDependents(
        _ diff: SchemaDiff, touchedTables: Set<String>, pairs: [TableChange], scope: PlanScope,
        into builder: inout StepBuilder
    ) throws {
        // Tables that go away or are recreated (a changed virtual table); changed ordinary
        // tables move their dependents in phase B, and only when SQLite requires it.
        var gone = touchedTables.subtracting(pairs.filter { !$0.live.isVirtual }.map(\.live.key))
        let mentions = scope.mentions
        var dropViews = [ViewInfo]()
        var dropTriggers = [TriggerInfo]()
        var changedSomething = true
        while changedSomething {
            changedSomething = false
            for v in live.views where !dropViews.contains(where: { $0.key == v.key }) {
                if diff.views.removes(v.name)
                    || !mentions[PlanScope.key("view", v.name), default: []].isDisjoint(with: gone)
                {
                    dropViews.append(v)
                    gone.insert(v.key)
                    changedSomething = true
                }
            }
            for t in live.triggers where !dropTriggers.contains(where: { $0.key == t.key }) {
                if diff.triggers.removes(t.name)
                    || !mentions[PlanScope.key("trigger", t.name), default: []].isDisjoint(with: gone)
                    || gone.contains(t.table.asciiLowercased())
                {
                    dropTriggers.append(t)
                    changedSomething = true
                }
            }
        }
        try addDropSteps(triggers: dropTriggers, views: dropViews, into: &builder)
        let droppedTableKeys = touchedTables.subtracting(pairs.map(\.live.key))
        for i in live.indexes where !droppedTableKeys.contains(i.table.asciiLowercased()) {
            let pair = pairs.first { $0.live.key == i.table.asciiLowercased() }
            let targetTable = pair?.desired.key ?? i.table.asciiLowercased()
            var drop = false
            if let d = desired.index(named: i.name) {
                if d.table.asciiLowercased() != targetTable {
                    drop = true
                } else if diff.indexes.redefines(i.name),
                    !(pair?.isRenamed ?? false) || (diff.exactNames && d.name != i.name)
                {
                    // (An index follows its table's rename; one whose own name differs by case,
                    // with exact names, is made again under the desired name.)
                    drop = true
                }
            } else {
                drop = true
            }
            if drop {
                try builder.add(.dropIndex(i.name))
            }
        }
    }

    /// The drop steps of views and triggers that move: triggers first, then views, each in the
    /// reverse of their creation order.
    func addDropSteps(triggers: [TriggerInfo], views: [ViewInfo], into builder: inout StepBuilder) throws {
        for t in triggers.reversed() {
            try builder.add(.dropTrigger(t.name, recreated: desired.trigger(named: t.name) != nil))
        }
        for v in views.reversed() {
            try builder.add(.dropView(v.name, recreated: desired.view(named: v.name) != nil))
        }
    }

    /// Phase B: drops the views and triggers still in the copy that a change of `table` would
    /// break (phase C recreates them). With `columns` nil (a rebuild), every one on the table or
    /// mentioning it, directly or through a view; with `columns` (a native DROP COLUMN), only
    /// those that also mention one of the columns. Then, in both cases, whatever mentions a view
    /// that moves. Names are matched as words of the SQL text, so a match may be a false alarm
    /// (the object moves needlessly) but never misses a use.
    func moveDependents(of table: String, usingAnyOf columns: Set<String>?, into builder: inout StepBuilder) throws {
        let current = try SchemaReader(db: builder.scratch).readDependentObjects()
        guard !current.views.isEmpty || !current.triggers.isEmpty else { return }
        let viewMentions = current.views.map { SQLMentions.names(in: $0.sql) }
        let triggerMentions = current.triggers.map { SQLMentions.names(in: $0.sql) }
        // The table, and the views that read it directly or through other views.
        var reach: Set<String> = [table.asciiLowercased()]
        var grew = true
        while grew {
            grew = false
            for (i, v) in current.views.enumerated()
            where !reach.contains(v.key) && !viewMentions[i].isDisjoint(with: reach) {
                reach.insert(v.key)
                grew = true
            }
        }
        let uses = { (names: Set<String>) in columns.map { !names.isDisjoint(with: $0) } ?? true }
        var movedViews = Set<String>()
        var movedTriggers = Set<String>()
        for (i, v) in current.views.enumerated() where !viewMentions[i].isDisjoint(with: reach) && uses(viewMentions[i])
        {
            movedViews.insert(v.key)
        }
        for (i, t) in current.triggers.enumerated()
        where (reach.contains(t.table.asciiLowercased()) || !triggerMentions[i].isDisjoint(with: reach))
            && uses(triggerMentions[i])
        {
            movedTriggers.insert(t.key)
        }
        // A view that stays must not read one that moves, nor a trigger mention it: SQLite would
        // refuse the ALTER TABLE that follows ("error in view ...").
        grew = true
        while grew {
            grew = false
            for (i, v) in current.views.enumerated()
            where !movedViews.contains(v.key) && !viewMentions[i].isDisjoint(with: movedViews) {
                movedViews.insert(v.key)
                grew = true
            }
        }
        for (i, t) in current.triggers.enumerated() where !triggerMentions[i].isDisjoint(with: movedViews) {
            movedTriggers.insert(t.key)
        }
        try addDropSteps(
            triggers: current.triggers.filter { movedTriggers.contains($0.key) },
            views: current.views.filter { movedViews.contains($0.key) }, into: &builder)
    }
}
