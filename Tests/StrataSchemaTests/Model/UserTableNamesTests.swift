import Foundation
import Strata
import StrataTestSupport
import Testing

/// User tables whose names look internal (issue 11, item 8): `strata_*` tables other than the
/// ones Strata creates, and real tables named like a virtual table's shadow tables, are part of
/// the schema; only real shadow tables and Strata's own tables are hidden. Every test runs on
/// this SQLite (shadow tables from `PRAGMA table_list`) and with capabilities lowered to 3.36
/// (the modules' shadow-table names).
@Suite("User tables with internal-looking names")
struct UserTableNamesTests {
    static let limits: [SQLiteVersion?] = [nil, SQLiteVersion(3, 36, 0)]

    static let v1 = """
        CREATE TABLE strata_notes(id INTEGER PRIMARY KEY, body TEXT);
        CREATE TABLE strata_tmp_x(a);
        CREATE TABLE strata_migrations_archive(a);
        CREATE VIRTUAL TABLE docs USING fts5(title, body);
        CREATE TABLE docs_stat(id INTEGER PRIMARY KEY, hits INTEGER);
        CREATE VIRTUAL TABLE pages USING fts4(body);
        CREATE TABLE pages_data(k, v);
        CREATE VIRTUAL TABLE box USING rtree(id, x0, x1);
        CREATE TABLE box_stat(a);
        CREATE TABLE lonely_content(a);
        """
    /// v1 with `strata_notes` and `docs_stat` changed so that both are rebuilt.
    static let v2 =
        v1
        .replacingOccurrences(
            of: "strata_notes(id INTEGER PRIMARY KEY, body TEXT)",
            with:
                "strata_notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL DEFAULT '', pinned INTEGER NOT NULL DEFAULT 0)"
        )
        .replacingOccurrences(
            of: "docs_stat(id INTEGER PRIMARY KEY, hits INTEGER)",
            with: "docs_stat(id INTEGER PRIMARY KEY, hits INTEGER CHECK (hits >= 0))")

    static let userTables = [
        "strata_notes", "strata_tmp_x", "strata_migrations_archive", "docs", "docs_stat", "pages", "pages_data", "box",
        "box_stat", "lonely_content",
    ]
    static let shadowTables = [
        "docs_data", "docs_idx", "docs_content", "docs_docsize", "docs_config", "pages_content", "pages_segments",
        "pages_segdir", "pages_docsize", "pages_stat", "box_node", "box_parent", "box_rowid",
    ]

    static func open(_ path: String, _ limit: SQLiteVersion?) throws -> Database {
        var config = Configuration()
        config.capabilityLimit = limit
        return try Database(path: path, configuration: config)
    }

    @Test(arguments: limits)
    func theDesiredSchemaKeepsThem(_ limit: SQLiteVersion?) throws {
        #expect(try DatabaseSchema(sql: Self.v1).tables.map(\.name) == Self.userTables)
        let db = try Database(
            inMemory: {
                var c = Configuration()
                c.capabilityLimit = limit
                return c
            }())
        try db.execute(sql: Self.v1)
        let names = try db.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        #expect(Set(names) == Set(Self.userTables + Self.shadowTables), "the fixture has every shadow table")
        let live = try DatabaseSchema.read(from: db)
        #expect(live.tables.map(\.name) == Self.userTables, "\(String(describing: limit))")
        #expect(live == (try DatabaseSchema(sql: Self.v1)))
    }

    @Test(arguments: limits)
    func createdChangedWithRowsKeptAndDumped(_ limit: SQLiteVersion?) throws {
        let dir = TemporaryDirectory("strata-user-names")
        let path = dir.file("db.sqlite")
        let db = try Self.open(path, limit)
        defer { db.close() }
        let created = try db.migrateSchema(to: Self.v1)
        #expect(created.steps.map(\.object) == Self.userTables, "\(created.summary)")
        try db.execute(
            sql: """
                INSERT INTO strata_notes VALUES (1, 'keep me'), (2, NULL);
                INSERT INTO docs_stat VALUES (7, 3);
                INSERT INTO docs(rowid, title, body) VALUES (5, 'hello', 'world');
                INSERT INTO pages_data VALUES ('k', 'v');
                """)
        #expect(try db.planSchemaChange(to: Self.v1).isEmpty)

        let plan = try db.planSchemaChange(to: Self.v2)
        #expect(plan.steps.map(\.kind) == [.rebuildTable, .rebuildTable], "\(plan.summary)")
        #expect(Set(plan.steps.map(\.object)) == ["strata_notes", "docs_stat"], "\(plan.summary)")
        try db.applySchemaChange(plan)
        #expect(
            try db.fetchAll(sql: "SELECT * FROM strata_notes ORDER BY id").map(\.values) == [
                [1, "keep me", 0], [2, "", 0],
            ])
        #expect(try db.fetchAll(sql: "SELECT * FROM docs_stat").map(\.values) == [[7, 3]])
        #expect(try db.fetchAll(sql: "SELECT * FROM pages_data").map(\.values) == [["k", "v"]])
        #expect(try db.fetchValue(Int.self, sql: "SELECT rowid FROM docs WHERE docs MATCH 'world'") == 5)
        #expect(try db.planSchemaChange(to: Self.v2).isEmpty)
        #expect(try DatabaseSchema.read(from: db) == DatabaseSchema(sql: Self.v2))

