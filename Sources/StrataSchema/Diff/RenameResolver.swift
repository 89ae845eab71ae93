import StrataSQLite

/// Resolves the renames of a schema change: `-- @renamed from=OLD` hints of the desired schema
/// and ``SchemaRename`` options, against the live schema. A hint is idempotent: once applied, the
/// old name is gone and the new one exists, so it resolves to nothing.
///
/// A hint or option whose old name is the new one in another letter case (`-- @renamed
/// from=Username` on column `username`) is a case-only rename: the stored name must then be
/// exactly the desired one. Once it is, the rename resolves to nothing, like any other.
struct RenameResolver {
    let live: DatabaseSchema
    let desired: DatabaseSchema
    let options: [SchemaRename]
    /// ``SchemaChangeOptions/exactNames``: every desired column's stored name must be exact.
    var exactNames = false

    /// The columns of a live table a desired table's columns come from.
    struct ColumnSources {
        /// Desired column key -> the live column it comes from.
        var sources: [String: String] = [:]
        /// Desired column keys whose stored name must be exactly the desired one (a case-only
        /// rename hinted or given as an option, or every column with ``RenameResolver/exactNames``).
        var exact: Set<String> = []
    }

    /// Desired table key -> live table name, from hints and options. A case-only rename is
    /// listed too (its live table is the one of the same name ignoring case): its stored name
    /// must be exactly the desired one.
    func tableSources() throws -> [String: String] {
        // A column rename names its table by the desired name; naming another is an error, not
        // an option silently unused (the column would be dropped and added).
        for r in options {
            guard let table = r.table, desired.table(named: table) == nil else { continue }
            let renamed = options.first { $0.table == nil && $0.from.asciiCaseInsensitiveEquals(table) }
            throw SchemaError(
                code: .unresolvedRename,
                message: "rename \(r): the desired schema has no table \(table)"
                    + (renamed.map { " (name the table by its new name, \($0.to))" } ?? ""),
                culprit: "\(table).\(r.to)")
        }
        var result = [String: String]()
        var requests = desired.tables.compactMap { t in t.renamedFrom.map { (from: $0, to: t.name) } }
        for r in options where r.table == nil {
            guard desired.table(named: r.to) != nil else {
                throw SchemaError(
                    code: .unresolvedRename,
                    message: "rename \(r): the desired schema has no table \(r.to)", culprit: r.to)
            }
            requests.append((from: r.from, to: r.to))
        }
        for r in requests {
            let hasOld = live.table(named: r.from) != nil
            let hasNew = live.table(named: r.to) != nil
            switch (hasOld, hasNew) {
            case (true, false):
                let source = live.table(named: r.from)!.name
                if let first = result.first(where: {
                    $0.value.asciiCaseInsensitiveEquals(source) && !$0.key.asciiCaseInsensitiveEquals(r.to)
                }) {
                    throw SchemaError(
                        code: .unresolvedRename,
                        message: "table \(r.to): renamed from \(r.from), as is table "
                            + (desired.table(named: first.key)?.name ?? first.key),
                        culprit: r.to)
                }
                result[r.to.asciiLowercased()] = source
            case (false, true): continue  // already renamed
            case (true, true) where r.from.asciiCaseInsensitiveEquals(r.to):
                // A case-only rename: one table, whose stored name must be exactly `to`.
                let source = live.table(named: r.to)!.name
                if let first = result.first(where: {
                    $0.value.asciiCaseInsensitiveEquals(source) && !$0.key.asciiCaseInsensitiveEquals(r.to)
                }) {
                    throw SchemaError(
                        code: .unresolvedRename,
                        message: "table \(r.to): renamed from \(r.from) (its letter case), while table "
                            + (desired.table(named: first.key)?.name ?? first.key) + " is renamed from it too",
                        culprit: r.to)
                }
                result[r.to.asciiLowercased()] = source
            case (true, true):
                throw SchemaError(
                    code: .unresolvedRename,
                    message: "table \(r.to): renamed from \(r.from), but the database has both \(r.from) and \(r.to)",
                    culprit: r.to)
            case (false, false):
                throw SchemaError(
                    code: .unresolvedRename,
                    message: "table \(r.to): `-- @renamed from=\(r.from)` names no table in the database", culprit: r.to
                )
            }
        }
        return result
    }

