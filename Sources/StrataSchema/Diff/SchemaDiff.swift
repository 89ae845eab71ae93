import StrataSQLite

/// What differs between two schemas: the tables created, dropped and changed (with their
/// columns added, dropped, renamed and redefined, their constraints and options), and the
/// indexes, views and triggers created, dropped and changed.
///
/// It is computed from two ``DatabaseSchema`` values alone, without a database, and it is the
/// one comparator of the engine: schema equality and ``DatabaseSchema/differences(from:)``,
/// `strata check`'s and `strata status`'s drift reports, the planner (which resolves rename
/// hints and options first, see ``init(from:to:renames:)``) and the plan's proof all read it.
///
/// ```swift
/// let diff = SchemaDiff(from: try DatabaseSchema.read(from: db), to: try DatabaseSchema(sql: text))
/// for table in diff.changedTables {
///     print(table.desired.name, table.addedColumns.map(\.name), table.droppedColumns.map(\.name))
/// }
/// print(diff.descriptions)   // ["table player: column score is missing", "index player_name is not expected"]
/// ```
///
/// Cosmetic differences of the SQL text (whitespace, comments, identifier quoting, keyword
/// case) are not differences; declared types, constraints, collations, defaults and
/// expressions always are.
public struct SchemaDiff: Sendable {
    /// Tables of the new schema that the old one lacks, in the new schema's order.
    public private(set) var createdTables: [TableInfo] = []
    /// Tables of the old schema that the new one lacks, in the old schema's order.
    public private(set) var droppedTables: [TableInfo] = []
    /// Tables in both schemas (possibly renamed) that differ, in the new schema's order.
    public private(set) var changedTables: [TableChange] = []
    /// Indexes created, dropped and redefined.
    public private(set) var indexes = ObjectChanges<IndexInfo>()
    /// Views created, dropped and redefined.
    public private(set) var views = ObjectChanges<ViewInfo>()
    /// Triggers created, dropped and redefined.
    public private(set) var triggers = ObjectChanges<TriggerInfo>()

    /// The new schema's tables in order, each created or changed (for ``descriptions``).
    private var tableOrder: [TableEntry] = []

    private enum TableEntry {
        case created(Int)
        case changed(Int)
    }

    /// True when the schemas are equal.
    public var isEmpty: Bool {
        createdTables.isEmpty && droppedTables.isEmpty && changedTables.isEmpty && indexes.isEmpty && views.isEmpty
            && triggers.isEmpty
    }

    /// No difference.
    init() {}

    /// The differences from `old` to `new`, matching objects by name (case-insensitively):
    /// rename hints are ignored, so a renamed table is one dropped and one created. A table and a
    /// virtual table of the same name are one changed table.
    public init(from old: DatabaseSchema, to new: DatabaseSchema) {
        self.init(from: old, to: new, names: NameComparison())
    }

    /// The differences from `old` to `new`, as ``init(from:to:)``; with `exactNames`, a stored
    /// name that differs by letter case alone is a difference too: a table's or column's
    /// (``TableChange/isRenamed``, ``TableChange/columnRenames``), an index's, view's or
    /// trigger's (a redefinition). See ``SchemaChangeOptions/exactNames``.
    ///
    /// ```swift
    /// let diff = SchemaDiff(from: try DatabaseSchema.read(from: db), to: desired, exactNames: true)
    /// print(diff.descriptions)   // ["table user: name stored as User", "table user: column login stored as Login"]
    /// ```
    public init(from old: DatabaseSchema, to new: DatabaseSchema, exactNames: Bool) {
        self.init(from: old, to: new, names: NameComparison(all: exactNames))
    }

    /// The differences from `old` to `new`, matching objects by name, the stored names `names`
    /// lists compared exactly.
    init(from old: DatabaseSchema, to new: DatabaseSchema, names: NameComparison) {
        var matched = Set<String>()
        for table in new.tables {
            guard let oldTable = old.table(named: table.name) else {
                tableOrder.append(.created(createdTables.count))
                createdTables.append(table)
                continue
            }
            matched.insert(oldTable.key)
            let change = TableChange(
                comparing: oldTable, to: table, exactTableName: names.all || names.tables.contains(table.key),
                exactColumns: names.columns(of: table))
            if change.isChanged {
                tableOrder.append(.changed(changedTables.count))
                changedTables.append(change)
            }
        }
        droppedTables = old.tables.filter { !matched.contains($0.key) }
        compareObjects(old, new, exactNames: names.all)
        exactNames = names.all
    }

    /// The differences from a live schema to a desired one as the planner sees them: a desired
    /// table or column whose `-- @renamed from=OLD` hint or rename option names an object of
    /// `live` is that object renamed; a table that becomes a virtual table (or the reverse) is
    /// dropped and created.
    ///
    /// Throws ``SchemaError/Code/unresolvedRename`` for a hint or option that names nothing, a
    /// rename onto a name that is still in use, or a swap of names given as hints.
    public init(from live: DatabaseSchema, to desired: DatabaseSchema, renames: [SchemaRename]) throws {
        try self.init(from: live, to: desired, renames: renames, exactNames: false)
    }

