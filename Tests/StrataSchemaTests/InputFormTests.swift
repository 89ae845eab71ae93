import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// Input forms of a desired schema that SQLite accepts and the engine must too (issue 14's list).
@Suite("Desired-schema input forms")
struct InputFormTests {
    /// Applies `before`, inserts `rows`, plans `after` and applies it; returns the plan.
    @discardableResult
    func migrate(
        _ before: String, rows: String = "", to after: String, allowDestructive: Bool = false
    ) throws -> (Plan, Database, TemporaryDirectory) {
        let dir = TemporaryDirectory("strata-input-forms")
        let db = try Database(path: dir.file("db.sqlite"))
        if !before.isEmpty { try db.migrateSchema(to: before) }
        if !rows.isEmpty { try db.execute(sql: rows) }
        let plan = try db.planSchemaChange(to: after, options: SchemaChangeOptions(allowDestructive: allowDestructive))
        try db.applySchemaChange(plan)
        #expect(try DatabaseSchema.read(from: db).differences(from: DatabaseSchema(sql: after)).isEmpty)
        #expect(try db.planSchemaChange(to: after).isEmpty, "a second plan is not empty")
        return (plan, db, dir)
    }

    @Test func singleQuotedTableAndColumnNames() throws {
        let schema = try DatabaseSchema(sql: "CREATE TABLE 'bigdata' ('data' integer, 'it''s' TEXT)")
        #expect(schema.tables.map(\.name) == ["bigdata"])
        try #require(schema.tables.count == 1)
        #expect(schema.tables[0].columns.map(\.name) == ["data", "it's"])
        let (plan, db, _) = try migrate(
            "CREATE TABLE 'bigdata' ('data' integer)", rows: "INSERT INTO bigdata VALUES (1), (2)",
            to: "CREATE TABLE 'bigdata' ('data' integer NOT NULL DEFAULT 0, 'note' text)")
        #expect(plan.steps.map(\.kind) == [.rebuildTable])
        #expect(try db.fetchColumn(Int.self, sql: "SELECT data FROM bigdata ORDER BY data") == [1, 2])
    }

    @Test func emptyStatementsAreIgnored() throws {
        let schema = try DatabaseSchema(sql: ";;\nCREATE TABLE a(x);;\n ; ;CREATE TABLE b(y);\n;")
        #expect(schema.tables.map(\.name).sorted() == ["a", "b"])
    }

    @Test(arguments: [
        "CREATE TABLE person /* @renamed from=people */ (id INTEGER PRIMARY KEY, name TEXT)",
        "CREATE TABLE person ( /* @renamed from=people */\n id INTEGER PRIMARY KEY, name TEXT)",
        "CREATE TABLE person ( -- @RENAMED FROM=people\n id INTEGER PRIMARY KEY, name TEXT)",
        "CREATE TABLE person ( -- @Renamed From = \"people\"\n id INTEGER PRIMARY KEY, name TEXT)",
    ])
    func tableHintsInEveryPlace(_ desired: String) throws {
        let (plan, db, _) = try migrate(
            "CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT)", rows: "INSERT INTO people VALUES (1, 'Ann')",
            to: desired)
        #expect(plan.steps.map(\.kind) == [.renameTable], "\(plan.summary)")
        #expect(try db.fetchColumn(String.self, sql: "SELECT name FROM person") == ["Ann"])
    }

    @Test(arguments: [
        // At the end of the first line of a definition that continues below.
        "CREATE TABLE item(id INTEGER PRIMARY KEY, amount INTEGER NOT NULL -- @renamed from=amt\n    CHECK (amount >= 0))",
        "CREATE TABLE item(id INTEGER PRIMARY KEY, amount INTEGER /* @renamed from=amt */ NOT NULL CHECK (amount >= 0))",
        "CREATE TABLE item(id INTEGER PRIMARY KEY,\n amount INTEGER NOT NULL CHECK (amount >= 0) -- @renamed FROM=amt\n)",
    ])
    func columnHintsInEveryPlace(_ desired: String) throws {
        let (_, db, _) = try migrate(
            "CREATE TABLE item(id INTEGER PRIMARY KEY, amt INTEGER NOT NULL CHECK (amt >= 0))",
            rows: "INSERT INTO item VALUES (1, 5), (2, 7)", to: desired)
        #expect(try db.fetchColumn(Int.self, sql: "SELECT amount FROM item ORDER BY id") == [5, 7])
    }

