import Strata
import Testing

@Suite("Introspection")
struct IntrospectionTests {
    @Test func readsTheModel() throws {
        let db = try Database(inMemory: Configuration())
        // Generated columns (3.31) and STRICT (3.37) are read where the runtime has them.
        let generated = db.capabilities.supportsGeneratedColumns
        let strict = db.capabilities.supportsStrictTables
        try db.execute(
            sql: """
                CREATE TABLE parent(id INTEGER PRIMARY KEY AUTOINCREMENT, code TEXT UNIQUE COLLATE NOCASE);
                CREATE TABLE child(
                  id INTEGER PRIMARY KEY,
                  parent_id INTEGER NOT NULL DEFAULT 0 REFERENCES parent(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
                  other_id INTEGER REFERENCES parent(id) ON UPDATE SET NULL,
                  qty INTEGER CHECK (qty > 0),
                  \(generated ? "total INTEGER GENERATED ALWAYS AS (qty * 2) STORED," : "")
                  \(generated ? "half INTEGER GENERATED ALWAYS AS (qty / 2) VIRTUAL," : "")
                  CONSTRAINT positive CHECK (id > 0)
                )\(strict ? " STRICT" : "");
                CREATE TABLE kv(k TEXT PRIMARY KEY, v ANY) WITHOUT ROWID;
                CREATE INDEX child_qty ON child(qty) WHERE qty > 10;
                CREATE UNIQUE INDEX child_expr ON child(lower(parent_id), qty);
                CREATE VIEW v AS SELECT * FROM child;
                CREATE TRIGGER tr AFTER INSERT ON child BEGIN SELECT 1; END;
                CREATE VIRTUAL TABLE search USING fts5(body);
                """)
        let schema = try DatabaseSchema.read(from: db)
        #expect(
            schema.tables.map(\.name) == ["parent", "child", "kv", "search"], "no sqlite_sequence, no FTS shadow tables"
        )
        let parent = try #require(schema.table(named: "PARENT"))
        #expect(parent.hasAutoincrement)
        #expect(parent.column(named: "code")?.collation == "NOCASE")
        let child = try #require(schema.table(named: "child"))
        #expect(child.isStrict == strict && !child.isWithoutRowID)
        #expect(
            child.columns.map(\.kind) == [.normal, .normal, .normal, .normal]
                + (generated ? [.generatedStored, .generatedVirtual] : []))
        let parentID = try #require(child.column(named: "parent_id"))
        #expect(parentID.isNotNull && parentID.defaultSQL == "0" && parentID.declaredType == "INTEGER")
        #expect(child.column(named: "id")?.primaryKeyPosition == 1)
        #expect(child.rowIDAliasColumn?.name == "id")
        #expect(child.foreignKeys.count == 2)
        let cascade = try #require(child.foreignKeys.first { $0.columns == ["parent_id"] })
        #expect(
            cascade.parentTable == "parent" && cascade.onDelete == "CASCADE" && cascade.isDeferred && cascade.hasAction)
        let setNull = try #require(child.foreignKeys.first { $0.columns == ["other_id"] })
        #expect(setNull.onUpdate == "SET NULL" && !setNull.isDeferred)
        #expect(child.constraints.contains("CONSTRAINT positive CHECK (id > 0)"))
        #expect(child.column(named: "qty")?.definition.contains("CHECK (qty > 0)") == true)
        let kv = try #require(schema.table(named: "kv"))
        #expect(kv.isWithoutRowID && !kv.hasRowID && kv.rowIDAliasColumn == nil)
        let search = try #require(schema.table(named: "search"))
        #expect(search.isVirtual && search.module == "fts5")
        #expect(schema.indexes.map(\.name) == ["child_qty", "child_expr"])
        #expect(schema.index(named: "child_qty")?.isPartial == true)
        #expect(schema.index(named: "child_expr")?.isUnique == true)
        #expect(schema.index(named: "child_expr")?.columns == [nil, "qty"])
        #expect(schema.index(named: "child_qty")?.origin == "c")
        #expect(schema.views.map(\.name) == ["v"])
        #expect(schema.triggers.map(\.table) == ["child"])
    }

    @Test func internalObjectsAreNotPartOfTheSchema() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE strata_migrations(identifier TEXT PRIMARY KEY);
                CREATE TABLE t(a INTEGER PRIMARY KEY AUTOINCREMENT);
                ANALYZE;
                """)
        #expect(try DatabaseSchema.read(from: db).tables.map(\.name) == ["t"])
    }

    @Test func desiredSchemaErrorsQuoteTheStatement() throws {
        let cases: [(String, String)] = [
            ("CREATE TABLE t(a);\nCREATE TABLE t(b);", "statement 2 `CREATE TABLE t(b);`: table t already exists"),
            ("CREATE TRIGGER tr AFTER INSERT ON missing BEGIN SELECT 1; END;", "no such table: main.missing"),
            ("CREATE TABLE t(a); CREATE VIEW v AS SELECT nope FROM t;", "view v"),
            ("CREATE TABLE t(a); INSERT INTO t VALUES (1);", "holds only CREATE statements"),
            (
                "CREATE TABLE c(p REFERENCES p(id)); CREATE TABLE p(x INTEGER PRIMARY KEY);",
                "references missing column p.id"
            ),
        ]
        for (sql, fragment) in cases {
            #expect {
                try DatabaseSchema(sql: sql)
            } throws: { error in
                guard let error = error as? SchemaError, error.code == .invalidSQL else { return false }
                return error.message.contains(fragment)
            }
        }
    }
}
