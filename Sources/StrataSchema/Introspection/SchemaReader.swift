import StrataSQLite

extension DatabaseSchema {
    /// Reads the schema of the `main` database of `db` from `sqlite_schema` and the PRAGMAs
    /// `table_xinfo`, `foreign_key_list` and `index_list`.
    ///
    /// ```swift
    /// let schema = try DatabaseSchema.read(from: db)
    /// print(schema.tables.map(\.name))
    /// ```
    /// See <https://www.sqlite.org/schematab.html> and <https://www.sqlite.org/pragma.html>.
    public static func read(from db: Database) throws -> DatabaseSchema {
        try SchemaReader(db: db).read()
    }

    /// True for names that belong to SQLite (`sqlite_*`), Strata or a replication tool, never part
    /// of a schema. Strata owns exactly the names it creates: its migrations ledger `strata_migrations`, the
    /// launch fingerprint `strata_schema_fingerprint` (see `migrateSchema(to:)`), and the temporary tables of a rebuild, `strata_tmp_` followed by 1 to 16 lowercase hex digits;
    /// other `strata_*` names (`strata_notes`) are the user's. Litestream's `_litestream_seq` and
    /// `_litestream_lock`, which it creates in the database it replicates, are left alone too: a
    /// plan that dropped them would stop its checkpoints.
    ///
    /// ```swift
    /// DatabaseSchema.isInternalName("sqlite_sequence")     // true
    /// DatabaseSchema.isInternalName("strata_migrations")   // true
    /// DatabaseSchema.isInternalName("_litestream_seq")     // true
    /// DatabaseSchema.isInternalName("strata_notes")        // false
    /// ```
    public static func isInternalName(_ name: String) -> Bool {
        name.asciiLowercased().hasPrefix("sqlite_") || isStrataName(name)
            || ReservedNames.isReplicationToolTable(name)
    }

    /// The names Strata creates: `strata_migrations` (see `Migrator.ledgerTableName`),
    /// `strata_schema_fingerprint` (`SchemaFingerprint`) and `strata_tmp_<hex>`, the temporary
    /// table of a rebuild (``ReservedNames``).
    static func isStrataName(_ name: String) -> Bool { ReservedNames.isStrataTable(name) }
}

struct SchemaReader {
    let db: Database
    /// Where tables and indexes read before are kept (see ``IntrospectionCache``); nil reads
    /// everything through the PRAGMAs.
    var cache: IntrospectionCache? = .shared

    /// One row of `sqlite_master`.
    struct Entry: Hashable, Sendable {
        var type: String
        var name: String
        var table: String
        var sql: String

        /// Equal rows are equal in every text (the synthesized `==`): the hash needs only the
        /// names and the text's length, which spares hashing every statement on each lookup.
        func hash(into hasher: inout Hasher) {
            hasher.combine(type)
            hasher.combine(name)
            hasher.combine(table)
            hasher.combine(sql.utf8.count)
        }
    }

    func entries() throws -> [Entry] {
        try db.fetchAll(
            sql: "SELECT type, name, tbl_name, sql FROM main.sqlite_master WHERE sql IS NOT NULL ORDER BY rowid"
        ).map { row in
            Entry(type: try row[0], name: try row[1], table: try row[2], sql: try row[3])
        }
    }

    /// Reads one table (or virtual table) by name, or nil when there is none.
    func readTable(named name: String) throws -> TableInfo? {
        guard
            let row = try db.fetchOne(
                sql:
                    "SELECT type, name, tbl_name, sql FROM main.sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE",
                arguments: [name])
        else { return nil }
        let entry = Entry(type: try row[0], name: try row[1], table: try row[2], sql: try row[3])
        guard let cache = cacheInUse, !VirtualTableArguments.isVirtualTable(entry.sql) else {
            return try readTable(entry)
        }
        if let hit = cache.table(for: entry) { return hit }
        let table = try readTable(entry)
        cache.noteReads(1)
        // The row and the PRAGMAs come from one snapshot only inside a transaction.
        if db.isInTransaction, try isStorable(table: entry) { cache.store(table, for: entry) }
        return table
    }

    /// The cache, unless what this connection reads is not a function of `sqlite_master`'s rows
    /// (`PRAGMA writable_schema` on, or not known to be off).
    var cacheInUse: IntrospectionCache? {
        guard let cache, db.isSchemaWritable == false else { return nil }
        return cache
    }

