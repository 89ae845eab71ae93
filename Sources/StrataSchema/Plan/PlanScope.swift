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

    /// `diff` is the plan's diff from `live` to `desired`: what it creates, drops or redefines is
    /// in scope (and, for what it creates or redefines, what that mentions).
    init(live: DatabaseSchema, desired: DatabaseSchema, diff: SchemaDiff, touchedTables: Set<String>) {
        let differing = DifferingObjects(diff)
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
                if differing.live.contains(Self.key("view", v.name))
                    || !(mentions[k] ?? []).isDisjoint(with: names)
                {
                    self.live.insert(k)
                    names.insert(v.name.asciiLowercased())
                    grew = true
                }
            }
            for t in live.triggers where !self.live.contains(Self.key("trigger", t.name)) {
                let k = Self.key("trigger", t.name)
                if differing.live.contains(Self.key("trigger", t.name))
                    || !(mentions[k] ?? []).isDisjoint(with: names) || names.contains(t.table.asciiLowercased())
                {
                    self.live.insert(k)
                    grew = true
                }
            }
        }
        // FTS tables over external content read by name: one over a table or view in scope, or
        // over a table the plan creates, is indexed again or checked after the change (phase D of
        // the planner), on the copy first.
        var contentNames = names
        for t in desired.tables where differing.desired.contains(Self.key("table", t.name)) {
            contentNames.insert(t.key)
        }
        for f in FullTextContent.all(in: live) where contentNames.contains(f.contentKey) {
            self.live.insert(Self.key("table", f.table))
        }
        for i in live.indexes {
            if touchedTables.contains(i.table.asciiLowercased())
                || differing.live.contains(Self.key("index", i.name))
            {
                self.live.insert(Self.key("index", i.name))
            }
        }
        // Children: their REFERENCES clauses follow a renamed parent.
        for t in live.tables
        where t.foreignKeys.contains(where: { touchedTables.contains($0.parentTable.asciiLowercased()) }) {
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
        for t in desired.tables where differing.desired.contains(Self.key("table", t.name)) {
            sources.append(SQLMentions.names(in: t.sql))
        }
        for i in desired.indexes where differing.desired.contains(Self.key("index", i.name)) {
            sources.append([i.table.asciiLowercased()])
        }
        for v in desired.views where differing.desired.contains(Self.key("view", v.name)) {
            sources.append(SQLMentions.names(in: v.sql))
        }
        for t in desired.triggers where differing.desired.contains(Self.key("trigger", t.name)) {
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
    /// `diff` creates or redefines.
    func desiredPart(of desired: DatabaseSchema, diff: SchemaDiff) -> DatabaseSchema {
        let differing = DifferingObjects(diff).desired
        return DatabaseSchema(
            tables: desired.tables.filter {
                contains("table", $0.name) || differing.contains(Self.key("table", $0.name))
            },
            indexes: desired.indexes.filter {
                contains("index", $0.name) || differing.contains(Self.key("index", $0.name))
            },
            views: desired.views.filter { contains("view", $0.name) || differing.contains(Self.key("view", $0.name)) },
            triggers: desired.triggers.filter {
                contains("trigger", $0.name) || differing.contains(Self.key("trigger", $0.name))
            })
    }

    /// Type-qualified keys of what a diff touches: on the live side what it drops or redefines,
    /// on the desired side what it creates or redefines (tables: created, or changed in any way).
    private struct DifferingObjects {
        var live = Set<String>()
        var desired = Set<String>()

        init(_ diff: SchemaDiff) {
            for t in diff.createdTables { desired.insert(PlanScope.key("table", t.name)) }
            for t in diff.changedTables { desired.insert(PlanScope.key("table", t.desired.name)) }
            add("index", diff.indexes)
            add("view", diff.views)
            add("trigger", diff.triggers)
        }

        private mutating func add<Object>(_ type: String, _ changes: SchemaDiff.ObjectChanges<Object>) {
            for o in changes.dropped { live.insert(PlanScope.key(type, o.name)) }
            for o in changes.created { desired.insert(PlanScope.key(type, o.name)) }
            for c in changes.changed {
                live.insert(PlanScope.key(type, c.old.name))
                desired.insert(PlanScope.key(type, c.new.name))
            }
        }
    }
}
