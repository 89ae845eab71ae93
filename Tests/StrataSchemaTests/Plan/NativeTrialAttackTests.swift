import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// Changes the native ALTER TABLE forms make, or must leave to a rebuild: renames below RENAME
/// COLUMN, with `legacy_alter_table` on, between tables that reference each other, DROP COLUMN
/// beside a view, and generated columns over a renamed column.
@Suite("Engine attacks: native ALTER TABLE forms", .tags(.attack))
struct NativeTrialAttackTests: EngineAttackSuite {
    let dir = TemporaryDirectory("strata-engine-attacks")

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
}