    /// True when a table's row agrees with its text (the statement creates the table the row
    /// names), so that SQLite's PRAGMAs about that name report this text.
    func isStorable(table e: Entry) throws -> Bool {
        guard e.type == "table" else { return false }
        return try ParseCache.createTable(e.sql).name.asciiLowercased() == e.name.asciiLowercased()
    }

    /// The cache key of index `e`: its row and its table's row, or nil when its table is not
    /// exactly one row of `tables` (lowercased names).
    func indexKey(_ e: Entry, tables: [String: [Entry]]) -> IntrospectionCache.IndexKey? {
        guard let owners = tables[e.table.asciiLowercased()], owners.count == 1, let owner = owners.first else {
            return nil
        }
        return IntrospectionCache.IndexKey(index: e, table: owner)
    }

    /// True when an index's row agrees with its text (the statement creates the index the row
    /// names, on the table the row names), so that SQLite's PRAGMAs about those names report it.
    /// Only such indexes are stored, so a key found in the cache needs no check.
    func isStorable(index e: Entry) -> Bool {
        guard let statement = CreateIndexStatement(sql: e.sql) else { return false }
        return statement.name.asciiLowercased() == e.name.asciiLowercased()
            && statement.table.asciiLowercased() == e.table.asciiLowercased()
    }

    /// PRAGMA rows for every table and index, read with one query per kind through SQLite's
    /// table-valued pragma functions (one query per object would cost thousands of statements on
    /// a large schema). Keys are lowercased owner names.
    struct Bulk {
        var columns: [String: [Row]] = [:]
        var foreignKeys: [String: [Row]] = [:]
        var indexList: [String: Row] = [:]
        var indexInfo: [String: [Row]] = [:]
    }

    func bulk() throws -> Bulk {
        var bulk = Bulk()
        let notVirtual = "m.type = 'table' AND m.sql IS NOT NULL AND m.sql NOT LIKE 'CREATE VIRTUAL%'"
        for row in try db.fetchAll(
            sql: """
                SELECT m.name AS owner, p.name, p.type, p."notnull", p.dflt_value, p.pk, p.hidden
                FROM main.sqlite_master AS m, pragma_table_xinfo(m.name, 'main') AS p
                WHERE \(notVirtual) ORDER BY m.rowid, p.cid
                """)
        {
            bulk.columns[(try row[0] as String).asciiLowercased(), default: []].append(row)
        }
        for row in try db.fetchAll(
            sql: """
                SELECT m.name AS owner, f.id, f."from", f."to", f."table", f.on_delete, f.on_update, f."match"
                FROM main.sqlite_master AS m, pragma_foreign_key_list(m.name, 'main') AS f
                WHERE \(notVirtual) ORDER BY m.rowid, f.id, f.seq
                """)
        {
            bulk.foreignKeys[(try row[0] as String).asciiLowercased(), default: []].append(row)
        }
        for row in try db.fetchAll(
            sql: """
                SELECT l.name, l."unique", l.origin, l.partial
                FROM main.sqlite_master AS m, pragma_index_list(m.name, 'main') AS l WHERE \(notVirtual)
                """)
        {
            bulk.indexList[(try row[0] as String).asciiLowercased()] = row
        }
        for row in try db.fetchAll(
            sql: """
                SELECT m.name AS owner, i.name FROM main.sqlite_master AS m, pragma_index_info(m.name, 'main') AS i
                WHERE m.type = 'index' AND m.sql IS NOT NULL ORDER BY m.rowid, i.seqno
                """)
        {
            bulk.indexInfo[(try row[0] as String).asciiLowercased(), default: []].append(row)
        }
        return bulk
    }

    /// Indexes, views and triggers only (no table is parsed): what the planner's last phase compares.
    func readDependentObjects() throws -> DatabaseSchema {
        try readObjects(includingTables: false)
    }

    func read() throws -> DatabaseSchema {
        try readObjects(includingTables: true)
    }

