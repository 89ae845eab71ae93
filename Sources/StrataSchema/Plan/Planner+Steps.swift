import StrataSQLite

/// Collects plan steps, running each on the scratch copy as it is added.
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
                        + TemporaryNames.userFacing(error.message ?? "\(error)", statements: step.statements),
                    underlying: error)
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

extension Planner {
    /// Identifiers (lowercased) that `sql` mentions.
    static func mentionedNames(_ sql: String) -> Set<String> {
        var names = Set<String>()
        for t in SQLTokenizer.significantTokens(sql) {
            if t.kind == .word || t.kind == .quotedIdentifier || t.kind == .string, let v = t.identifierValue ?? unquoteString(t) {
                names.insert(v.asciiLowercased())
            }
        }
        return names
    }

    private static func unquoteString(_ t: SQLToken) -> String? {
        guard t.kind == .string, t.text.count >= 2 else { return nil }
        return String(t.text.dropFirst().dropLast()).replacingAll("''", with: "'")
    }

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
        touchedTables: Set<String>, pairs: [Pair], scope: PlanScope, into builder: inout StepBuilder
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
                let d = desired.view(named: v.name)
                if d == nil || d!.normalizedSQL != v.normalizedSQL || !mentions[PlanScope.key("view", v.name), default: []].isDisjoint(with: gone) {
                    dropViews.append(v)
                    gone.insert(v.key)
                    changedSomething = true
                }
            }
            for t in live.triggers where !dropTriggers.contains(where: { $0.key == t.key }) {
                let d = desired.trigger(named: t.name)
                if d == nil || d!.normalizedSQL != t.normalizedSQL || !mentions[PlanScope.key("trigger", t.name), default: []].isDisjoint(with: gone)
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
                } else if !(pair?.tableRenamed ?? false), d.normalizedSQL != i.normalizedSQL {
                    drop = true
                }
            } else {
                drop = true
            }
            if drop {
                try builder.add(
                    PlanStep(
                        kind: .dropIndex, object: i.name, summary: "drop index \(i.name)",
                        statements: ["DROP INDEX \(SQL.quoteIdentifier(i.name))"], isDestructive: false))
            }
        }
    }

    /// The drop steps of views and triggers that move: triggers first, then views, each in the
    /// reverse of their creation order.
    func addDropSteps(triggers: [TriggerInfo], views: [ViewInfo], into builder: inout StepBuilder) throws {
        for t in triggers.reversed() {
            let recreated = desired.trigger(named: t.name) != nil
            try builder.add(
                PlanStep(
                    kind: .dropTrigger, object: t.name,
                    summary: "drop trigger \(t.name)\(recreated ? " (recreated after the table changes)" : "")",
                    statements: ["DROP TRIGGER \(SQL.quoteIdentifier(t.name))"], isDestructive: false))
        }
        for v in views.reversed() {
            let recreated = desired.view(named: v.name) != nil
            try builder.add(
                PlanStep(
                    kind: .dropView, object: v.name,
                    summary: "drop view \(v.name)\(recreated ? " (recreated after the table changes)" : "")",
                    statements: ["DROP VIEW \(SQL.quoteIdentifier(v.name))"], isDestructive: false))
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
        let viewMentions = current.views.map { Self.mentionedNames($0.sql) }
        let triggerMentions = current.triggers.map { Self.mentionedNames($0.sql) }
        // The table, and the views that read it directly or through other views.
        var reach: Set<String> = [table.asciiLowercased()]
        var grew = true
        while grew {
            grew = false
            for (i, v) in current.views.enumerated() where !reach.contains(v.key) && !viewMentions[i].isDisjoint(with: reach) {
                reach.insert(v.key)
                grew = true
            }
        }
        let uses = { (names: Set<String>) in columns.map { !names.isDisjoint(with: $0) } ?? true }
        var movedViews = Set<String>()
        var movedTriggers = Set<String>()
        for (i, v) in current.views.enumerated() where !viewMentions[i].isDisjoint(with: reach) && uses(viewMentions[i]) {
            movedViews.insert(v.key)
        }
        for (i, t) in current.triggers.enumerated()
        where (reach.contains(t.table.asciiLowercased()) || !triggerMentions[i].isDisjoint(with: reach)) && uses(triggerMentions[i]) {
            movedTriggers.insert(t.key)
        }
        // A view that stays must not read one that moves, nor a trigger mention it: SQLite would
        // refuse the ALTER TABLE that follows ("error in view ...").
        grew = true
        while grew {
            grew = false
            for (i, v) in current.views.enumerated() where !movedViews.contains(v.key) && !viewMentions[i].isDisjoint(with: movedViews) {
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

    /// Phase B for one changed table: native renames, then native drops/adds if they give exactly
    /// the desired table, else one rebuild.
    func planChange(_ p: Pair, into builder: inout StepBuilder) throws {
        let d = p.desired
        if p.live.isVirtual {
            // An FTS table over external content is indexed again from its content table: nothing lost.
            let fromContent = Self.isRebuiltFromContent(p.live) && Self.isRebuiltFromContent(d)
            try builder.add(
                PlanStep(
                    kind: .dropVirtualTable, object: p.live.name,
                    summary: "drop virtual table \(p.live.name) (recreated\(fromContent ? " from its content table" : ""))",
                    statements: ["DROP TABLE \(SQL.quoteIdentifier(p.live.name))"], isDestructive: !fromContent))
            try builder.add(
                PlanStep(
                    kind: .createVirtualTable, object: d.name, summary: "create virtual table \(d.name)",
                    statements: [d.sql] + Self.populateStatements(d), isDestructive: false))
            return
        }
        var currentName = p.live.name
        var renamedNatively = Set<String>()  // desired column keys
        if options.useNativeAlter {
            if p.tableRenamed, capabilities.supportsModernRenameTable {
                let step = PlanStep(
                    kind: .renameTable, object: d.name, summary: "rename table \(p.live.name) to \(d.name)",
                    statements: ["ALTER TABLE \(SQL.quoteIdentifier(p.live.name)) RENAME TO \(SQL.quoteIdentifier(d.name))"],
                    isDestructive: false)
                if try builder.trial([step], accept: { _ in true }) { currentName = d.name }
            }
            // Renames onto a name the table still uses (a -> b and b -> a, or a rotation) go
            // through temporary names, all in one step: each column first to its temporary name,
            // then each to its new name. Never kept half-made: the other renames skip the group.
            let liveNames = Set(p.live.columns.map { $0.name.asciiLowercased() })
            let sources = Set(p.columnRenames.map { $0.from.asciiLowercased() })
            let swapped = p.columnRenames.filter { liveNames.contains($0.to.asciiLowercased()) && sources.contains($0.to.asciiLowercased()) }
            if capabilities.supportsRenameColumn, !swapped.isEmpty {
                let group = p.columnRenames.filter { r in
                    swapped.contains { $0.from == r.from } || swapped.contains { $0.to.asciiCaseInsensitiveEquals(r.from) }
                }
                let table = SQL.quoteIdentifier(currentName)
                let temporary = group.map { _ in Self.temporaryTableName() }
                func rename(_ from: String, _ to: String) -> String {
                    "ALTER TABLE \(table) RENAME COLUMN \(SQL.quoteIdentifier(from)) TO \(SQL.quoteIdentifier(to))"
                }
                let pairs = Array(zip(group, temporary))
                let statements = pairs.map { rename($0.0.from, $0.1) } + pairs.map { rename($0.1, $0.0.to) }
                let step = PlanStep(
                    kind: .renameColumn, object: d.name,
                    summary: "rename columns " + group.map { "\(d.name).\($0.from) to \($0.to)" }.joined(separator: ", "),
                    statements: statements, isDestructive: false)
                // Kept only when it gives exactly the desired table: a swap keeps each column in its
                // place, so unless the desired order swaps too, the rows must move by a rebuild.
                let kept = try builder.trial([step]) { scratch in
                    try SchemaReader(db: scratch).readTable(named: currentName)?.signature == d.signature
                }
                if kept {
                    for r in group { renamedNatively.insert(r.to.asciiLowercased()) }
                }
            }
            if capabilities.supportsRenameColumn {
                for r in p.columnRenames where swapped.isEmpty {
                    let step = PlanStep(
                        kind: .renameColumn, object: "\(d.name).\(r.to)",
                        summary: "rename column \(d.name).\(r.from) to \(r.to)",
                        statements: [
                            "ALTER TABLE \(SQL.quoteIdentifier(currentName)) RENAME COLUMN "
                                + "\(SQL.quoteIdentifier(r.from)) TO \(SQL.quoteIdentifier(r.to))"
                        ], isDestructive: false)
                    if try builder.trial([step], accept: { _ in true }) { renamedNatively.insert(r.to.asciiLowercased()) }
                }
            }
        }
        guard let current = try SchemaReader(db: builder.scratch).readTable(named: currentName) else {
            throw SchemaError(code: .planDidNotConverge, message: "table \(currentName) vanished from the schema copy")
        }
        // Equal signatures are not enough when a rename could not be made natively (the columns
        // of a swap have the same definitions): the rows must still move, by a rebuild.
        if current.signature == d.signature, current.name.asciiCaseInsensitiveEquals(d.name),
            p.columnRenames.allSatisfy({ renamedNatively.contains($0.to.asciiLowercased()) })
        {
            return
        }

        // Native DROP COLUMN / ADD COLUMN, kept only when the copy then equals the desired table.
        let addedAtEnd = d.columns.suffix(p.added.count).map(\.name) == p.added.map(\.name)
        // SQLite adds a STORED column only to an empty table: the empty schema copy would accept
        // what the real table refuses, so such a column always goes through a rebuild.
        let addsStored = p.added.contains { $0.kind == .generatedStored }
        // SQLite refuses ADD COLUMN with a non-constant default when the table has rows, which
        // the empty copy cannot show; rows may also arrive between planning and applying, and a
        // migration file runs on databases never seen. Such columns are always rebuilt in.
        let nonConstantDefault = p.added.contains(where: Self.hasNonConstantDefault)
        // SQLite adds a NOT NULL column without a default only to an empty table (the empty copy
        // accepts it): rebuilt in, so that a guard refuses a table with rows in the user's terms.
        let notNullWithoutDefault = p.added.contains { $0.isNotNull && $0.defaultSQL == nil && !$0.isGenerated }
        if options.useNativeAlter, addedAtEnd, !addsStored, p.backfill.isEmpty, !nonConstantDefault, !notNullWithoutDefault,
            p.dropped.isEmpty || capabilities.supportsDropColumn
        {
            var candidate = capabilities.supportsAlterConstraints ? constraintSteps(from: current, to: d) : []
            for c in p.dropped {
                candidate.append(
                    PlanStep(
                        kind: .dropColumn, object: "\(d.name).\(c.name)", summary: "drop column \(d.name).\(c.name)",
                        statements: [
                            "ALTER TABLE \(SQL.quoteIdentifier(currentName)) DROP COLUMN \(SQL.quoteIdentifier(c.name))"
                        ], isDestructive: true))
            }
            for c in p.added {
                candidate.append(
                    PlanStep(
                        kind: .addColumn, object: "\(d.name).\(c.name)",
                        summary: "add column \(d.name).\(c.name): \(Self.withoutLineComments(c.definition))",
                        statements: [
                            "ALTER TABLE \(SQL.quoteIdentifier(currentName)) ADD COLUMN \(Self.withoutLineComments(c.definition))"
                        ], isDestructive: false))
            }
            // No candidate step: the table already differs (checked above), nothing to try.
            if !candidate.isEmpty, currentName.asciiCaseInsensitiveEquals(d.name) {
                let gives = { (scratch: Database) in
                    try SchemaReader(db: scratch).readTable(named: d.name)?.signature == d.signature
                }
                if try builder.trial(candidate, accept: gives) { return }
                // DROP COLUMN fails while a view or trigger uses the column: move those, try again.
                if !p.dropped.isEmpty {
                    try moveDependents(
                        of: currentName, usingAnyOf: Set(p.dropped.map { $0.name.asciiLowercased() }), into: &builder)
                    if try builder.trial(candidate, accept: gives) { return }
                }
            }
        }

        try moveDependents(of: currentName, usingAnyOf: nil, into: &builder)
        try builder.add(rebuildStep(from: current, to: d, pair: p, renamedNatively: renamedNatively))
        builder.rebuiltTables.append(d.key)
    }

    /// SQLite 3.53's constraint forms that may turn `current` into `d` without a rebuild: ADD CHECK
    /// for a table CHECK only `d` has, DROP CONSTRAINT for a named CHECK or FOREIGN KEY only
    /// `current` has, SET/DROP NOT NULL for a column whose NOT NULL alone changes. They are
    /// candidates: the trial on the copy keeps them only when the table then equals `d` exactly
    /// (SQLite edits the stored CREATE TABLE text, e.g. SET NOT NULL appends `NOT NULL` to the
    /// column's definition). Each checks the rows itself: SET NOT NULL and ADD CHECK fail on a row
    /// that breaks them, and the transaction rolls back.
    /// See <https://www.sqlite.org/lang_altertable.html>.
    func constraintSteps(from current: TableInfo, to d: TableInfo) -> [PlanStep] {
        let table = SQL.quoteIdentifier(current.name)
        var steps = [PlanStep]()
        let currentConstraints = zip(current.constraints, current.normalizedConstraints)
        let desiredConstraints = zip(d.constraints, d.normalizedConstraints)
        let desiredSet = Set(d.normalizedConstraints)
        let currentSet = Set(current.normalizedConstraints)
        for (text, normalized) in currentConstraints where !desiredSet.contains(normalized) {
            let tokens = SQLTokenizer.significantTokens(text)
            guard tokens.count > 2, tokens[0].isKeyword("CONSTRAINT"), let name = tokens[1].identifierValue,
                tokens[2].isKeyword("CHECK") || tokens[2].isKeyword("FOREIGN")
            else { continue }
            steps.append(
                PlanStep(
                    kind: .dropConstraint, object: "\(d.name).\(name)",
                    summary: "drop constraint \(name) of table \(d.name)",
                    statements: ["ALTER TABLE \(table) DROP CONSTRAINT \(SQL.quoteIdentifier(name))"], isDestructive: false))
        }
        for (text, normalized) in desiredConstraints where !currentSet.contains(normalized) {
            let tokens = SQLTokenizer.significantTokens(text)
            let isCheck = tokens.first?.isKeyword("CHECK") == true
                || (tokens.count > 2 && tokens[0].isKeyword("CONSTRAINT") && tokens[2].isKeyword("CHECK"))
            guard isCheck else { continue }
            let constraint = Self.withoutLineComments(text)
            steps.append(
                PlanStep(
                    kind: .addConstraint, object: d.name, summary: "add constraint to table \(d.name): \(constraint)",
                    statements: ["ALTER TABLE \(table) ADD \(constraint)"], isDestructive: false))
        }
        for c in d.columns {
            guard let live = current.column(named: c.name), live.isNotNull != c.isNotNull, !c.isGenerated,
                !live.isGenerated
            else { continue }
            let column = SQL.quoteIdentifier(live.name)
            // SQLite checks the rows itself ("constraint failed"); the guard (the rebuild's own, as
            // this path is taken only for a column without a DEFAULT, see Pair.backfill) says which
            // column and how many rows, and so in the same terms as the preflight.
            let noNulls = DataGuard.noNulls(
                in: current.name, column: live.name,
                message: "table \(d.name): column \(c.name) becomes NOT NULL but rows hold NULL and it has no DEFAULT")
            steps.append(
                c.isNotNull
                    ? PlanStep(
                        kind: .setNotNull, object: "\(d.name).\(c.name)", summary: "set not null on \(d.name).\(c.name)",
                        statements: DataGuard.statements([noNulls])
                            + ["ALTER TABLE \(table) ALTER COLUMN \(column) SET NOT NULL"],
                        isDestructive: false, guards: [noNulls])
                    : PlanStep(
                        kind: .dropNotNull, object: "\(d.name).\(c.name)", summary: "drop not null on \(d.name).\(c.name)",
                        statements: ["ALTER TABLE \(table) ALTER COLUMN \(column) DROP NOT NULL"], isDestructive: false))
        }
        return steps
    }

    /// The statements of a safe rebuild of `current` into `d` (see DESIGN.md, "Rebuilding a table safely").
    ///
    /// The copy never loses a row silently: it runs as `INSERT OR ABORT`, which overrides any
    /// `ON CONFLICT REPLACE/IGNORE` of the new definition (a conflicting row fails the plan instead of
    /// replacing or skipping another; <https://www.sqlite.org/lang_conflict.html>), and a guard
    /// compares the row counts of both tables before the old one is dropped. The data conditions the
    /// preflight checked when planning are checked again by guards inside the applying transaction.
    func rebuildStep(from current: TableInfo, to d: TableInfo, pair p: Pair, renamedNatively: Set<String>) throws -> PlanStep {
        let temp = Self.temporaryTableName()
        let create = try CreateTableStatement(sql: d.sql).renamed(to: temp)
        var targets = [String]()
        var sources = [String]()
        var guards = [DataGuard]()
        for c in p.added where c.isNotNull && c.defaultSQL == nil && !c.isGenerated {
            if d.rowIDAliasColumn?.name == c.name && current.hasRowID { continue }
            guards.append(
                .empty(current.name, message: "table \(d.name): cannot add column \(c.name) NOT NULL without a DEFAULT to a table with rows"))
        }
        for c in d.columns where !c.isGenerated {
            let key = c.name.asciiLowercased()
            if let liveName = p.source[key] {
                let currentName = renamedNatively.contains(key) ? c.name : liveName
                guard let currentColumn = current.column(named: currentName) else { continue }
                let mayHoldNull = !currentColumn.isNotNull || currentColumn.isGenerated
                var expr = SQL.quoteIdentifier(currentName)
                if d.rowIDAliasColumn?.name == c.name, mayHoldNull,
                    current.rowIDAliasColumn?.name.asciiCaseInsensitiveEquals(currentName) != true
                {
                    // SQLite would turn a NULL into a new rowid, silently changing the data.
                    guards.append(
                        .noNulls(in: current.name, column: currentName,
                                 message: "table \(d.name): column \(c.name) becomes the INTEGER PRIMARY KEY but rows hold NULL"))
                } else if c.isNotNull, mayHoldNull {
                    if p.backfill.contains(key), let def = c.defaultSQL {
                        expr = "coalesce(\(expr), \(def))"
                    } else {
                        guards.append(
                            .noNulls(in: current.name, column: currentName,
                                     message: "table \(d.name): column \(c.name) becomes NOT NULL but rows hold NULL and it has no DEFAULT"))
                    }
                }
                targets.append(SQL.quoteIdentifier(c.name))
                sources.append(expr)
            } else if d.rowIDAliasColumn?.name == c.name, let rowid = Self.rowIDName(current) {
                // A new INTEGER PRIMARY KEY takes over the old rowid.
                targets.append(SQL.quoteIdentifier(c.name))
                sources.append(rowid)
            }
        }
        if current.hasRowID, d.hasRowID, d.rowIDAliasColumn == nil,
            let from = Self.rowIDName(current), let to = Self.rowIDName(d)
        {
            targets.insert(to, at: 0)
            sources.insert(from, at: 0)
        }
        let q = SQL.quoteIdentifier
        var statements = DataGuard.statements(guards)
        statements.append(create)
        if !targets.isEmpty {
            statements.append(
                "INSERT OR ABORT INTO \(q(temp)) (\(targets.joined(separator: ", "))) SELECT \(sources.joined(separator: ", ")) "
                    + "FROM \(q(current.name))")
        }
        let countGuard = DataGuard.sameRowCount(
            temp, as: current.name,
            message: "table \(d.name): the rebuilt table would hold fewer rows than the original (nothing was changed)")
        statements += DataGuard.statements([countGuard])
        guards.append(countGuard)
        if d.hasAutoincrement {
            // The sequence never goes backwards: keep the larger of the old sequence and max(rowid).
            let old = SQLValue.text(current.name).sqlLiteral
            let new = SQLValue.text(temp).sqlLiteral
            statements.append(
                "UPDATE sqlite_sequence SET seq = max(seq, coalesce((SELECT seq FROM sqlite_sequence WHERE name = \(old)), 0)) "
                    + "WHERE name = \(new)")
            statements.append(
                "INSERT INTO sqlite_sequence(name, seq) SELECT \(new), seq FROM sqlite_sequence WHERE name = \(old) "
                    + "AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = \(new))")
        }
        statements.append("DROP TABLE \(q(current.name))")
        statements.append("ALTER TABLE \(q(temp)) RENAME TO \(q(d.name))")
        statements += desired.indexes(on: d.name).map(\.sql)
        let reasons = d.differences(from: current)
        let indexes = desired.indexes(on: d.name).map(\.name)
        return PlanStep(
            kind: .rebuildTable, object: d.name,
            summary: "rebuild table \(d.name): " + reasons.joined(separator: "; ")
                + (indexes.isEmpty ? "" : " (then its indexes: \(indexes.joined(separator: ", ")))"),
            statements: statements, isDestructive: !p.dropped.isEmpty, guards: guards)
    }

    /// A fresh name for a table being rebuilt: `strata_tmp_` and 16 hexadecimal digits (the only
    /// shape of name Strata reserves for it, see ``TemporaryNames``).
    static func temporaryTableName() -> String {
        let hex = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return TemporaryNames.rebuildPrefix + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// True for `DEFAULT (expression)` and `DEFAULT CURRENT_TIME/DATE/TIMESTAMP`, which
    /// `ALTER TABLE ADD COLUMN` refuses on a table with rows.
    static func hasNonConstantDefault(_ c: ColumnInfo) -> Bool {
        // `PRAGMA table_xinfo` drops the parentheses of `DEFAULT (expr)`: read the definition.
        let tokens = SQLTokenizer.significantTokens(c.definition)
        guard let i = tokens.firstIndex(where: { $0.isKeyword("DEFAULT") }), i + 1 < tokens.count else { return false }
        let value = tokens[i + 1]
        return value.text == "(" || value.isKeyword("CURRENT_TIME") || value.isKeyword("CURRENT_DATE")
            || value.isKeyword("CURRENT_TIMESTAMP")
    }

    /// The name that reads a table's rowid, unless columns shadow all three.
    static func rowIDName(_ t: TableInfo) -> String? {
        guard t.hasRowID else { return nil }
        return ["rowid", "_rowid_", "oid"].first { t.column(named: $0) == nil }
    }

    /// A column definition fit for `ALTER TABLE ... ADD COLUMN`: a `--` comment would swallow the
    /// rest of the table's stored SQL, so line comments are dropped.
    static func withoutLineComments(_ sql: String) -> String {
        SQLTokenizer.tokenize(sql).filter { $0.kind != .lineComment }.map(\.text).joined()
            .trimmedSQL(" \t\r\n")
    }

    /// Phase C: indexes, views and triggers missing from (or different in) the copy.
    func createMissingObjects(_ desired: DatabaseSchema, into builder: inout StepBuilder) throws {
        let current = try SchemaReader(db: builder.scratch).readDependentObjects()
        let q = SQL.quoteIdentifier
        for t in current.triggers where desired.trigger(named: t.name)?.normalizedSQL != t.normalizedSQL {
            try builder.add(PlanStep(kind: .dropTrigger, object: t.name, summary: "drop trigger \(t.name)",
                                     statements: ["DROP TRIGGER \(q(t.name))"], isDestructive: false))
        }
        for v in current.views.reversed() where desired.view(named: v.name)?.normalizedSQL != v.normalizedSQL {
            try builder.add(PlanStep(kind: .dropView, object: v.name, summary: "drop view \(v.name)",
                                     statements: ["DROP VIEW \(q(v.name))"], isDestructive: false))
        }
        for i in current.indexes where desired.index(named: i.name)?.normalizedSQL != i.normalizedSQL {
            try builder.add(PlanStep(kind: .dropIndex, object: i.name, summary: "drop index \(i.name)",
                                     statements: ["DROP INDEX \(q(i.name))"], isDestructive: false))
        }
        for i in desired.indexes where current.index(named: i.name)?.normalizedSQL != i.normalizedSQL {
            try builder.add(PlanStep(kind: .createIndex, object: i.name, summary: "create index \(i.name) on \(i.table)",
                                     statements: [i.sql], isDestructive: false))
        }
        for v in desired.views where current.view(named: v.name)?.normalizedSQL != v.normalizedSQL {
            try builder.add(PlanStep(kind: .createView, object: v.name, summary: "create view \(v.name)",
                                     statements: [v.sql], isDestructive: false))
        }
        for t in desired.triggers where current.trigger(named: t.name)?.normalizedSQL != t.normalizedSQL {
            try builder.add(PlanStep(kind: .createTrigger, object: t.name, summary: "create trigger \(t.name) on \(t.table)",
                                     statements: [t.sql], isDestructive: false))
        }
    }
}

/// Orders tables so that foreign keys point backwards (parents first) or forwards.
enum ForeignKeyOrder {
    static func parentsFirst(_ tables: [TableInfo]) -> [TableInfo] {
        let byKey = Dictionary(tables.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        var visited = Set<String>()
        var result = [TableInfo]()
        func visit(_ t: TableInfo, _ path: Set<String>) {
            guard !visited.contains(t.key), !path.contains(t.key) else { return }
            for fk in t.foreignKeys {
                if let parent = byKey[fk.parentTable.asciiLowercased()], parent.key != t.key {
                    visit(parent, path.union([t.key]))
                }
            }
            if visited.insert(t.key).inserted { result.append(t) }
        }
        for t in tables { visit(t, []) }
        return result
    }

    static func childrenFirst(_ tables: [TableInfo]) -> [TableInfo] { parentsFirst(tables).reversed() }
}
