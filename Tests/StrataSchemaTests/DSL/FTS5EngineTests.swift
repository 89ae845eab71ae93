import StrataSQLite
import StrataSchema
import Testing

/// FTS5 tables declared with the DSL through the declarative engine: the same desired schema as
/// in SQL, created over existing rows, kept when the schema keeps them.
@Suite("FTS5 through the engine")
struct FTS5EngineTests {
    typealias Exec = FTS5ExecutionTests

    /// A library schema; version 2 adds full-text search, version 3 a UNIQUE column (a rebuild of
    /// the content table under the FTS triggers), version 4 another tokenizer.
    static func library(version: Int) -> SchemaDefinition {
        SchemaDefinition { s in
            s.table("book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("title", .text).notNull()
                t.column("body", .text)
                t.column("lang", .text)
                if version >= 3 { t.column("isbn", .text).unique() }
            }
            if version >= 2 {
                s.virtualTable("book_fts", using: FTS5()) { t in
                    t.synchronize(withTable: "book", rowID: "id")
                    t.tokenizer =
                        version >= 4
                        ? .porter(wrapping: .unicode61(diacritics: .remove)) : .unicode61(diacritics: .remove)
                    t.prefixes = [2, 3]
                    t.column("title")
                    t.column("body")
                    t.column("lang").unindexed()
                }
            }
        }
    }

    /// Version 2, written by hand in the style of sqlite.org: bare words, other spacing, the
    /// prefix option twice, keywords in lower case.
    static let writtenVersion2 = """
        CREATE TABLE book(id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, body TEXT, lang TEXT);
        create virtual table book_fts using fts5(
          title, body, lang unindexed,
          content=book, content_rowid=id,
          tokenize = "unicode61 remove_diacritics 2",
          prefix=3, prefix=2
        );
        CREATE TRIGGER book_fts_ai AFTER INSERT ON book BEGIN
          INSERT INTO book_fts(rowid, title, body, lang) VALUES (new.id, new.title, new.body, new.lang);
        END;
        CREATE TRIGGER book_fts_ad AFTER DELETE ON book BEGIN
          INSERT INTO book_fts(book_fts, rowid, title, body, lang) VALUES('delete', old.id, old.title, old.body, old.lang);
        END;
        CREATE TRIGGER book_fts_au AFTER UPDATE ON book BEGIN
          INSERT INTO book_fts(book_fts, rowid, title, body, lang) VALUES('delete', old.id, old.title, old.body, old.lang);
          INSERT INTO book_fts(rowid, title, body, lang) VALUES (new.id, new.title, new.body, new.lang);
        END;
        """