    /// The schema from one read of `sqlite_master`, each table and index served from the cache
    /// when its rows were read before; the PRAGMAs only for the others, in the same snapshot as
    /// the rows (a transaction), so that what is stored derives from the rows it is stored under.
    private func readObjects(includingTables: Bool) throws -> DatabaseSchema {
        guard let cache = cacheInUse else {
            return try assemble(entries(), includingTables: includingTables, cache: nil, mayQuery: true)
        }
        if db.isInTransaction {
            return try assemble(entries(), includingTables: includingTables, cache: cache, mayQuery: true)
        }
        // Everything served from the cache: the one query was atomic, no transaction needed.
        do {
            return try assemble(entries(), includingTables: includingTables, cache: cache, mayQuery: false)
        } catch is NeedsQueries {}
        do {
            try db.execute(sql: "BEGIN DEFERRED TRANSACTION")
        } catch {
            // A connection that may not begin a transaction here (an authorizer, a caller's check
            // of transaction control): read as before the cache, and keep nothing.
            return try assemble(entries(), includingTables: includingTables, cache: nil, mayQuery: true)
        }
        let schema: DatabaseSchema
        do {
            schema = try assemble(entries(), includingTables: includingTables, cache: cache, mayQuery: true)
        } catch {
            try? db.execute(sql: "ROLLBACK TRANSACTION")
            throw error
        }
        // A read-only transaction: nothing to commit but the end of the snapshot.
        if (try? db.execute(sql: "COMMIT TRANSACTION")) == nil, db.isInTransaction {
            try? db.execute(sql: "ROLLBACK TRANSACTION")
        }
        return schema
    }

    /// Thrown by ``assemble(_:includingTables:cache:mayQuery:)`` without `mayQuery`.
    private struct NeedsQueries: Error {}

    /// The schema of `entries`. Without `mayQuery`, throws ``NeedsQueries`` as soon as anything
    /// would need a query (an object not in the cache, the shadow tables of a virtual table).
    private func assemble(
        _ entries: [Entry], includingTables: Bool, cache: IntrospectionCache?, mayQuery: Bool
    ) throws -> DatabaseSchema {
        let all = entries.filter { !DatabaseSchema.isInternalName($0.name) && (includingTables || $0.type != "table") }
        var shadow = Set<String>()
        if includingTables, entries.contains(where: { $0.type == "table" && Self.mayBeVirtualTable($0.sql) }) {
            if !mayQuery && db.capabilities.supportsTableListPragma { throw NeedsQueries() }
            shadow = try shadowTableNames(all)
        }
        var tablesByName = [String: [Entry]]()
        if cache != nil {
            for e in entries where e.type == "table" { tablesByName[e.name.asciiLowercased(), default: []].append(e) }
        }
        // Nil at the positions of the objects the cache did not serve, until they are read.
        var tables = [TableInfo?]()
        var indexes = [IndexInfo?]()
        var views = [ViewInfo]()
        var triggers = [TriggerInfo]()
        // Objects not served by the cache: their position, and their key when they may be stored.
        var missedTables = [(position: Int, entry: Entry, storable: Bool)]()
        var missedIndexes = [(position: Int, entry: Entry, key: IntrospectionCache.IndexKey?)]()
        for e in all {
            switch e.type {
            case "table":
                if shadow.contains(e.name.asciiLowercased()) { continue }
                if Self.mayBeVirtualTable(e.sql) && VirtualTableArguments.isVirtualTable(e.sql) {
                    tables.append(try readTable(e, bulk: Bulk()))
                } else if let hit = cache?.table(for: e) {
                    tables.append(hit)
                } else {
                    guard mayQuery else { throw NeedsQueries() }
                    missedTables.append((tables.count, e, try cache != nil && isStorable(table: e)))
                    tables.append(nil)
                }
            case "index":
                let key = cache == nil ? nil : indexKey(e, tables: tablesByName)
                if let key, let hit = cache?.index(for: key) {
                    indexes.append(hit)
                } else {
                    guard mayQuery else { throw NeedsQueries() }
                    missedIndexes.append((indexes.count, e, key.flatMap { isStorable(index: e) ? $0 : nil }))
                    indexes.append(nil)
                }
            case "view":
                views.append(ViewInfo(name: e.name, sql: e.sql, normalizedSQL: ParseCache.normalize(e.sql)))
            case "trigger":
                triggers.append(
                    TriggerInfo(name: e.name, table: e.table, sql: e.sql, normalizedSQL: ParseCache.normalize(e.sql)))
            default:
                continue
            }
        }
        if !missedTables.isEmpty || !missedIndexes.isEmpty {
            // A few objects missed (one table changed, with its indexes): their own PRAGMA
            // queries. Many, or any whose row disagrees with its text: the bulk queries, as
            // SQLite resolves names over the whole schema.
            let missed = missedTables.count + missedIndexes.count
            let perObject =
                missed * 4 <= tables.count + indexes.count && missedTables.allSatisfy(\.storable)
                && missedIndexes.allSatisfy { $0.key != nil }
            let bulk = perObject ? nil : try bulk()
            cache?.noteReads(missed)
            for m in missedTables {
                let table = try readTable(m.entry, bulk: bulk)
                tables[m.position] = table
                if m.storable { cache?.store(table, for: m.entry) }
            }
            for m in missedIndexes {
                let index = try bulk.map { try readIndex(m.entry, bulk: $0) } ?? readIndex(m.entry)
                indexes[m.position] = index
                if let key = m.key { cache?.store(index, for: key) }
            }
        }
        return DatabaseSchema(
            tables: tables.compactMap { $0 }, indexes: indexes.compactMap { $0 }, views: views, triggers: triggers)
    }

