import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// The hardening of the engine's scratch databases: the desired schema's and the schema-only
/// copy plans are proven on (issue 11, item 6).
@Suite("Scratch database")
struct ScratchDatabaseTests {
    static let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

    /// The authorizer alone (without the token check of `DatabaseSchema(sql:)`) refuses what is not
    /// schema creation, while compiling, before anything runs.
    @Test func theGuardRefusesWhileCompiling() throws {
        let cases: [(sql: String, refusal: String)] = [
            ("CREATE TABLE x AS SELECT 1", ScratchGuard.createTableAsSelect),
            ("CREATE TABLE x AS " + Self.endless, ScratchGuard.createTableAsSelect),
            (
                "CREATE TABLE x(a CHECK (load_extension('x') IS NULL))",
                "calls load_extension(), which a schema may not use"
            ),
            ("CREATE TEMP TABLE x(a)", ScratchGuard.temporaryObject),
            ("CREATE TABLE t2(a); CREATE TABLE t3(a)", "holds more than one statement"),
        ]
        for c in cases {
            let (db, guardian) = try ScratchDatabase.open(ScratchDatabase.configuration())
            defer { db.close() }
            try db.execute(sql: "CREATE TABLE t(a)")
            let error = try #require(throws: SQLiteError.self, "\(c.sql)") { try guardian.create(c.sql, in: db) }
            #expect(guardian.refusal == c.refusal, "\(c.sql): \(error)")
            #expect(try db.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master") == ["t"], "\(c.sql)")
            #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_temp_master") == 0, "\(c.sql)")
        }
    }

    /// What virtual table modules do while they create their shadow tables is allowed.
    @Test func theGuardLetsModulesCreateTheirTables() throws {
        let (db, guardian) = try ScratchDatabase.open(ScratchDatabase.configuration())
        defer { db.close() }
        for sql in [
            "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)",
            "CREATE VIRTUAL TABLE f5 USING fts5(body, content=t, content_rowid=id, tokenize='porter unicode61')",
            "CREATE VIRTUAL TABLE f4 USING fts4(body, content=t, prefix='2,3')",
            "CREATE VIRTUAL TABLE f3 USING fts3(body, tokenize=unicode61)",
            "CREATE VIRTUAL TABLE box USING rtree(id, x0, x1)",
            "CREATE VIRTUAL TABLE box32 USING rtree_i32(id, x0, x1)",
        ] {
            try guardian.create(sql, in: db)
            #expect(guardian.refusal == nil, "\(sql)")
        }
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'box_node'") == 1)
    }

    @Test func theSchemaCopyIsHardened() throws {
        let live = try Database(inMemory: Configuration())
        try live.execute(
            sql: """
                CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT);
                INSERT INTO t VALUES (1, 'hello');
                CREATE VIRTUAL TABLE f USING fts5(body, content=t, content_rowid=id);
                """)
        let copy = try SchemaCopy.make(of: live)
        defer { copy.close() }
        #expect(copy.configuration.defensive && copy.configuration.fts3TokenizerRegistration == false)
        #expect(copy.limit(.attached) == 0)
        #expect(copy.limit(.length) == ScratchDatabase.lengthLimit)
        #expect(try copy.fetchValue(Int.self, sql: "PRAGMA max_page_count") == ScratchDatabase.maximumPageCount)
        #expect(try copy.fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 0, "a schema-only copy")
        // What plans do still works: DDL, copying rows, rebuilding an FTS index, savepoints.
        try copy.execute(
            sql: """
                SAVEPOINT s;
                CREATE TABLE strata_tmp_1(id INTEGER PRIMARY KEY, body TEXT NOT NULL DEFAULT '');
                INSERT INTO strata_tmp_1(id, body) SELECT id, coalesce(body, '') FROM t;
                DROP TABLE t;
                ALTER TABLE strata_tmp_1 RENAME TO t;
                INSERT INTO f(f) VALUES ('rebuild');
                RELEASE s;
                """)
        // What plans never do is refused.
        for sql in [
            "ATTACH DATABASE ':memory:' AS other",
            "SELECT load_extension('x')",
            "SELECT fts3_tokenizer('simple', x'4141414141414141')",
            "PRAGMA writable_schema = ON",
        ] {
            #expect(throws: SQLiteError.self, "\(sql)") { try copy.execute(sql: sql) }
        }
        let start = Date()
        let error = try #require(throws: SQLiteError.self) { try copy.fetchValue(Int.self, sql: Self.endless) }
        #expect(error.resultCode == .SQLITE_INTERRUPT)
        #expect(error.message.contains("virtual machine instructions") == true, "\(error)")
        #expect(Date().timeIntervalSince(start) < 60)
    }

