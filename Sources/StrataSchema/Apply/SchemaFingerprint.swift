import StrataSQLite

/// The launch fast path of ``Database/migrateSchema(to:options:)-(String,_)``: a record, kept in
/// the database, that the live schema is exactly what planning a given desired schema text
/// produced, so that an unchanged app launch decides "nothing to do" without a full plan.
///
/// After every `migrateSchema(to:)` that leaves the database equal to the desired schema (an
/// applied plan, re-read and compared inside the applying transaction, or a plan that was empty),
/// Strata writes one row into its own table ``tableName``, in the same transaction:
/// - `desired`: a 64-bit XXH64 digest of the desired SQL text, keyed with Strata's
///   ``plannerVersion``, the SQLite library version and capability limit, and the options that
///   can change a plan of an unchanged database (renames, native ALTER, exact names);
/// - `schema_version`: SQLite's `PRAGMA schema_version`, which SQLite bumps on every change to
///   the schema by anyone (every CREATE, DROP, ALTER);
/// - `master`: an XXH64 digest of every row of `sqlite_master` (type, name, table and SQL).
///
/// At launch, one hash of the text, one PRAGMA, one scan of `sqlite_master` and one row read,
/// in one read transaction; only when all three match does `migrateSchema(to:)` return an empty
/// plan at once. Any mismatch, a missing table or row, or any error runs the full plan.
///
/// Why it cannot skip a needed plan: the row and the schema are written in one transaction, so
/// any copy of the file (a backup, a restored backup) holds a row that describes its own schema.
/// A schema changed afterwards by anyone changes `schema_version` *and* `sqlite_master`; a
/// `PRAGMA schema_version` set back by hand, or a row copied from another file, still leaves
/// the `sqlite_master` digest different. A row written by a hostile writer of the file who
/// computes Strata's digest of the file's current `sqlite_master` would be believed: such a
/// writer can already replace the schema with anything, and what is skipped is then exactly the
/// schema that writer left (there is no secret a library could key the digest with). The table
/// is Strata's: introspection ignores it, a desired schema may not declare it, and no plan drops it.
struct SchemaFingerprint: Equatable {
    /// Strata's own table (see ``DatabaseSchema/isInternalName(_:)``).
    static let tableName = ReservedNames.fingerprintTable
    /// Bumped whenever what the planner produces or compares could change for the same text, so
    /// that a fingerprint recorded by an older Strata never skips a plan of a newer one.
    /// 2: a `-- @renamed` hint or rename option that changes only the letter case of a name is
    /// applied (version 1 planned nothing for it).
    static let plannerVersion = 2

    /// The keyed digest of the desired text.
    var desired: Int64

    init(sql: String, options: SchemaChangeOptions, db: Database, plannerVersion: Int = Self.plannerVersion) {
        var key = "strata-schema-fingerprint\u{1F}planner=\(plannerVersion)\u{1F}sqlite=\(SQLiteVersion.runtime)"
        // `allowDestructive` is left out: it only refuses steps, and a database equal to the
        // desired schema has none (the same app may pass it on one launch and not the next).
        key += "\u{1F}capabilities=\(db.capabilities.version)"
        key +=
            "\u{1F}native=\(options.useNativeAlter)\u{1F}renames=\(options.renames.map(\.description).joined(separator: "\u{1E}"))"
        // A database recorded as equal to the text ignoring the case of names may still differ
        // from it by case: with `exactNames` that is a change, so the record must not serve.
        key += "\u{1F}exactNames=\(options.exactNames)"
        let seed = XXH64.hash(key)
        desired = Int64(bitPattern: XXH64.hash(sql, seed: seed))
    }

    /// The live state a fingerprint row is compared with.
    struct LiveState: Equatable {
        var schemaVersion: Int64
        var master: Int64
        var hasTable: Bool
    }

    private static let masterSQL = """
        SELECT group_concat(type || char(31) || name || char(31) || tbl_name || char(31) || ifnull(sql, ''), char(30)), \
        count(CASE WHEN type = 'table' AND name = '\(tableName)' THEN 1 END) \
        FROM main.sqlite_master
        """

    static func liveState(of db: Database) throws -> LiveState {
        let version = try db.fetchValue(Int64.self, sql: "PRAGMA main.schema_version") ?? 0
        guard let row = try db.fetchOne(sql: masterSQL) else {
            return LiveState(schemaVersion: version, master: 0, hasTable: false)
        }
        let text: String = try row[0] as String? ?? ""
        let count: Int = try row[1]
        return LiveState(schemaVersion: version, master: Int64(bitPattern: XXH64.hash(text)), hasTable: count > 0)
    }

    /// True when `db` holds a row recorded for this fingerprint that still describes its schema.
    /// Reads in one transaction (a snapshot); any error counts as "no".
    func matches(_ db: Database) -> Bool {
        func check() throws -> Bool {
            let live = try Self.liveState(of: db)
            guard live.hasTable,
                let row = try db.fetchOne(
                    sql: "SELECT desired, schema_version, master FROM main.\(Self.tableName) WHERE id = 1")
            else { return false }
            let (desired, version, master): (Int64?, Int64?, Int64?) = (try row[0], try row[1], try row[2])
            return desired == self.desired && version == live.schemaVersion && master == live.master
        }
        do {
            if db.isInTransaction { return try check() }
            return try db.transaction(.deferred) { try check() }
        } catch {
            return false
        }
    }

    /// Writes the row for the current schema. Must run inside the transaction that made the
    /// schema, after its last schema change (creating the table changes the schema, so the
    /// table is created first and `schema_version` read after).
    func record(in db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS main.\(Self.tableName)(
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    desired INTEGER NOT NULL,
                    schema_version INTEGER NOT NULL,
                    master INTEGER NOT NULL,
                    planner_version INTEGER NOT NULL,
                    sqlite_version TEXT NOT NULL)
                """)
        let live = try Self.liveState(of: db)
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO main.\(Self.tableName)(id, desired, schema_version, master, planner_version, sqlite_version)
                VALUES (1, ?, ?, ?, ?, ?)
                """,
            arguments: [
                desired, live.schemaVersion, live.master, Self.plannerVersion, SQLiteVersion.runtime.description,
            ])
    }
}