    /// True when `sql` may declare a virtual table (it contains the word, in any case): only then
    /// can a table be a shadow table, whose detection needs a query.
    static func mayBeVirtualTable(_ sql: String) -> Bool {
        // What SQLite stores for every ordinary table: its second token is TABLE, not VIRTUAL.
        if sql.utf8.starts(with: "CREATE TABLE ".utf8) { return false }
        let word = Array("virtual".utf8)
        var matched = 0
        for byte in sql.utf8 {
            let lower = byte >= 65 && byte <= 90 ? byte + 32 : byte
            if lower == word[matched] {
                matched += 1
                if matched == word.count { return true }
            } else {
                matched = lower == word[0] ? 1 : 0
            }
        }
        return false
    }

    /// The shadow tables of the virtual tables among `entries` (lowercased names): the tables
    /// `PRAGMA table_list` reports with type `shadow` (SQLite 3.37+). On older SQLite (or with
    /// ``Configuration/capabilityLimit`` below 3.37), the tables named `<vtab>_<suffix>` for the
    /// suffixes the virtual table's own module declares (``shadowSuffixes``), as SQLite decides it.
    /// A real table named like a shadow table of another module, or with no such virtual table
    /// beside it (`docs_stat` beside an FTS5 `docs`), is the user's.
    func shadowTableNames(_ entries: [Entry]) throws -> Set<String> {
        var result = Set<String>()
        if db.capabilities.supportsTableListPragma {
            for row in try db.fetchAll(sql: "PRAGMA main.table_list") where try row["type"] as String == "shadow" {
                result.insert((try row["name"] as String).asciiLowercased())
            }
            return result
        }
        let tables = Set(entries.filter { $0.type == "table" }.map { $0.name.asciiLowercased() })
        for e in entries where e.type == "table" && VirtualTableArguments.isVirtualTable(e.sql) {
            guard let module = VirtualTableArguments(sql: e.sql)?.module,
                let suffixes = Self.shadowSuffixes[module.asciiLowercased()]
            else { continue }
            for suffix in suffixes {
                let name = (e.name + "_" + suffix).asciiLowercased()
                if tables.contains(name) { result.insert(name) }
            }
        }
        return result
    }

    /// The shadow tables each of SQLite's modules declares (its `xShadowName`): fts3ShadowName
    /// in ext/fts3/fts3.c, fts5ShadowName in ext/fts5/fts5_main.c, rtreeShadowName in
    /// ext/rtree/rtree.c (also geopoly's). See <https://www.sqlite.org/vtab.html#the_xshadowname_method>.
    static let shadowSuffixes: [String: [String]] = [
        "fts3": ["content", "docsize", "segdir", "segments", "stat"],
        "fts4": ["content", "docsize", "segdir", "segments", "stat"],
        "fts5": ["config", "content", "data", "docsize", "idx"],
        "rtree": ["node", "parent", "rowid"],
        "rtree_i32": ["node", "parent", "rowid"],
        "geopoly": ["node", "parent", "rowid"],
    ]

