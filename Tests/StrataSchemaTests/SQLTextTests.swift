import Testing

@testable import StrataSchema

@Suite("SQL text")
struct SQLTextTests {
    @Test func tokenizerHandlesQuotesCommentsAndBlobs() throws {
        let tokens = SQLTokenizer.significantTokens(
            "SELECT \"a \"\"b\"\"\", [c d], `e`, 'it''s -- no', X'0aFF', 1.5e3, ?2, :name -- tail\n/* c */ x")
        #expect(
            tokens.map(\.kind) == [
                .word, .quotedIdentifier, .symbol, .quotedIdentifier, .symbol, .quotedIdentifier, .symbol, .string,
                .symbol, .blob, .symbol, .number, .symbol, .parameter, .symbol, .parameter, .word,
            ])
        try #require(tokens.count > 7)
        #expect(tokens[1].identifierValue == "a \"b\"")
        #expect(tokens[3].identifierValue == "c d")
        #expect(tokens[7].text == "'it''s -- no'")
    }

    @Test func normalizationIgnoresCosmeticDifferences() {
        let a = SQLNormalizer.normalize("CREATE TABLE \"Users\" ( id INTEGER PRIMARY KEY, -- the key\n name TEXT )")
        let b = SQLNormalizer.normalize("create table users(ID integer primary key,/* x */name text)")
        #expect(a == b)
        #expect(SQLNormalizer.normalize("CHECK (x > 'A')") != SQLNormalizer.normalize("CHECK (x > 'a')"))
        #expect(SQLNormalizer.normalize("a TEXT COLLATE NOCASE") != SQLNormalizer.normalize("a TEXT"))
    }

    @Test func createTableSplitterKeepsTextAndHints() throws {
        let t = try CreateTableStatement(
            sql: """
                CREATE TABLE IF NOT EXISTS "my users" ( -- @renamed from=users
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  "full name" TEXT NOT NULL DEFAULT 'a, b' CHECK (length("full name") > 0), -- @renamed from="name"
                  note TEXT, -- just a note
                  CONSTRAINT u UNIQUE ("full name", note),
                  CHECK (id > 0)
                ) WITHOUT ROWID, STRICT
                """)
        #expect(t.name == "my users")
        #expect(t.renamedFrom == "users")
        #expect(t.columns.map(\.name) == ["id", "full name", "note"])
        try #require(t.columns.count == 3)
        #expect(t.columns[1].renamedFrom == "name")
        #expect(t.columns[2].renamedFrom == nil)
        #expect(t.columns[1].text == "\"full name\" TEXT NOT NULL DEFAULT 'a, b' CHECK (length(\"full name\") > 0)")
        #expect(t.constraints == ["CONSTRAINT u UNIQUE (\"full name\", note)", "CHECK (id > 0)"])
        #expect(t.isWithoutRowID && t.isStrict && t.hasAutoincrement)
        #expect(
            CreateTableDDL.copy(of: t, named: "tmp").sql.hasPrefix("CREATE TABLE IF NOT EXISTS \"tmp\" ( -- @renamed"))
    }

    @Test func renameHintParsing() {
        #expect(RenameHint.parse("-- @renamed from=old") == "old")
        #expect(RenameHint.parse("--@renamed from = \"a \"\"b\"") == "a \"b")
        #expect(RenameHint.parse("-- renamed from=old") == nil)
        #expect(RenameHint.parse("-- @renamed to=old") == nil)
    }

    @Test func statementSplittingKeepsTriggerBodies() throws {
        let parts = SQLScript.statements(
            in: """
                CREATE TABLE t(a); -- @renamed from=x
                CREATE TRIGGER tr AFTER INSERT ON t BEGIN UPDATE t SET a = 1; SELECT ';'; END;
                CREATE VIEW v AS SELECT a FROM t
                """
        ).map(\.text)
        try #require(parts.count == 3)
        #expect(parts[0] == "CREATE TABLE t(a); -- @renamed from=x")
        #expect(parts[1].hasSuffix("END;"))
    }
}
