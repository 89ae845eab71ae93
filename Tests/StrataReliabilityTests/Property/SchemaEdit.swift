import Strata

/// One random edit that derives schema B from schema A. Its targets are ids chosen when it was
/// generated; replayed on a smaller schema (while shrinking), an edit whose target is gone does
/// nothing.
struct SchemaEdit: Sendable, CustomStringConvertible {
    var description: String
    var apply: @Sendable (inout ModelSchema) -> Void

    /// Applies `edits` to `schema` in order, repairing after each.
    static func derive(_ schema: ModelSchema, _ edits: [SchemaEdit]) -> ModelSchema {
        var s = schema
        for e in edits {
            e.apply(&s)
            s.repair()
        }
        return s
    }

    /// A column edit: `body` runs on the column `column` of table `table` when both exist.
    static func onColumn(
        _ d: String, _ table: Int, _ column: Int, _ body: @escaping @Sendable (inout ModelColumn) -> Void
    ) -> SchemaEdit {
        SchemaEdit(description: d) { s in
            guard let ti = s.tableIndex(table), let ci = s.tables[ti].columns.firstIndex(where: { $0.id == column })
            else { return }
            body(&s.tables[ti].columns[ci])
        }
    }

    static func onTable(_ d: String, _ table: Int, _ body: @escaping @Sendable (inout ModelTable) -> Void) -> SchemaEdit
    {
        SchemaEdit(description: d) { s in
            guard let ti = s.tableIndex(table) else { return }
            body(&s.tables[ti])
        }
    }

