import StrataSQLite
import StrataSchema
import Testing

/// FTS5 tables declared with the DSL, run on SQLite: searches, tokenizers, and the triggers that
/// keep an external-content index in sync.
@Suite("FTS5: execution")
struct FTS5ExecutionTests {
    /// The rowids `query` matches in the FTS table `fts`, in order.
    static func search(_ db: Database, _ fts: String, _ query: String) throws -> [Int] {
        let table = SQL.quoteIdentifier(fts)
        return try db.fetchColumn(
            Int.self, sql: "SELECT rowid FROM \(table) WHERE \(table) MATCH ? ORDER BY rowid", arguments: [query])
    }

    /// FTS5's integrity checks: the index is consistent, and (rank = 1) it matches the rows of an
    /// external content table. See <https://www.sqlite.org/fts5.html#the_integrity_check_command>.
    static func checkIntegrity(_ db: Database, _ fts: String, externalContent: Bool = true) throws {
        let table = SQL.quoteIdentifier(fts)
        try db.execute(sql: "INSERT INTO \(table)(\(table)) VALUES ('integrity-check')")
        if externalContent {
            try db.execute(sql: "INSERT INTO \(table)(\(table), rank) VALUES ('integrity-check', 1)")
        }
    }

    static func makeBooks(_ db: Database) throws {
        try db.create(table: "book") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("title", .text).notNull()
            t.column("body", .text)
            t.column("lang", .text)
        }
        try db.execute(sql: "INSERT INTO book(title, body, lang) VALUES ('SQLite internals', 'pages and btrees', 'en')")
        try db.execute(
            sql: "INSERT INTO book(title, body, lang) VALUES ('Swift concurrency', 'actors and tasks', 'en')")
    }

    @Test func synchronizedTableIndexesExistingRowsAndFollowsChanges() throws {
        let db = try Database(inMemory: Configuration())
        try Self.makeBooks(db)
        try db.create(virtualTable: "book_fts", using: FTS5()) { t in
            t.synchronize(withTable: "book", rowID: "id")
            t.column("title")
            t.column("body")
            t.column("lang").unindexed()
        }
        // The rows already there were indexed ('rebuild').
        #expect(try Self.search(db, "book_fts", "sqlite") == [1])
        #expect(try Self.search(db, "book_fts", "actors") == [2])
        #expect(try Self.search(db, "book_fts", "en") == [])  // UNINDEXED
        try Self.checkIntegrity(db, "book_fts")

        try db.execute(sql: "INSERT INTO book(title, body, lang) VALUES ('SQLite for Swift', 'typed queries', 'fr')")
        #expect(try Self.search(db, "book_fts", "sqlite") == [1, 3])
        try Self.checkIntegrity(db, "book_fts")

        try db.execute(sql: "UPDATE book SET title = 'Postgres internals' WHERE id = 1")
        #expect(try Self.search(db, "book_fts", "sqlite") == [3])
        #expect(try Self.search(db, "book_fts", "postgres") == [1])
        try Self.checkIntegrity(db, "book_fts")

        try db.execute(sql: "UPDATE book SET id = 10 WHERE id = 2")  // the rowid moves
        #expect(try Self.search(db, "book_fts", "actors") == [10])
        try Self.checkIntegrity(db, "book_fts")

        try db.execute(sql: "DELETE FROM book WHERE id = 3")
        #expect(try Self.search(db, "book_fts", "sqlite") == [])
        try Self.checkIntegrity(db, "book_fts")

        // The FTS table reads the columns of its content table.
        let row = try #require(try db.fetchOne(sql: "SELECT title, lang FROM book_fts WHERE book_fts MATCH 'actors'"))
        #expect(try row["title"] as String == "Swift concurrency")
        #expect(try row["lang"] as String == "en")
    }

    /// The check above has teeth: an external content index that was not kept in sync fails it.
    @Test func integrityCheckCatchesAnIndexOutOfSync() throws {
        let db = try Database(inMemory: Configuration())
        try Self.makeBooks(db)
        try db.create(virtualTable: "book_fts", using: FTS5()) { t in
            t.content = "book"  // no triggers, no rebuild
            t.contentRowID = "id"
            t.column("title")
        }
        #expect(try Self.search(db, "book_fts", "sqlite") == [])
        #expect(throws: SQLiteError.self) { try Self.checkIntegrity(db, "book_fts") }
        try db.execute(sql: "INSERT INTO book_fts(book_fts) VALUES ('rebuild')")
        try Self.checkIntegrity(db, "book_fts")
        try db.execute(sql: "UPDATE book SET title = 'Postgres' WHERE id = 1")
        #expect(throws: SQLiteError.self) { try Self.checkIntegrity(db, "book_fts") }
    }

    @Test func hostileNames() throws {
        let db = try Database(inMemory: Configuration())
        let content = "it's \"my\" table"
        let fts = "select \"fts\" ünï"
        try db.create(table: content) { t in
            t.column("row id", .integer).primaryKey()
            t.column("ti'tle", .text)
            t.column("from", .text)
            t.column("ünï \"code\"", .text)
        }
        try db.execute(
            sql:
                "INSERT INTO \(SQL.quoteIdentifier(content)) VALUES (1, 'hello world', 'alice', 'x1'), (2, 'goodbye', 'bob', 'x2')"
        )
        try db.create(virtualTable: fts, using: FTS5()) { t in
            t.synchronize(withTable: content, rowID: "row id")
            t.tokenizer = .unicode61(tokenCharacters: ["'", "\""])
            t.column("ti'tle")
            t.column("from")
            t.column("ünï \"code\"").unindexed()
        }
        #expect(try Self.search(db, fts, "hello") == [1])
        #expect(try Self.search(db, fts, "\"from\" : bob") == [2])
        try Self.checkIntegrity(db, fts)
        try db.execute(sql: "INSERT INTO \(SQL.quoteIdentifier(content)) VALUES (3, 'it''s here', 'carol', 'x3')")
        #expect(try Self.search(db, fts, #""it's""#) == [3])  // ' is a token character
        try db.execute(
            sql: "UPDATE \(SQL.quoteIdentifier(content)) SET \"ti'tle\" = 'hello again' WHERE \"row id\" = 2")
        #expect(try Self.search(db, fts, "hello") == [1, 2])
        try db.execute(sql: "DELETE FROM \(SQL.quoteIdentifier(content)) WHERE \"row id\" = 1")
        #expect(try Self.search(db, fts, "hello") == [2])
        try Self.checkIntegrity(db, fts)

        try db.drop(virtualTable: fts)
        #expect(try DSLIntrospection.objects(db) == [["table", content, content]])
        try db.execute(sql: "INSERT INTO \(SQL.quoteIdentifier(content)) VALUES (4, 'no index now', 'dan', 'x4')")
    }

    struct TokenizerCase: CustomTestStringConvertible, Sendable {
        let name: String
        let tokenizer: FTS5.Tokenizer
        let text: String
        let matching: [String]
        let notMatching: [String]
        var minimumVersion = SQLiteVersion(3, 9)
        var testDescription: String { name }
    }

    static let tokenizerCases: [TokenizerCase] = [
        TokenizerCase(
            name: "unicode61 removes diacritics by default", tokenizer: .unicode61(), text: "Café crème",
            matching: ["cafe", "CAFÉ", "creme"], notMatching: ["caf"]),
        TokenizerCase(
            name: "unicode61 keeps diacritics", tokenizer: .unicode61(diacritics: .keep), text: "Café",
            matching: ["café"], notMatching: ["cafe"]),
        TokenizerCase(
            name: "unicode61 removes all diacritics", tokenizer: .unicode61(diacritics: .remove), text: "Ǆemal Café",
            matching: ["cafe"], notMatching: [], minimumVersion: SQLiteVersion(3, 27)),
        TokenizerCase(
            name: "unicode61 token characters", tokenizer: .unicode61(tokenCharacters: ["-", "_"]),
            text: "e-mail snake_case",
            matching: ["\"e-mail\"", "\"snake_case\""], notMatching: ["mail", "snake"]),
        TokenizerCase(
            name: "unicode61 separators", tokenizer: .unicode61(separators: ["x"]), text: "fooxbar",
            matching: ["foo", "bar"], notMatching: ["fo"]),
        TokenizerCase(
            name: "unicode61 without separators", tokenizer: .unicode61(), text: "fooxbar",
            matching: ["fooxbar"], notMatching: ["foo", "bar"]),
        TokenizerCase(
            name: "unicode61 categories", tokenizer: .unicode61(categories: "L*"), text: "abc123def",
            matching: ["abc", "def"], notMatching: ["ab"]),
        TokenizerCase(
            name: "ascii keeps non-ASCII as is", tokenizer: .ascii(), text: "Café",
            matching: ["café"], notMatching: ["cafe"]),
        TokenizerCase(
            name: "ascii token characters", tokenizer: .ascii(tokenCharacters: ["."]), text: "www.sqlite.org",
            matching: ["\"www.sqlite.org\""], notMatching: ["sqlite"]),
        TokenizerCase(
            name: "porter stems", tokenizer: .porter(), text: "running databases",
            matching: ["run", "database"], notMatching: ["runner"]),
        TokenizerCase(
            name: "porter wrapping unicode61 options", tokenizer: .porter(wrapping: .unicode61(diacritics: .keep)),
            text: "Cafés", matching: ["café"], notMatching: ["cafe"]),
        TokenizerCase(
            name: "trigram finds substrings", tokenizer: .trigram(), text: "Hello World",
            matching: ["\"llo wo\"", "WORLD"], notMatching: ["\"world!\""], minimumVersion: SQLiteVersion(3, 34)),
        TokenizerCase(
            name: "trigram case sensitive", tokenizer: .trigram(caseSensitive: true), text: "Hello World",
            matching: ["World"], notMatching: ["WORLD"], minimumVersion: SQLiteVersion(3, 34)),
        TokenizerCase(
            name: "trigram removes diacritics", tokenizer: .trigram(removeDiacritics: true), text: "Café",
            matching: ["afe"], notMatching: [], minimumVersion: SQLiteVersion(3, 45)),
    ]

    @Test(arguments: tokenizerCases) func tokenizers(_ c: TokenizerCase) throws {
        guard SQLiteVersion.runtime >= c.minimumVersion else { return }  // e.g. trigram needs 3.34
        let db = try Database(inMemory: Configuration())
        try db.create(virtualTable: "f", using: FTS5()) { t in
            t.tokenizer = c.tokenizer
            t.column("body")
        }
        try db.execute(sql: "INSERT INTO f(rowid, body) VALUES (1, ?)", arguments: [c.text])
        for query in c.matching {
            #expect(try Self.search(db, "f", query) == [1], "\(c.name): \(query)")
        }
        for query in c.notMatching {
            #expect(try Self.search(db, "f", query) == [], "\(c.name): \(query)")
        }
        try Self.checkIntegrity(db, "f", externalContent: false)
    }

    @Test func indexOptions() throws {
        let db = try Database(inMemory: Configuration())
        try db.create(virtualTable: "f", using: FTS5()) { t in
            t.prefixes = [2, 3]
            t.columnSize = false
            t.detail = .column
            t.column("title")
            t.column("body")
        }
        try db.execute(sql: "INSERT INTO f(rowid, title, body) VALUES (1, 'sqlite', 'fast'), (2, 'swift', 'safe')")
        #expect(try Self.search(db, "f", "sq*") == [1])
        #expect(try Self.search(db, "f", "s*") == [1, 2])
        #expect(try Self.search(db, "f", "body : safe") == [2])
        // detail=column keeps no positions: phrase queries of several tokens are refused.
        #expect(throws: SQLiteError.self) { try Self.search(db, "f", "\"sqlite fast\"") }
        try Self.checkIntegrity(db, "f", externalContent: false)

        try db.create(virtualTable: "g", using: FTS5()) { t in
            t.detail = .none
            t.column("body")
        }
        try db.execute(sql: "INSERT INTO g(rowid, body) VALUES (1, 'alpha beta')")
        #expect(try Self.search(db, "g", "beta") == [1])
    }

    @Test func contentlessTable() throws {
        let db = try Database(inMemory: Configuration())
        try db.create(virtualTable: "f", using: FTS5()) { t in
            t.content = ""
            t.column("body")
        }
        try db.execute(sql: "INSERT INTO f(rowid, body) VALUES (7, 'indexed but not stored')")
        #expect(try Self.search(db, "f", "stored") == [7])
        #expect(try db.fetchValue(SQLValue.self, sql: "SELECT body FROM f") == .null)
    }

    @Test func createIfNotExistsAndDrop() throws {
        let db = try Database(inMemory: Configuration())
        try Self.makeBooks(db)
        let definition = FTS5TableDefinition("book_fts", options: .ifNotExists) { t in
            t.synchronize(withTable: "book", rowID: "id")
            t.column("title")
        }
        try db.create(definition)
        try db.create(definition)  // nothing to do, but 'rebuild' is harmless
        #expect(try Self.search(db, "book_fts", "swift") == [2])
        #expect(
            try db.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
                == ["book_fts_ad", "book_fts_ai", "book_fts_au"])

        try db.drop(virtualTable: "book_fts")
        #expect(try DSLIntrospection.objects(db).map { $0[1] } == ["book"])
        try db.execute(sql: "INSERT INTO book(title) VALUES ('still writable')")  // no trigger left behind
        #expect(throws: SQLiteError.self) { try db.drop(virtualTable: "book_fts") }
        try db.drop(virtualTable: "book_fts", ifExists: true)
    }

    @Test func failedCreationLeavesNothing() throws {
        let db = try Database(inMemory: Configuration())
        // The triggers need the content table: the FTS table created before them is rolled back.
        #expect(throws: SQLiteError.self) {
            try db.create(virtualTable: "f", using: FTS5()) { t in
                t.synchronize(withTable: "missing")
                t.column("body")
            }
        }
        #expect(try DSLIntrospection.objects(db) == [])
    }

    @Test func schemaDefinitionCreatesAndIndexes() throws {
        let db = try Database(inMemory: Configuration())
        try Self.makeBooks(db)
        try db.create(
            SchemaDefinition { s in
                s.virtualTable("book_fts", using: FTS5()) { t in
                    t.synchronize(withTable: "book", rowID: "id")
                    t.column("title")
                    t.column("body")
                }
                s.table("note") { t in t.column("text", .text) }
            })
        #expect(try Self.search(db, "book_fts", "btrees") == [1])
        try db.execute(sql: "INSERT INTO book(title) VALUES ('More SQLite')")
        #expect(try Self.search(db, "book_fts", "sqlite") == [1, 3])
        try Self.checkIntegrity(db, "book_fts")
    }
}
