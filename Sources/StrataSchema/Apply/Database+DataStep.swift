import StrataSQLite

/// A schema change split around a data step: the expanding part, the data step, the contracting part.
///
/// Made by ``StrataSQLite/Database/planExpandAndContract(to:options:)``. The split is made on
/// the schema, not on the steps: ``expandedSQL`` is an intermediate schema, the live one with
/// everything the desired one adds or relaxes and nothing it removes or tightens, and each part is
/// an ordinary plan of the engine (proven on a schema-only copy). What goes where:
///
/// | Change | Part |
/// |---|---|
/// | new table, new virtual table (in its desired form) | expanding |
/// | new column (its type, `COLLATE` and `DEFAULT`; `NOT NULL` only with a default) | expanding |
/// | its `CHECK`, `UNIQUE`, `REFERENCES`, `NOT NULL` without a default | contracting |
/// | `NOT NULL` dropped from a column (nothing else changed on it) | expanding |
/// | table constraint (`CHECK`, `UNIQUE`, `PRIMARY KEY`, `FOREIGN KEY`) dropped | expanding |
/// | new non-unique index | expanding |
/// | index dropped or redefined (dropped in the expanding part, made again in the contracting one) | both |
/// | view or trigger dropped or redefined (dropped, then made again) | both |
/// | new unique index, new view, new trigger | contracting |
/// | `NOT NULL`, `CHECK`, `UNIQUE`, foreign key added to an existing column or table | contracting |
/// | type, default, collation or any other change of an existing column | contracting |
/// | table, column or virtual table dropped | contracting |
/// | table options (`STRICT`, `WITHOUT ROWID`) changed | contracting |
///
/// A table that gains a column while another of its columns becomes `NOT NULL` is changed in both
/// parts: the new column is added in the expanding part (the data step can fill both), the
/// `NOT NULL` is added in the contracting part, which fails, naming the table and column and
/// rolling everything back, when the data step left NULLs there.
///
/// Renames (hinted or given in the options) are refused with a data step: the data step would
/// see either names, and old app versions break on the new ones; rename in a migration of its own.
public struct ExpandContractPlan: Sendable {
    /// The plan from the live schema to ``expandedSQL`` (empty when nothing expands).
    public let expanding: Plan
    /// The intermediate schema the data step runs against.
    public let expandedSQL: String
    /// The desired schema's text, planned again after the data step (against the database as
    /// the data step left it).
    public let desiredSQL: String
    /// The options of the contracting part (those given).
    public let options: SchemaChangeOptions
}

extension Database {
    /// Splits the change to `desiredSQL` around a data step (see ``ExpandContractPlan`` for the
    /// rules). Nothing is written.
    ///
    /// ```swift
    /// let split = try db.planExpandAndContract(to: schemaV3)
    /// print(split.expanding.summary)
    /// ```
    ///
    /// Throws ``SchemaError``: invalid desired SQL, destructive changes not allowed (listed),
    /// ``SchemaError/Code/unsupported`` for a rename (hinted or given), and the expanding plan's
    /// error, prefixed with what could not be split. The contracting part's data conditions are
    /// checked after the data step, when they can be.
    public func planExpandAndContract(
        to desiredSQL: String, options: SchemaChangeOptions = SchemaChangeOptions()
    ) throws -> ExpandContractPlan {
        // Not the whole plan: its preflight refuses what the data step is there to do (a new
        // NOT NULL column without a default on a table with rows).
        let live = try acceptingDoubleQuotedStringLiterals { try DatabaseSchema.read(from: self) }
        let desired = try desiredSchema(sql: desiredSQL)
        let diff = SchemaDiff(from: live, to: desired, exactNames: options.exactNames)
        var renames = options.renames.map(\.description)
        for table in desired.tables {
            if let from = table.renamedFrom, live.table(named: from) != nil, live.table(named: table.name) == nil {
                renames.append("table \(from) -> \(table.name)")
            }
            guard let liveTable = live.table(named: table.name) else { continue }
            for column in table.columns {
                if let from = column.renamedFrom, liveTable.column(named: from) != nil,
                    liveTable.column(named: column.name) == nil
                {
                    renames.append("column \(table.name).\(from) -> \(column.name)")
                }
            }
        }
        if !renames.isEmpty {
            throw SchemaError(
                code: .unsupported,
                message:
                    "a data step cannot share its migration with a rename (\(renames.joined(separator: ", "))): rename in a migration of its own, before or after",
                culprit: nil)
        }
        if !options.allowDestructive {
            var destructive = diff.droppedTables.map { "drop table \($0.name)" }
            for table in diff.changedTables {
                destructive += table.droppedColumns.map { "drop column \(table.live.name).\($0.name)" }
            }
            if !destructive.isEmpty {
                throw SchemaError(
                    code: .destructiveChangesRefused,
                    message: "refused \(destructive.count) destructive change\(destructive.count == 1 ? "" : "s") "
                        + "(allow destructive changes to apply): " + destructive.joined(separator: "; "),
                    culprit: diff.droppedTables.first?.name, destructiveChanges: destructive)
            }
        }
        let expandedSQL = ExpandedSchema.sql(base: live, desired: desired, diff: diff)
        var expandingOptions = options
        expandingOptions.allowDestructive = false
        let expanding: Plan
        do {
            expanding = try planSchemaChange(to: expandedSQL, options: expandingOptions)
        } catch let error as SchemaError {
            throw SchemaError(
                code: error.code,
                message: "the change cannot be split around the data step: the expanding part fails: \(error.message)",
                culprit: error.culprit, destructiveChanges: error.destructiveChanges, underlying: error.underlying)
        }
        return ExpandContractPlan(
            expanding: expanding, expandedSQL: expandedSQL, desiredSQL: desiredSQL, options: options)
    }