    /// A random edit that fits `s` (nil when the chosen kind does not apply).
    static func random(_ s: inout ModelSchema, _ rng: inout SeededRandom) -> SchemaEdit? {
        guard let t = rng.pickOptional(s.tables) else {
            let table = SchemaGenerator.randomTable(&s, &rng)
            return SchemaEdit(description: "add table \(table.name)") {
                $0.tables.append(table)
                $0.nextID = max($0.nextID, table.id + 100)
            }
        }
        let c = rng.pick(t.columns)
        let isKey = t.primaryKey.columnIDs.contains(c.id)
        switch Int.random(in: 0..<30, using: &rng) {
        case 0, 1, 2:
            let column = SchemaGenerator.randomColumn(&s, strict: t.strict, in: t, &rng)
            let atEnd = rng.chance(70)
            let position = Int.random(in: 0...t.columns.count, using: &rng)
            return onTable("add column \(column.name) to \(t.name)", t.id) { t in
                t.columns.insert(column, at: atEnd ? t.columns.count : min(position, t.columns.count))
            }
        case 3...4 where !isKey:
            return onTable("drop column \(c.name) of \(t.name)", t.id) { t in t.columns.removeAll { $0.id == c.id } }
        case 5:
            let seed = rng.next()
            return onTable("reorder the columns of \(t.name)", t.id) { t in
                var r = SeededRandom(seed: seed)
                t.columns.shuffle(using: &r)
            }
        case 6...7 where c.generated == nil:
            let type = rng.pick(t.strict ? SchemaGenerator.strictTypes : SchemaGenerator.looseTypes)
            return onColumn("retype \(t.name).\(c.name) as \(type)", t.id, c.id) { $0.type = type }
        case 8:
            let notNull = !c.notNull
            let def = notNull && rng.chance(70) ? SchemaGenerator.randomDefault(type: c.type, &rng) : c.defaultSQL
            return onColumn("\(notNull ? "set" : "drop") NOT NULL on \(t.name).\(c.name)", t.id, c.id) {
                $0.notNull = notNull
                $0.defaultSQL = def
            }
        case 9:
            let def = rng.chance(30) ? nil : SchemaGenerator.randomDefault(type: c.type, &rng)
            return onColumn("default of \(t.name).\(c.name) = \(def ?? "none")", t.id, c.id) { $0.defaultSQL = def }
        case 10:
            let collation = rng.pick([nil, "NOCASE", "RTRIM", "BINARY"])
            return onColumn("collation of \(t.name).\(c.name) = \(collation ?? "none")", t.id, c.id) {
                $0.collation = collation
            }
        case 11:
            let check = rng.chance(30) ? nil : Int.random(in: 0..<5, using: &rng)
            return onColumn("check on \(t.name).\(c.name) = \(check.map(String.init) ?? "none")", t.id, c.id) {
                $0.check = check
            }
        case 12:
            let check = rng.chance(30) ? nil : Int.random(in: 1..<5, using: &rng)
            return onTable("table check of \(t.name) = \(check.map(String.init) ?? "none")", t.id) {
                $0.tableCheck = check
            }
        case 13:
            guard let i = SchemaGenerator.randomIndex(&s, &rng) else { return nil }
            return SchemaEdit(description: "add index \(i.name)") { $0.indexes.append(i) }
        case 14:
            guard let i = rng.pickOptional(s.indexes) else { return nil }
            if rng.chance(50) {
                return SchemaEdit(description: "drop index \(i.name)") { $0.indexes.removeAll { $0.id == i.id } }
            }
            let change = Int.random(in: 0..<3, using: &rng)
            return SchemaEdit(description: "change index \(i.name)") { s in
                guard let n = s.indexes.firstIndex(where: { $0.id == i.id }) else { return }
                switch change {
                case 0: s.indexes[n].unique.toggle()
                case 1: s.indexes[n].descending.toggle()
                default:
                    s.indexes[n].wherePresent =
                        s.indexes[n].wherePresent == nil ? s.indexes[n].parts.first?.columnID : nil
                }
            }
        case 15:
            guard let v = SchemaGenerator.randomView(&s, &rng) else { return nil }
            return SchemaEdit(description: "add view \(v.name)") { $0.views.append(v) }
        case 16:
            guard let v = rng.pickOptional(s.views) else { return nil }
            if rng.chance(50) {
                return SchemaEdit(description: "drop view \(v.name)") { $0.views.removeAll { $0.id == v.id } }
            }
            return SchemaEdit(description: "change view \(v.name)") { s in
                guard let n = s.views.firstIndex(where: { $0.id == v.id }) else { return }
                s.views[n].filtered.toggle()
            }
        case 17:
            guard let tr = SchemaGenerator.randomTrigger(&s, &rng) else { return nil }
            return SchemaEdit(description: "add trigger \(tr.name)") { $0.triggers.append(tr) }
        case 18:
            guard let tr = rng.pickOptional(s.triggers) else { return nil }
            if rng.chance(50) {
                return SchemaEdit(description: "drop trigger \(tr.name)") { $0.triggers.removeAll { $0.id == tr.id } }
            }
            return SchemaEdit(description: "change trigger \(tr.name)") { s in
                guard let n = s.triggers.firstIndex(where: { $0.id == tr.id }) else { return }
                s.triggers[n].timing = s.triggers[n].timing == "BEFORE" ? "AFTER" : "BEFORE"
            }
        case 19, 20:
            let id = s.makeID()
            let name = SchemaGenerator.name("renamed", id, &rng)
            return onColumn("rename column \(t.name).\(c.name) to \(name)", t.id, c.id) { $0.name = name }
        case 21:
            let id = s.makeID()
            let name = SchemaGenerator.name("t", id, &rng)
            return onTable("rename table \(t.name) to \(name)", t.id) { $0.name = name }
        case 22:
            let table = SchemaGenerator.randomTable(&s, &rng)
            return SchemaEdit(description: "add table \(table.name)") {
                $0.tables.append(table)
                $0.nextID = max($0.nextID, table.id + 100)
            }
        case 23:
            return SchemaEdit(description: "drop table \(t.name)") { $0.tables.removeAll { $0.id == t.id } }
        case 24:
            return onTable("toggle WITHOUT ROWID on \(t.name)", t.id) { t in
                if case .rowidAlias(let id, _) = t.primaryKey { t.primaryKey = .columns([id]) }
                if case .none = t.primaryKey, let first = t.storedColumns.first { t.primaryKey = .columns([first.id]) }
                t.withoutRowID.toggle()
            }
        case 25:
            return onTable("toggle STRICT on \(t.name)", t.id) { $0.strict.toggle() }
        case 26:
            if rng.chance(60) {
                var copy = s
                SchemaGenerator.addForeignKey(&copy, child: t.id, &rng)
                guard let grown = copy.table(t.id), let fk = grown.foreignKeys.last,
                    grown.foreignKeys.count > t.foreignKeys.count
                else { return nil }
                return onTable("add foreign key \(t.name)", t.id) { $0.foreignKeys.append(fk) }
            }
            guard !t.foreignKeys.isEmpty else { return nil }
            let action = rng.pick(SchemaGenerator.actions)
            let drop = rng.chance(50)
            return onTable("\(drop ? "drop" : "change action of") a foreign key of \(t.name)", t.id) { t in
                guard !t.foreignKeys.isEmpty else { return }
                if drop { t.foreignKeys.removeFirst() } else { t.foreignKeys[0].onDelete = action }
            }
        case 27:
            let stored = t.storedColumns
            guard let key = rng.pickOptional(stored) else { return nil }
            let choice = Int.random(in: 0..<3, using: &rng)
            return onTable("change the primary key of \(t.name)", t.id) { t in
                switch choice {
                case 0: t.primaryKey = .none
                case 1: t.primaryKey = .columns([key.id])
                default:
                    if let i = t.columns.firstIndex(where: { $0.id == key.id }) { t.columns[i].type = "INTEGER" }
                    t.primaryKey = .rowidAlias(key.id, autoincrement: false)
                }
            }
        case 28:
            guard case .rowidAlias(let id, let auto) = t.primaryKey else { return nil }
            return onTable("toggle AUTOINCREMENT on \(t.name)", t.id) { t in
                if case .rowidAlias(id, _) = t.primaryKey { t.primaryKey = .rowidAlias(id, autoincrement: !auto) }
            }
        case 29 where c.generated == nil:
            return onColumn("toggle UNIQUE on \(t.name).\(c.name)", t.id, c.id) { $0.unique.toggle() }
        default:
            return nil
        }
    }
}