    /// Swaps and rotations given as rename options (one-shot, like `--rename-column`) are made (a
    /// rebuild, or native renames through temporary names when the desired order swaps too); as hints they are refused, since a swap cannot be told from
    /// one already made and would apply again on every run.
    @Test func swappedAndRotatedColumnNames() throws {
        let dir = TemporaryDirectory("strata-input-forms")
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT); INSERT INTO t VALUES (1, 'A', 'B')")
        let schema = "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT)"
        let swap = SchemaChangeOptions(renames: [
            .column("b", to: "a", inTable: "t"), .column("a", to: "b", inTable: "t"),
        ])
        let plan = try db.planSchemaChange(to: schema, options: swap)
        // Each column keeps its place under a native swap, so the rows move by a rebuild.
        #expect(plan.steps.map(\.kind) == [.rebuildTable], "\(plan.summary)")
        try db.applySchemaChange(plan)
        #expect(try db.fetchAll(sql: "SELECT a, b FROM t").map(\.values) == [[.text("B"), .text("A")]])
        #expect(try db.planSchemaChange(to: schema).isEmpty)

        // When the desired order swaps too, renames through temporary names give exactly the table.
        try db.execute(sql: "CREATE TABLE s(id INTEGER PRIMARY KEY, a TEXT, b INT); INSERT INTO s VALUES (1, 'A', 2)")
        let swappedOrder = schema + ";\nCREATE TABLE s(id INTEGER PRIMARY KEY, b TEXT, a INT)"
        let nativePlan = try db.planSchemaChange(
            to: swappedOrder,
            options: SchemaChangeOptions(renames: [
                .column("a", to: "b", inTable: "s"), .column("b", to: "a", inTable: "s"),
            ]))
        #expect(nativePlan.steps.map(\.kind) == [.renameColumn], "\(nativePlan.summary)")
        try db.applySchemaChange(nativePlan)
        #expect(try db.fetchAll(sql: "SELECT b, a FROM s").map(\.values) == [[.text("A"), .integer(2)]])
        #expect(
            !(try String(db.fetchValue(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = 's'") ?? "")
                .contains("strata_tmp")))

        try db.execute(
            sql: "CREATE TABLE r(id INTEGER PRIMARY KEY, x INT, y INT, z INT); INSERT INTO r VALUES (1, 1, 2, 3)")
        let rotate = SchemaChangeOptions(renames: [
            .column("z", to: "x", inTable: "r"), .column("x", to: "y", inTable: "r"),
            .column("y", to: "z", inTable: "r"),
        ])
        try db.migrateSchema(
            to: swappedOrder + ";\nCREATE TABLE r(id INTEGER PRIMARY KEY, x INT, y INT, z INT)", options: rotate)
        #expect(
            try db.fetchAll(sql: "SELECT x, y, z FROM r").map(\.values) == [[.integer(3), .integer(1), .integer(2)]])

        // Below RENAME COLUMN's version the same swap is a rebuild, rows kept.
        let old = try Database(
            path: dir.file("old.sqlite"),
            configuration: {
                var c = Configuration()
                c.capabilityLimit = SQLiteVersion(3, 26)
                return c
            }())
        try old.execute(
            sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT); INSERT INTO t VALUES (1, 'A', 'B')")
        try old.migrateSchema(to: schema, options: swap)
        #expect(try old.fetchAll(sql: "SELECT a, b FROM t").map(\.values) == [[.text("B"), .text("A")]])

