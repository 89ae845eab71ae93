import StrataSQLite

/// What the preflight (phase 2) found, before any step is planned: the destructive changes, the
/// conditions the data must meet (counted now, checked again by guards inside the applying
/// transaction) and the columns whose NULLs are backfilled. The later phases read it; nothing is
/// written into the diff.
struct Preflight {
    /// A change that loses data, as the refusal and ``Plan/destructiveChanges`` list it.
    struct DestructiveChange {
        /// One line: `drop table t (3 rows)`, `drop column t.c (3 rows)`...
        var description: String
        /// What the line names first: a table, a virtual table, `table.column`.
        var culprit: String
    }

    var destructiveChanges: [DestructiveChange] = []
    /// The data conditions of the changed ordinary tables, in the order they were counted.
    var conditions: [DataCondition] = []
    /// The first condition the data breaks now, with the number of rows that break it (counting
    /// stops there): the plan fails with `preflight-failed`.
    var violation: (condition: DataCondition, rows: Int)?
    /// Desired table key -> the desired column keys whose NULLs are replaced by their DEFAULT (a
    /// column that becomes NOT NULL and has one).
    var backfills: [String: Set<String>] = [:]

    func backfill(of p: SchemaDiff.TableChange) -> Set<String> { backfills[p.desired.key] ?? [] }

    /// The `preflight-failed` error of ``violation``.
    var violationError: SchemaError? {
        violation.map {
            SchemaError(
                code: .preflightFailed, message: $0.condition.preflightMessage(violations: $0.rows),
                culprit: $0.condition.table)
        }
    }

    /// The refusal of the destructive changes (unless ``SchemaChangeOptions/allowDestructive``),
    /// carrying `plan`, the proven plan that allowing them would apply (nil when there is none).
    func refusal(plan: Plan?) -> SchemaError {
        let lines = destructiveChanges.map(\.description)
        return SchemaError(
            code: .destructiveChangesRefused,
            message: "refused \(lines.count) destructive change\(lines.count == 1 ? "" : "s") "
                + "(allow destructive changes to apply): " + lines.joined(separator: "; "),
            culprit: destructiveChanges.first?.culprit, destructiveChanges: lines, plan: plan)
    }
}

extension Planner {
    /// Phase 2: every destructive change of `diff`, all listed at once, and for each changed
    /// ordinary table its data conditions, counted (``preflight(_:into:)``). Throws only what
    /// SQLite throws: a refusal or a failed condition is decided by ``plan()``.
    func preflight(_ diff: SchemaDiff) throws -> Preflight {
        var result = Preflight()
        for t in diff.droppedTables {
            let rows = try rowCount(t)
            result.destructiveChanges.append(
                .init(
                    description:
                        "drop \(t.isVirtual ? "virtual table" : "table") \(t.name) (\(rows) row\(rows == 1 ? "" : "s"))",
                    culprit: t.name))
        }
        for p in diff.changedTables
        where p.live.isVirtual && !(Self.isRebuiltFromContent(p.live) && Self.isRebuiltFromContent(p.desired)) {
            result.destructiveChanges.append(
                .init(
                    description: "recreate virtual table \(p.desired.name) (its rows are dropped)",
                    culprit: p.desired.name))
        }
        for p in diff.changedTables {
            for c in p.droppedColumns {
                let rows = try rowCount(p.live)
                result.destructiveChanges.append(
                    .init(
                        description: "drop column \(p.live.name).\(c.name) (\(rows) row\(rows == 1 ? "" : "s"))",
                        culprit: "\(p.live.name).\(c.name)"))
            }
        }
        for p in diff.changedTables where !p.live.isVirtual { try preflight(p, into: &result) }
        return result
    }

    /// Rows of live table `t`, counted once per plan (a count scans the whole table).
    func rowCount(_ t: TableInfo) throws -> Int {
        if let known = rowCounts.values[t.key] { return known }
        let count = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM \(SQL.quoteIdentifier(t.name))") ?? 0
        rowCounts.values[t.key] = count
        return count
    }

    /// Memoized row counts; a class so the (value-typed) planner can fill it while planning.
    final class RowCounts {
        var values = [String: Int]()
    }

    /// The data conditions of changed table `p`, each counted now until one is broken (the same
    /// conditions are checked again by guards inside the applying transaction, see
    /// ``dataConditions(_:in:currentName:)``), and its backfilled columns.
    func preflight(_ p: TableChange, into result: inout Preflight) throws {
        let (conditions, backfill) = Self.dataConditions(p, in: p.live) { p.source(of: $0.name) }
        if !backfill.isEmpty { result.backfills[p.desired.key] = backfill }
        result.conditions += conditions
        guard result.violation == nil else { return }
        for condition in conditions {
            let count: Int
            if case .addsNotNullColumn = condition.kind {
                count = try rowCount(p.live)
            } else {
                count = try db.fetchValue(Int.self, sql: condition.dataGuard.violationCount ?? "SELECT 0") ?? 0
            }
            if count > 0 {
                result.violation = (condition, count)
                return
            }
        }
    }

    /// What the data must satisfy for `p`, with `current` the table as it is when the change
    /// runs (the live table, or the copy's after native renames) and `currentName` the name each
    /// desired column has there (nil for an added column). Stated once, checked twice: by the
    /// preflight when planning, with counts, and by the rebuild's guards inside the transaction.
    ///
    /// Also returns the desired columns (keys) whose NULLs are replaced by their DEFAULT instead
    /// (a column that becomes NOT NULL and has one): rows may change before the plan is applied,
    /// and a migration file runs on databases never seen, so they are backfilled whatever the
    /// data holds now.
    static func dataConditions(
        _ p: TableChange, in current: TableInfo, currentName: (ColumnInfo) -> String?
    ) -> (conditions: [DataCondition], backfill: Set<String>) {
        let d = p.desired
        var conditions = [DataCondition]()
        var backfill = Set<String>()
        for c in p.addedColumns where Self.needsEmptyTable(adding: c, to: d, from: current) {
            conditions.append(
                DataCondition(kind: .addsNotNullColumn, table: d.name, column: c.name, in: current, currentColumn: nil))
        }
        for c in d.columns where !c.isGenerated {
            guard let name = currentName(c), let currentColumn = current.column(named: name) else { continue }
            let mayHoldNull = !currentColumn.isNotNull || currentColumn.isGenerated
            guard mayHoldNull else { continue }
            if d.rowIDAliasColumn?.name == c.name,
                current.rowIDAliasColumn?.name.asciiCaseInsensitiveEquals(currentColumn.name) != true
            {
                // SQLite would turn a NULL into a new rowid, silently changing the data.
                conditions.append(
                    DataCondition(
                        kind: .becomesRowIDAlias, table: d.name, column: c.name, in: current, currentColumn: name))
            } else if c.isNotNull {
                if c.defaultSQL != nil {
                    backfill.insert(c.name.asciiLowercased())
                } else {
                    conditions.append(
                        DataCondition(
                            kind: .becomesNotNull, table: d.name, column: c.name, in: current, currentColumn: name))
                }
            }
        }
        return (conditions, backfill)
    }
}