    /// Applies the expanding part of the change to `desiredSQL`, runs `dataStep`, then the
    /// contracting part, in one transaction (a savepoint inside a migration's transaction): on
    /// any failure (a statement of either part, an error thrown by `dataStep`, a contracting step
    /// that the rows the data step left violate) the database is left exactly as it was.
    ///
    /// ```swift
    /// try db.expandAndContract(to: schemaV3) { db in
    ///     try db.execute(sql: "INSERT INTO note_tag(note_id, tag) SELECT note.id, value FROM note, json_each(note.tags)")
    /// }
    /// ```
    ///
    /// Returns the two plans applied (the contracting one planned after the data step ran).
    @discardableResult
    public func expandAndContract(
        to desiredSQL: String, options: SchemaChangeOptions = SchemaChangeOptions(),
        dataStep: (Database) throws -> Void
    ) throws -> (expanding: Plan, contracting: Plan) {
        let expanding = try planExpandAndContract(to: desiredSQL, options: options).expanding
        var contracting: Plan?
        try inSavepointOrTransaction {
            try applySchemaChange(expanding)
            try dataStep(self)
            let plan: Plan
            do {
                plan = try planSchemaChange(to: desiredSQL, options: options)
            } catch let error as SchemaError {
                throw SchemaError(
                    code: error.code, message: "after the data step: \(error.message)", culprit: error.culprit,
                    destructiveChanges: error.destructiveChanges, underlying: error.underlying)
            }
            try applySchemaChange(plan)
            contracting = plan
        }
        return (expanding, contracting ?? expanding)
    }

    /// `body` in a savepoint when a transaction is open, else in a `BEGIN IMMEDIATE` transaction
    /// with foreign keys off around it (restored after), as ``applySchemaChange(_:)`` does.
    private func inSavepointOrTransaction(_ body: () throws -> Void) throws {
        if isInTransaction {
            try savepoint { try body() }
            return
        }
        let foreignKeys = try fetchValue(Bool.self, sql: "PRAGMA foreign_keys") ?? false
        if foreignKeys { try execute(sql: "PRAGMA foreign_keys = OFF") }
        defer { if foreignKeys { try? execute(sql: "PRAGMA foreign_keys = ON") } }
        try transaction(.immediate) {
            try body()
            if foreignKeys, let violation = try foreignKeyViolations().first {
                throw SchemaError(
                    code: .foreignKeyViolation,
                    message:
                        "after the data step: foreign key violation: \(violation) (rolled back, the database is unchanged)",
                    culprit: violation.table)
            }
        }
    }
}

