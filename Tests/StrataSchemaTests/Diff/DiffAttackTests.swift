import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// What the diff must tell apart or take as equal: case variants of non-ASCII names, renames given as
/// hints or options (quoted, chained, rotated, case-only, reusing an old name), names moving between
/// kinds of object, and defaults written as words, quoted names or strings.
@Suite("Engine attacks: the diff", .tags(.attack))
struct DiffAttackTests: EngineAttackSuite {
    let dir = TemporaryDirectory("strata-engine-attacks")

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
}
