import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// Hostile but valid inputs against the declarative engine: odd names in every quoting form,
/// hints in odd places, comments and line endings SQLite accepts, and table kinds with their own
/// rules. Each attack checks the rows, the schema after applying (equal to the desired one, and a
/// second plan empty) and, on a failure, the culprit and an unchanged database.
@Suite("Engine attacks")
struct EngineAttackTests {
    /// Lives as long as the test (each test has its own instance), so do its databases.
    let dir = TemporaryDirectory("strata-engine-attacks")

    /// Creates `before` with raw SQL (so the live schema keeps its exact text), inserts `rows`,
    /// plans `after` and applies it, then checks the schema equals the desired one and that a
    /// second plan is empty.
    @discardableResult
    func attack(
        _ before: String, rows: String = "", to after: String, options: SchemaChangeOptions = SchemaChangeOptions(),
        configuration: Configuration = Configuration()
    ) throws -> (Plan, Database) {
        let db = try Database(path: dir.file("\(UUID().uuidString).sqlite"), configuration: configuration)
        if !before.isEmpty { try db.execute(sql: before) }
        if !rows.isEmpty { try db.execute(sql: rows) }
        let plan = try db.planSchemaChange(to: after, options: options)
        try db.applySchemaChange(plan)
        let live = try DatabaseSchema.read(from: db)
        let desired = try DatabaseSchema(sql: after)
        #expect(live.differences(from: desired).isEmpty, "\(live.differences(from: desired))\n\(plan.sqlScript())")
        #expect(try db.planSchemaChange(to: after).isEmpty, "a second plan is not empty:\n\(plan.sqlScript())")
        #expect(try db.fetchColumn(String.self, sql: "PRAGMA integrity_check") == ["ok"])
        #expect(try db.fetchAll(sql: "PRAGMA foreign_key_check").isEmpty)
        return (plan, db)
    }

    func rows(_ db: Database, _ sql: String) throws -> [[SQLValue]] {
        try db.fetchAll(sql: sql).map(\.values)
    }

