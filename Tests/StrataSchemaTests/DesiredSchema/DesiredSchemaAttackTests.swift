import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// Desired schemas SQLite accepts in odd shapes: comments, line endings, byte order marks, `main.`
/// qualifiers, trigger bodies the splitter must keep whole, statements in any order, and hint
/// lookalikes and stray hints.
@Suite("Engine attacks: the desired schema's text", .tags(.attack))
struct DesiredSchemaAttackTests: EngineAttackSuite {
    let dir = TemporaryDirectory("strata-engine-attacks")

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

    /// A schema file saved with a UTF-8 byte order mark (as Windows editors do) reads like one
    /// without, as migration files do.
    @Test func byteOrderMarkBeforeTheFirstStatement() throws {
        let (_, db) = try attack(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT)", rows: "INSERT INTO t VALUES (1, 'x')",
            to: "\u{FEFF}CREATE TABLE t(id INTEGER PRIMARY KEY, -- note\r\n b TEXT -- @renamed from=a\r\n)")
        #expect(try rows(db, "SELECT b FROM t") == [[.text("x")]])
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

    func strayHintsAreRefused(_ desired: String) throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: "CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO people VALUES (1, 'Ann')")
        let error = try refusal(db, to: desired, options: SchemaChangeOptions(allowDestructive: true))
        #expect(error.code == .unresolvedRename, "\(error)")
        #expect(["person", "people"].contains(error.culprit), "\(error)")
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
}