    static func insertBooks(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO book(title, body, lang) VALUES
                  ('SQLite internals', 'pages and btrees', 'en'),
                  ('Swift concurrency', 'running actors', 'en'),
                  ('Café society', 'crème brûlée', 'fr')
                """)
    }

    @Test func declaredEqualsWritten() throws {
        let declared = try DatabaseSchema(Self.library(version: 2))
        let written = try DatabaseSchema(sql: Self.writtenVersion2)
        #expect(declared.differences(from: written) == [])
        #expect(declared == written)

        // A database made from the SQL needs nothing to reach the DSL schema, and the reverse.
        let fromSQL = try Database(inMemory: Configuration())
        try fromSQL.migrateSchema(to: Self.writtenVersion2)
        #expect(try fromSQL.planSchemaChange(to: Self.library(version: 2)).steps == [])
        let fromDSL = try Database(inMemory: Configuration())
        try fromDSL.create(Self.library(version: 2))
        #expect(try fromDSL.planSchemaChange(to: Self.writtenVersion2).steps == [])
        let migrated = try Database(inMemory: Configuration())
        try migrated.migrateSchema(to: Self.library(version: 2))
        #expect(try migrated.planSchemaChange(to: Self.writtenVersion2).steps == [])
    }

    struct Pair: CustomTestStringConvertible, Sendable {
        let name: String
        let a: String
        let b: String
        var testDescription: String { name }
    }

    static func fts(_ arguments: String, name: String = "f") -> String {
        "CREATE VIRTUAL TABLE \(name) USING fts5(\(arguments))"
    }

    /// Statements FTS5 reads the same: the engine must not recreate the table.
    static let sameTable: [Pair] = [
        Pair(name: "identifier quoting and case", a: fts(#""Body", "Title""#, name: #""F""#), b: fts("body, title")),
        Pair(name: "content quoting", a: fts("a, content=doc"), b: fts(#"a, content="doc""#)),
        Pair(name: "content as string", a: fts("a, content='doc'"), b: fts("a, content=[doc]")),
        Pair(name: "option key case and spacing", a: fts("a, CONTENT = 'doc'"), b: fts("a, content='doc'")),
        Pair(
            name: "option order", a: fts("a, content='doc', content_rowid='id'"),
            b: fts("a, content_rowid=id, content=doc")),
        Pair(
            name: "content_rowid=rowid is the default", a: fts("a, content='doc', content_rowid=rowid"),
            b: fts("a, content='doc'")),
        Pair(name: "contentless quoting", a: fts("a, content=''"), b: fts(#"a, content="""#)),
        Pair(name: "unindexed case", a: fts("a UNINDEXED"), b: fts("a unindexed")),
        Pair(name: "prefix order and form", a: fts("a, prefix='3 2'"), b: fts("a, prefix=2, prefix=3")),
        Pair(
            name: "tokenizer quoting", a: fts("a, tokenize='porter unicode61'"),
            b: fts(#"a, tokenize="porter unicode61""#)),
        Pair(
            name: "tokenizer components quoted (GRDB style)", a: fts("a, tokenize='''porter'' ''unicode61'''"),
            b: fts("a, tokenize='porter unicode61'")),
        Pair(name: "default tokenizer", a: fts("a, tokenize=unicode61"), b: fts("a")),
        Pair(name: "default detail", a: fts("a, detail=full"), b: fts("a")),
        Pair(name: "default columnsize", a: fts("a, columnsize=1"), b: fts("a")),
        Pair(name: "detail case", a: fts("a, detail=COLUMN"), b: fts("a, detail='column'")),
        Pair(
            name: "DSL and hand-written tokenchars",
            a: FTS5TableDefinition("f") { t in
                t.tokenizer = .unicode61(tokenCharacters: ["'", "-"])
                t.column("a")
            }.sql,
            b: fts(#"a, tokenize="unicode61 tokenchars '''-'""#)),
    ]

    @Test(arguments: sameTable) func sameFTS5Table(_ p: Pair) throws {
        let a = try DatabaseSchema(sql: p.a)
        let b = try DatabaseSchema(sql: p.b)
        #expect(a.differences(from: b) == [], "\(p.name)")
    }

    /// Statements FTS5 reads differently: the engine must see the change.
    static let otherTable: [Pair] = [
        Pair(name: "column order", a: fts("a, b"), b: fts("b, a")),
        Pair(name: "unindexed", a: fts("a, b"), b: fts("a, b UNINDEXED")),
        Pair(name: "content", a: fts("a, content='doc'"), b: fts("a, content='book'")),
        Pair(name: "external and own content", a: fts("a, content='doc'"), b: fts("a")),
        Pair(name: "contentless and own content", a: fts("a, content=''"), b: fts("a")),
        Pair(name: "content_rowid", a: fts("a, content='doc', content_rowid='id'"), b: fts("a, content='doc'")),
        Pair(name: "tokenizer", a: fts("a, tokenize='porter'"), b: fts("a, tokenize='ascii'")),
        Pair(
            name: "tokenizer argument", a: fts("a, tokenize='unicode61 remove_diacritics 2'"),
            b: fts("a, tokenize='unicode61'")),
        Pair(
            name: "token characters case", a: fts("a, tokenize=\"ascii tokenchars 'A'\""),
            b: fts("a, tokenize=\"ascii tokenchars 'a'\"")),
        Pair(name: "prefix", a: fts("a, prefix=2"), b: fts("a, prefix='2 3'")),
        Pair(name: "columnsize", a: fts("a, columnsize=0"), b: fts("a")),
        Pair(name: "detail", a: fts("a, detail=column"), b: fts("a, detail=none")),
    ]

    @Test(arguments: otherTable) func otherFTS5Table(_ p: Pair) throws {
        let a = try DatabaseSchema(sql: p.a)
        let b = try DatabaseSchema(sql: p.b)
        #expect(a.differences(from: b) != [], "\(p.name)")
    }

    @Test func migratingToAnFTSSchemaIndexesExistingRows() throws {
        let db = try Database(inMemory: Configuration())
        try db.migrateSchema(to: Self.library(version: 1))
        try Self.insertBooks(db)

        let plan = try db.migrateSchema(to: Self.library(version: 2))
        #expect(plan.steps.map(\.kind) == [.createVirtualTable, .createTrigger, .createTrigger, .createTrigger])
        #expect(plan.destructiveChanges == [])
        #expect(try Exec.search(db, "book_fts", "sqlite") == [1])
        #expect(try Exec.search(db, "book_fts", "creme") == [3])  // remove_diacritics 2
        #expect(try Exec.search(db, "book_fts", "sw*") == [2])
        try Exec.checkIntegrity(db, "book_fts")

        try db.execute(sql: "INSERT INTO book(title) VALUES ('SQLite again')")
        try db.execute(sql: "UPDATE book SET body = 'sleeping actors' WHERE id = 2")
        try db.execute(sql: "DELETE FROM book WHERE id = 1")
        #expect(try Exec.search(db, "book_fts", "sqlite") == [4])
        #expect(try Exec.search(db, "book_fts", "running") == [])
        try Exec.checkIntegrity(db, "book_fts")
        #expect(try db.planSchemaChange(to: Self.library(version: 2)).steps == [])
    }

    @Test func aSchemaThatKeepsTheFTSTableKeepsIt() throws {
        let db = try Database(inMemory: Configuration())
        try db.migrateSchema(to: Self.library(version: 2))
        try Self.insertBooks(db)

        // Rebuilding the content table: the triggers are recreated, the FTS table is kept.
        let plan = try db.migrateSchema(to: Self.library(version: 3))
        #expect(plan.destructiveChanges == [])
        #expect(!plan.steps.contains { $0.kind == .dropVirtualTable || $0.kind == .createVirtualTable })
        #expect(plan.steps.contains { $0.kind == .rebuildTable && $0.object == "book" })
        #expect(try Exec.search(db, "book_fts", "actors") == [2])
        try db.execute(sql: "INSERT INTO book(title, isbn) VALUES ('SQLite again', '978')")
        #expect(try Exec.search(db, "book_fts", "sqlite") == [1, 4])
        try Exec.checkIntegrity(db, "book_fts")

        // A schema that leaves the FTS table out drops it, which is destructive.
        let error = #expect(throws: SchemaError.self) { try db.planSchemaChange(to: Self.library(version: 1)) }
        #expect(error?.code == .destructiveChangesRefused)
        #expect(error?.destructiveChanges.contains { $0.contains("drop virtual table book_fts") } == true)
    }

    @Test func changingTheFTSTableRecreatesAndReindexesIt() throws {
        let db = try Database(inMemory: Configuration())
        try db.migrateSchema(to: Self.library(version: 3))
        try Self.insertBooks(db)
        #expect(try Exec.search(db, "book_fts", "run") == [])

        // Over external content, the FTS table holds no rows of its own: recreating it and indexing
        // its content table again is not destructive.
        let plan = try db.planSchemaChange(to: Self.library(version: 4))
        #expect(plan.destructiveChanges.isEmpty)
        #expect(plan.steps.allSatisfy { !$0.isDestructive }, "\(plan.summary)")
        #expect(
            plan.summary.contains("drop virtual table book_fts (recreated from its content table)"), "\(plan.summary)")
        try db.applySchemaChange(plan)
        #expect(try Exec.search(db, "book_fts", "run") == [2])  // porter, over the rows of "book"
        try Exec.checkIntegrity(db, "book_fts")
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM book") == 3)
    }

    /// `content=""` is contentless (no 'rebuild'), and a column named `content` is not the option.
    @Test func populatesOnlyExternalContent() throws {
        let db = try Database(inMemory: Configuration())
        try db.migrateSchema(
            to: """
                CREATE TABLE doc(id INTEGER PRIMARY KEY, content TEXT);
                CREATE VIRTUAL TABLE bare USING fts5(a, content="");
                """)
        try db.execute(sql: "INSERT INTO doc VALUES (1, 'hello')")
        try db.migrateSchema(
            to: """
                CREATE TABLE doc(id INTEGER PRIMARY KEY, content TEXT);
                CREATE VIRTUAL TABLE bare USING fts5(a, content="");
                CREATE VIRTUAL TABLE doc_fts USING fts5(content, content=doc, content_rowid=id);
                """)
        #expect(try Exec.search(db, "doc_fts", "hello") == [1])
    }

    @Test func hostileNamesThroughTheEngine() throws {
        let content = "it's \"my\" table"
        let fts = "select \"fts\" ünï"
        let schema = SchemaDefinition { s in
            s.table(content) { t in
                t.column("row id", .integer).primaryKey()
                t.column("ti'tle", .text)
                t.column("from", .text)
            }
            s.virtualTable(fts, using: FTS5()) { t in
                t.synchronize(withTable: content, rowID: "row id")
                t.tokenizer = .ascii(separators: ["'"], tokenCharacters: ["\""])
                t.column("ti'tle")
                t.column("from").unindexed()
            }
        }
        let db = try Database(inMemory: Configuration())
        try db.create(table: content) { t in
            t.column("row id", .integer).primaryKey()
            t.column("ti'tle", .text)
            t.column("from", .text)
        }
        try db.execute(
            sql: "INSERT INTO \(SQL.quoteIdentifier(content)) VALUES (1, 'rock''n\"roll', 'a'), (2, 'jazz', 'b')")
        try db.migrateSchema(to: schema)
        #expect(try Exec.search(db, fts, "rock") == [1])  // ' separates
        #expect(try Exec.search(db, fts, #""n""roll""#) == [1])  // " belongs to tokens
        #expect(try Exec.search(db, fts, "roll") == [])
        try db.execute(sql: "UPDATE \(SQL.quoteIdentifier(content)) SET \"ti'tle\" = 'rock' WHERE \"row id\" = 2")
        #expect(try Exec.search(db, fts, "rock") == [1, 2])
        try Exec.checkIntegrity(db, fts)
        #expect(try db.planSchemaChange(to: schema).steps == [])
        #expect(try DatabaseSchema(schema) == DatabaseSchema.read(from: db))
    }

    /// The example of the README's "Full-text search" subsection, as written there.
    @Test func readmeExample() throws {
        let db = try Database(inMemory: Configuration())
        try db.create(table: "book") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("title", .text).notNull()
            t.column("body", .text)
        }
        try db.execute(sql: "INSERT INTO book(title, body) VALUES ('Running SQLite', 'fast'), ('Swift', 'safe')")

        let schema = SchemaDefinition { s in
            s.table("book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("title", .text).notNull()
                t.column("body", .text)
            }
            s.virtualTable("book_fts", using: FTS5()) { t in
                t.synchronize(withTable: "book", rowID: "id")  // content='book' + 3 sync triggers
                t.tokenizer = .porter(wrapping: .unicode61(diacritics: .remove))
                t.prefixes = [2, 3]
                t.column("title")
                t.column("body")
            }
        }
        try db.migrateSchema(to: schema)  // creates book_fts and indexes the rows already in "book"
        let ids = try db.fetchColumn(
            Int.self, sql: "SELECT rowid FROM book_fts WHERE book_fts MATCH ? ORDER BY rank", arguments: ["run*"])

        #expect(ids == [1])
        try Exec.checkIntegrity(db, "book_fts")
    }
}