        // The dump: every user table, no shadow table.
        let dump = try DatabaseSchema.read(from: db).sql
        for name in Self.userTables {
            // A rebuilt table's SQL names it quoted (ALTER TABLE ... RENAME TO writes the quotes).
            #expect(
                dump.contains("TABLE \(name)") || dump.contains("TABLE \"\(name)\""), "\(name) not dumped:\n\(dump)")
        }
        for name in Self.shadowTables { #expect(!dump.contains(name), "\(name) dumped:\n\(dump)") }
        #expect(try DatabaseSchema(sql: dump) == DatabaseSchema(sql: Self.v2))
    }

    @Test(arguments: limits)
    func droppingOneNeedsPermissionLikeAnyTable(_ limit: SQLiteVersion?) throws {
        let dir = TemporaryDirectory("strata-user-names")
        let path = dir.file("db.sqlite")
        let db = try Self.open(path, limit)
        defer { db.close() }
        try db.execute(sql: Self.v1 + "INSERT INTO docs_stat VALUES (1, 1);")
        let without = Self.v1.replacingOccurrences(
            of: "CREATE TABLE docs_stat(id INTEGER PRIMARY KEY, hits INTEGER);\n", with: "")
        let bytes = fileBytes(path)
        let error = try #require(throws: SchemaError.self) { try db.planSchemaChange(to: without) }
        #expect(error.code == .destructiveChangesRefused)
        #expect(error.destructiveChanges == ["drop table docs_stat (1 row)"])
        let unchanged = fileBytes(path) == bytes  // a Bool: #expect would diff megabytes of Data
        #expect(unchanged)
        try db.migrateSchema(to: without, options: SchemaChangeOptions(allowDestructive: true))
        #expect(try DatabaseSchema.read(from: db) == DatabaseSchema(sql: without))
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'docs_config'") == 1)
    }

    @Test(arguments: limits)
    func strataOwnTablesStayHidden(_ limit: SQLiteVersion?) throws {
        let db = try Database(
            inMemory: {
                var c = Configuration()
                c.capabilityLimit = limit
                return c
            }())
        try db.execute(
            sql: """
                CREATE TABLE strata_migrations(identifier TEXT PRIMARY KEY, checksum TEXT, applied_at TEXT, duration_ms INTEGER);
                CREATE TABLE strata_tmp_0123456789abcdef(a);
                CREATE TABLE STRATA_TMP_1F(a);
                CREATE TABLE t(a);
                """)
        #expect(try DatabaseSchema.read(from: db).tables.map(\.name) == ["t"])
        #expect(try db.planSchemaChange(to: "CREATE TABLE t(a);").isEmpty)
        for name in [
            "strata_migrations", "strata_tmp_0123456789abcdef", "STRATA_TMP_1F", "sqlite_stat1", "sqlite_sequence",
        ] {
            #expect(DatabaseSchema.isInternalName(name), "\(name)")
        }
        for name in [
            "strata_notes", "strata_tmp_", "strata_tmp_x", "strata_tmp_0123456789abcdef0", "strata_migrations2",
            "strata",
        ] {
            #expect(!DatabaseSchema.isInternalName(name), "\(name)")
        }
    }

    @Test func aDesiredSchemaCannotDeclareStrataOwnTables() throws {
        for name in ["strata_migrations", "strata_tmp_1f", "Strata_Tmp_ABC"] {
            let error = try #require(throws: SchemaError.self) {
                try DatabaseSchema(sql: "CREATE TABLE t(a);\nCREATE TABLE \(name)(a);")
            }
            #expect(error.code == .invalidSQL)
            #expect(
                error.message.hasPrefix("statement 2 `CREATE TABLE \(name)(a);`: table \(name): the name is reserved"),
                "\(error)")
        }
    }
}
