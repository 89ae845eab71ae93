import StrataSQLite

extension Planner {
    /// The table's name and the desired column keys after the native renames of a changed table.
    struct NativeRenames {
        var currentName: String
        var columns = Set<String>()
    }

    /// The trial of native renames: RENAME TO for the table, RENAME COLUMN for its columns (a
    /// swap or rotation of names through temporary names, in one step). Each is kept only when it
    /// runs on the copy (and a swap only when it gives exactly the desired table).
    ///
    /// A rename by letter case alone is kept only when the copy then stores exactly the desired
    /// name. SQLite refuses `ALTER TABLE "T" RENAME TO "t"` ("there is already another table or
    /// index with this name"), so a table goes through a temporary name, in one step;
    /// `RENAME COLUMN "Name" TO "name"` is accepted as is.
    func nativeRenames(_ p: TableChange, into builder: inout StepBuilder) throws -> NativeRenames {
        let d = p.desired
        var result = NativeRenames(currentName: p.live.name)
        if p.isRenamed, capabilities.supportsModernRenameTable {
            let caseOnly = p.live.name.asciiCaseInsensitiveEquals(d.name)
            let temporary = Self.temporaryTableName()
            let step = PlanStep.renameTable(
                caseOnly
                    ? [RenameTableDDL(p.live.name, to: temporary), RenameTableDDL(temporary, to: d.name)]
                    : [RenameTableDDL(p.live.name, to: d.name)])
            let kept = try builder.trial([step]) { scratch in
                guard caseOnly else { return true }
                return try SchemaReader(db: scratch).readTable(named: d.name)?.name == d.name
            }
            if kept { result.currentName = d.name }
        }
        // Renames onto a name the table still uses (a -> b and b -> a, or a rotation) go
        // through temporary names, all in one step: each column first to its temporary name,
        // then each to its new name. Never kept half-made: the other renames skip the group.
        let liveNames = Set(p.live.columns.map { $0.name.asciiLowercased() })
        let sources = Set(p.columnRenames.map { $0.from.asciiLowercased() })
        // (A rename by case alone takes its own name: no swap.)
        let swapped = p.columnRenames.filter {
            liveNames.contains($0.to.asciiLowercased()) && sources.contains($0.to.asciiLowercased())
                && !$0.from.asciiCaseInsensitiveEquals($0.to)
        }
        if capabilities.supportsRenameColumn, !swapped.isEmpty {
            let group = p.columnRenames.filter { r in
                swapped.contains { $0.from == r.from } || swapped.contains { $0.to.asciiCaseInsensitiveEquals(r.from) }
            }
            let temporary = group.map { _ in Self.temporaryTableName() }
            let pairs = Array(zip(group, temporary))
            let step = PlanStep.renameColumns(
                toTemporary: pairs.map { RenameColumnDDL(table: result.currentName, from: $0.0.from, to: $0.1) },
                fromTemporary: pairs.map { RenameColumnDDL(table: result.currentName, from: $0.1, to: $0.0.to) },
                table: d.name)
            // Kept only when it gives exactly the desired table: a swap keeps each column in its
            // place, so unless the desired order swaps too, the rows must move by a rebuild.
            let kept = try builder.trial([step]) { scratch in
                try SchemaReader(db: scratch).readTable(named: result.currentName).map {
                    SchemaDiff.sameDefinition($0, d)
                } ?? false
            }
            if kept {
                for r in group { result.columns.insert(r.to.asciiLowercased()) }
            }
        }
        if capabilities.supportsRenameColumn {
            for r in p.columnRenames where swapped.isEmpty {
                let step = PlanStep.renameColumn(
                    RenameColumnDDL(table: result.currentName, from: r.from, to: r.to), table: d.name)
                let kept = try builder.trial([step]) { scratch in
                    guard r.from.asciiCaseInsensitiveEquals(r.to) else { return true }
                    return try SchemaReader(db: scratch).readTable(named: result.currentName)?.column(named: r.to)?
                        .name == r.to
                }
                if kept { result.columns.insert(r.to.asciiLowercased()) }
            }
        }
        return result
    }

