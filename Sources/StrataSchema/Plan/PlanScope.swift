/// The live objects a plan can affect, and so the only ones its schema-only copy needs.
///
/// A schema of hundreds of tables costs SQLite dearly to load (it rescans `sqlite_master` after
/// each CREATE) and to change (every ALTER TABLE reparses the whole schema). A plan changes a
/// few tables; the rest is identical in the live and the desired schema and no statement of the
/// plan names it. The scope is the closure of:
/// - the tables that change, are renamed or are dropped;
/// - every index, view and trigger that is not identical in the desired schema, and every view
///   and trigger that mentions an object in scope, or is on a table in scope;
/// - the indexes on tables in scope, and the tables whose foreign keys reference them;
/// - the tables and views that objects in scope mention (SQLite checks them on ALTER TABLE).
/// What is left out is identical in both schemas and untouched, so proving the plan on the scope
/// proves it on the whole database.
struct PlanScope {
    /// Type-qualified keys (`table t`, `index i`, `view v`, `trigger tr`) of the live objects copied.
    private(set) var live = Set<String>()
    /// The names (lowercased) each live view and trigger mentions, keyed like ``live``.
    let mentions: [String: Set<String>]

    static func key(_ type: String, _ name: String) -> String { type + " " + name.asciiLowercased() }

    init(live: DatabaseSchema, desired: DatabaseSchema, touchedTables: Set<String>) {
        var names = touchedTables  // tables and views in scope, for the mention closure
        for t in touchedTables { self.live.insert(Self.key("table", t)) }
        var mentions = [String: Set<String>]()
        for v in live.views { mentions[Self.key("view", v.name)] = SQLMentions.names(in: v.sql) }
        for t in live.triggers { mentions[Self.key("trigger", t.name)] = SQLMentions.names(in: t.sql) }
        self.mentions = mentions

        var grew = true
        while grew {
            grew = false
            for v in live.views where !self.live.contains(Self.key("view", v.name)) {
                let k = Self.key("view", v.name)
                if desired.view(named: v.name)?.normalizedSQL != v.normalizedSQL
                    || !(mentions[k] ?? []).isDisjoint(with: names)
                {
                    self.live.insert(k)
                    names.insert(v.name.asciiLowercased())
                    grew = true
                }
            }
            for t in live.triggers where !self.live.contains(Self.key("trigger", t.name)) {
                let k = Self.key("trigger", t.name)
                if desired.trigger(named: t.name)?.normalizedSQL != t.normalizedSQL
                    || !(mentions[k] ?? []).isDisjoint(with: names) || names.contains(t.table.asciiLowercased())
                {
                    self.live.insert(k)
                    grew = true
                }
            }
        }
        for i in live.indexes {
            if touchedTables.contains(i.table.asciiLowercased())
                || desired.index(named: i.name)?.normalizedSQL != i.normalizedSQL
            {
                self.live.insert(Self.key("index", i.name))
            }
        }
        // Children: their REFERENCES clauses follow a renamed parent.
        for t in live.tables where t.foreignKeys.contains(where: { touchedTables.contains($0.parentTable.asciiLowercased()) }) {
            self.live.insert(Self.key("table", t.name))
        }
        // Context: what the objects in scope, and the desired objects the live database lacks,
        // mention must exist in the copy (an index needs its table, a new trigger the table it
        // is on, a view what it selects from, an FTS table its content table), or SQLite refuses
        // the statement or a later ALTER TABLE ("error in view ...: no such table").
        var sources = [Set<String>]()
        for i in live.indexes where self.live.contains(Self.key("index", i.name)) {
            sources.append([i.table.asciiLowercased()])
        }
        for (k, m) in mentions where self.live.contains(k) {
            var names = m
            if k.hasPrefix("trigger "), let t = live.trigger(named: String(k.dropFirst(8))) {
                names.insert(t.table.asciiLowercased())
            }
            sources.append(names)
        }
        for t in desired.tables where live.table(named: t.name).map({ $0.signature != t.signature }) ?? true {
            sources.append(SQLMentions.names(in: t.sql))
        }
        for i in desired.indexes where live.index(named: i.name)?.normalizedSQL != i.normalizedSQL {
            sources.append([i.table.asciiLowercased()])
        }
        for v in desired.views where live.view(named: v.name)?.normalizedSQL != v.normalizedSQL {
            sources.append(SQLMentions.names(in: v.sql))
        }
        for t in desired.triggers where live.trigger(named: t.name)?.normalizedSQL != t.normalizedSQL {
            sources.append(SQLMentions.names(in: t.sql).union([t.table.asciiLowercased()]))
        }
        var pending = sources.flatMap { $0 }
        while let name = pending.popLast() {
            if live.table(named: name) != nil {
                self.live.insert(Self.key("table", name))
            } else if live.view(named: name) != nil, self.live.insert(Self.key("view", name)).inserted {
                pending += mentions[Self.key("view", name)] ?? []
            }
        }
    }

    func contains(_ type: String, _ name: String) -> Bool { live.contains(Self.key(type, name)) }

    /// The part of `desired` the copy must end up equal to: the objects in scope and everything
    /// the live database does not have exactly as desired.
    func desiredPart(of desired: DatabaseSchema, live: DatabaseSchema) -> DatabaseSchema {
        DatabaseSchema(
            tables: desired.tables.filter { d in
                contains("table", d.name)
                    || live.table(named: d.name).map { $0.signature != d.signature || $0.isVirtual != d.isVirtual } ?? true
            },
            indexes: desired.indexes.filter { d in
                contains("index", d.name) || live.index(named: d.name)?.normalizedSQL != d.normalizedSQL
            },
            views: desired.views.filter { d in
                contains("view", d.name) || live.view(named: d.name)?.normalizedSQL != d.normalizedSQL
            },
            triggers: desired.triggers.filter { d in
                contains("trigger", d.name) || live.trigger(named: d.name)?.normalizedSQL != d.normalizedSQL
            })
    }
}
