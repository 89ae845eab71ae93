import StrataSQLite

/// What ``SchemaReader`` read of each table and index through SQLite's PRAGMAs, kept by exactly
/// what it derives from, so that reading a schema again (a plan of the same live database, the
/// proof's read of a copy equal to one read before) compiles no PRAGMA for an object seen before.
///
/// Why the key is enough: SQLite builds its in-memory schema from the rows of `sqlite_master`
/// and nothing else, and `PRAGMA table_xinfo` / `foreign_key_list` report a table as its
/// `CREATE TABLE` text declares it; `PRAGMA index_list` / `index_info` report an index from its
/// `CREATE INDEX` text and its table's columns. So a table is keyed by its whole row (type, name,
/// table name and SQL text), an index by its row and its table's row, compared in full (a
/// dictionary compares the keys with `==` after the hash: a hash collision cannot serve another
/// object). The rest of what the result depends on is fixed for the process: the SQLite library
/// loaded (one per process) and Strata's own parser. What is not a function of the rows is left
/// out of the cache: objects whose row disagrees with its own text (a name that is not the
/// statement's, only possible through `writable_schema`), every read while `PRAGMA
/// writable_schema` is on (SQLite then skips objects it cannot load instead of failing) or when
/// that cannot be told (SQLite before 3.28), the shadow tables of virtual tables (they depend on
/// the modules registered; read each time), and errors (never kept). Views and triggers need no
/// PRAGMA: their text is the whole result. `PRAGMA schema_version` is not used as a key: another
/// file, or the same file rewritten, can carry the same version with a different schema.
///
/// Results are stored only when the rows and the PRAGMAs were read in one snapshot (inside one
/// transaction): otherwise another connection could change the schema between the two reads and
/// the result would be stored under rows it does not derive from.
///
/// Process-wide and bounded: emptied when it holds `limit` objects or its keys hold more than
/// `byteLimit` bytes of text.
final class IntrospectionCache: Sendable {
    /// The cache ``SchemaReader`` uses.
    static let shared = IntrospectionCache()

    /// An index's row and the row of the table it is on.
    struct IndexKey: Hashable, Sendable {
        var index: SchemaReader.Entry
        var table: SchemaReader.Entry
    }

    private struct State: Sendable {
        var tables: [SchemaReader.Entry: TableInfo] = [:]
        var indexes: [IndexKey: IndexInfo] = [:]
        var bytes = 0
        var reads = 0
    }

    let limit: Int
    let byteLimit: Int
    private let state = LockedValue(State())

    init(limit: Int = 8192, byteLimit: Int = 16 * 1024 * 1024) {
        self.limit = limit
        self.byteLimit = byteLimit
    }

    func table(for entry: SchemaReader.Entry) -> TableInfo? {
        state.withLock { $0.tables[entry] }
    }

    func index(for key: IndexKey) -> IndexInfo? {
        state.withLock { $0.indexes[key] }
    }

    func store(_ table: TableInfo, for entry: SchemaReader.Entry) {
        add(bytes: entry.byteCount) { $0.tables[entry] = table }
    }

    func store(_ index: IndexInfo, for key: IndexKey) {
        add(bytes: key.index.byteCount + key.table.byteCount) { $0.indexes[key] = index }
    }

    private func add(bytes: Int, _ body: (inout State) -> Void) {
        guard bytes <= byteLimit else { return }
        state.withLock { state in
            if state.tables.count + state.indexes.count >= limit || state.bytes + bytes > byteLimit {
                state.tables.removeAll(keepingCapacity: true)
                state.indexes.removeAll(keepingCapacity: true)
                state.bytes = 0
            }
            state.bytes += bytes
            body(&state)
        }
    }

    /// Objects kept (tables and indexes).
    var count: Int { state.withLock { $0.tables.count + $0.indexes.count } }

    /// How many tables and indexes readers using this cache read through the PRAGMAs (tests).
    var reads: Int { state.withLock { $0.reads } }

    func noteReads(_ count: Int) { state.withLock { $0.reads += count } }

    func removeAll() {
        state.withLock { state in
            state.tables.removeAll()
            state.indexes.removeAll()
            state.bytes = 0
        }
    }
}

extension SchemaReader.Entry {
    /// The bytes of text the row holds (the cache's bound).
    var byteCount: Int { type.utf8.count + name.utf8.count + table.utf8.count + sql.utf8.count }
}
