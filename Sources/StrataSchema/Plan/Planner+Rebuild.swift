import StrataSQLite

extension Planner {
    /// The statements of a safe rebuild of `current` into `d` (see ARCHITECTURE.md, "Rebuilding a table safely").
    ///
    /// The copy never loses a row silently: it runs as `INSERT OR ABORT`, which overrides any
    /// `ON CONFLICT REPLACE/IGNORE` of the new definition (a conflicting row fails the plan instead of
    /// replacing or skipping another; <https://www.sqlite.org/lang_conflict.html>), and a guard
    /// compares the row counts of both tables before the old one is dropped. The data conditions the
    /// preflight checked when planning are checked again by guards inside the applying transaction.
    func rebuildStep(
        from current: TableInfo, to d: TableInfo, pair p: TableChange, renamedNatively: Set<String>,
        backfill: Set<String>
    ) throws -> PlanStep {
        let temp = Self.temporaryTableName()
        let create = try CreateTableDDL.copy(of: CreateTableStatement(sql: d.sql), named: temp)
        var copied = [RebuildCopyDDL.Assignment]()
        // The conditions the preflight checked, checked again inside the applying transaction.
        let columnName = { (c: ColumnInfo) -> String? in
            renamedNatively.contains(c.name.asciiLowercased()) ? c.name : p.source(of: c.name)
        }
        let guards = Self.dataConditions(p, in: current, currentName: columnName).conditions.map(\.dataGuard)
        for c in d.columns where !c.isGenerated {
            if let currentName = columnName(c) {
                guard current.column(named: currentName) != nil else { continue }
                var expr = SQL.quoteIdentifier(currentName)
                if backfill.contains(c.name.asciiLowercased()), let def = c.defaultSQL {
                    expr = "coalesce(\(expr), \(SQLNormalizer.defaultValueExpression(def)))"
                }
                copied.append(.init(.column(c.name), expr))
            } else if d.rowIDAliasColumn?.name == c.name, let rowid = Self.rowIDName(current) {
                // A new INTEGER PRIMARY KEY takes over the old rowid.
                copied.append(.init(.column(c.name), rowid))
            }
        }
        if current.hasRowID, d.hasRowID, d.rowIDAliasColumn == nil,
            let from = Self.rowIDName(current), let to = Self.rowIDName(d)
        {
            copied.insert(.init(.rowID(to), from), at: 0)
        }
        let countGuard = DataGuard.sameRowCount(
            temp, as: current.name,
            message: "table \(d.name): the rebuilt table would hold fewer rows than the original (nothing was changed)",
            culprit: d.name)
        return .rebuildTable(
            PlanStep.Rebuild(
                guards: guards, create: create,
                copy: copied.isEmpty ? nil : RebuildCopyDDL(into: temp, from: current.name, columns: copied),
                countGuard: countGuard,
                // The sequence never goes backwards: keep the larger of the old sequence and max(rowid).
                sequence: d.hasAutoincrement ? SequenceCarryOverDDL(from: current.name, to: temp) : nil,
                dropOld: DropDDL.table(current.name), rename: RenameTableDDL(temp, to: d.name),
                indexes: desired.indexes(on: d.name),
                reasons: TableChange(
                    comparing: current, to: d, exactTableName: p.comparesTableNameExactly, exactColumns: p.exactColumns
                ).descriptions,
                dropsColumns: !p.droppedColumns.isEmpty))
    }

    /// A fresh name for a table being rebuilt: `strata_tmp_` and 16 hexadecimal digits (the only
    /// shape of name Strata reserves for it, see ``TemporaryNames``).
    static func temporaryTableName() -> String {
        let hex = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return TemporaryNames.rebuildPrefix + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The name that reads a table's rowid, unless columns shadow all three.
    static func rowIDName(_ t: TableInfo) -> String? {
        guard t.hasRowID else { return nil }
        return ["rowid", "_rowid_", "oid"].first { t.column(named: $0) == nil }
    }
}