/// The intermediate schema of an expand-and-contract change (see ``ExpandContractPlan``).
enum ExpandedSchema {
    static func sql(base: DatabaseSchema, desired: DatabaseSchema, diff: SchemaDiff) -> String {
        var statements: [String] = []
        let changed = Dictionary(
            diff.changedTables.map { ($0.live.name.asciiLowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        for table in base.tables {
            if let change = changed[table.name.asciiLowercased()], !table.isVirtual, !change.desired.isVirtual {
                statements.append(expandedTable(change))
            } else {
                statements.append(table.sql)  // unchanged, dropped later, or a virtual table changed later
            }
        }
        statements += diff.createdTables.map(\.sql)
        // Indexes, views and triggers: those kept as they are; new non-unique indexes.
        let droppedOrChanged = { (names: [String]) in Set(names.map { $0.asciiLowercased() }) }
        let goneIndexes = droppedOrChanged(diff.indexes.dropped.map(\.name) + diff.indexes.changed.map(\.old.name))
        statements += base.indexes.filter { !$0.sql.isEmpty && !goneIndexes.contains($0.name.asciiLowercased()) }
            .map(\.sql)
        statements += diff.indexes.created.filter { !$0.isUnique && !$0.sql.isEmpty }.map(\.sql)
        let goneViews = droppedOrChanged(diff.views.dropped.map(\.name) + diff.views.changed.map(\.old.name))
        statements += base.views.filter { !goneViews.contains($0.name.asciiLowercased()) }.map(\.sql)
        let goneTriggers = droppedOrChanged(diff.triggers.dropped.map(\.name) + diff.triggers.changed.map(\.old.name))
        statements += base.triggers.filter { !goneTriggers.contains($0.name.asciiLowercased()) }.map(\.sql)
        return statements.map(SQLScript.terminated).joined(separator: "\n")
    }

    /// The live table with the desired one's new columns (relaxed), its dropped NOT NULLs and
    /// table constraints, and nothing it tightens.
    static func expandedTable(_ change: SchemaDiff.TableChange) -> String {
        let live = change.live
        let desired = change.desired
        var definitions: [String] = []
        for column in live.columns where column.kind != .hidden {
            if let wanted = desired.column(named: column.name), relaxesNotNullOnly(from: column, to: wanted) {
                definitions.append(wanted.definition)
            } else {
                definitions.append(column.definition)
            }
        }
        for column in change.addedColumns {
            if column.isGenerated {
                definitions.append(column.definition)
                continue
            }
            var text = SQL.quoteIdentifier(column.name)
            if !column.declaredType.isEmpty { text += " " + column.declaredType }
            if let collation = column.collation { text += " COLLATE " + SQL.quoteIdentifier(collation) }
            if let defaultSQL = column.defaultSQL {
                if column.isNotNull { text += " NOT NULL" }
                text += " DEFAULT " + defaultSQL
            }
            definitions.append(text)
        }
        let kept = Set(desired.constraints.map(SQLNormalizer.normalize))
        definitions += live.constraints.filter { kept.contains(SQLNormalizer.normalize($0)) }
        var options: [String] = []
        if live.isWithoutRowID { options.append("WITHOUT ROWID") }
        if live.isStrict { options.append("STRICT") }
        return "CREATE TABLE \(SQL.quoteIdentifier(live.name))(\n  " + definitions.joined(separator: ",\n  ") + "\n)"
            + (options.isEmpty ? "" : " " + options.joined(separator: ", "))
    }

    /// True when `desired` is `live` with `NOT NULL` (and its conflict clause) removed and nothing else.
    static func relaxesNotNullOnly(from live: ColumnInfo, to desired: ColumnInfo) -> Bool {
        guard live.isNotNull, !desired.isNotNull else { return false }
        let liveTokens = SQLNormalizer.normalize(live.definition).split(separator: " ").map(String.init)
        let wanted = SQLNormalizer.normalize(desired.definition).split(separator: " ").map(String.init)
        var stripped: [String] = []
        var index = 0
        while index < liveTokens.count {
            if liveTokens[index] == "not", index + 1 < liveTokens.count, liveTokens[index + 1] == "null" {
                index += 2
                if index + 2 < liveTokens.count, liveTokens[index] == "on", liveTokens[index + 1] == "conflict" {
                    index += 3
                }
                continue
            }
            stripped.append(liveTokens[index])
            index += 1
        }
        return stripped == wanted
    }
}
