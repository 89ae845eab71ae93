import StrataSQLite
import Testing

/// `matching(_:)` on FTS5 tables: patterns from search-box text never fail, raw patterns are
/// checked by SQLite, `rank` orders matches.
@Suite("Query interface: full-text search")
struct FullTextSearchTests {
    struct Document: Codable, Hashable, FetchableRecord, TableRecord {
        static let databaseTableName = "document"
        var title: String
        var body: String
    }

    static func database() throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE VIRTUAL TABLE document USING fts5(title, body);
                INSERT INTO document(title, body) VALUES
                  ('Ice cream', 'cream made of ice and sugar'),
                  ('Cream', 'whipped cream, no ice'),
                  ('Panic', 'don''t panic: C++ and SQLite'),
                  ('Quotes', 'a "quoted" word and AND or OR');
                """)
        return db
    }

    @Test func patternsFromText() throws {
        #expect(FTS5Pattern(matchingAllTokensIn: "don't panic")?.rawPattern == #""don" "t" "panic""#)
        #expect(FTS5Pattern(matchingAnyTokenIn: "ice cream")?.rawPattern == #""ice" OR "cream""#)
        #expect(FTS5Pattern(matchingPhrase: "ice, cream!")?.rawPattern == #""ice cream""#)
        #expect(FTS5Pattern(matchingAllPrefixesIn: "ic cr")?.rawPattern == #""ic"* "cr"*"#)
        #expect(FTS5Pattern(matchingAllTokensIn: "C++")?.rawPattern == #""C""#)
        #expect(FTS5Pattern(matchingAllTokensIn: "  ") == nil)
        #expect(FTS5Pattern(matchingAllTokensIn: "++ -- \"") == nil)
        #expect(FTS5Pattern(matchingAllTokensIn: "crème brûlée")?.rawPattern == #""crème" "brûlée""#)
    }

    @Test func matchingAndRank() throws {
        let db = try Self.database()
        let all = FTS5Pattern(matchingAllTokensIn: "ice cream")
        let request = Document.matching(all).order(Column.rank)
        #expect(
            try request.sqlAndArguments(db)
                == #"SELECT * FROM "document" WHERE "document" MATCH ? ORDER BY "rank" | ['"ice" "cream"']"#)
        let expected = try Document.fetchAll(
            db, sql: "SELECT * FROM document WHERE document MATCH '\"ice\" \"cream\"' ORDER BY rank")
        #expect(try request.fetchAll(db) == expected)
        #expect(Set(expected.map(\.title)) == ["Ice cream", "Cream"])
        #expect(try Document.matching(FTS5Pattern(matchingAnyTokenIn: "sugar panic")).fetchCount(db) == 2)
        #expect(
            try Document.matching(FTS5Pattern(matchingPhrase: "ice cream")).fetchAll(db).map(\.title) == ["Ice cream"])
        #expect(
            try Document.matching(FTS5Pattern(matchingAllPrefixesIn: "whip cre")).fetchAll(db).map(\.title) == ["Cream"]
        )
        #expect(
            try Document.matching(FTS5Pattern(matchingAllTokensIn: "panic AND")).fetchAll(db).map(\.title) == ["Panic"])
        #expect(try Document.matching(nil).fetchCount(db) == 0)
        #expect(
            try Document.matching(try FTS5Pattern(rawPattern: "title: cream NOT whipped", columns: ["title"])).fetchAll(
                db
            ).map(\.title) == ["Ice cream"])
    }

    /// Search-box text of every kind: no initializer from text ever produces a pattern that
    /// SQLite refuses.
    @Test func hostileSearchTextNeverThrows() throws {
        let db = try Self.database()
        let hostile = [
            "don't", "C++", "\"quotes", "panic AND", "AND", "OR", "NOT", "NEAR(", "NEAR(a b, 2)", "*", "^", "-", "+",
            "title:", "title: ice", "{title body}: x", ":", "\"\"", "'", "(", ")", "((ice", "ice)", "a\"b", "\0",
            "\u{0}ice", "🍦 cream", "ice*", "*ice", "^ice", "ice OR", "OR ice", "ice NOT", "\\", "%", "_", "a -b",
            "\"unterminated", "ice\"cream\"", "col:umn:", "x AND AND y", "NEAR", "near(",
            String(repeating: "a ", count: 2000),
            "\n\t", "ＡＮＤ", "ice\u{301}", "٣٤", "' OR 1=1 --", "'; DROP TABLE document; --",
        ]
        for text in hostile {
            let patterns = [
                FTS5Pattern(matchingAllTokensIn: text), FTS5Pattern(matchingAnyTokenIn: text),
                FTS5Pattern(matchingPhrase: text), FTS5Pattern(matchingAllPrefixesIn: text),
            ]
            for pattern in patterns {
                #expect(throws: Never.self, "\(text.prefix(40))") {
                    _ = try Document.matching(pattern).order(Column.rank).fetchAll(db)
                }
            }
        }
        #expect(try Document.all().fetchCount(db) == 4)
    }

    @Test func rawPatternsAreCheckedBySQLite() throws {
        #expect(try FTS5Pattern(rawPattern: "ice NEAR(cream sugar, 5)").rawPattern == "ice NEAR(cream sugar, 5)")
        for invalid in ["panic AND", "\"unterminated", "(ice", "AND", "nocolumn: ice"] {
            let error = #expect(throws: SQLiteError.self, "\(invalid)") { try FTS5Pattern(rawPattern: invalid) }
            #expect(error?.message.isEmpty == false, "\(invalid)")
        }
        let error = #expect(throws: SQLiteError.self) { try FTS5Pattern(rawPattern: "panic AND") }
        #expect(error?.message.contains("fts5: syntax error") == true)
    }
}