    /// A live schema is input too: one the guard refuses is not copied, and nothing is applied.
    @Test func aLiveSchemaTheGuardRefusesIsNotPlanned() throws {
        let dir = TemporaryDirectory("strata-scratch")
        let path = dir.file("db.sqlite")
        let db = try Database(path: path)
        defer { db.close() }
        do {
            try db.execute(sql: "CREATE TABLE t(a CHECK (load_extension('x') IS NULL)); CREATE TABLE u(b);")
        } catch let error as SQLiteError {
            // Newer SQLite (3.50 here; 3.45 still accepts it) refuses such a schema itself: "unsafe
            // use of load_extension()", and reads a file holding one as malformed. No such live
            // schema can reach Strata then.
            #expect(error.resultCode == .SQLITE_ERROR && error.message.contains("load_extension()") == true, "\(error)")
            #expect(SQLiteVersion.runtime > SQLiteVersion(3, 45, 0), "\(error)")
            return
        }
        let bytes = fileBytes(path)
        let error = try #require(throws: SchemaError.self) {
            try db.migrateSchema(to: "CREATE TABLE u(b);", options: SchemaChangeOptions(allowDestructive: true))
        }
        #expect(
            error.message.hasPrefix("table t: cannot be copied to a scratch database: calls load_extension()"),
            "\(error)")
        let unchanged = fileBytes(path) == bytes  // a Bool: #expect would diff megabytes of Data
        #expect(unchanged)
    }
    /// Hardening must not refuse real schemas: views and triggers over FTS and R*Tree tables
    /// (whose modules SQLite does not mark innocuous), table-valued functions, FTS sync
    /// triggers, through creation and a rebuild of the content table with rows.
    @Test func realSchemasWithVirtualTablesStillPlan() throws {
        let v1 = """
            CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT, body TEXT);
            CREATE VIRTUAL TABLE note_fts USING fts5(title, body, content=note, content_rowid=id);
            CREATE VIRTUAL TABLE page USING fts4(body, tokenize=porter);
            CREATE VIRTUAL TABLE place USING rtree(id, min_x, max_x);
            CREATE VIRTUAL TABLE note_terms USING fts5vocab(note_fts, row);
            CREATE VIEW hit AS SELECT rowid, highlight(note_fts, 1, '[', ']') AS body FROM note_fts WHERE note_fts MATCH 'needle';
            CREATE VIEW page_hit AS SELECT docid, snippet(page), offsets(page), matchinfo(page) FROM page WHERE page MATCH 'x';
            CREATE VIEW near AS SELECT id FROM place WHERE min_x > 0;
            CREATE VIEW term AS SELECT term FROM note_terms;
            CREATE VIEW meta AS SELECT p.name, j.value FROM pragma_table_info('note') AS p, json_each('[1, 2]') AS j;
            CREATE TRIGGER note_ai AFTER INSERT ON note BEGIN
              INSERT INTO note_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
              INSERT INTO page(docid, body) VALUES (new.id, new.body);
              INSERT INTO place VALUES (new.id, 1, 2);
            END;
            """
        let v2 = v1.replacingOccurrences(of: "body TEXT);", with: "body TEXT NOT NULL DEFAULT '');")
        let dir = TemporaryDirectory("strata-scratch")
        let db = try Database(path: dir.file("db.sqlite"))
        defer { db.close() }
        try db.migrateSchema(to: v1)
        try db.execute(sql: "INSERT INTO note VALUES (1, 'a', 'the needle'), (2, 'b', NULL)")
        let plan = try db.planSchemaChange(to: v2)
        #expect(plan.steps.contains { $0.kind == .rebuildTable && $0.object == "note" }, "\(plan.summary)")
        try db.applySchemaChange(plan)
        #expect(try db.fetchAll(sql: "SELECT * FROM hit").map(\.values) == [[1, "the [needle]"]])
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM near") == 2)
        #expect(try db.planSchemaChange(to: v2).isEmpty)
    }
}
