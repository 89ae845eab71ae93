import Strata

extension ModelSchema {
    /// The schema without what `capabilities` lack: STRICT (3.37) and generated columns (3.31).
    func limited(to capabilities: SQLiteCapabilities) -> ModelSchema {
        let strict = capabilities.supportsStrictTables
        let generated = capabilities.supportsGeneratedColumns
        guard !(strict && generated) else { return self }
        var s = self
        for i in s.tables.indices {
            if !strict { s.tables[i].strict = false }
            if !generated { s.tables[i].columns.removeAll { $0.generated != nil } }
        }
        s.repair()
        return s
    }

    /// Makes the schema valid again after an edit or a shrink: removes what refers to objects
    /// that are gone, and fixes combinations SQLite rejects.
    mutating func repair() {
        for i in tables.indices { repairTable(&tables[i]) }
        let ids = Set(tables.map(\.id))
        for i in tables.indices {
            tables[i].foreignKeys = tables[i].foreignKeys.filter { fk in
                guard ids.contains(fk.parentTable), let parent = table(fk.parentTable),
                    parent.primaryKey.columnIDs == [fk.parentColumn],
                    let child = tables[i].column(fk.column), child.generated == nil
                else { return false }
                // SET DEFAULT needs no default to be valid SQL; keep it.
                return true
            }
        }
        indexes = indexes.filter { i in
            guard let t = table(i.table), !i.parts.isEmpty else { return false }
            return i.parts.allSatisfy { t.column($0.columnID) != nil }
                && (i.wherePresent.map { t.column($0) != nil } ?? true)
        }
        for n in views.indices {
            if let t = table(views[n].table) { views[n].columns = views[n].columns.filter { t.column($0) != nil } }
            if let j = views[n].join, table(j) == nil { views[n].join = nil }
        }
        // A view over a view needs its base earlier in the list (and valid).
        var kept = [ModelView]()
        for v in views {
            if let over = v.over {
                if kept.contains(where: { $0.id == over }) { kept.append(v) }
            } else if table(v.table) != nil, !v.columns.isEmpty {
                kept.append(v)
            }
        }
        views = kept
        triggers = triggers.filter { tr in
            guard let t = table(tr.table), t.column(tr.column) != nil, let target = table(tr.target),
                let tc = target.column(tr.targetColumn)
            else { return false }
            return tc.generated == nil
        }
    }

    private func repairTable(_ t: inout ModelTable) {
        // Generated columns read stored columns only, and are never keys.
        t.columns = t.columns.filter { c in
            guard let g = c.generated else { return true }
            guard let source = t.column(g.columnID) else { return false }
            return source.generated == nil
        }
        for i in t.columns.indices where t.columns[i].generated != nil {
            t.columns[i].defaultSQL = nil
            t.columns[i].unique = false
            // SQLite does not check a VIRTUAL column's type on insert, but integrity_check does.
            if t.strict { t.columns[i].type = "ANY" }
        }
        if t.storedColumns.isEmpty {
            t.columns.append(ModelColumn(id: 900_000 + t.id, name: "filler\(t.id)", type: t.strict ? "ANY" : ""))
        }
        // The primary key: existing stored columns only.
        switch t.primaryKey {
        case .none:
            break
        case .rowidAlias(let id, let auto):
            if let c = t.column(id), c.generated == nil {
                if let i = t.columns.firstIndex(where: { $0.id == id }) {
                    t.columns[i].type = "INTEGER"
                    t.columns[i].collation = nil
                    t.columns[i].defaultSQL = nil
                }
                if t.withoutRowID {
                    t.primaryKey = .columns([id])
                } else {
                    t.primaryKey = .rowidAlias(id, autoincrement: auto)
                }
            } else {
                t.primaryKey = .none
            }
        case .columns(let ids):
            let kept = ids.filter { id in t.column(id).map { $0.generated == nil } ?? false }
            t.primaryKey = kept.isEmpty ? .none : .columns(kept)
        }
        if t.withoutRowID, case .none = t.primaryKey { t.withoutRowID = false }
        if t.strict {
            for i in t.columns.indices where !SchemaGenerator.strictTypes.contains(t.columns[i].type) {
                t.columns[i].type =
                    t.columns[i].type == "NUMERIC" ? "INTEGER" : t.columns[i].type == "VARCHAR(20)" ? "TEXT" : "ANY"
            }
        }
    }
}
