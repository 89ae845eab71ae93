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
        // An online rebuild resumes after a kill by finding its temporary table again: its name
        // is derived from the change (the old and the new table), not drawn at random.
        let temp =
            options.considersOnline
            ? Self.temporaryTableName(digesting: current.name + "\u{1F}" + current.sql + "\u{1F}" + d.sql)
            : Self.temporaryTableName()
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
        let copy = copied.isEmpty ? nil : RebuildCopyDDL(into: temp, from: current.name, columns: copied)
        var (online, onlineRefusal) = Self.onlineRebuild(from: current, to: d, copy: copy)
        if online != nil {
            // The new table is filled without its foreign keys (see `OnlineRebuildDDL`).
            let stored = try CreateTableStatement(sql: create.sql)
            if !stored.foreignKeys.isEmpty {
                if let staging = stored.withoutForeignKeys {
                    let rest = Array(create.sql.utf8)[stored.nameRange.upperBound...]
                    online?.stagingCreateSQL = staging
                    online?.foreignKeyProbeSQL =
                        "CREATE TEMP TABLE " + SQL.quoteIdentifier(temp) + String(decoding: rest, as: UTF8.self)
                    online?.foreignKeyCount = stored.foreignKeys.count
                } else {
                    (online, onlineRefusal) = (nil, "its foreign keys cannot be told apart in its CREATE TABLE")
                }
            }
        }
        let countGuard = DataGuard.sameRowCount(
            temp, as: current.name,
            message: "table \(d.name): the rebuilt table would hold fewer rows than the original (nothing was changed)",
            culprit: d.name)
        return .rebuildTable(
            PlanStep.Rebuild(
                guards: guards, create: create,
                copy: copy,
                countGuard: countGuard,
                // The sequence never goes backwards: keep the larger of the old sequence and max(rowid).
                sequence: d.hasAutoincrement ? SequenceCarryOverDDL(from: current.name, to: temp) : nil,
                dropOld: DropDDL.table(current.name), rename: RenameTableDDL(temp, to: d.name),
                indexes: desired.indexes(on: d.name),
                reasons: TableChange(
                    comparing: current, to: d, exactTableName: p.comparesTableNameExactly, exactColumns: p.exactColumns
                ).descriptions,
                dropsColumns: !p.droppedColumns.isEmpty, online: online, onlineRefusal: onlineRefusal))
    }

    /// The statements that rebuild `current` into `d` online with `copy`, or why it cannot be:
    /// both tables need a rowid, and every row must keep its rowid (the log and the batches
    /// find a row of the new table by the rowid of the old one).
    static func onlineRebuild(
        from current: TableInfo, to d: TableInfo, copy: RebuildCopyDDL?
    ) -> (OnlineRebuildDDL?, String?) {
        guard current.hasRowID else { return (nil, "it is a WITHOUT ROWID table") }
        guard d.hasRowID else { return (nil, "it becomes a WITHOUT ROWID table") }
        guard let from = rowIDName(current), let to = rowIDName(d) else {
            return (nil, "columns named rowid, _rowid_ and oid hide its rowid")
        }
        guard let copy else { return (nil, "no column is carried over") }
        let keepsRowID: Bool
        if let alias = d.rowIDAliasColumn {
            let sources = [from] + (current.rowIDAliasColumn.map { [SQL.quoteIdentifier($0.name)] } ?? [])
            keepsRowID = copy.columns.contains { $0.target == .column(alias.name) && sources.contains($0.expression) }
        } else {
            keepsRowID = copy.columns.contains { if case .rowID = $0.target { true } else { false } }
        }
        guard keepsRowID else {
            return (nil, "its rows take new rowids (its INTEGER PRIMARY KEY takes the values of another column)")
        }
        return (OnlineRebuildDDL(copy: copy, sourceRowID: from, tableRowID: to), nil)
    }

    /// A temporary table name derived from `text` (its XXH64 digest, as the fingerprint's): the
    /// same change gets the same name on every run.
    static func temporaryTableName(digesting text: String) -> String {
        let hex = String(XXH64.hash(text), radix: 16)
        return TemporaryNames.rebuildPrefix + String(repeating: "0", count: 16 - hex.count) + hex
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
