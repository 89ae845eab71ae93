import StrataSQLite

/// Turns the difference between a live database and a desired schema into a proven plan.
///
/// Phases: (A) drop the views, triggers and indexes that change, and the views and triggers
/// that depend on a dropped or recreated table; (B) table steps in foreign-key order — drops,
/// creates, native ALTERs where a trial on a schema-only copy shows they give exactly the desired
/// table, rebuilds otherwise, each preceded by the moves SQLite requires (see
/// ``dropDependents(touchedTables:pairs:scope:into:)``); (C) create the indexes, views and
/// triggers that are missing. Every statement also runs on the scratch
/// copy as it is planned, and the result must equal the desired schema.
struct Planner {
    let db: Database
    let live: DatabaseSchema
    let desired: DatabaseSchema
    let options: SchemaChangeOptions
    let rowCounts = RowCounts()

    var capabilities: SQLiteCapabilities { db.capabilities }

    /// A table present in both schemas (possibly renamed).
    struct Pair {
        var live: TableInfo
        var desired: TableInfo
        var tableRenamed: Bool { !live.name.asciiCaseInsensitiveEquals(desired.name) }
        /// Desired column key -> live column name.
        var source: [String: String] = [:]
        var columnRenames: [(from: String, to: String)] = []
        var added: [ColumnInfo] = []
        var dropped: [ColumnInfo] = []
        /// Desired columns whose NULLs must be replaced by their default.
        var backfill: Set<String> = []
        var isChanged: Bool {
            tableRenamed || !columnRenames.isEmpty || live.signature != desired.signature
        }
    }

