import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// Indexes, views, triggers, children and full-text indexes around a changed table: each ends
/// exactly as desired and keeps working (deferred children, expression and partial indexes, INSTEAD
/// OF triggers on views, external-content FTS tables over a rebuilt or renamed content table).
@Suite("Engine attacks: dependent objects", .tags(.attack))
struct DependentsAttackTests: EngineAttackSuite {
    let dir = TemporaryDirectory("strata-engine-attacks")

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