    /// The differences from a live schema to a desired one as the planner sees them, as
    /// ``init(from:to:renames:)``. A hint or option that renames a table or column by letter case
    /// alone (`-- @renamed from=Username` on column `username`) makes its stored name a
    /// difference until it is exactly the desired one; with `exactNames`, every stored name is
    /// compared so (see ``SchemaChangeOptions/exactNames``).
    public init(
        from live: DatabaseSchema, to desired: DatabaseSchema, renames: [SchemaRename], exactNames: Bool
    ) throws {
        var resolver = RenameResolver(live: live, desired: desired, options: renames)
        resolver.exactNames = exactNames
        let tableRenames = try resolver.tableSources()
        // A live table renamed to another desired table is not also the desired table that takes
        // its old name (t -> u, and a new t): that one is created.
        let renamedAway = Set(tableRenames.values.map { $0.asciiLowercased() })
        var matched = Set<String>()
        for table in desired.tables {
            let sourceName = tableRenames[table.key] ?? (renamedAway.contains(table.key) ? nil : table.name)
            guard let sourceName, let liveTable = live.table(named: sourceName),
                liveTable.isVirtual == table.isVirtual
            else {
                tableOrder.append(.created(createdTables.count))
                createdTables.append(table)
                continue
            }
            matched.insert(liveTable.key)
            let columns = try resolver.columnSources(liveTable, table)
            let change = TableChange(
                live: liveTable, desired: table, sources: columns.sources,
                exactTableName: exactNames || tableRenames[table.key] != nil, exactColumns: columns.exact)
            if change.isChanged {
                tableOrder.append(.changed(changedTables.count))
                changedTables.append(change)
            }
        }
        droppedTables = live.tables.filter { !matched.contains($0.key) }
        compareObjects(live, desired, exactNames: exactNames)
        self.exactNames = exactNames
    }

    private mutating func compareObjects(_ old: DatabaseSchema, _ new: DatabaseSchema, exactNames: Bool) {
        indexes = ObjectChanges(old.indexes, new.indexes, named: old.index(named:), exactNames: exactNames)
        views = ObjectChanges(old.views, new.views, named: old.view(named:), exactNames: exactNames)
        triggers = ObjectChanges(old.triggers, new.triggers, named: old.trigger(named:), exactNames: exactNames)
    }

    /// True when this diff compares every stored name exactly (``SchemaChangeOptions/exactNames``).
    private(set) var exactNames = false

    /// The stored names this diff compares exactly, for comparing a schema made from it with
    /// its desired schema (the planner's proof, the check before the launch fingerprint is
    /// recorded): every name with ``SchemaChangeOptions/exactNames``, else those of the tables
    /// and columns it renames by letter case alone.
    var exactNameComparison: NameComparison {
        var names = NameComparison(all: exactNames)
        for change in changedTables {
            if change.comparesTableNameExactly { names.tables.insert(change.desired.key) }
            if !change.exactColumns.isEmpty { names.columnKeys[change.desired.key] = change.exactColumns }
        }
        return names
    }

    /// Which stored names a comparison takes exactly (letter case included); the others are
    /// matched ignoring ASCII case, as SQLite matches them.
    struct NameComparison: Sendable, Hashable {
        /// Every name: tables, columns, indexes, views and triggers.
        var all = false
        /// Keys of the (desired) tables whose own name is compared exactly.
        var tables = Set<String>()
        /// Desired table key -> keys of its columns whose names are compared exactly.
        var columnKeys = [String: Set<String>]()

        func columns(of table: TableInfo) -> Set<String> {
            all ? Set(table.columns.map { $0.name.asciiLowercased() }) : columnKeys[table.key] ?? []
        }
    }

    /// The differences, one line each, with the new schema as the expected one: tables first (in
    /// the new schema's order, then the dropped ones), then indexes, views and triggers.
    ///
    /// ```
    /// table player: column score is missing
    /// table player: column name expected `name TEXT NOT NULL`, found `name TEXT`
    /// table legacy is not expected
    /// index player_name: expected `CREATE INDEX ...`, found `CREATE INDEX ...`
    /// ```
    public var descriptions: [String] {
        var out = [String]()
        for entry in tableOrder {
            switch entry {
            case .created(let i): out.append("table \(createdTables[i].name) is missing")
            case .changed(let i):
                let change = changedTables[i]
                out += change.descriptions.map { "table \(change.desired.name): \($0)" }
            }
        }
        out += droppedTables.map { "table \($0.name) is not expected" }
        out += indexes.descriptions(kind: "index")
        out += views.descriptions(kind: "view")
        out += triggers.descriptions(kind: "trigger")
        return out
    }
}

extension SchemaDiff {
    /// Indexes, views or triggers created, dropped and redefined between two schemas. They are
    /// matched by name and compared by their normalized SQL.
    public struct ObjectChanges<Object: SchemaObject>: Sendable {
        /// In the new schema only, in its order.
        public private(set) var created: [Object] = []
        /// In the old schema only, in its order.
        public private(set) var dropped: [Object] = []
        /// In both, with another definition.
        public private(set) var changed: [Redefinition] = []

