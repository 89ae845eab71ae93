import StrataSQLite
import StrataSchema
import Testing

/// The exact SQL of the FTS5 DSL: one case per option, tokenizer and trigger.
@Suite("FTS5: SQL text")
struct FTS5SQLTextTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let sql: String
        let expected: String
        var testDescription: String { name }
    }

    /// `CREATE VIRTUAL TABLE "f" USING fts5(...)` with a "body" column and what `body` declares.
    static func fts(_ options: VirtualTableOptions = [], _ body: (FTS5TableBuilder) -> Void = { _ in }) -> String {
        FTS5TableDefinition("f", options: options) { t in
            t.column("body")
            body(t)
        }.sql
    }

    static let tableCases: [Case] = [
        Case(name: "one column", sql: fts(), expected: #"CREATE VIRTUAL TABLE "f" USING fts5("body")"#),
        Case(
            name: "columns and unindexed",
            sql: FTS5TableDefinition("f") { t in
                t.column("title")
                t.column("body")
                t.column("lang").unindexed()
            }.sql,
            expected: #"CREATE VIRTUAL TABLE "f" USING fts5("title", "body", "lang" UNINDEXED)"#),
        Case(
            name: "if not exists", sql: fts(.ifNotExists),
            expected: #"CREATE VIRTUAL TABLE IF NOT EXISTS "f" USING fts5("body")"#),
        Case(
            name: "external content", sql: fts { $0.content = "doc" },
            expected: #"CREATE VIRTUAL TABLE "f" USING fts5("body", content='doc')"#),
        Case(
            name: "external content and rowid",
            sql: fts {
                $0.content = "doc"
                $0.contentRowID = "id"
            },
            expected: #"CREATE VIRTUAL TABLE "f" USING fts5("body", content='doc', content_rowid='id')"#),
        Case(
            name: "synchronized", sql: fts { $0.synchronize(withTable: "doc", rowID: "id") },
            expected: #"CREATE VIRTUAL TABLE "f" USING fts5("body", content='doc', content_rowid='id')"#),
        Case(
            name: "synchronized on rowid", sql: fts { $0.synchronize(withTable: "doc") },
            expected: #"CREATE VIRTUAL TABLE "f" USING fts5("body", content='doc')"#),
        Case(
            name: "contentless", sql: fts { $0.content = "" },
            expected: #"CREATE VIRTUAL TABLE "f" USING fts5("body", content='')"#),
        Case(
            name: "tokenizer", sql: fts { $0.tokenizer = .porter() },
            expected: #"CREATE VIRTUAL TABLE "f" USING fts5("body", tokenize='porter')"#),
        Case(
            name: "prefixes, sorted", sql: fts { $0.prefixes = [4, 2, 3] },
            expected: #"CREATE VIRTUAL TABLE "f" USING fts5("body", prefix='2 3 4')"#),
        Case(
            name: "one prefix", sql: fts { $0.prefixes = [2] },
            expected: #"CREATE VIRTUAL TABLE "f" USING fts5("body", prefix='2')"#),
        Case(
            name: "columnsize=0", sql: fts { $0.columnSize = false },
            expected: #"CREATE VIRTUAL TABLE "f" USING fts5("body", columnsize=0)"#),
        Case(
            name: "detail full is the default", sql: fts { $0.detail = .full },
            expected: #"CREATE VIRTUAL TABLE "f" USING fts5("body")"#),
        Case(
            name: "detail column", sql: fts { $0.detail = .column },
            expected: #"CREATE VIRTUAL TABLE "f" USING fts5("body", detail=column)"#),
        Case(
            name: "detail none", sql: fts { $0.detail = .none },
            expected: #"CREATE VIRTUAL TABLE "f" USING fts5("body", detail=none)"#),
        Case(
            name: "every option, in a fixed order",
            sql: fts {
                $0.detail = .column
                $0.columnSize = false
                $0.prefixes = [3]
                $0.tokenizer = .trigram()
                $0.synchronize(withTable: "doc", rowID: "id")
            },
            expected: #"CREATE VIRTUAL TABLE "f" USING fts5("body", content='doc', content_rowid='id', "#
                + #"tokenize='trigram', prefix='3', columnsize=0, detail=column)"#),
        Case(
            name: "hostile names",
            sql: FTS5TableDefinition("my \"fts\" table") { t in
                t.synchronize(withTable: "it's \"doc\"", rowID: "row id")
                t.column("select")
                t.column("ti'tle")
                t.column("ünï \"code\"").unindexed()
            }.sql,
            expected:
                #"CREATE VIRTUAL TABLE "my ""fts"" table" USING fts5("select", "ti'tle", "ünï ""code""" UNINDEXED, "#
                + #"content='it''s "doc"', content_rowid='row id')"#),
        Case(
            name: "from parts",
            sql: FTS5TableDefinition(
                "f", columns: [FTS5ColumnDefinition("a"), FTS5ColumnDefinition("b", isIndexed: false)],
                tokenizer: .ascii(),
                content: "", prefixes: [2], columnSize: false, detail: .none
            ).sql,
            expected: #"CREATE VIRTUAL TABLE "f" USING fts5("a", "b" UNINDEXED, content='', tokenize='ascii', "#
                + #"prefix='2', columnsize=0, detail=none)"#),
    ]

    @Test(arguments: tableCases) func tableSQL(_ c: Case) {
        #expect(c.sql == c.expected, "\(c.name)")
    }

    static let tokenizerCases: [Case] = [
        Case(name: "unicode61", sql: FTS5.Tokenizer.unicode61().sql, expected: "'unicode61'"),
        Case(
            name: "unicode61 keep diacritics", sql: FTS5.Tokenizer.unicode61(diacritics: .keep).sql,
            expected: "'unicode61 remove_diacritics 0'"),
        Case(
            name: "unicode61 remove legacy is the default",
            sql: FTS5.Tokenizer.unicode61(diacritics: .removeLegacy).sql,
            expected: "'unicode61'"),
        Case(
            name: "unicode61 remove diacritics", sql: FTS5.Tokenizer.unicode61(diacritics: .remove).sql,
            expected: "'unicode61 remove_diacritics 2'"),
        Case(
            name: "unicode61 categories", sql: FTS5.Tokenizer.unicode61(categories: "L* N* Co Mn").sql,
            expected: "'unicode61 categories ''L* N* Co Mn'''"),
        Case(
            name: "unicode61 tokenchars sorted", sql: FTS5.Tokenizer.unicode61(tokenCharacters: ["_", "-"]).sql,
            expected: "'unicode61 tokenchars ''-_'''"),
        Case(
            name: "unicode61 separators", sql: FTS5.Tokenizer.unicode61(separators: ["."]).sql,
            expected: "'unicode61 separators ''.'''"),
        Case(
            name: "unicode61 letters as separators stay bare",
            sql: FTS5.Tokenizer.unicode61(separators: ["x", "y"]).sql,
            expected: "'unicode61 separators xy'"),
        Case(
            name: "unicode61 every option",
            sql: FTS5.Tokenizer.unicode61(
                diacritics: .keep, categories: "L*", separators: ["."], tokenCharacters: ["#"]
            ).sql,
            expected: "'unicode61 remove_diacritics 0 categories ''L*'' separators ''.'' tokenchars ''#'''"),
        Case(
            name: "quote as token character", sql: FTS5.Tokenizer.unicode61(tokenCharacters: ["'"]).sql,
            expected: "'unicode61 tokenchars '''''''''"),
        Case(
            name: "double quote as token character", sql: FTS5.Tokenizer.unicode61(tokenCharacters: ["\""]).sql,
            expected: "'unicode61 tokenchars ''\"'''"),
        Case(
            name: "unicode token character", sql: FTS5.Tokenizer.unicode61(tokenCharacters: ["é"]).sql,
            expected: "'unicode61 tokenchars ''é'''"),
        Case(name: "ascii", sql: FTS5.Tokenizer.ascii().sql, expected: "'ascii'"),
        Case(
            name: "ascii separators and tokenchars",
            sql: FTS5.Tokenizer.ascii(separators: ["|"], tokenCharacters: [".", "@"]).sql,
            expected: "'ascii separators ''|'' tokenchars ''.@'''"),
        Case(name: "porter", sql: FTS5.Tokenizer.porter().sql, expected: "'porter'"),
        Case(name: "porter ascii", sql: FTS5.Tokenizer.porter(wrapping: .ascii()).sql, expected: "'porter ascii'"),
        Case(
            name: "porter unicode61 options", sql: FTS5.Tokenizer.porter(wrapping: .unicode61(diacritics: .remove)).sql,
            expected: "'porter unicode61 remove_diacritics 2'"),
        Case(name: "trigram", sql: FTS5.Tokenizer.trigram().sql, expected: "'trigram'"),
        Case(
            name: "trigram case sensitive", sql: FTS5.Tokenizer.trigram(caseSensitive: true).sql,
            expected: "'trigram case_sensitive 1'"),
        Case(
            name: "trigram remove diacritics", sql: FTS5.Tokenizer.trigram(removeDiacritics: true).sql,
            expected: "'trigram remove_diacritics 1'"),
        Case(
            name: "custom components", sql: FTS5.Tokenizer(components: ["my tok", "arg"]).sql,
            expected: "'''my tok'' arg'"),
    ]

    @Test(arguments: tokenizerCases) func tokenizerSQL(_ c: Case) {
        #expect(c.sql == c.expected, "\(c.name)")
    }

    @Test func synchronizationTriggers() {
        let table = FTS5TableDefinition("doc_fts") { t in
            t.synchronize(withTable: "doc", rowID: "id")
            t.column("title")
            t.column("lang").unindexed()
        }
        #expect(
            table.synchronizationTriggers == [
                """
                CREATE TRIGGER "doc_fts_ai" AFTER INSERT ON "doc" BEGIN
                  INSERT INTO "doc_fts"(rowid, "title", "lang") VALUES (new."id", new."title", new."lang");
                END
                """,
                """
                CREATE TRIGGER "doc_fts_ad" AFTER DELETE ON "doc" BEGIN
                  INSERT INTO "doc_fts"("doc_fts", rowid, "title", "lang") VALUES ('delete', old."id", old."title", old."lang");
                END
                """,
                """
                CREATE TRIGGER "doc_fts_au" AFTER UPDATE ON "doc" BEGIN
                  INSERT INTO "doc_fts"("doc_fts", rowid, "title", "lang") VALUES ('delete', old."id", old."title", old."lang");
                  INSERT INTO "doc_fts"(rowid, "title", "lang") VALUES (new."id", new."title", new."lang");
                END
                """,
            ])
        #expect(table.statements == [table.sql] + table.synchronizationTriggers)
        #expect(
            FTS5TableDefinition.synchronizationTriggerNames(for: "doc_fts") == [
                "doc_fts_ai", "doc_fts_ad", "doc_fts_au",
            ])
    }

    @Test func synchronizationTriggersOnRowIDWithHostileNamesAndIfNotExists() {
        let table = FTS5TableDefinition("f \"1\"", options: .ifNotExists) { t in
            t.synchronize(withTable: "order")
            t.column("it's")
        }
        #expect(
            table.synchronizationTriggers.first == #"""
                CREATE TRIGGER IF NOT EXISTS "f ""1""_ai" AFTER INSERT ON "order" BEGIN
                  INSERT INTO "f ""1"""(rowid, "it's") VALUES (new.rowid, new."it's");
                END
                """#)
        #expect(table.synchronizationTriggers.count == 3)
    }

    /// The SQL shown in the FullTextSearch article of the DocC catalog.
    @Test func articleExample() {
        let table = FTS5TableDefinition("book_fts") { t in
            t.synchronize(withTable: "book", rowID: "id")
            t.tokenizer = .porter(wrapping: .unicode61(diacritics: .remove))
            t.prefixes = [2, 3]
            t.column("title")
            t.column("body")
            t.column("isbn").unindexed()
        }
        #expect(
            table.sql
                == #"CREATE VIRTUAL TABLE "book_fts" USING fts5("title", "body", "isbn" UNINDEXED, content='book', "#
                + #"content_rowid='id', tokenize='porter unicode61 remove_diacritics 2', prefix='2 3')"#)
        #expect(
            table.synchronizationTriggers[1] == #"""
                CREATE TRIGGER "book_fts_ad" AFTER DELETE ON "book" BEGIN
                  INSERT INTO "book_fts"("book_fts", rowid, "title", "body", "isbn") VALUES ('delete', old."id", old."title", old."body", old."isbn");
                END
                """#)
    }

    @Test func noTriggersWithoutSynchronization() {
        for body: (FTS5TableBuilder) -> Void in [{ _ in }, { $0.content = "doc" }, { $0.content = "" }] {
            let table = FTS5TableDefinition("f") { t in
                t.column("a")
                body(t)
            }
            #expect(table.synchronizationTriggers == [], "\(table.sql)")
            #expect(table.statements == [table.sql])
        }
    }

    @Test func schemaDefinitionSQL() throws {
        let schema = SchemaDefinition { s in
            s.table("doc") { t in
                t.column("id", .integer).primaryKey()
                t.column("body", .text)
            }
            s.virtualTable("doc_fts", using: FTS5()) { t in
                t.synchronize(withTable: "doc", rowID: "id")
                t.column("body")
            }
            s.virtualTable("scratch", using: FTS5()) { t in t.column("note") }
        }
        let fts = schema.fts5Tables
        #expect(fts.map(\.name) == ["doc_fts", "scratch"])
        try #require(fts.count == 2 && !schema.tables.isEmpty)
        #expect(schema.statements == [schema.tables[0].sql] + fts[0].statements + [fts[1].sql])
        #expect(schema.triggers == fts[0].synchronizationTriggers)
        #expect(
            schema.sql.hasSuffix(
                """
                CREATE VIRTUAL TABLE "scratch" USING fts5("note");

                """))
        var added = SchemaDefinition()
        added.add(fts[1])
        #expect(added.items == [.fts5(fts[1])])
    }

    struct Invalid: CustomTestStringConvertible, Sendable {
        let name: String
        let definition: FTS5TableDefinition
        let message: String
        var testDescription: String { name }
    }

    static let invalidCases: [Invalid] = [
        Invalid(
            name: "no columns", definition: FTS5TableDefinition("f") { _ in },
            message: #"virtual table "f" has no columns"#),
        Invalid(
            name: "same column twice",
            definition: FTS5TableDefinition("f") { t in
                t.column("a")
                t.column("A")
            },
            message: #"virtual table "f" has two columns named "A""#),
        Invalid(
            name: "prefix 0",
            definition: FTS5TableDefinition("f") { t in
                t.column("a")
                t.prefixes = [0, 2]
            },
            message: #"virtual table "f": prefix length 0 is out of 1...999"#),
        Invalid(
            name: "prefix 1000",
            definition: FTS5TableDefinition("f") { t in
                t.column("a")
                t.prefixes = [1000]
            },
            message: #"virtual table "f": prefix length 1000 is out of 1...999"#),
        Invalid(
            name: "synchronized with no table",
            definition: FTS5TableDefinition("f") { t in
                t.column("a")
                t.synchronize(withTable: "")
            },
            message: #"virtual table "f": synchronize(withTable:) needs the name of a content table"#),
        Invalid(
            name: "empty tokenizer",
            definition: FTS5TableDefinition("f") { t in
                t.column("a")
                t.tokenizer = FTS5.Tokenizer(components: [])
            },
            message: #"virtual table "f": the tokenizer has no name"#),
        Invalid(
            name: "NUL in content",
            definition: FTS5TableDefinition("f") { t in
                t.column("a")
                t.content = "a\u{0}b"
            },
            message: #"virtual table "f": an option value holds a NUL character"#),
    ]

    @Test func synchronizationWithTheContentTableOfTheSchema() throws {
        func schema(contentFirst: Bool = true, ftsColumn: String = "body", rowID: String? = "id") -> SchemaDefinition {
            SchemaDefinition { s in
                let doc = TableDefinition("Doc") { t in
                    t.column("id", .integer).primaryKey()
                    t.column("Body", .text)
                }
                if contentFirst { s.add(doc) }
                s.virtualTable("doc_fts", using: FTS5()) { t in
                    t.synchronize(withTable: "doc", rowID: rowID)
                    t.column(ftsColumn)
                }
                if !contentFirst { s.add(doc) }
            }
        }
        try schema().validate()
        try schema(rowID: nil).validate()
        try schema(rowID: "ROWID").validate()
        let cases: [(SchemaDefinition, String)] = [
            (
                schema(contentFirst: false),
                #"virtual table "doc_fts": declare its content table "doc" before it (the synchronization triggers are on that table)"#
            ),
            (
                schema(ftsColumn: "titel"),
                #"virtual table "doc_fts": "titel" is not a column of its content table "doc""#
            ),
            (schema(rowID: "ident"), #"virtual table "doc_fts": "ident" is not a column of its content table "doc""#),
        ]
        for (schema, message) in cases {
            let error = #expect(throws: SchemaDefinitionError.self) { try schema.validate() }
            #expect(error?.message == message)
            #expect(throws: SchemaDefinitionError.self) { try Database(inMemory: Configuration()).create(schema) }
        }
    }

    @Test func synchronizationWithAnExistingContentTable() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT)")
        let error = #expect(throws: SchemaDefinitionError.self) {
            try db.create(virtualTable: "doc_fts", using: FTS5()) { t in
                t.synchronize(withTable: "doc", rowID: "id")
                t.column("title")
            }
        }
        #expect(error?.message == #"virtual table "doc_fts": "title" is not a column of its content table "doc""#)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 1)
    }

    @Test(arguments: invalidCases) func invalidDefinitions(_ c: Invalid) throws {
        let error = #expect(throws: SchemaDefinitionError.self, "\(c.name)") {
            try Database(inMemory: Configuration()).create(c.definition)
        }
        #expect(error?.message == c.message, "\(c.name)")
        #expect(throws: SchemaDefinitionError.self, "\(c.name)") {
            try SchemaDefinition([.fts5(c.definition)]).validate()
        }
    }
}
