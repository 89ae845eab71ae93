import StrataSQLite

extension Planner {
    /// Phase 2: every destructive change of `diff`, one line each, all listed at once; refused
    /// unless ``SchemaChangeOptions/allowDestructive``.
    func destructiveChanges(_ diff: SchemaDiff) throws -> [String] {
        var destructive = [String]()
        for t in diff.droppedTables {
            let rows = try rowCount(t)
            destructive.append("drop \(t.isVirtual ? "virtual table" : "table") \(t.name) (\(rows) row\(rows == 1 ? "" : "s"))")
        }
        for p in diff.changedTables
        where p.live.isVirtual && !(Self.isRebuiltFromContent(p.live) && Self.isRebuiltFromContent(p.desired)) {
            destructive.append("recreate virtual table \(p.desired.name) (its rows are dropped)")
        }
        for p in diff.changedTables {
            for c in p.droppedColumns {
                let rows = try rowCount(p.live)
                destructive.append("drop column \(p.live.name).\(c.name) (\(rows) row\(rows == 1 ? "" : "s"))")
            }
        }
        if !destructive.isEmpty, !options.allowDestructive {
            throw SchemaError(
                code: .destructiveChangesRefused,
                message: "refused \(destructive.count) destructive change\(destructive.count == 1 ? "" : "s") "
                    + "(allow destructive changes to apply): " + destructive.joined(separator: "; "),
                destructiveChanges: destructive)
        }
        return destructive
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

    /// Fails before any statement is written when the data cannot take the change.
    func preflight(_ p: inout TableChange) throws {
        for c in p.addedColumns where c.isNotNull && c.defaultSQL == nil && !c.isGenerated {
            if p.desired.rowIDAliasColumn?.name == c.name && p.live.hasRowID { continue }
            let count = try rowCount(p.live)
            if count > 0 {
                throw SchemaError(
                    code: .preflightFailed,
                    message: "table \(p.desired.name): cannot add column \(c.name) NOT NULL without a DEFAULT: "
                        + "the table has \(count) row\(count == 1 ? "" : "s")")
            }
        }
        // A column that becomes the INTEGER PRIMARY KEY: SQLite would turn its NULLs into new
        // rowids, silently changing the data.
        if let alias = p.desired.rowIDAliasColumn, let sourceName = p.sources[alias.name.asciiLowercased()],
            let lc = p.live.column(named: sourceName), p.live.rowIDAliasColumn?.name.asciiCaseInsensitiveEquals(lc.name) != true
        {
            let nulls = try db.fetchValue(
                Int.self,
                sql: "SELECT count(*) FROM \(SQL.quoteIdentifier(p.live.name)) WHERE \(SQL.quoteIdentifier(lc.name)) IS NULL"
            ) ?? 0
            if nulls > 0 {
                throw SchemaError(
                    code: .preflightFailed,
                    message: "table \(p.desired.name): column \(alias.name) becomes the INTEGER PRIMARY KEY but \(nulls) "
                        + "row\(nulls == 1 ? " holds" : "s hold") NULL (SQLite would replace it with a new rowid)")
            }
        }
        for c in p.desired.columns where c.isNotNull && !c.isGenerated {
            guard let sourceName = p.sources[c.name.asciiLowercased()], let lc = p.live.column(named: sourceName),
                !lc.isNotNull || lc.isGenerated
            else { continue }
            // With a default, NULLs are backfilled whatever the data holds now: rows may change before
            // the plan is applied, and a migration file runs on databases never seen.
            if c.defaultSQL != nil {
                p.backfill.insert(c.name.asciiLowercased())
                continue
            }
            let nulls = try db.fetchValue(
                Int.self,
                sql: "SELECT count(*) FROM \(SQL.quoteIdentifier(p.live.name)) WHERE \(SQL.quoteIdentifier(lc.name)) IS NULL"
            ) ?? 0
            if nulls > 0 {
                throw SchemaError(
                    code: .preflightFailed,
                    message: "table \(p.desired.name): column \(c.name) becomes NOT NULL but \(nulls) "
                        + "row\(nulls == 1 ? " holds" : "s hold") NULL and it has no DEFAULT")
            }
        }
    }
}