    /// `migrateSchema(to:options:)` on `db` must fail, leaving every row and the schema as they
    /// were; returns the error for the caller's checks of its code and culprit.
    func refusal(
        _ db: Database, to desired: String, options: SchemaChangeOptions = SchemaChangeOptions(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> SchemaError {
        let before = try DatabaseContents(db)
        let error = try #require(throws: SchemaError.self, sourceLocation: sourceLocation) {
            try db.migrateSchema(to: desired, options: options)
        }
        #expect(try DatabaseContents(db) == before, sourceLocation: sourceLocation)
        return error
    }

    // MARK: Names

    /// Table, column, index, view and trigger names with every character SQLite lets a quoted
    /// name hold, in every quoting form, through a rebuild (a new NOT NULL column).
    @Test func oddNamesInEveryQuotingFormSurviveARebuild() throws {
        let before = #"""
            CREATE TABLE "a ""quoted"" table: x.y" ('it''s' TEXT, [b r] INTEGER, `c``d` REAL, "select" TEXT, "é" TEXT);
            CREATE INDEX "idx.on ""it's""" ON "a ""quoted"" table: x.y"('it''s', "select");
            CREATE VIEW [view [1] AS SELECT "it's", "c`d" FROM "a ""quoted"" table: x.y";
            CREATE TABLE "log;" (msg TEXT);
            CREATE TRIGGER `trg ``x``` AFTER INSERT ON "a ""quoted"" table: x.y" BEGIN
              INSERT INTO "log;" VALUES ('END; -- not a comment ' || new."it's");
            END;
            """#
        let after = #"""
            CREATE TABLE "a ""quoted"" table: x.y" ('it''s' TEXT, [b r] INTEGER, `c``d` REAL, "select" TEXT, "é" TEXT,
              "new: col" INTEGER NOT NULL DEFAULT 7);
            CREATE INDEX "idx.on ""it's""" ON "a ""quoted"" table: x.y"('it''s', "select");
            CREATE VIEW [view [1] AS SELECT "it's", "c`d" FROM "a ""quoted"" table: x.y";
            CREATE TABLE "log;" (msg TEXT);
            CREATE TRIGGER `trg ``x``` AFTER INSERT ON "a ""quoted"" table: x.y" BEGIN
              INSERT INTO "log;" VALUES ('END; -- not a comment ' || new."it's");
            END;
            """#
        let (plan, db) = try attack(
            before,
            rows:
                #"INSERT INTO "a ""quoted"" table: x.y" VALUES ('one', 1, 1.5, 'sel', 'É'), ('two', 2, 2.5, NULL, NULL)"#,
            to: after)
        #expect(!plan.isEmpty)
        #expect(
            try rows(db, #"SELECT * FROM "a ""quoted"" table: x.y" ORDER BY rowid"#) == [
                [.text("one"), .integer(1), .real(1.5), .text("sel"), .text("É"), .integer(7)],
                [.text("two"), .integer(2), .real(2.5), .null, .null, .integer(7)],
            ])
        try db.execute(sql: #"INSERT INTO "a ""quoted"" table: x.y"("it's") VALUES ('three')"#)
        #expect(
            try db.fetchColumn(String.self, sql: #"SELECT msg FROM "log;" ORDER BY rowid"#) == [
                "END; -- not a comment one", "END; -- not a comment two", "END; -- not a comment three",
            ])
    }

    /// Non-ASCII names differing only in case are different names to SQLite (it folds ASCII
    /// only): neither may be taken for the other.
    @Test func nonASCIICaseVariantsAreDistinctNames() throws {
        let (_, db) = try attack(
            #"CREATE TABLE "Ä"(x INTEGER); CREATE TABLE "ä"(y INTEGER);"#,
            rows: #"INSERT INTO "Ä" VALUES (1); INSERT INTO "ä" VALUES (2);"#,
            to: #"CREATE TABLE "Ä"(x INTEGER, z TEXT); CREATE TABLE "ä"(y INTEGER);"#)
        #expect(try rows(db, #"SELECT * FROM "Ä""#) == [[.integer(1), .null]])
        #expect(try rows(db, #"SELECT * FROM "ä""#) == [[.integer(2)]])
    }

    // MARK: Hints

    /// A table rename hint naming an old table with spaces, quotes and a colon, in each quoting
    /// form the hint accepts, with a column rename and a type change in the same statement, an
    /// index, a view and a trigger that mention the renamed names.
    @Test(arguments: [#""old ""x"": t""#, "[old \"x\": t]", "`old \"x\": t`", "'old \"x\": t'"])
    func quotedRenameHintsWithDependents(_ quoted: String) throws {
        let before = #"""
            CREATE TABLE "old ""x"": t"(id INTEGER PRIMARY KEY, "a b" TEXT, n TEXT);
            CREATE INDEX i1 ON "old ""x"": t"("a b");
            CREATE VIEW v AS SELECT id, "a b" FROM "old ""x"": t";
            """#
        let after = #"""
            CREATE TABLE "new table" ( -- @renamed from=\#(quoted)
              id INTEGER PRIMARY KEY,
              "c: d" TEXT NOT NULL, -- @renamed from="a b"
              n INTEGER
            );
            CREATE INDEX i1 ON "new table"("c: d");
            CREATE VIEW v AS SELECT id, "c: d" FROM "new table";
            CREATE TRIGGER t1 AFTER UPDATE OF "c: d" ON "new table" BEGIN SELECT 1; END;
            """#
        let (_, db) = try attack(
            before, rows: #"INSERT INTO "old ""x"": t" VALUES (1, 'A', '10'), (2, 'B', '20')"#, to: after)
        #expect(
            try rows(db, #"SELECT id, "c: d", n FROM "new table" ORDER BY id"#) == [
                [.integer(1), .text("A"), .integer(10)], [.integer(2), .text("B"), .integer(20)],
            ])
        #expect(
            try rows(db, "SELECT * FROM v ORDER BY id") == [[.integer(1), .text("A")], [.integer(2), .text("B")]])
    }

    /// Text that looks like a hint inside a string literal, a DEFAULT or a CHECK is not a hint.
    @Test func hintLookalikesInsideStringsAreNotHints() throws {
        let (_, db) = try attack(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT)",
            rows: "INSERT INTO t VALUES (1, 'x')",
            to: #"""
                CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT,
                  b TEXT DEFAULT '-- @renamed from=a' CHECK (b <> '/* @renamed from=a */'));
                """#)
        #expect(try rows(db, "SELECT a, b FROM t") == [[.text("x"), .text("-- @renamed from=a")]])
    }

    /// A case-only rename of a column given as a hint: nothing to do or exactly the desired case,
    /// and never a loss of the column's rows.
    @Test func caseOnlyColumnRenameHint() throws {
        let (_, db) = try attack(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)", rows: "INSERT INTO t VALUES (1, 'x')",
            to: "CREATE TABLE t(id INTEGER PRIMARY KEY, NAME TEXT -- @renamed from=name\n)")
        #expect(try rows(db, "SELECT name FROM t") == [[.text("x")]])
    }

    /// Rotating three tables' names with rename options (unlike columns' names) is refused before
    /// anything is written, naming the first target still in use: never done halfway, nor ignored.
    @Test func rotatedTableNamesAsOptionsAreRefused() throws {
        let schema = #"""
            CREATE TABLE t1(v TEXT);
            CREATE TABLE t2(v TEXT);
            CREATE TABLE t3(v TEXT);
            """#
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: schema + "INSERT INTO t1 VALUES ('1'); INSERT INTO t2 VALUES ('2'); INSERT INTO t3 VALUES ('3');")
        let options = SchemaChangeOptions(renames: [
            .table("t1", to: "t2"), .table("t2", to: "t3"), .table("t3", to: "t1"),
        ])
        let error = try refusal(db, to: schema, options: options)
        #expect(error.code == .unresolvedRename, "\(error)")
        #expect(error.culprit == "t2", "\(error)")
    }

    // MARK: Comments, separators, line endings

    @Test func commentsCRLFTabsAndEmptyStatements() throws {
        let after =
            ";;\r\nCREATE TABLE\tt\t( /* c0 */ id INTEGER PRIMARY KEY /* c1 */ , -- c2\r\n"
            + "\tb TEXT /* , fake INTEGER */ -- @renamed from=a\r\n , c INTEGER -- , d TEXT\r\n) ;;\r\n"
            + "CREATE INDEX ix ON t(c) WHERE c > 0 -- trailing comment without newline"
        let (_, db) = try attack(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT)", rows: "INSERT INTO t VALUES (1, 'x'), (2, 'y')",
            to: after)
        #expect(
            try rows(db, "SELECT id, b, c FROM t ORDER BY id") == [
                [.integer(1), .text("x"), .null], [.integer(2), .text("y"), .null],
            ])
        #expect(try DatabaseSchema.read(from: db).table(named: "t")?.columns.map(\.name) == ["id", "b", "c"])
    }

    // MARK: Table kinds

    /// A rebuild of an AUTOINCREMENT table keeps its sequence: a deleted top id is never reused.
    @Test func autoincrementSequenceSurvivesARebuild() throws {
        let (_, db) = try attack(
            "CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, a TEXT)",
            rows: "INSERT INTO t(a) VALUES ('1'), ('2'), ('3'); DELETE FROM t WHERE id = 3",
            to: "CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, a TEXT NOT NULL DEFAULT '')")
        try db.execute(sql: "INSERT INTO t(a) VALUES ('4')")
        #expect(try db.fetchColumn(Int.self, sql: "SELECT id FROM t ORDER BY id") == [1, 2, 4])
    }

    /// WITHOUT ROWID with a composite primary key in a new order of columns and a rename.
    @Test func withoutRowIDRebuildWithRename() throws {
        let (_, db) = try attack(
            "CREATE TABLE kv(k TEXT, s INTEGER, v BLOB, PRIMARY KEY (k, s)) WITHOUT ROWID",
            rows: "INSERT INTO kv VALUES ('a', 1, x'01'), ('a', 2, x'02'), ('b', 1, NULL)",
            to: #"""
                CREATE TABLE kv(
                  "key" TEXT NOT NULL, -- @renamed from=k
                  s INTEGER NOT NULL,
                  v BLOB,
                  PRIMARY KEY ("key", s)
                ) WITHOUT ROWID
                """#)
        #expect(
            try rows(db, #"SELECT "key", s, v FROM kv ORDER BY 1, 2"#) == [
                [.text("a"), .integer(1), .blob([1])], [.text("a"), .integer(2), .blob([2])],
                [.text("b"), .integer(1), .null],
            ])
    }

    /// A renamed parent with a DEFERRABLE INITIALLY DEFERRED child: the child follows, rows kept.
    @Test func renamedParentWithDeferredChild() throws {
        let (_, db) = try attack(
            #"""
            CREATE TABLE parent(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE child(id INTEGER PRIMARY KEY, p INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
            CREATE INDEX child_p ON child(p) WHERE p IS NOT NULL;
            """#,
            rows: "INSERT INTO parent VALUES (1, 'a'); INSERT INTO child VALUES (10, 1), (11, NULL)",
            to: #"""
                CREATE TABLE "Parent Table"( -- @renamed from=parent
                  id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
                CREATE TABLE child(id INTEGER PRIMARY KEY, p INTEGER REFERENCES "Parent Table"(id) DEFERRABLE INITIALLY DEFERRED);
                CREATE INDEX child_p ON child(p) WHERE p IS NOT NULL;
                """#)
        #expect(try rows(db, #"SELECT * FROM "Parent Table""#) == [[.integer(1), .text("a")]])
        #expect(
            try rows(db, "SELECT * FROM child ORDER BY id") == [[.integer(10), .integer(1)], [.integer(11), .null]])
    }

    /// An expression index and a partial index mentioning a renamed column whose type changes.
    @Test func expressionAndPartialIndexesOnARenamedRetypedColumn() throws {
        let (_, db) = try attack(
            #"""
            CREATE TABLE t(id INTEGER PRIMARY KEY, email TEXT);
            CREATE INDEX t_lower ON t(lower(email));
            CREATE UNIQUE INDEX t_partial ON t(email) WHERE email LIKE '%@%';
            """#,
            rows: "INSERT INTO t VALUES (1, 'A@x'), (2, 'b')",
            to: #"""
                CREATE TABLE t(id INTEGER PRIMARY KEY, "e-mail" TEXT COLLATE NOCASE -- @renamed from=email
                );
                CREATE INDEX t_lower ON t(lower("e-mail"));
                CREATE UNIQUE INDEX t_partial ON t("e-mail") WHERE "e-mail" LIKE '%@%';
                """#)
        #expect(
            try rows(db, #"SELECT id, "e-mail" FROM t ORDER BY id"#) == [
                [.integer(1), .text("A@x")], [.integer(2), .text("b")],
            ])
    }

    /// A failing apply (the rows break a new UNIQUE) in a table with a hostile name leaves the
    /// database as it was and names the table.
    @Test func failedApplyLeavesHostileTableUnchanged() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: #"""
                CREATE TABLE "t""; DROP TABLE x; --"(id INTEGER PRIMARY KEY, v TEXT);
                CREATE TABLE x(a);
                INSERT INTO "t""; DROP TABLE x; --" VALUES (1, 'dup'), (2, 'dup');
                INSERT INTO x VALUES (1);
                """#)
        let before = try DatabaseContents(db)
        let plan = try db.planSchemaChange(
            to: #"CREATE TABLE "t""; DROP TABLE x; --"(id INTEGER PRIMARY KEY, v TEXT UNIQUE); CREATE TABLE x(a);"#)
        let error = try #require(throws: SchemaError.self) { try db.applySchemaChange(plan) }
        #expect(error.code == .applyFailed)
        #expect(error.culprit == #"t"; DROP TABLE x; --"#)
        #expect(try DatabaseContents(db) == before)
    }

    // MARK: Newer SQLite

    @Test(.requiresSQLite(3, 31, "generated columns"))
    func generatedColumnsOverARenamedColumn() throws {
        let (_, db) = try attack(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, price INTEGER, total INTEGER GENERATED ALWAYS AS (price * 2) VIRTUAL)",
            rows: "INSERT INTO t(id, price) VALUES (1, 10)",
            to: #"""
                CREATE TABLE t(id INTEGER PRIMARY KEY,
                  "unit price" INTEGER, -- @renamed from=price
                  total INTEGER GENERATED ALWAYS AS ("unit price" * 3) STORED)
                """#)
        #expect(try rows(db, #"SELECT id, "unit price", total FROM t"#) == [[.integer(1), .integer(10), .integer(30)]])
    }

    @Test(.requiresSQLite(3, 37, "STRICT tables"))
    func strictTableWithRenameAndNewType() throws {
        let (_, db) = try attack(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b ANY) STRICT",
            rows: "INSERT INTO t VALUES (1, 'x', 1), (2, 'y', 'two')",
            to: "CREATE TABLE t(id INTEGER PRIMARY KEY, [a a] TEXT NOT NULL, -- @renamed from=a\n b ANY) STRICT")
        #expect(
            try rows(db, "SELECT * FROM t ORDER BY id") == [
                [.integer(1), .text("x"), .integer(1)], [.integer(2), .text("y"), .text("two")],
            ])
    }

    @Test(.requiresSQLite(3, 35, "DROP COLUMN"))
    func dropColumnWithViewOnOtherColumn() throws {
        let (_, db) = try attack(
            #"""
            CREATE TABLE t(id INTEGER PRIMARY KEY, "keep me" TEXT, "drop me" TEXT);
            CREATE VIEW v AS SELECT "keep me" FROM t;
            CREATE TRIGGER tr AFTER UPDATE ON t BEGIN SELECT new."keep me"; END;
            """#,
            rows: "INSERT INTO t VALUES (1, 'k', 'd')",
            to: #"""
                CREATE TABLE t(id INTEGER PRIMARY KEY, "keep me" TEXT);
                CREATE VIEW v AS SELECT "keep me" FROM t;
                CREATE TRIGGER tr AFTER UPDATE ON t BEGIN SELECT new."keep me"; END;
                """#, options: SchemaChangeOptions(allowDestructive: true))
        #expect(try rows(db, "SELECT * FROM v") == [[.text("k")]])
    }

    // MARK: A renamed column's old name reused

    /// `a` renamed to `b` (an option) and a new column `a` in its place: `b` holds the old
    /// values and the new `a` starts empty, natively or by a rebuild; never a copy of the old `a`.
    @Test(arguments: [true, false])
    func renamedColumnsOldNameReusedByANewColumn(_ native: Bool) throws {
        let (_, db) = try attack(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT)", rows: "INSERT INTO t VALUES (1, 'x'), (2, 'y')",
            to: "CREATE TABLE t(id INTEGER PRIMARY KEY, b TEXT, a INTEGER)",
            options: SchemaChangeOptions(renames: [.column("a", to: "b", inTable: "t")], useNativeAlter: native))
        #expect(
            try rows(db, "SELECT id, b, a FROM t ORDER BY id") == [
                [.integer(1), .text("x"), .null], [.integer(2), .text("y"), .null],
            ])
    }

    /// The new `a` is NOT NULL without a default: the rows cannot get it, and the preflight says so
    /// before anything is written, naming the column.
    @Test(arguments: [true, false])
    func reusedOldNameAsNotNullColumnIsRefusedByThePreflight(_ native: Bool) throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); INSERT INTO t VALUES (1, 'x')")
        let error = try refusal(
            db, to: "CREATE TABLE t(id INTEGER PRIMARY KEY, b TEXT, a TEXT NOT NULL)",
            options: SchemaChangeOptions(renames: [.column("a", to: "b", inTable: "t")], useNativeAlter: native))
        #expect(error.code == .preflightFailed, "\(error)")
        #expect(error.culprit == "t", "\(error)")
        #expect(error.message.contains("a"), "\(error)")
    }

    /// Table `t` renamed to `u` and a new table `t` in its place: `u` holds the rows, the new
    /// `t` starts empty (as a hint or an option, natively or not).
    @Test(arguments: [true, false], [true, false])
    func renamedTablesOldNameReusedByANewTable(_ native: Bool, newTableFirst: Bool) throws {
        let options = SchemaChangeOptions(renames: [.table("t", to: "u")], useNativeAlter: native)
        let u = "CREATE TABLE u(id INTEGER PRIMARY KEY, a TEXT);\n"
        let t = "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, extra INTEGER);\n"
        let (_, db) = try attack(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); CREATE VIEW v AS SELECT a FROM t;",
            rows: "INSERT INTO t VALUES (1, 'x')",
            to: (newTableFirst ? t + u : u + t) + "CREATE VIEW v AS SELECT a FROM t;", options: options)
        #expect(try rows(db, "SELECT * FROM u") == [[.integer(1), .text("x")]])
        #expect(try rows(db, "SELECT * FROM t").isEmpty)
        #expect(try rows(db, "SELECT * FROM v").isEmpty)
    }

    // MARK: Order of the desired file

    /// An external-content FTS table written before its content table, both new, or the content
    /// table renamed: SQLite accepts the order, so must the plan.
    @Test func ftsBeforeItsNewContentTable() throws {
        let (_, db) = try attack(
            "",
            to: """
                CREATE VIRTUAL TABLE s USING fts5(body, content=doc, content_rowid=id);
                CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT);
                """)
        try db.execute(sql: "INSERT INTO doc VALUES (1, 'hello'); INSERT INTO s(s) VALUES ('rebuild')")
        #expect(try db.fetchColumn(Int.self, sql: "SELECT rowid FROM s WHERE s MATCH 'hello'") == [1])
    }

    @Test func ftsBeforeItsRenamedContentTable() throws {
        let (_, db) = try attack(
            """
            CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT);
            CREATE VIRTUAL TABLE s USING fts5(body, content=doc, content_rowid=id);
            """,
            rows: "INSERT INTO doc VALUES (1, 'hello world'); INSERT INTO s(s) VALUES ('rebuild')",
            to: """
                CREATE VIRTUAL TABLE s USING fts5(body, content=document, content_rowid=id);
                CREATE TABLE document( -- @renamed from=doc
                  id INTEGER PRIMARY KEY, body TEXT);
                """)
        #expect(try db.fetchColumn(Int.self, sql: "SELECT rowid FROM s WHERE s MATCH 'world'") == [1])
    }

    // MARK: Old SQLite

    /// Below RENAME COLUMN and the modern RENAME TABLE: renames inside rebuilds, with a child, a
    /// view over both tables, a trigger and an index naming the renamed table and columns.
    @Test(arguments: [SQLiteVersion(3, 24), SQLiteVersion(3, 26)])
    func renamesOnOldSQLiteWithDependents(_ limit: SQLiteVersion) throws {
        var configuration = Configuration()
        configuration.capabilityLimit = limit
        let (_, db) = try attack(
            """
            CREATE TABLE p(id INTEGER PRIMARY KEY, nm TEXT);
            CREATE TABLE c(id INTEGER PRIMARY KEY, pid INTEGER REFERENCES p(id) ON DELETE CASCADE, note TEXT);
            CREATE INDEX c_pid ON c(pid);
            CREATE VIEW pc AS SELECT p.nm, c.note FROM p JOIN c ON c.pid = p.id;
            CREATE TABLE audit(msg TEXT);
            CREATE TRIGGER p_del AFTER DELETE ON p BEGIN INSERT INTO audit VALUES ('deleted ' || old.nm); END;
            """,
            rows: "INSERT INTO p VALUES (1, 'one'), (2, 'two'); INSERT INTO c VALUES (10, 1, 'a'), (11, 2, 'b')",
            to: """
                CREATE TABLE "Parent" ( -- @renamed from=p
                  id INTEGER PRIMARY KEY,
                  "the name" TEXT -- @renamed from=nm
                );
                CREATE TABLE c(id INTEGER PRIMARY KEY, pid INTEGER REFERENCES "Parent"(id) ON DELETE CASCADE, note TEXT);
                CREATE INDEX c_pid ON c(pid);
                CREATE VIEW pc AS SELECT "Parent"."the name", c.note FROM "Parent" JOIN c ON c.pid = "Parent".id;
                CREATE TABLE audit(msg TEXT);
                CREATE TRIGGER p_del AFTER DELETE ON "Parent" BEGIN INSERT INTO audit VALUES ('deleted ' || old."the name"); END;
                """, configuration: configuration)
        #expect(
            try rows(db, "SELECT * FROM pc ORDER BY note") == [
                [.text("one"), .text("a")], [.text("two"), .text("b")],
            ])
        try db.execute(sql: #"PRAGMA foreign_keys = ON; DELETE FROM "Parent" WHERE id = 1"#)
        #expect(try rows(db, "SELECT id FROM c") == [[.integer(11)]])
        #expect(try rows(db, "SELECT msg FROM audit") == [[.text("deleted one")]])
    }

    // MARK: Failures name their culprit and change nothing

    /// A new foreign key that rows break: the error names the child table (a hostile name), and
    /// nothing changed.
    @Test func newForeignKeyBrokenByRowsNamesTheChild() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: """
                CREATE TABLE "p: arent"(id INTEGER PRIMARY KEY);
                CREATE TABLE "ch ild"(id INTEGER PRIMARY KEY, pid INTEGER);
                INSERT INTO "p: arent" VALUES (1);
                INSERT INTO "ch ild" VALUES (1, 1), (2, 5);
                """)
        let error = try refusal(
            db,
            to: """
                CREATE TABLE "p: arent"(id INTEGER PRIMARY KEY);
                CREATE TABLE "ch ild"(id INTEGER PRIMARY KEY, pid INTEGER REFERENCES "p: arent"(id));
                """)
        #expect(error.code == .foreignKeyViolation, "\(error)")
        #expect(error.culprit == "ch ild", "\(error)")
    }

    /// A later step fails after earlier ones ran (a rename, a new table, then a rebuild whose rows
    /// break a new UNIQUE): all of it is rolled back.
    @Test func aFailureAfterEarlierStepsRollsBackEverything() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: """
                CREATE TABLE a(id INTEGER PRIMARY KEY, x TEXT);
                CREATE TABLE "z z"(id INTEGER PRIMARY KEY, v TEXT);
                CREATE VIEW va AS SELECT x FROM a;
                INSERT INTO a VALUES (1, 'one');
                INSERT INTO "z z" VALUES (1, 'dup'), (2, 'dup');
                """)
        let error = try refusal(
            db,
            to: """
                CREATE TABLE "a 2"(id INTEGER PRIMARY KEY, "x 2" TEXT); -- @renamed from=x
                CREATE TABLE b(id INTEGER PRIMARY KEY);
                CREATE TABLE "z z"(id INTEGER PRIMARY KEY, v TEXT UNIQUE);
                CREATE VIEW va AS SELECT "x 2" FROM "a 2";
                """,
            options: SchemaChangeOptions(renames: [.table("a", to: "a 2")]))
        #expect(error.code == .applyFailed, "\(error)")
        #expect(error.culprit == "z z", "\(error)")
    }

    /// A column that becomes the INTEGER PRIMARY KEY while two rows share a value.
    @Test func newIntegerPrimaryKeyOverDuplicates() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(sql: #"CREATE TABLE "t.t"(k INTEGER, v TEXT); INSERT INTO "t.t" VALUES (1, 'a'), (1, 'b')"#)
        let error = try refusal(db, to: #"CREATE TABLE "t.t"(k INTEGER PRIMARY KEY, v TEXT)"#)
        #expect(error.culprit == "t.t", "\(error)")
    }

    @Test(.requiresSQLite(3, 37, "STRICT tables"))
    func strictTypeChangeTheRowsBreak() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: "CREATE TABLE [s t](id INTEGER PRIMARY KEY, a TEXT) STRICT; INSERT INTO [s t] VALUES (1, 'x')")
        let error = try refusal(db, to: "CREATE TABLE [s t](id INTEGER PRIMARY KEY, a INTEGER) STRICT")
        #expect(error.culprit == "s t", "\(error)")
    }

    // MARK: More renames

    /// A chain of column renames as options (a -> b, b -> c), natively and by a rebuild.
    @Test(arguments: [true, false])
    func chainedColumnRenamesAsOptions(_ native: Bool) throws {
        let (_, db) = try attack(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT); CREATE INDEX tb ON t(b);",
            rows: "INSERT INTO t VALUES (1, 'A', 'B')",
            to: "CREATE TABLE t(id INTEGER PRIMARY KEY, b TEXT, c TEXT); CREATE INDEX tb ON t(b);",
            options: SchemaChangeOptions(
                renames: [.column("a", to: "b", inTable: "t"), .column("b", to: "c", inTable: "t")],
                useNativeAlter: native))
        #expect(try rows(db, "SELECT id, b, c FROM t") == [[.integer(1), .text("A"), .text("B")]])
    }

    /// An INSTEAD OF trigger on a view over a table that is rebuilt, and a trigger named like its table.
    @Test func insteadOfTriggerOnAViewOverARebuiltTable() throws {
        let schema = { (extra: String) in
            """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT\(extra));
            CREATE VIEW "v t" AS SELECT id, a FROM t;
            CREATE TRIGGER "v t" INSTEAD OF INSERT ON "v t" BEGIN INSERT INTO t(id, a) VALUES (new.id, upper(new.a)); END;
            CREATE TRIGGER t AFTER DELETE ON t BEGIN SELECT 1; END;
            """
        }
        let (_, db) = try attack(
            schema(""), rows: "INSERT INTO t VALUES (1, 'x')", to: schema(", b INTEGER NOT NULL DEFAULT 0"))
        try db.execute(sql: #"INSERT INTO "v t" VALUES (2, 'y')"#)
        #expect(
            try rows(db, "SELECT * FROM t ORDER BY id") == [
                [.integer(1), .text("x"), .integer(0)], [.integer(2), .text("Y"), .integer(0)],
            ])
    }

    /// Statements qualified with `main.`, and `IF NOT EXISTS`.
    @Test func schemaQualifiedDesiredStatements() throws {
        let (_, db) = try attack(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT)", rows: "INSERT INTO t VALUES (1, 'x')",
            to: """
                CREATE TABLE IF NOT EXISTS main.t(id INTEGER PRIMARY KEY,
                  b TEXT -- @renamed from=a
                );
                CREATE INDEX main.tb ON t(b);
                CREATE VIEW main.v AS SELECT b FROM t;
                """)
        #expect(try rows(db, "SELECT * FROM v") == [[.text("x")]])
    }

    /// Rows of every storage class, extreme values included, survive a rebuild unchanged (value
    /// and storage class), with their rowids.
    @Test func everyStorageClassSurvivesARebuild() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: """
                CREATE TABLE t(a, b ANYTHING, c TEXT, e REAL);
                INSERT INTO t(rowid, a, b, c, e) VALUES
                  (9223372036854775807, 9223372036854775807, -0.0, x'', 1),
                  (-9223372036854775808, '0012', 1e308, char(0) || 'nul', '1.5'),
                  (5, NULL, '  7  ', x'00ff', 'text');
                """)
        let query = "SELECT rowid, a, b, c, e, typeof(a), typeof(b), typeof(c), typeof(e) FROM t ORDER BY rowid"
        let before = try rows(db, query)
        let desired = "CREATE TABLE t(a, b ANYTHING, c TEXT COLLATE NOCASE, e REAL CHECK (e <> 0))"
        let plan = try db.planSchemaChange(to: desired)
        #expect(plan.steps.map(\.kind) == [.rebuildTable])
        try db.applySchemaChange(plan)
        #expect(try rows(db, query) == before)
    }

    // MARK: Equality

    /// A quoted word in a DEFAULT is a string ('null', 'current_timestamp', 'true'), the bare
    /// keyword a value, and any other word after DEFAULT a string in its own case: different
    /// definitions, and the change is made.
    @Test(arguments: [
        ("NULL", "\"null\""), ("CURRENT_TIMESTAMP", "[current_timestamp]"), ("TRUE", "`true`"), ("\"false\"", "false"),
        // A word after DEFAULT is a string, its case kept: 'active' is not 'Active'.
        ("\"active\"", "\"Active\""), ("active", "[Active]"),
    ])
    func quotedKeywordDefaultsAreNotTheKeyword(_ live: String, _ desired: String) throws {
        let (plan, db) = try attack(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a DEFAULT \(live))", rows: "INSERT INTO t(id) VALUES (1)",
            to: "CREATE TABLE t(id INTEGER PRIMARY KEY, a DEFAULT \(desired))")
        #expect(!plan.isEmpty)
        let scratch = try Database(inMemory: Configuration())
        try scratch.execute(
            sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a DEFAULT \(desired)); INSERT INTO t(id) VALUES (2)")
        try db.execute(sql: "INSERT INTO t(id) VALUES (2)")
        #expect(try rows(db, "SELECT quote(a) FROM t WHERE id = 2") == rows(scratch, "SELECT quote(a) FROM t"))
    }

    /// The same default written as a word, a quoted name or a string is no difference.
    @Test func defaultWordQuotedOrStringIsTheSameDefault() throws {
        let live = try DatabaseSchema(sql: "CREATE TABLE t(a TEXT DEFAULT Active, b DEFAULT \"x y\")")
        let desired = try DatabaseSchema(sql: "CREATE TABLE t(a TEXT DEFAULT 'Active', b DEFAULT 'x y')")
        #expect(live.differences(from: desired).isEmpty, "\(live.differences(from: desired))")
    }

    /// A schema file saved with a UTF-8 byte order mark (as Windows editors do) reads like one
    /// without, as migration files do.
    @Test func byteOrderMarkBeforeTheFirstStatement() throws {
        let (_, db) = try attack(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT)", rows: "INSERT INTO t VALUES (1, 'x')",
            to: "\u{FEFF}CREATE TABLE t(id INTEGER PRIMARY KEY, -- note\r\n b TEXT -- @renamed from=a\r\n)")
        #expect(try rows(db, "SELECT b FROM t") == [[.text("x")]])
    }

    // MARK: Rowids

    /// A column that becomes the INTEGER PRIMARY KEY from a primary key SQLite let hold NULLs
    /// (`INT PRIMARY KEY`, `INTEGER PRIMARY KEY DESC`) or text: refused before anything is
    /// written, naming the table, rather than new rowids or a failed copy.
    @Test(arguments: [
        ("id INT PRIMARY KEY", "NULL"), ("id INTEGER PRIMARY KEY DESC", "NULL"), ("id INT PRIMARY KEY", "'abc'"),
    ])
    func becomingTheRowIDWithNullsOrText(_ definition: String, _ value: String) throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: "CREATE TABLE [t t](\(definition), v TEXT); INSERT INTO [t t] VALUES (\(value), 'a'), (7, 'b')")
        let error = try refusal(db, to: "CREATE TABLE [t t](id INTEGER PRIMARY KEY, v TEXT)")
        #expect(error.culprit == "t t", "\(error)")
    }

    /// Columns named rowid, _rowid_ and oid: a rebuild keeps every row and value.
    @Test func columnsShadowingTheRowIDNames() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: """
                CREATE TABLE a(rowid TEXT, v TEXT);
                INSERT INTO a(_rowid_, rowid, v) VALUES (10, 'r10', 'x'), (20, 'r20', 'y');
                CREATE TABLE b(rowid TEXT, _rowid_ TEXT, oid TEXT, v TEXT);
                INSERT INTO b VALUES ('1', '2', '3', 'x'), ('4', '5', '6', 'y');
                """)
        let query = "SELECT _rowid_, * FROM a ORDER BY _rowid_"
        let beforeA = try rows(db, query)
        let beforeB = try rows(db, "SELECT * FROM b ORDER BY v")
        let desired = """
            CREATE TABLE a(rowid TEXT, v TEXT COLLATE NOCASE);
            CREATE TABLE b(rowid TEXT, _rowid_ TEXT, oid TEXT, v TEXT COLLATE NOCASE);
            """
        try db.migrateSchema(to: desired)
        #expect(try db.planSchemaChange(to: desired).isEmpty)
        #expect(try rows(db, query) == beforeA)
        #expect(try rows(db, "SELECT * FROM b ORDER BY v") == beforeB)
    }

    // MARK: Inside a transaction

    /// Inside the caller's transaction with foreign keys on, a rebuild of a referenced table is
    /// refused (an ON DELETE CASCADE would fire), naming a child, and nothing changed.
    @Test func rebuildingAParentInsideATransactionWithForeignKeysOn() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: """
                PRAGMA foreign_keys = ON;
                CREATE TABLE "pa rent"(id INTEGER PRIMARY KEY, v TEXT);
                CREATE TABLE "chi: ld"(id INTEGER PRIMARY KEY, p INTEGER REFERENCES "pa rent"(id) ON DELETE CASCADE);
                INSERT INTO "pa rent" VALUES (1, 'a'); INSERT INTO "chi: ld" VALUES (1, 1);
                """)
        let before = try DatabaseContents(db)
        let plan = try db.planSchemaChange(
            to: """
                CREATE TABLE "pa rent"(id INTEGER PRIMARY KEY, v TEXT NOT NULL DEFAULT '' CHECK (v <> 'zz'));
                CREATE TABLE "chi: ld"(id INTEGER PRIMARY KEY, p INTEGER REFERENCES "pa rent"(id) ON DELETE CASCADE);
                """)
        let error = try #require(throws: SchemaError.self) {
            try db.transaction { try db.applySchemaChange(plan) }
        }
        #expect(error.code == .unsupported)
        #expect(error.culprit == "chi: ld", "\(error)")
        #expect(try DatabaseContents(db) == before)
    }

    /// A connection with `legacy_alter_table` on (RENAME TABLE then leaves views and triggers
    /// alone, and foreign keys too while they are off): a renamed parent with a child, a view and
    /// a trigger still ends exactly as desired.
    @Test(arguments: [false, true])
    func renamedParentWithLegacyAlterTable(_ foreignKeys: Bool) throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(sql: "PRAGMA legacy_alter_table = ON; PRAGMA foreign_keys = \(foreignKeys ? "ON" : "OFF")")
        try db.execute(
            sql: """
                CREATE TABLE p(id INTEGER PRIMARY KEY, v TEXT);
                CREATE TABLE c(id INTEGER PRIMARY KEY, pid INTEGER REFERENCES p(id));
                CREATE VIEW pv AS SELECT v FROM p;
                CREATE TABLE log(m TEXT);
                CREATE TRIGGER pt AFTER INSERT ON c BEGIN INSERT INTO log SELECT v FROM p WHERE id = new.pid; END;
                INSERT INTO p VALUES (1, 'one'); INSERT INTO c VALUES (1, 1);
                """)
        let desired = """
            CREATE TABLE q( -- @renamed from=p
              id INTEGER PRIMARY KEY, v TEXT);
            CREATE TABLE c(id INTEGER PRIMARY KEY, pid INTEGER REFERENCES q(id));
            CREATE VIEW pv AS SELECT v FROM q;
            CREATE TABLE log(m TEXT);
            CREATE TRIGGER pt AFTER INSERT ON c BEGIN INSERT INTO log SELECT v FROM q WHERE id = new.pid; END;
            """
        try db.migrateSchema(to: desired)
        #expect(try DatabaseSchema.read(from: db).differences(from: DatabaseSchema(sql: desired)).isEmpty)
        #expect(try db.planSchemaChange(to: desired).isEmpty)
        try db.execute(sql: "INSERT INTO c VALUES (2, 1)")
        #expect(try rows(db, "SELECT m FROM log") == [[.text("one")], [.text("one")]])
        #expect(try rows(db, "SELECT * FROM pv") == [[.text("one")]])
        #expect(try db.fetchAll(sql: "PRAGMA foreign_key_check").isEmpty)
    }

    /// A content table with its sync triggers, rebuilt with its rowid column renamed: the FTS
    /// table over it (content_rowid renamed too) is recreated from it and passes FTS5's own
    /// integrity check, and the triggers keep it in sync.
    @Test func contentTableRebuiltUnderItsFTSIndex() throws {
        let triggers = { (table: String, key: String) in
            """
            CREATE TRIGGER "doc ai" AFTER INSERT ON \(table) BEGIN
              INSERT INTO "doc: fts"(rowid, body) VALUES (new.\(key), new.body);
            END;
            CREATE TRIGGER "doc ad" AFTER DELETE ON \(table) BEGIN
              INSERT INTO "doc: fts"("doc: fts", rowid, body) VALUES ('delete', old.\(key), old.body);
            END;
            """
        }
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: """
                CREATE TABLE "doc table"(id INTEGER PRIMARY KEY, body TEXT);
                CREATE VIRTUAL TABLE "doc: fts" USING fts5(body, content='doc table', content_rowid='id');
                """ + triggers(#""doc table""#, "id")
                    + #"INSERT INTO "doc table" VALUES (1, 'alpha beta'), (5, 'gamma'), (9, 'beta delta');"#)
        let desired =
            """
            CREATE VIRTUAL TABLE "doc: fts" USING fts5(body, content='doc table', content_rowid='key');
            CREATE TABLE "doc table"(
              "key" INTEGER PRIMARY KEY, -- @renamed from=id
              body TEXT NOT NULL DEFAULT '');
            """ + triggers(#""doc table""#, #""key""#)
        try db.migrateSchema(to: desired)
        #expect(try db.planSchemaChange(to: desired).isEmpty)
        try db.execute(sql: #"INSERT INTO "doc: fts"("doc: fts") VALUES ('integrity-check')"#)
        try db.execute(sql: #"DELETE FROM "doc table" WHERE "key" = 1; INSERT INTO "doc table" VALUES (12, 'beta')"#)
        #expect(
            try db.fetchColumn(
                Int.self, sql: #"SELECT rowid FROM "doc: fts" WHERE "doc: fts" MATCH 'beta' ORDER BY rowid"#)
                == [9, 12])
    }

    /// A column rename option naming a table the desired schema lacks (a typo, or the old name of
    /// a renamed table) is an error naming it, not ignored (the column would be a drop and an add).
    @Test(arguments: ["nosuch", "t"])
    func columnRenameOptionOnAnUnknownTable(_ table: String) throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); INSERT INTO t VALUES (1, 'x')")
        let error = try refusal(
            db, to: "CREATE TABLE u(id INTEGER PRIMARY KEY, b TEXT)",
            options: SchemaChangeOptions(
                allowDestructive: true, renames: [.table("t", to: "u"), .column("a", to: "b", inTable: table)]))
        #expect(error.code == .unresolvedRename, "\(error)")
        #expect(error.culprit == "\(table).b", "\(error)")
    }

    /// Trigger bodies the splitter must keep whole: CASE ... END, semicolons in strings and
    /// comments, a trigger named END, and the next statement right after `END;` on its line.
    @Test func triggerBodiesTheSplitterMustKeepWhole() throws {
        let desired = """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT);
            CREATE TABLE log(m TEXT);
            CREATE TRIGGER "end" AFTER INSERT ON t BEGIN
              INSERT INTO log VALUES (CASE WHEN new.a = 'x;' THEN 'semi; END' ELSE 'other' END); -- ; END;
              /* ; END; */ INSERT INTO log VALUES ('two;');
            END;CREATE VIEW "BEGIN" AS SELECT CASE WHEN a IS NULL THEN 'END' ELSE a END AS "end" FROM t
            """
        let (_, db) = try attack("CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT)", to: desired)
        try db.execute(sql: "INSERT INTO t VALUES (1, 'x;')")
        #expect(try rows(db, "SELECT m FROM log") == [[.text("semi; END")], [.text("two;")]])
        #expect(try rows(db, #"SELECT "end" FROM "BEGIN""#) == [[.text("x;")]])
    }

    /// A rowid table whose PRIMARY KEY holds a NULL (SQLite allows it there) made WITHOUT ROWID
    /// (which does not): refused, naming the table, nothing changed.
    @Test func withoutRowIDOverANullPrimaryKey() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: "CREATE TABLE `k v`(k TEXT PRIMARY KEY, v TEXT); INSERT INTO `k v` VALUES (NULL, 'a'), ('b', 'b')")
        let error = try refusal(db, to: "CREATE TABLE `k v`(k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID")
        #expect(error.culprit == "k v", "\(error)")
    }

    /// WITHOUT ROWID back to a rowid table with the key renamed: rows kept.
    @Test func withoutRowIDToRowIDWithARename() throws {
        let (_, db) = try attack(
            "CREATE TABLE kv(k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID",
            rows: "INSERT INTO kv VALUES ('b', '2'), ('a', '1')",
            to: "CREATE TABLE kv([the key] TEXT PRIMARY KEY NOT NULL, -- @renamed from=k\n v TEXT)")
        #expect(try rows(db, "SELECT * FROM kv ORDER BY 1") == [[.text("a"), .text("1")], [.text("b"), .text("2")]])
    }

    /// A column made NOT NULL whose NULLs take its DEFAULT, written as a word or a quoted name
    /// (a string to SQLite there) that is also another column's name: the NULLs become that
    /// string, not the other column's values.
    @Test(arguments: ["other", "\"other\"", "[other]"])
    func backfilledDefaultWrittenAsAName(_ word: String) throws {
        let (_, db) = try attack(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, status TEXT, other TEXT)",
            rows: "INSERT INTO t VALUES (1, NULL, 'from other'), (2, 'set', 'x')",
            to: "CREATE TABLE t(id INTEGER PRIMARY KEY, status TEXT NOT NULL DEFAULT \(word), other TEXT)")
        #expect(try rows(db, "SELECT status FROM t ORDER BY id") == [[.text("other")], [.text("set")]])
        try db.execute(sql: "INSERT INTO t(id) VALUES (3)")
        #expect(try rows(db, "SELECT status FROM t WHERE id = 3") == [[.text("other")]])
    }

    /// Two tables that reference each other, both renamed with a column renamed too, natively
    /// and below RENAME COLUMN (3.24): rows and both foreign keys kept.
    @Test(arguments: [nil, SQLiteVersion(3, 24)])
    func mutuallyReferencingTablesBothRenamed(_ limit: SQLiteVersion?) throws {
        var configuration = Configuration()
        configuration.capabilityLimit = limit
        let (_, db) = try attack(
            """
            CREATE TABLE a(id INTEGER PRIMARY KEY, b_id INTEGER REFERENCES b(id) DEFERRABLE INITIALLY DEFERRED);
            CREATE TABLE b(id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a(id) DEFERRABLE INITIALLY DEFERRED);
            """,
            rows: "BEGIN; INSERT INTO a VALUES (1, 10); INSERT INTO b VALUES (10, 1); COMMIT;",
            to: """
                CREATE TABLE "A 2"( -- @renamed from=a
                  id INTEGER PRIMARY KEY,
                  "B id" INTEGER REFERENCES "B 2"(id) DEFERRABLE INITIALLY DEFERRED -- @renamed from=b_id
                );
                CREATE TABLE "B 2"( -- @renamed from=b
                  id INTEGER PRIMARY KEY,
                  "A id" INTEGER REFERENCES "A 2"(id) DEFERRABLE INITIALLY DEFERRED -- @renamed from=a_id
                );
                """, configuration: configuration)
        #expect(try rows(db, #"SELECT * FROM "A 2""#) == [[.integer(1), .integer(10)]])
        #expect(try rows(db, #"SELECT * FROM "B 2""#) == [[.integer(10), .integer(1)]])
        #expect(try db.fetchAll(sql: #"PRAGMA foreign_key_list("A 2")"#).count == 1)
    }

    /// A refused destructive change names what it would destroy first (a table, or table.column,
    /// names with dots and colons whole).
    @Test func refusedDestructiveChangeNamesItsCulprit() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(sql: #"CREATE TABLE "a.b: c"(id INTEGER PRIMARY KEY, "d.e" TEXT); CREATE TABLE "gone t"(x);"#)
        let before = try DatabaseContents(db)
        let column = try #require(throws: SchemaError.self) {
            try db.migrateSchema(to: #"CREATE TABLE "a.b: c"(id INTEGER PRIMARY KEY); CREATE TABLE "gone t"(x);"#)
        }
        #expect(column.code == .destructiveChangesRefused)
        #expect(column.culprit == "a.b: c.d.e", "\(column)")
        let table = try #require(throws: SchemaError.self) {
            try db.migrateSchema(to: #"CREATE TABLE "a.b: c"(id INTEGER PRIMARY KEY, "d.e" TEXT);"#)
        }
        #expect(table.culprit == "gone t", "\(table)")
        #expect(try DatabaseContents(db) == before)
    }

    /// Rows that break a condition arrive between planning and applying, in a table and column
    /// whose names hold quotes and a colon: the guard fires, names the table, and nothing changed.
    @Test(arguments: [true, false])
    func guardFiresOnHostileNames(_ native: Bool) throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql:
                #"CREATE TABLE "it's ""x"": y"(id INTEGER PRIMARY KEY, "c'd" TEXT); INSERT INTO "it's ""x"": y" VALUES (1, 'v')"#
        )
        let plan = try db.planSchemaChange(
            to:
                #"CREATE TABLE "it's ""x"": y"(id INTEGER PRIMARY KEY, "c'd" TEXT NOT NULL, e INTEGER NOT NULL DEFAULT 1)"#,
            options: SchemaChangeOptions(useNativeAlter: native))
        try db.execute(sql: #"INSERT INTO "it's ""x"": y" VALUES (2, NULL)"#)
        let before = try DatabaseContents(db)
        let error = try #require(throws: SchemaError.self) { try db.applySchemaChange(plan) }
        #expect(error.code == .preflightFailed, "\(error)")
        #expect(error.culprit == #"it's "x": y"#, "\(error)")
        #expect(error.message.contains("1 row"), "\(error)")
        #expect(try DatabaseContents(db) == before)
    }

    /// A hint where it belongs to nothing (after the closing parenthesis of a table of several
    /// lines, on its own line above a column, inside a table constraint) is refused, naming the
    /// table, rather than ignored: the rename would silently be a drop and a create.
    @Test(arguments: [
        "CREATE TABLE person(\n  id INTEGER PRIMARY KEY,\n  name TEXT\n); -- @renamed from=people",
        "CREATE TABLE people(\n  id INTEGER PRIMARY KEY,\n  -- @renamed from=name\n  full_name TEXT\n)",
        "CREATE TABLE people(id INTEGER PRIMARY KEY, full_name TEXT,\n  UNIQUE (full_name /* @renamed from=name */))",
    ])
    func strayHintsAreRefused(_ desired: String) throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: "CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO people VALUES (1, 'Ann')")
        let error = try refusal(db, to: desired, options: SchemaChangeOptions(allowDestructive: true))
        #expect(error.code == .unresolvedRename, "\(error)")
        #expect(["person", "people"].contains(error.culprit), "\(error)")
    }

    /// A renamed table with a view under its old name (a compatibility view), and an
    /// AUTOINCREMENT sequence that must survive the rename and a rebuild in the same plan.
    @Test(arguments: [nil, SQLiteVersion(3, 24)])
    func renamedTableWithACompatibilityViewAndItsSequence(_ limit: SQLiteVersion?) throws {
        var configuration = Configuration()
        configuration.capabilityLimit = limit
        let (_, db) = try attack(
            "CREATE TABLE people(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT)",
            rows: "INSERT INTO people(name) VALUES ('a'), ('b'), ('c'); DELETE FROM people WHERE id = 3",
            to: """
                CREATE TABLE person( -- @renamed from=people
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  name TEXT NOT NULL DEFAULT '');
                CREATE VIEW people AS SELECT * FROM person;
                """, configuration: configuration)
        try db.execute(sql: "INSERT INTO person(name) VALUES ('d')")
        #expect(
            try rows(db, "SELECT id, name FROM people ORDER BY id") == [
                [.integer(1), .text("a")], [.integer(2), .text("b")], [.integer(4), .text("d")],
            ])
    }

    /// A stored column renamed (by a hint) or redefined into a generated column: its values
    /// cannot be kept, so the change is destructive (refused unless allowed), never a silent loss.
    @Test(
        .requiresSQLite(3, 31, "generated columns"),
        arguments: [
            "b TEXT GENERATED ALWAYS AS ('x' || id) VIRTUAL -- @renamed from=a\n",
            "a TEXT GENERATED ALWAYS AS ('x' || id) STORED",
        ])
    func columnRenamedIntoAGeneratedColumnIsDestructive(_ column: String) throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); INSERT INTO t VALUES (1, 'keep me')")
        let error = try refusal(db, to: "CREATE TABLE t(id INTEGER PRIMARY KEY, \(column))")
        #expect(error.code == .destructiveChangesRefused, "\(error)")
    }

    /// Names that move between kinds of object in one plan: a view becomes a table, an index's
    /// name becomes a view's, a dropped table's name an index's.
    @Test func namesMovingBetweenKindsOfObject() throws {
        let (_, db) = try attack(
            """
            CREATE TABLE a(x INTEGER);
            CREATE TABLE keep(y INTEGER);
            CREATE VIEW b AS SELECT x FROM a;
            CREATE INDEX c ON keep(y);
            """,
            rows: "INSERT INTO a VALUES (1); INSERT INTO keep VALUES (2)",
            to: """
                CREATE TABLE keep(y INTEGER);
                CREATE TABLE b(z INTEGER);
                CREATE VIEW c AS SELECT y FROM keep;
                CREATE INDEX a ON b(z);
                """, options: SchemaChangeOptions(allowDestructive: true))
        #expect(try rows(db, "SELECT * FROM c") == [[.integer(2)]])
        #expect(try rows(db, "SELECT * FROM b").isEmpty)
    }

    /// Two desired columns renamed from the same live column (two hints, or two options) is a
    /// contradiction: refused naming the second, rather than the values copied into both by a
    /// rebuild (or into one of them natively).
    @Test(arguments: [true, false])
    func twoColumnsRenamedFromTheSameColumn(_ hints: Bool) throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); INSERT INTO t VALUES (1, 'x')")
        let before = try DatabaseContents(db)
        let error = try #require(throws: SchemaError.self) {
            if hints {
                try db.migrateSchema(
                    to:
                        "CREATE TABLE t(id INTEGER PRIMARY KEY,\n b TEXT, -- @renamed from=a\n c TEXT -- @renamed from=a\n)"
                )
            } else {
                try db.migrateSchema(
                    to: "CREATE TABLE t(id INTEGER PRIMARY KEY, b TEXT, c TEXT)",
                    options: SchemaChangeOptions(
                        renames: [.column("a", to: "b", inTable: "t"), .column("a", to: "c", inTable: "t")]))
            }
        }
        #expect(error.code == .unresolvedRename, "\(error)")
        #expect(error.culprit == "t.c", "\(error)")
        #expect(try DatabaseContents(db) == before)
    }

    /// Two desired tables renamed from the same live table: refused naming the second.
    @Test(arguments: [true, false])
    func twoTablesRenamedFromTheSameTable(_ hints: Bool) throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(sql: "CREATE TABLE a(id INTEGER PRIMARY KEY); INSERT INTO a VALUES (1)")
        let before = try DatabaseContents(db)
        let error = try #require(throws: SchemaError.self) {
            if hints {
                try db.migrateSchema(
                    to: """
                        CREATE TABLE b( -- @renamed from=a
                          id INTEGER PRIMARY KEY);
                        CREATE TABLE c( -- @renamed from=a
                          id INTEGER PRIMARY KEY);
                        """)
            } else {
                try db.migrateSchema(
                    to: "CREATE TABLE b(id INTEGER PRIMARY KEY); CREATE TABLE c(id INTEGER PRIMARY KEY);",
                    options: SchemaChangeOptions(renames: [.table("a", to: "b"), .table("a", to: "c")]))
            }
        }
        #expect(error.code == .unresolvedRename, "\(error)")
        #expect(error.culprit == "c", "\(error)")
        #expect(try DatabaseContents(db) == before)
    }

    /// A rename hint on a virtual table is refused, naming it, rather than ignored (the FTS
    /// table and its rows would be dropped for a new one).
    @Test func renameHintOnAVirtualTableIsRefused() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(sql: "CREATE VIRTUAL TABLE notes USING fts5(body); INSERT INTO notes VALUES ('keep me')")
        let error = try refusal(
            db, to: #"CREATE VIRTUAL TABLE "my notes" USING fts5(body); -- @renamed from=notes"#,
            options: SchemaChangeOptions(allowDestructive: true))
        #expect(error.code == .unresolvedRename, "\(error)")
        #expect(error.culprit == "my notes", "\(error)")
        #expect(try rows(db, "SELECT body FROM notes") == [[.text("keep me")]])
    }

    // MARK: FTS

    /// An external-content FTS5 table whose content table's column is renamed and whose options change.
    @Test func externalContentFTSOverARenamedContentColumn() throws {
        let (_, db) = try attack(
            #"""
            CREATE TABLE "doc table"(id INTEGER PRIMARY KEY, body TEXT);
            CREATE VIRTUAL TABLE "doc search" USING fts5(body, content="doc table", content_rowid=id);
            """#,
            rows: #"""
                INSERT INTO "doc table" VALUES (1, 'running shoes'), (2, 'blue sky');
                INSERT INTO "doc search"("doc search") VALUES ('rebuild');
                """#,
            to: #"""
                CREATE TABLE "doc table"(id INTEGER PRIMARY KEY, body TEXT, title TEXT);
                CREATE VIRTUAL TABLE "doc search" USING fts5(body, content='doc table', content_rowid='id', tokenize='porter');
                """#)
        #expect(
            try db.fetchColumn(Int.self, sql: #"SELECT rowid FROM "doc search" WHERE "doc search" MATCH 'run'"#) == [1])
    }
}
