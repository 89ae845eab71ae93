import Strata

extension ModelSchema {
    /// The schema as SQL. With `base`, tables and columns whose name differs from the object of
    /// the same id in `base` carry a `-- @renamed from=OLD` hint.
    func sql(renamedFrom base: ModelSchema? = nil) -> String {
        var statements = [String]()
        for t in tables { statements.append(tableSQL(t, base: base?.table(t.id))) }
        for i in indexes { if let s = indexSQL(i) { statements.append(s) } }
        for v in views { if let s = viewSQL(v) { statements.append(s) } }
        for t in triggers { if let s = triggerSQL(t) { statements.append(s) } }
        return statements.map { $0 + ";" }.joined(separator: "\n")
    }

    private func hint(_ old: String?, _ new: String) -> String {
        guard let old, old != new else { return "" }
        return " -- @renamed from=\(SQL.quoteIdentifier(old))\n"
    }

    func tableSQL(_ t: ModelTable, base: ModelTable?) -> String {
        let q = SQL.quoteIdentifier
        var elements = [String]()
        for c in t.columns {
            var s = q(c.name)
            if !c.type.isEmpty { s += " " + c.type }
            if case .rowidAlias(let id, let auto) = t.primaryKey, id == c.id {
                s += " PRIMARY KEY" + (auto ? " AUTOINCREMENT" : "")
            }
            if c.notNull { s += " NOT NULL" }
            if let d = c.defaultSQL, c.generated == nil { s += " DEFAULT \(d)" }
            if let coll = c.collation { s += " COLLATE \(coll)" }
            if let n = c.check { s += " CHECK (\(q(c.name)) IS NULL OR length(\(q(c.name))) < \(1000 + n))" }
            if c.unique { s += " UNIQUE" }
            if let g = c.generated { s += " GENERATED ALWAYS AS (\(g.sql(t))) \(c.stored ? "STORED" : "VIRTUAL")" }
            elements.append(s)
        }
        if case .columns(let ids) = t.primaryKey {
            elements.append(
                "PRIMARY KEY (" + ids.compactMap { t.column($0).map { q($0.name) } }.joined(separator: ", ") + ")")
        }
        if let n = t.tableCheck, let first = t.columns.first {
            elements.append("CONSTRAINT \(q("ck_" + t.name)) CHECK (\(q(first.name)) IS NULL OR \(n) > 0)")
        }
        for fk in t.foreignKeys {
            guard let child = t.column(fk.column), let parent = table(fk.parentTable),
                let parentColumn = parent.column(fk.parentColumn)
            else { continue }
            var s = "FOREIGN KEY (\(q(child.name))) REFERENCES \(q(parent.name))(\(q(parentColumn.name)))"
            if let a = fk.onDelete { s += " ON DELETE \(a)" }
            if let a = fk.onUpdate { s += " ON UPDATE \(a)" }
            elements.append(s)
        }
        // Each element on its own line so that a column's hint ends its line.
        var body = ""
        for (n, element) in elements.enumerated() {
            let isLast = n == elements.count - 1
            let column = n < t.columns.count ? t.columns[n] : nil
            let h = column.map { c in hint(base?.column(c.id)?.name, c.name) } ?? ""
            body += "  " + element + (isLast ? "" : ",") + (h.isEmpty ? "\n" : h)
        }
        var options = [String]()
        if t.withoutRowID { options.append("WITHOUT ROWID") }
        if t.strict { options.append("STRICT") }
        let tableHint = hint(base?.name, t.name)
        return "CREATE TABLE \(q(t.name))(" + (tableHint.isEmpty ? "\n" : tableHint) + body + ")"
            + (options.isEmpty ? "" : " " + options.joined(separator: ", "))
    }

    func indexSQL(_ i: ModelIndex) -> String? {
        guard let t = table(i.table) else { return nil }
        let q = SQL.quoteIdentifier
        let parts = i.parts.map { p -> String in
            var s = p.sql(t)
            if case .column = p, i.nocase { s += " COLLATE NOCASE" }
            return s + (i.descending ? " DESC" : "")
        }
        var s =
            "CREATE \(i.unique ? "UNIQUE " : "")INDEX \(q(i.name)) ON \(q(t.name))(\(parts.joined(separator: ", ")))"
        if let w = i.wherePresent, let c = t.column(w) { s += " WHERE \(q(c.name)) IS NOT NULL" }
        return s
    }

    func viewSQL(_ v: ModelView) -> String? {
        let q = SQL.quoteIdentifier
        if let over = v.over {
            guard let base = views.first(where: { $0.id == over }) else { return nil }
            return "CREATE VIEW \(q(v.name)) AS SELECT * FROM \(q(base.name))" + (v.filtered ? " LIMIT 10" : "")
        }
        guard let t = table(v.table) else { return nil }
        let columns = v.columns.compactMap { t.column($0).map { q($0.name) } }
        guard let first = columns.first else { return nil }
        var conditions = [String]()
        if v.filtered { conditions.append("\(first) IS NOT NULL") }
        if let j = v.join.flatMap({ table($0) }) { conditions.append("EXISTS (SELECT 1 FROM \(q(j.name)))") }
        return "CREATE VIEW \(q(v.name)) AS SELECT \(columns.joined(separator: ", ")) FROM \(q(t.name))"
            + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
    }

    func triggerSQL(_ tr: ModelTrigger) -> String? {
        guard let t = table(tr.table), let c = t.column(tr.column), let target = table(tr.target),
            let tc = target.column(tr.targetColumn)
        else { return nil }
        let q = SQL.quoteIdentifier
        let row = tr.event == "DELETE" ? "OLD" : "NEW"
        return "CREATE TRIGGER \(q(tr.name)) \(tr.timing) \(tr.event) ON \(q(t.name)) BEGIN "
            + "UPDATE \(q(target.name)) SET \(q(tc.name)) = \(q(tc.name)) WHERE \(row).\(q(c.name)) IS NULL AND 0; END"
    }
}