        /// An object in both schemas whose definition differs.
        public struct Redefinition: Sendable {
            public var old: Object
            public var new: Object
        }

        /// The new schema's objects in order, each created or changed (for the descriptions).
        private var order: [(isCreated: Bool, index: Int)] = []
        /// Lowercased names: of the old objects that go (dropped or redefined), of the new ones that
        /// come (created or redefined), and of the redefined ones.
        private var removedKeys = Set<String>()
        private var addedKeys = Set<String>()
        private var redefinedKeys = Set<String>()

        public var isEmpty: Bool { created.isEmpty && dropped.isEmpty && changed.isEmpty }

        init() {}

        init(_ old: [Object], _ new: [Object], named: (String) -> Object?, exactNames: Bool = false) {
            var matched = Set<String>()
            for object in new {
                guard let oldObject = named(object.name) else {
                    order.append((true, created.count))
                    created.append(object)
                    continue
                }
                matched.insert(oldObject.name.asciiLowercased())
                // The normalized text lowercases names: a name stored in another letter case is a
                // redefinition only when names are compared exactly.
                if oldObject.normalizedSQL != object.normalizedSQL || (exactNames && oldObject.name != object.name) {
                    order.append((false, changed.count))
                    changed.append(Redefinition(old: oldObject, new: object))
                }
            }
            dropped = old.filter { !matched.contains($0.name.asciiLowercased()) }
            redefinedKeys = Set(changed.map { $0.new.name.asciiLowercased() })
            removedKeys = redefinedKeys.union(dropped.map { $0.name.asciiLowercased() })
            addedKeys = redefinedKeys.union(created.map { $0.name.asciiLowercased() })
        }

        /// True when the old object named `name` goes: it is dropped or redefined.
        func removes(_ name: String) -> Bool { removedKeys.contains(name.asciiLowercased()) }
        /// True when the new object named `name` comes: it is created or redefined.
        func adds(_ name: String) -> Bool { addedKeys.contains(name.asciiLowercased()) }
        /// True when the object named `name` is in both schemas with another definition.
        func redefines(_ name: String) -> Bool { redefinedKeys.contains(name.asciiLowercased()) }

        func descriptions(kind: String) -> [String] {
            var out = order.map { entry in
                if entry.isCreated { return "\(kind) \(created[entry.index].name) is missing" }
                let change = changed[entry.index]
                return "\(kind) \(change.new.name): expected `\(change.new.sql)`, found `\(change.old.sql)`"
            }
            out += dropped.map { "\(kind) \($0.name) is not expected" }
            return out
        }
    }
}

/// An index, view or trigger: an object of a schema defined by one statement.
public protocol SchemaObject: Sendable {
    /// The name as declared.
    var name: String { get }
    /// The CREATE statement as written.
    var sql: String { get }
    /// The statement without cosmetic differences (what is compared).
    var normalizedSQL: String { get }
}

extension IndexInfo: SchemaObject {}
extension ViewInfo: SchemaObject {}
extension TriggerInfo: SchemaObject {}

extension DatabaseSchema {
    /// The differences that make `self` and `other` unequal, one human-readable line each, with
    /// `self` taken as the expected state: `[]` when they are equal (``SchemaDiff/descriptions``
    /// of `SchemaDiff(from: other, to: self)`).
    public func differences(from other: DatabaseSchema) -> [String] {
        SchemaDiff(from: other, to: self).descriptions
    }
}

extension DatabaseSchema: Equatable {
    /// Schemas are equal when their ``SchemaDiff`` is empty: cosmetic differences of the SQL text
    /// (whitespace, comments, quoting, case) do not count.
    public static func == (a: DatabaseSchema, b: DatabaseSchema) -> Bool { SchemaDiff(from: b, to: a).isEmpty }
}

extension SchemaDiff {
    /// True when tables `a` and `b` have the same definition, whatever their spelling (case of
    /// keywords, whitespace, quoting, comments): the test every comparison of two tables makes,
    /// the diff's and the planner's trial of native forms on the schema copy alike. Names are not
    /// compared.
    static func sameDefinition(_ a: TableInfo, _ b: TableInfo) -> Bool { a.signature == b.signature }
}

extension TableInfo {
    /// What is compared of a table: its columns and constraints normalized, its options; not its
    /// name.
    fileprivate var signature: String {
        if isVirtual {
            // FTS5 reads `content=doc`, `content='doc'` and `content="doc"` alike: so does Strata.
            return VirtualTableArguments(sql: sql)?.fts5Signature ?? "virtual " + SQLNormalizer.normalize(sql)
        }
        var parts = columns.map { SQLNormalizer.canonicalIdentifier($0.name) + " " + $0.normalizedBody }
        parts += normalizedConstraints.sorted()
        return "(" + parts.joined(separator: ", ") + ")" + (isWithoutRowID ? " without rowid" : "")
            + (isStrict ? " strict" : "")
    }
}