    /// Desired column key -> the live column of `l` it comes from, for live table `l` becoming
    /// desired table `d`: the column a hint or option names, else the column of the same name.
    func columnSources(_ l: TableInfo, _ d: TableInfo) throws -> ColumnSources {
        var sources = [String: String]()
        var caseRenamed = Set<String>()  // desired column keys with a case-only hint or option
        guard !l.isVirtual else { return ColumnSources() }
        for c in d.columns {
            let explicit = Self.renameOption(to: c.name, in: d, options: options)
            let hint = explicit ?? c.renamedFrom
            let same = l.column(named: c.name)
            if let hint, hint.asciiCaseInsensitiveEquals(c.name) {
                // A case-only rename: the column of the same name, whose stored name must be exact.
                guard same != nil else {
                    throw SchemaError(
                        code: .unresolvedRename,
                        message:
                            "column \(d.name).\(c.name): `-- @renamed from=\(hint)` names no column of table \(l.name)",
                        culprit: "\(d.name).\(c.name)")
                }
                caseRenamed.insert(c.name.asciiLowercased())
            }
            if let hint, !hint.asciiCaseInsensitiveEquals(c.name) {
                switch (l.column(named: hint), same) {
                case (let old?, nil):
                    sources[c.name.asciiLowercased()] = old.name
                    continue
                case (nil, _?):
                    break  // already renamed
                case (let old?, let same?)
                where explicit != nil && Self.isRenamedAway(same.name, in: d, options: options, except: c.name):
                    // Names swapped or rotated (a -> b and b -> a), given as rename options: the live
                    // column with this name is itself renamed to another desired column. As hints in
                    // the desired schema a swap could never be told from one already made (both names
                    // always exist), so it would apply again on every run: refused below.
                    sources[c.name.asciiLowercased()] = old.name
                    continue
                case (_?, let same?):
                    if Self.isRenamedAway(same.name, in: d, options: options, except: c.name, includingHints: true) {
                        throw SchemaError(
                            code: .unresolvedRename,
                            message:
                                "column \(d.name).\(c.name): renamed from \(hint) while \(same.name) is renamed too: "
                                + "a swap or rotation of names cannot be a `-- @renamed` hint (the database has both names "
                                + "before and after, so it would be applied again on every run); give the renames once "
                                + "as options instead (strata plan/apply --rename-column \(d.name).\(hint):\(c.name) ...)",
                            culprit: "\(d.name).\(c.name)")
                    }
                    throw SchemaError(
                        code: .unresolvedRename,
                        message: "column \(d.name).\(c.name): renamed from \(hint), but table \(l.name) has both",
                        culprit: "\(d.name).\(c.name)")
                case (nil, nil):
                    throw SchemaError(
                        code: .unresolvedRename,
                        message:
                            "column \(d.name).\(c.name): `-- @renamed from=\(hint)` names no column of table \(l.name)",
                        culprit: "\(d.name).\(c.name)")
                }
            }
            if let same { sources[c.name.asciiLowercased()] = same.name }
        }
        // Two desired columns renamed from one live column contradict each other.
        var renamedTo = [String: String]()  // live column key -> the first desired column renamed from it
        for c in d.columns {
            guard let source = sources[c.name.asciiLowercased()], !source.asciiCaseInsensitiveEquals(c.name) else {
                continue
            }
            if let first = renamedTo[source.asciiLowercased()] {
                throw SchemaError(
                    code: .unresolvedRename,
                    message: "column \(d.name).\(c.name): renamed from \(source), as is \(d.name).\(first)",
                    culprit: "\(d.name).\(c.name)")
            }
            renamedTo[source.asciiLowercased()] = c.name
        }
        // A live column renamed to another desired column is not also the source of the desired
        // column that takes its old name (a -> b, and a new a): that one is new, its rows empty.
        let renamedAway = Set(
            sources.filter { $0.key != $0.value.asciiLowercased() }.map { $0.value.asciiLowercased() })
        for (key, source) in sources where key == source.asciiLowercased() && renamedAway.contains(key) {
            if caseRenamed.contains(key), let c = d.column(named: key) {
                // Renamed by case and renamed away to another column at once: a contradiction.
                let other = d.columns.first { sources[$0.name.asciiLowercased()] == source && $0.name != c.name }
                throw SchemaError(
                    code: .unresolvedRename,
                    message: "column \(d.name).\(c.name): renamed from \(source) (its letter case), as is "
                        + "\(d.name).\(other?.name ?? "another column")",
                    culprit: "\(d.name).\(c.name)")
            }
            sources[key] = nil
        }
        for r in options where r.table.map({ $0.asciiCaseInsensitiveEquals(d.name) }) ?? false {
            if d.column(named: r.to) == nil {
                throw SchemaError(
                    code: .unresolvedRename,
                    message: "rename \(r): table \(d.name) has no column \(r.to) in the desired schema",
                    culprit: "\(d.name).\(r.to)")
            }
        }
        let exact = exactNames ? Set(d.columns.map { $0.name.asciiLowercased() }) : caseRenamed
        return ColumnSources(sources: sources, exact: exact)
    }

    /// True when another desired column of `d` than `except` is renamed from live column `name` by
    /// a rename option (or also by a `-- @renamed` hint when `includingHints`).
    static func isRenamedAway(
        _ name: String, in d: TableInfo, options: [SchemaRename], except: String, includingHints: Bool = false
    ) -> Bool {
        d.columns.contains { other in
            guard !other.name.asciiCaseInsensitiveEquals(except) else { return false }
            let hint =
                renameOption(to: other.name, in: d, options: options) ?? (includingHints ? other.renamedFrom : nil)
            return hint?.asciiCaseInsensitiveEquals(name) == true
        }
    }

    /// The old name a rename option gives desired column `column` of table `d` (the last such
    /// option wins, as a later option overrides an earlier one), or nil.
    static func renameOption(to column: String, in d: TableInfo, options: [SchemaRename]) -> String? {
        options.last { r in
            r.table.map { $0.asciiCaseInsensitiveEquals(d.name) } == true && r.to.asciiCaseInsensitiveEquals(column)
        }?.from
    }
}