    func plan() throws -> Plan {
        try checkFeatures()
        let renames = try resolveTableRenames()
        var pairs = [Pair]()
        var created = [TableInfo]()
        var usedLive = Set<String>()
        for d in desired.tables {
            let sourceName = renames[d.key] ?? d.name
            if let l = live.table(named: sourceName), l.isVirtual == d.isVirtual {
                usedLive.insert(l.key)
                pairs.append(try pair(l, d))
            } else {
                created.append(d)
            }
        }
        let droppedTables = live.tables.filter { !usedLive.contains($0.key) }
        var changed = pairs.filter(\.isChanged)

        // Destructive changes, all listed at once.
        var destructive = [String]()
        for t in droppedTables {
            let rows = try rowCount(t)
            destructive.append("drop \(t.isVirtual ? "virtual table" : "table") \(t.name) (\(rows) row\(rows == 1 ? "" : "s"))")
        }
        for p in changed where p.live.isVirtual && !(Self.isRebuiltFromContent(p.live) && Self.isRebuiltFromContent(p.desired)) {
            destructive.append("recreate virtual table \(p.desired.name) (its rows are dropped)")
        }
        for p in changed {
            for c in p.dropped {
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
        for i in changed.indices where !changed[i].live.isVirtual { try preflight(&changed[i]) }

        // Phase A: views, triggers and indexes that go away, change, or depend on a changed table.
        let touched = Set(changed.map(\.live.key) + droppedTables.map(\.key))
        let scope = PlanScope(live: live, desired: desired, touchedTables: touched)
        let target = scope.desiredPart(of: desired, live: live)
        let scratch = try SchemaCopy.make(of: db, scope: scope)
        defer { scratch.close() }
        var builder = StepBuilder(scratch: scratch)

        try dropDependents(touchedTables: touched, pairs: changed, scope: scope, into: &builder)

        // Phase B: tables. Children are dropped before parents, parents created before children.
        for t in ForeignKeyOrder.childrenFirst(droppedTables) {
            try builder.add(
                PlanStep(
                    kind: t.isVirtual ? .dropVirtualTable : .dropTable, object: t.name,
                    summary: "drop \(t.isVirtual ? "virtual table" : "table") \(t.name)",
                    statements: ["DROP TABLE \(SQL.quoteIdentifier(t.name))"], isDestructive: true))
        }
        // In the desired file's order, parents before children.
        let pending = Set(created.map(\.key) + changed.map(\.desired.key))
        let ordered = ForeignKeyOrder.parentsFirst(desired.tables.filter { pending.contains($0.key) })
        for d in ordered {
            if let p = changed.first(where: { $0.desired.key == d.key }) {
                try planChange(p, into: &builder)
            } else {
                try builder.add(
                    PlanStep(
                        kind: d.isVirtual ? .createVirtualTable : .createTable, object: d.name,
                        summary: "create \(d.isVirtual ? "virtual table" : "table") \(d.name)",
                        statements: [d.sql] + Self.populateStatements(d), isDestructive: false))
            }
        }

        // Phase C: indexes, views and triggers that are missing or differ.
        try createMissingObjects(target, into: &builder)

        // The proof: every statement of the plan, in order, has run on this schema-only copy of the
        // live database (trials that were not kept were rolled back to their savepoints); the
        // result must be exactly the desired schema, or the plan is a bug and is never applied.
        let differences = target.differences(from: try DatabaseSchema.read(from: scratch))
        if !differences.isEmpty {
            throw SchemaError(
                code: .planDidNotConverge,
                message: "proof failed, the plan does not yield the desired schema (a bug in Strata; nothing was "
                    + "applied): " + differences.joined(separator: "; "))
        }

        var checkTables = Set<String>()
        for p in changed { checkTables.insert(p.desired.key) }
        for t in desired.tables where !t.isVirtual {
            if t.foreignKeys.contains(where: { checkTables.contains($0.parentTable.asciiLowercased()) })
                || created.contains(where: { $0.key == t.key })
            {
                checkTables.insert(t.key)
            }
        }
        let rebuiltOrDropped = Set(builder.rebuiltTables + droppedTables.map(\.key))
        let rebuiltLiveKeys = Set(changed.filter { rebuiltOrDropped.contains($0.desired.key) }.map(\.live.key))
            .union(droppedTables.map(\.key))
        let children = live.tables.filter { child in
            child.foreignKeys.contains { rebuiltLiveKeys.contains($0.parentTable.asciiLowercased()) }
        }.map(\.name)
        var tableRenames = [String: String]()
        for p in changed where p.tableRenamed { tableRenames[p.live.key] = p.desired.name }

        return Plan(
            steps: builder.steps, destructiveChanges: destructive, base: live, desired: desired,
            foreignKeyCheckTables: desired.tables.filter { checkTables.contains($0.key) }.map(\.name),
            childrenOfRebuiltTables: children, tableRenames: tableRenames)
    }

    /// Refuses a desired table that needs a feature the connection's SQLite lacks (the desired SQL
    /// may have been read by a newer SQLite, or ``Configuration/capabilityLimit`` lowers this one).
    func checkFeatures() throws {
        for table in desired.tables {
            var needed = [SQLiteFeature]()
            if table.isStrict { needed.append(.strictTables) }
            if table.columns.contains(where: \.isGenerated) { needed.append(.generatedColumns) }
            if let missing = needed.first(where: { !capabilities.supports($0) }) {
                throw SchemaError(
                    code: .featureUnavailable,
                    message: "table \(table.name): \(missing.unavailableMessage(capabilities.version))")
            }
        }
    }

    /// An FTS table over external content starts empty: `'rebuild'` indexes the rows already in
    /// its content table. See <https://www.sqlite.org/fts5.html#external_content_tables>.
    static func populateStatements(_ t: TableInfo) -> [String] {
        guard isRebuiltFromContent(t) else { return [] }
        let name = SQL.quoteIdentifier(t.name)
        return ["INSERT INTO \(name)(\(name)) VALUES ('rebuild')"]
    }

    /// An FTS4/FTS5 table over external content (`content=table`): it holds no rows of its own, so
    /// recreating it (a new tokenizer, new options) and indexing its content table again with
    /// `'rebuild'` loses nothing. A contentless table (`content=''`) cannot be rebuilt.
    static func isRebuiltFromContent(_ t: TableInfo) -> Bool {
        guard t.isVirtual, let module = t.module?.asciiLowercased(), ["fts4", "fts5"].contains(module),
            let content = VirtualTableArguments(sql: t.sql)?.option("content"), !content.isEmpty
        else { return false }
        return true
    }

    // MARK: Renames

    /// Desired table key -> live table name, from hints and options.
    func resolveTableRenames() throws -> [String: String] {
        var result = [String: String]()
        var requests = desired.tables.compactMap { t in t.renamedFrom.map { (from: $0, to: t.name) } }
        for r in options.renames where r.table == nil {
            guard desired.table(named: r.to) != nil else {
                throw SchemaError(
                    code: .unresolvedRename,
                    message: "rename \(r): the desired schema has no table \(r.to)")
            }
            requests.append((from: r.from, to: r.to))
        }
        for r in requests {
            let hasOld = live.table(named: r.from) != nil
            let hasNew = live.table(named: r.to) != nil
            switch (hasOld, hasNew) {
            case (true, false): result[r.to.asciiLowercased()] = live.table(named: r.from)!.name
            case (false, true): continue  // already renamed
            case (true, true) where r.from.asciiCaseInsensitiveEquals(r.to): continue
            case (true, true):
                throw SchemaError(
                    code: .unresolvedRename,
                    message: "table \(r.to): renamed from \(r.from), but the database has both \(r.from) and \(r.to)")
            case (false, false):
                throw SchemaError(
                    code: .unresolvedRename,
                    message: "table \(r.to): `-- @renamed from=\(r.from)` names no table in the database")
            }
        }
        return result
    }

    func pair(_ l: TableInfo, _ d: TableInfo) throws -> Pair {
        var p = Pair(live: l, desired: d)
        guard !l.isVirtual else { return p }
        var used = Set<String>()
        for c in d.columns {
            let explicit = Self.renameOption(to: c.name, in: d, options: options)
            let hint = explicit ?? c.renamedFrom
            let isExplicit = explicit != nil
            let same = l.column(named: c.name)
            if let hint, !hint.asciiCaseInsensitiveEquals(c.name) {
                let old = l.column(named: hint)
                switch (old, same) {
                case (let old?, nil):
                    p.source[c.name.asciiLowercased()] = old.name
                    p.columnRenames.append((from: old.name, to: c.name))
                    used.insert(old.name.asciiLowercased())
                    continue
                case (nil, _?):
                    break  // already renamed
                case (let old?, let same?) where isExplicit && Self.isRenamedAway(same.name, in: d, options: options, except: c.name):
                    // Names swapped or rotated (a -> b and b -> a), given as rename options: the live
                    // column with this name is itself renamed to another desired column. As hints in
                    // the desired schema a swap could never be told from one already made (both names
                    // always exist), so it would apply again on every run: refused below.
                    p.source[c.name.asciiLowercased()] = old.name
                    p.columnRenames.append((from: old.name, to: c.name))
                    used.insert(old.name.asciiLowercased())
                    continue
                case (_?, let same?):
                    if Self.isRenamedAway(same.name, in: d, options: options, except: c.name, includingHints: true) {
                        throw SchemaError(
                            code: .unresolvedRename,
                            message: "column \(d.name).\(c.name): renamed from \(hint) while \(same.name) is renamed too: "
                                + "a swap or rotation of names cannot be a `-- @renamed` hint (the database has both names "
                                + "before and after, so it would be applied again on every run); give the renames once "
                                + "as options instead (strata plan/apply --rename-column \(d.name).\(hint):\(c.name) ...)")
                    }
                    throw SchemaError(
                        code: .unresolvedRename,
                        message: "column \(d.name).\(c.name): renamed from \(hint), but table \(l.name) has both")
                case (nil, nil):
                    throw SchemaError(
                        code: .unresolvedRename,
                        message: "column \(d.name).\(c.name): `-- @renamed from=\(hint)` names no column of table \(l.name)")
                }
            }
            if let same {
                p.source[c.name.asciiLowercased()] = same.name
                used.insert(same.name.asciiLowercased())
            } else {
                p.added.append(c)
            }
        }
        for r in options.renames where r.table.map({ $0.asciiCaseInsensitiveEquals(d.name) }) ?? false {
            if d.column(named: r.to) == nil {
                throw SchemaError(
                    code: .unresolvedRename,
                    message: "rename \(r): table \(d.name) has no column \(r.to) in the desired schema")
            }
        }
        p.dropped = l.columns.filter { !used.contains($0.name.asciiLowercased()) }
        return p
    }

    /// True when another desired column of `d` than `except` is renamed from live column `name` by
    /// a rename option (or also by a `-- @renamed` hint when `includingHints`).
    static func isRenamedAway(
        _ name: String, in d: TableInfo, options: SchemaChangeOptions, except: String, includingHints: Bool = false
    ) -> Bool {
        d.columns.contains { other in
            guard !other.name.asciiCaseInsensitiveEquals(except) else { return false }
            let hint = renameOption(to: other.name, in: d, options: options) ?? (includingHints ? other.renamedFrom : nil)
            return hint?.asciiCaseInsensitiveEquals(name) == true
        }
    }

    /// The old name a rename option gives desired column `column` of table `d` (the last such
    /// option wins, as a later option overrides an earlier one), or nil.
    static func renameOption(to column: String, in d: TableInfo, options: SchemaChangeOptions) -> String? {
        options.renames.last { r in
            r.table.map { $0.asciiCaseInsensitiveEquals(d.name) } == true && r.to.asciiCaseInsensitiveEquals(column)
        }?.from
    }

    // MARK: Preflight

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
    func preflight(_ p: inout Pair) throws {
        for c in p.added where c.isNotNull && c.defaultSQL == nil && !c.isGenerated {
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
        if let alias = p.desired.rowIDAliasColumn, let sourceName = p.source[alias.name.asciiLowercased()],
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
            guard let sourceName = p.source[c.name.asciiLowercased()], let lc = p.live.column(named: sourceName),
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