        let before = try DatabaseContents(db)
        let error = #expect(throws: SchemaError.self) {
            try db.planSchemaChange(
                to: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, -- @renamed from=b\n b TEXT -- @renamed from=a\n)")
        }
        #expect(error?.code == .unresolvedRename)
        #expect(error?.message.contains("cannot be a `-- @renamed` hint") == true, "\(error?.message ?? "")")
        #expect(try DatabaseContents(db) == before)
    }

    /// A real conflict still fails: the hinted old column exists and the new name is kept too.
    @Test func aHintOntoAKeptColumnIsStillRefused() throws {
        let dir = TemporaryDirectory("strata-input-forms")
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT)")
        let error = #expect(throws: SchemaError.self) {
            try db.planSchemaChange(to: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT -- @renamed from=a\n)")
        }
        #expect(error?.code == .unresolvedRename)
    }

    /// An FTS table over external content whose options change is recreated and indexed again
    /// from its content table: nothing is lost, so the change is not destructive.
    @Test(arguments: ["fts5", "fts4"])
    func externalContentFTSWithNewOptionsIsRebuiltFromItsContent(_ module: String) throws {
        let content = "CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT);\n"
        let before =
            module == "fts5"
            ? "CREATE VIRTUAL TABLE doc_search USING fts5(body, content=doc, content_rowid=id);"
            : "CREATE VIRTUAL TABLE doc_search USING fts4(body, content=doc);"
        let after =
            module == "fts5"
            ? "CREATE VIRTUAL TABLE doc_search USING fts5(body, content=doc, content_rowid=id, tokenize='porter unicode61');"
            : "CREATE VIRTUAL TABLE doc_search USING fts4(body, content=doc, tokenize=porter);"
        let (plan, db, _) = try migrate(
            content + before,
            rows:
                "INSERT INTO doc VALUES (1, 'running shoes'), (2, 'blue sky'); INSERT INTO doc_search(doc_search) VALUES ('rebuild')",
            to: content + after)
        #expect(plan.destructiveChanges.isEmpty, "\(plan.destructiveChanges)")
        // The porter stemmer finds "running" by "run": the new tokenizer indexed the old rows.
        #expect(try db.fetchColumn(Int.self, sql: "SELECT rowid FROM doc_search WHERE doc_search MATCH 'run'") == [1])
    }

    /// A contentless or self-contained FTS table still holds rows of its own: recreating it is destructive.
    @Test func selfContainedFTSWithNewOptionsIsStillDestructive() throws {
        let dir = TemporaryDirectory("strata-input-forms")
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(sql: "CREATE VIRTUAL TABLE notes USING fts5(body)")
        let error = #expect(throws: SchemaError.self) {
            try db.planSchemaChange(to: "CREATE VIRTUAL TABLE notes USING fts5(body, tokenize='porter unicode61')")
        }
        #expect(error?.code == .destructiveChangesRefused)
    }

    /// `DEFERRABLE INITIALLY DEFERRED` is read from the text: a change of it is a difference, and the
    /// rebuild keeps it.
    @Test func deferrabilityIsComparedAndKept() throws {
        let parent = "CREATE TABLE parent(id INTEGER PRIMARY KEY);\n"
        let immediate = parent + "CREATE TABLE child(id INTEGER PRIMARY KEY, p INTEGER REFERENCES parent(id));"
        let deferred =
            parent
            + "CREATE TABLE child(id INTEGER PRIMARY KEY, p INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);"
        #expect(try !DatabaseSchema(sql: immediate).differences(from: DatabaseSchema(sql: deferred)).isEmpty)
        let (plan, db, dir) = try migrate(
            immediate, rows: "INSERT INTO parent VALUES (1); INSERT INTO child VALUES (1, 1)", to: deferred)
        #expect(plan.steps.map(\.kind) == [.rebuildTable])
        // Deferred: a violation inside a transaction is allowed until COMMIT.
        try db.transaction {
            try db.execute(sql: "INSERT INTO child VALUES (2, 99); INSERT INTO parent VALUES (99)")
        }
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM child") == 2)
        _ = dir
    }
}