    func readTable(_ e: Entry, bulk: Bulk? = nil) throws -> TableInfo {
        let key = e.name.asciiLowercased()
        if VirtualTableArguments.isVirtualTable(e.sql) {
            return TableInfo(
                name: e.name, sql: e.sql, isVirtual: true, module: VirtualTableArguments(sql: e.sql)?.module,
                columns: [], constraints: [],
                foreignKeys: [], isWithoutRowID: false, isStrict: false, hasAutoincrement: false,
                renamedFrom: nil, normalizedConstraints: [])
        }
        let parsed = try ParseCache.createTable(e.sql)
        let definitions = Dictionary(
            parsed.columns.map { ($0.name.asciiLowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        var columns = [ColumnInfo]()
        let columnRows =
            try bulk.map { $0.columns[key] ?? [] }
            ?? db.fetchAll(
                sql:
                    "SELECT NULL AS owner, name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?, 'main') ORDER BY cid",
                arguments: [e.name])
        for row in columnRows {
            let name: String = try row["name"]
            let definition = definitions[name.asciiLowercased()]
            columns.append(
                ColumnInfo(
                    name: name, declaredType: try row["type"], isNotNull: try row["notnull"],
                    defaultSQL: Self.defaultExpression(try row["dflt_value"]), primaryKeyPosition: try row["pk"],
                    kind: ColumnInfo.Kind(rawValue: try row["hidden"]) ?? .normal, collation: definition?.collation,
                    definition: definition?.text ?? SQL.quoteIdentifier(name), renamedFrom: nil,
                    normalizedBody: definition?.normalizedBody ?? "",
                    definitionTokensContainDesc: definition?.isPrimaryKeyDescending ?? false))
        }
        var foreignKeys = [Int: ForeignKeyInfo]()
        var order = [Int]()
        let foreignKeyRows =
            try bulk.map { $0.foreignKeys[key] ?? [] }
            ?? db.fetchAll(
                sql: """
                    SELECT NULL AS owner, id, "from", "to", "table", on_delete, on_update, "match"
                    FROM pragma_foreign_key_list(?, 'main') ORDER BY id, seq
                    """, arguments: [e.name])
        for row in foreignKeyRows {
            let id: Int = try row["id"]
            let from: String = try row["from"]
            let to: String? = try row["to"]
            if foreignKeys[id] == nil {
                order.append(id)
                foreignKeys[id] = ForeignKeyInfo(
                    columns: [], parentTable: try row["table"], parentColumns: [], onDelete: try row["on_delete"],
                    onUpdate: try row["on_update"], match: try row["match"], isDeferred: false)
            }
            foreignKeys[id]!.columns.append(from)
            foreignKeys[id]!.parentColumns.append(to)
        }
        // PRAGMA foreign_key_list does not report deferrability: the statement's text does.
        func foreignKeyID(_ columns: [String], _ parent: String) -> String {
            columns.map { $0.asciiLowercased() }.joined(separator: ",") + "|" + parent.asciiLowercased()
        }
        let deferredKeys = Set(parsed.foreignKeys.filter(\.isDeferred).map { foreignKeyID($0.columns, $0.parentTable) })
        var keys = order.compactMap { foreignKeys[$0] }
        for i in keys.indices {
            keys[i].isDeferred = deferredKeys.contains(foreignKeyID(keys[i].columns, keys[i].parentTable))
        }
        return TableInfo(
            name: e.name, sql: e.sql, isVirtual: false, module: nil, columns: columns,
            constraints: parsed.constraints, foreignKeys: keys,
            isWithoutRowID: parsed.isWithoutRowID, isStrict: parsed.isStrict, hasAutoincrement: parsed.hasAutoincrement,
            renamedFrom: nil, normalizedConstraints: parsed.normalizedConstraints)
    }

    /// `PRAGMA table_xinfo`'s `dflt_value` without comments: SQLite before 3.3x reports the text
    /// up to the next comma, so `DEFAULT '' -- @renamed from=a` came back with the comment, which
    /// then commented out the rest of an expression built from it (`coalesce(x, '' -- …)`).
    static func defaultExpression(_ raw: String?) -> String? {
        raw.map(SQLComments.removingComments)
    }

    /// One index through its own PRAGMA queries (`e` agrees with its text: see ``indexKey(_:tables:)``).
    func readIndex(_ e: Entry) throws -> IndexInfo {
        var bulk = Bulk()
        let key = e.name.asciiLowercased()
        bulk.indexList[key] = try db.fetchOne(
            sql: """
                SELECT name, "unique", origin, partial FROM pragma_index_list(?, 'main')
                WHERE name = ? COLLATE NOCASE
                """, arguments: [e.table, e.name])
        bulk.indexInfo[key] = try db.fetchAll(
            sql: "SELECT NULL AS owner, name FROM pragma_index_info(?, 'main') ORDER BY seqno", arguments: [e.name])
        return try readIndex(e, bulk: bulk)
    }

    func readIndex(_ e: Entry, bulk: Bulk) throws -> IndexInfo {
        var unique = false
        var partial = false
        var origin = "c"
        let key = e.name.asciiLowercased()
        if let row = bulk.indexList[key] {
            unique = try row["unique"]
            partial = try row["partial"]
            origin = try row["origin"]
        }
        let columns: [String?] = try (bulk.indexInfo[key] ?? []).map { try $0["name"] }
        return IndexInfo(
            name: e.name, table: e.table, sql: e.sql, isUnique: unique, isPartial: partial, origin: origin,
            columns: columns,
            normalizedSQL: ParseCache.normalize(e.sql))
    }
}
