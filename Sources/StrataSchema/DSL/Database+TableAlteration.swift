import StrataSQLite

extension Database {
    /// `ALTER TABLE`: adds, renames and drops columns of an existing table.
    ///
    /// ```swift
    /// // ALTER TABLE "player" ADD COLUMN "email" TEXT NOT NULL DEFAULT ''
    /// // ALTER TABLE "player" RENAME COLUMN "name" TO "fullName"
    /// try db.alter(table: "player") { t in
    ///     t.add(column: "email", .text).notNull().defaults(to: "")
    ///     t.rename(column: "name", to: "fullName")
    ///     t.drop(column: "legacy")
    /// }
    /// ```
    ///
    /// Adding and renaming columns use SQLite's native `ALTER TABLE`. Dropping a column, and adding
    /// one that `ALTER TABLE ADD COLUMN` cannot add (PRIMARY KEY, UNIQUE, STORED generated, NOT NULL
    /// without a default, an expression default, a foreign key with a default), go through the
    /// declarative engine's safe rebuild: the table is recreated from its own SQL with the change
    /// applied, rows, indexes, triggers and views kept. All steps are atomic: on error the table
    /// is unchanged. See <https://www.sqlite.org/lang_altertable.html>.
    public func alter(table name: String, body: (TableAlterationBuilder) throws -> Void) throws {
        try alter(TableAlteration(name, body: body))
    }

    /// `ALTER TABLE`: applies a ``TableAlteration`` (see ``alter(table:body:)``).
    ///
    /// ```swift
    /// try db.alter(TableAlteration("player") { t in t.drop(column: "legacy") })
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_altertable.html>.
    public func alter(_ alteration: TableAlteration) throws {
        for case .addColumn(let column) in alteration.steps where column.isGenerated {
            try capabilities.requireGeneratedColumns(table: alteration.table, column: column.name)
        }
        let foreignKeysOn = try foreignKeysEnabled()
        let groups = alteration.executionGroups(foreignKeysOn: foreignKeysOn)
        guard groups.contains(where: \.needsRebuild) else {
            try executeDefinitionStatements(alteration.statements)
            return
        }
        // A rebuild must not fire ON DELETE actions: like the engine, turn foreign keys off
        // outside the transaction (a no-op inside one, where the engine checks it is safe).
        try withForeignKeysOff { _ in
            try transaction(.immediate) {
                for group in groups {
                    if group.needsRebuild {
                        try rebuild(alteration.table, applying: group.steps)
                    } else {
                        for sql in group.steps.flatMap(alteration.statements(for:)) {
                            try makeStatement(sql: sql).execute(arguments: StatementArguments())
                        }
                    }
                }
            }
        }
    }

    /// Brings `table` to its current definition with `steps` (drops and adds) applied, through
    /// the declarative engine: the desired schema is the live one with only this table's
    /// CREATE TABLE changed, its other columns and constraints kept as written.
    func rebuild(_ tableName: String, applying steps: [TableAlteration.Step]) throws {
        let quotedTable = SQL.quoteIdentifier(tableName)
        let live = try DatabaseSchema.read(from: self)
        guard let table = live.table(named: tableName), !table.isVirtual else {
            throw SchemaDefinitionError("table \(quotedTable): no such table in the main schema")
        }
        let create = try CreateTableStatement(sql: table.sql)
        var columns = create.columns.map { (name: $0.name, element: CreateTableDDL.Element($0.text)) }
        var newIndexes: [String] = []
        var dropsColumns = false
        for step in steps {
            switch step {
            case .addColumn(let column):
                columns.append((column.name, CreateTableDDL.Element(column.sql)))
                if column.isIndexed {
                    newIndexes.append(TableDefinition.columnIndex(table: tableName, column: column.name).sql)
                }
            case .dropColumn(let name):
                let quoted = SQL.quoteIdentifier(name)
                guard let i = columns.firstIndex(where: { $0.name.asciiLowercased() == name.asciiLowercased() }) else {
                    throw SchemaDefinitionError("table \(quotedTable): no column \(quoted) to drop")
                }
                // An index naming the column would not fail when re-created from the desired
                // schema text (SQLite reads an unknown "name" as a string): refuse clearly.
                for index in live.indexes(on: table.name)
                where index.columns.contains(where: { $0?.asciiLowercased() == name.asciiLowercased() }) {
                    throw SchemaDefinitionError(
                        "table \(quotedTable): cannot drop column \(quoted), index \(SQL.quoteIdentifier(index.name)) "
                            + "uses it (drop the index first)")
                }
                columns.remove(at: i)
                dropsColumns = true
            case .renameColumn:
                preconditionFailure("renames are native steps")
            }
        }
        guard !columns.isEmpty else {
            throw SchemaDefinitionError("table \(quotedTable): cannot drop its last column (drop the table instead)")
        }
        let sql = CreateTableDDL(
            tableName, elements: columns.map(\.element) + create.constraints.map { CreateTableDDL.Element($0) },
            isWithoutRowID: create.isWithoutRowID, isStrict: create.isStrict
        ).sql

        let statements =
            live.tables.map { $0.name == table.name ? sql : $0.sql }
            + live.indexes.map(\.sql) + newIndexes + live.views.map(\.sql) + live.triggers.map(\.sql)
        let desired = statements.map(SQLScript.terminated).joined(separator: "\n")
        // The engine picks native ALTER or a rebuild, knowing which refusals only show on a
        // table with rows (non-constant defaults, STORED generated columns).
        try migrateSchema(to: desired, options: SchemaChangeOptions(allowDestructive: dropsColumns))
    }
}

extension SQLiteCapabilities {
    /// Refuses, naming the table and column, a generated column on SQLite before 3.31.
    fileprivate func requireGeneratedColumns(table: String, column: String) throws {
        guard !supports(.generatedColumns) else { return }
        throw SchemaDefinitionError(
            "table \(SQL.quoteIdentifier(table)): column \(SQL.quoteIdentifier(column)): "
                + SQLiteFeature.generatedColumns.unavailableMessage(version))
    }
}

extension TableAlteration {
    /// Consecutive steps that run the same way: natively, or through one engine rebuild.
    struct ExecutionGroup {
        var needsRebuild: Bool
        var steps: [Step]
    }

    func executionGroups(foreignKeysOn: Bool) -> [ExecutionGroup] {
        var groups: [ExecutionGroup] = []
        for step in steps {
            let rebuild = Self.needsRebuild(step, table: table, foreignKeysOn: foreignKeysOn)
            if let last = groups.last, last.needsRebuild == rebuild {
                groups[groups.count - 1].steps.append(step)
            } else {
                groups.append(ExecutionGroup(needsRebuild: rebuild, steps: [step]))
            }
        }
        return groups
    }

    /// True for the steps `ALTER TABLE` cannot do: drops (the engine's rebuild handles every
    /// case and SQLite version), and the columns ADD COLUMN refuses (``AddColumnDDL/refusal(for:)``,
    /// the rule the planner uses too; the table may have rows).
    static func needsRebuild(_ step: Step, table: String, foreignKeysOn: Bool) -> Bool {
        switch step {
        case .renameColumn: return false
        case .dropColumn: return true
        case .addColumn(let column):
            return AddColumnDDL(table: table, definition: column.sql)
                .refusal(for: AddColumnDDL.TableState(mayHaveRows: true, foreignKeysEnforced: foreignKeysOn)) != nil
        }
    }
}