    /// The trial of native ALTERs for a changed table already renamed (`current`, as it is in the
    /// copy): SQLite 3.53's constraint forms, DROP COLUMN and ADD COLUMN, kept only when the copy
    /// then equals the desired table exactly. False when the table must be rebuilt.
    func nativeAlter(
        _ p: TableChange, current: TableInfo, backfill: Set<String>, into builder: inout StepBuilder
    ) throws -> Bool {
        let d = p.desired
        let currentName = current.name
        // Native DROP COLUMN / ADD COLUMN, kept only when the copy then equals the desired table.
        let addedAtEnd = d.columns.suffix(p.addedColumns.count).map(\.name) == p.addedColumns.map(\.name)
        // A column ADD COLUMN refuses (AddColumnDDL's rule) is rebuilt in. Several refusals
        // depend on rows (a STORED generated column, a non-constant default, NOT NULL without a
        // default), which the empty schema copy cannot show; rows may also arrive between planning
        // and applying, and a migration file runs on databases never seen. A NOT NULL column
        // without a default is rebuilt in so that a guard refuses a table with rows in the user's terms.
        let adds = p.addedColumns.map { AddColumnDDL(table: currentName, definition: $0.definition) }
        let addsRefused = adds.contains { $0.refusal(for: Self.addColumnState) != nil }
        if addedAtEnd, !addsRefused, backfill.isEmpty, p.droppedColumns.isEmpty || capabilities.supportsDropColumn {
            var candidate = capabilities.supportsAlterConstraints ? constraintSteps(from: current, to: d) : []
            for c in p.droppedColumns {
                candidate.append(.dropColumn(DropColumnDDL(table: currentName, column: c.name), table: d.name))
            }
            for (c, add) in zip(p.addedColumns, adds) {
                candidate.append(.addColumn(add, table: d.name, column: c.name))
            }
            // No candidate step: the table already differs (checked above), nothing to try.
            if !candidate.isEmpty, currentName.asciiCaseInsensitiveEquals(d.name) {
                let gives = { (scratch: Database) in
                    try SchemaReader(db: scratch).readTable(named: d.name).map {
                        SchemaDiff.sameDefinition($0, d) && p.hasExactNames($0)
                    } ?? false
                }
                if try builder.trial(candidate, accept: gives) { return true }
                // DROP COLUMN fails while a view or trigger uses the column: move those, try again.
                if !p.droppedColumns.isEmpty {
                    try moveDependents(
                        of: currentName, usingAnyOf: Set(p.droppedColumns.map { $0.name.asciiLowercased() }),
                        into: &builder)
                    if try builder.trial(candidate, accept: gives) { return true }
                }
            }
        }
        return false
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
        var steps = [PlanStep]()
        let change = TableChange(comparing: current, to: d)
        for text in change.droppedConstraints {
            guard let constraint = TableConstraint(sql: text), let name = constraint.name,
                constraint.kind == .check || constraint.kind == .foreignKey
            else { continue }
            steps.append(.dropConstraint(DropConstraintDDL(table: current.name, name: name), table: d.name))
        }
        for text in change.addedConstraints {
            guard TableConstraint(sql: text)?.kind == .check else { continue }
            steps.append(.addConstraint(AddCheckConstraintDDL(table: current.name, constraint: text), table: d.name))
        }
        for redefined in change.redefinedColumns {
            let (live, c) = (redefined.live, redefined.desired)
            guard live.isNotNull != c.isNotNull, !c.isGenerated, !live.isGenerated else { continue }
            // SQLite checks the rows itself ("constraint failed"); the guard (the rebuild's own, as
            // this path is taken only for a column without a DEFAULT, see Preflight.backfills) says which
            // column and how many rows, and so in the same terms as the preflight.
            let noNulls = DataCondition(
                kind: .becomesNotNull, table: d.name, column: c.name, in: current, currentColumn: live.name
            ).dataGuard
            steps.append(
                .alterNotNull(
                    AlterColumnNotNullDDL(table: current.name, column: live.name, isNotNull: c.isNotNull),
                    table: d.name, column: c.name, noNulls: c.isNotNull ? noNulls : nil))
        }
        return steps
    }

    /// Where a planned ADD COLUMN may run: on a table with rows (rows may arrive between planning
    /// and applying, and a migration file runs on databases never seen), with foreign keys on (a
    /// plan may be applied inside the caller's transaction, where they cannot be turned off).
    static let addColumnState = AddColumnDDL.TableState(mayHaveRows: true, foreignKeysEnforced: true)

    /// True when `c`, added to a table with rows, needs its rows to be absent: NOT NULL without a
    /// non-NULL default (AddColumnDDL's rule), unless it is the INTEGER PRIMARY KEY that takes
    /// over the rowid of `table`.
    static func needsEmptyTable(adding c: ColumnInfo, to d: TableInfo, from table: TableInfo) -> Bool {
        if d.rowIDAliasColumn?.name == c.name && table.hasRowID { return false }
        return AddColumnDDL(table: table.name, definition: c.definition).refusals(for: addColumnState)
            .contains(.notNullWithoutDefault)
    }
}
