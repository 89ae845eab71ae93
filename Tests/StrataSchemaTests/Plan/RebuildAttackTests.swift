import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// Rebuilds that must keep every row and value: odd names in every quoting form, AUTOINCREMENT
/// sequences, WITHOUT ROWID both ways, STRICT tables, every storage class, columns named like the
/// rowid, and NULLs backfilled from a default written as a name.
@Suite("Engine attacks: the safe rebuild", .tags(.attack))
struct RebuildAttackTests: EngineAttackSuite {
    let dir = TemporaryDirectory("strata-engine-attacks")

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

    /// WITHOUT ROWID back to a rowid table with the key renamed: rows kept.
    @Test func withoutRowIDToRowIDWithARename() throws {
        let (_, db) = try attack(
            "CREATE TABLE kv(k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID",
            rows: "INSERT INTO kv VALUES ('b', '2'), ('a', '1')",
            to: "CREATE TABLE kv([the key] TEXT PRIMARY KEY NOT NULL, -- @renamed from=k\n v TEXT)")
        #expect(try rows(db, "SELECT * FROM kv ORDER BY 1") == [[.text("a"), .text("1")], [.text("b"), .text("2")]])
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
}
