import StrataSQLite
import Testing

@testable import StrataSchema

/// The one home of token-level SQL (Sources/StrataSchema/SQLText): the script splitter, the
/// CREATE TABLE / CREATE INDEX / virtual table readers, rename hints, mentioned names and
/// unquoting, each on hostile input (unterminated strings and comments, nested parentheses,
/// every quoting form SQLite accepts: "x", [x], `x`, 'x').
@Suite("SQL text parsers")
struct SQLTextParserTests {
    // MARK: Unquoting

    @Test func everyQuotingFormIsUnquotedOneWay() {
        let tokens = SQLTokenizer.significantTokens(#"x "a""b" [a"b] `a``b` 'a''b' "open"#)
        #expect(tokens.map(\.nameValue) == ["x", #"a"b"#, #"a"b"#, "a`b", "a'b", "open"])
        #expect(tokens.map(\.identifierValue) == ["x", #"a"b"#, #"a"b"#, "a`b", nil, "open"])
        // Unterminated tokens (only possible at the end of the text) keep all after the quote.
        #expect(SQLTokenizer.significantTokens("[abc").first?.identifierValue == "abc")
        #expect(SQLTokenizer.significantTokens("'it''s").first?.nameValue == "it's")
        #expect(SQLTokenizer.significantTokens("`a``").first?.identifierValue == "a`")
        #expect(SQLTokenizer.significantTokens(#""""#).first?.identifierValue == "")
    }

    // MARK: The script splitter

    @Test func splitterKeepsSemicolonsInsideEveryQuotingFormAndComment() throws {
        let script = """
            CREATE TABLE "a;b"([c;d] TEXT DEFAULT 'e;f', `g;h` INT); -- tail; still the first
            /* lead; */ CREATE INDEX i ON "a;b"([c;d]);
            """
        let statements = SQLScript.statements(in: script)
        #expect(
            statements.map(\.text) == [
                #"CREATE TABLE "a;b"([c;d] TEXT DEFAULT 'e;f', `g;h` INT); -- tail; still the first"#,
                #"/* lead; */ CREATE INDEX i ON "a;b"([c;d]);"#,
            ])
        // Each statement ends where SQLite's own sqlite3_complete says it does: its code (comments
        // left out: whether a trailing `-- ...;` counts differs between SQLite versions) is complete
        // with its final semicolon and not without it.
        for statement in statements {
            let code = SQLComments.removingComments(statement.text)
            #expect(code.hasSuffix(";"), "\(statement.text)")
            #expect(SQLiteText.isComplete(code), "\(statement.text)")
            #expect(!SQLiteText.isComplete(String(code.dropLast())), "\(statement.text)")
        }
        try #require(!statements.isEmpty)
        #expect(statements[0].significantTokens.first?.isKeyword("CREATE") == true)
    }

    @Test func splitterDropsEmptyStatementsAndKeepsTriggerBodies() throws {
        let statements = SQLScript.statements(
            in: """
                ;; ;
                CREATE TRIGGER tr AFTER INSERT ON t BEGIN
                  UPDATE t SET a = CASE WHEN new.a > 0 THEN 1 ELSE 2 END;
                  SELECT 'END;';
                END;;
                -- only a comment
                """)
        // The empty statements (`;;`, the second semicolon of `END;;`, a comment alone) are dropped.
        try #require(statements.count == 1)
        #expect(statements[0].text.hasPrefix("CREATE TRIGGER") && statements[0].text.hasSuffix("END;"))
        #expect(statements[0].text.contains("SELECT 'END;';"))
    }

    @Test func splitterRunsUnterminatedStringsAndCommentsToTheEnd() throws {
        let string = SQLScript.statements(in: "CREATE TABLE t(a); CREATE TABLE u(b DEFAULT 'x; CREATE TABLE v(c);")
        try #require(string.count == 2)
        #expect(string[1].text == "CREATE TABLE u(b DEFAULT 'x; CREATE TABLE v(c);")
        let comment = SQLScript.statements(in: "CREATE TABLE t(a); /* never closed; CREATE TABLE v(c);")
        #expect(comment.map(\.text) == ["CREATE TABLE t(a);"])
        let identifier = SQLScript.statements(in: #"CREATE TABLE "t(a); CREATE TABLE [u(b);"#)
        #expect(identifier.count == 1)
    }

    @Test func renameHintsAreFoundOnCommentTokensOnly() {
        let statements = SQLScript.statements(
            in: """
                CREATE TABLE t(a TEXT DEFAULT '-- @renamed from=x');
                CREATE TABLE u(b INT); -- @RENAMED FROM=old
                """)
        #expect(statements.map(\.hasRenameHint) == [false, true])
    }

    // MARK: Rename hints

    @Test func renameHintsInEveryCaseAndQuotingForm() {
        #expect(RenameHint.parse("-- @RENAMED FROM=Old") == "Old")
        #expect(RenameHint.parse("/* @Renamed From = [old name] */") == "old name")
        #expect(RenameHint.parse("-- @renamed from='it''s'") == "it's")
        #expect(RenameHint.parse("-- @renamed from=`a``b`") == "a`b")
        #expect(RenameHint.parse(#"-- @renamed from="unterminated"#) == "unterminated")
        #expect(RenameHint.parse("-- mail me@example.com; @renamed from=x") == "x")
        #expect(RenameHint.parse("-- @renamedfrom=x") == "x")
        #expect(RenameHint.parse("-- @renamedX from=x") == nil)
        #expect(RenameHint.parse("-- @renamed from=") == nil)
        #expect(RenameHint.parse(#"-- @renamed from="""#) == nil)
        #expect(RenameHint.parse("/* @renamed from=x */") == "x")
    }

    // MARK: CREATE TABLE

    @Test func createTableReadsEveryQuotingFormAndNestedParentheses() throws {
        let t = try CreateTableStatement(
            sql: """
                CREATE TABLE 'big''data' (
                  'data' integer CHECK ((data > (1 + (2))) AND data IN (1, 2, 3)),
                  [b c] TEXT DEFAULT (abs(-(1))) COLLATE "NoCase",
                  `d``e` INT PRIMARY KEY DESC,
                  "f""g" REAL AS (data * (2)),
                  CONSTRAINT "k" CHECK ((data, [b c]) IS NOT (0, ')'))
                )
                """)
        #expect(t.name == "big'data")
        #expect(t.columns.map(\.name) == ["data", "b c", "d`e", #"f"g"#])
        #expect(t.constraints == [#"CONSTRAINT "k" CHECK ((data, [b c]) IS NOT (0, ')'))"#])
        #expect(t.constraintTokens.count == 1 && t.constraintTokens[0].first?.isKeyword("CONSTRAINT") == true)
        #expect(t.columns.map(\.collation) == [nil, "NoCase", nil, nil])
        #expect(t.columns.map(\.isPrimaryKeyDescending) == [false, false, true, false])
        #expect(t.columns.map(\.isGenerated) == [false, false, false, true])
    }

    @Test func createTableRefusesUnterminatedInputNamingTheTable() {
        for sql in [
            "CREATE TABLE t(a TEXT DEFAULT 'x)",
            "CREATE TABLE t(a TEXT /* x)",
            "CREATE TABLE t(a TEXT CHECK ((a > 1)",
            #"CREATE TABLE t(a TEXT, "b)"#,
        ] {
            let error = #expect(throws: SchemaError.self, "\(sql)") { try CreateTableStatement(sql: sql) }
            #expect(error?.code == .unsupported)
            #expect(error?.message.contains("table t") == true, "\(error?.message ?? "")")
        }
        #expect(throws: SchemaError.self) { try CreateTableStatement(sql: "CREATE TABLE") }
        #expect(throws: SchemaError.self) { try CreateTableStatement(sql: "CREATE TABLE t AS SELECT 1") }
        #expect(throws: SchemaError.self) { try CreateTableStatement(sql: "CREATE INDEX i ON t(a)") }
    }

    @Test func createTableStatementShapes() {
        func tokens(_ sql: String) -> [SQLToken] { SQLTokenizer.significantTokens(sql) }
        #expect(CreateTableStatement.isCreateTable(tokens("CREATE TABLE 't'(a)")))
        #expect(CreateTableStatement.isCreateTable(tokens("create temp table if not exists main.[t] (a)")))
        #expect(!CreateTableStatement.isCreateTable(tokens("CREATE VIRTUAL TABLE f USING fts5(a)")))
        #expect(!CreateTableStatement.isCreateTable(tokens("CREATE TABLE t AS SELECT 1")))
        #expect(!CreateTableStatement.isCreateTable(tokens("CREATE TABLE (a)")))
        #expect(
            CreateTableStatement.isCreateTableAsSelect(tokens("CREATE TEMP TABLE IF NOT EXISTS main.\"x\" AS SELECT 1"))
        )
        #expect(CreateTableStatement.isCreateTableAsSelect(tokens("CREATE TABLE `x` AS SELECT 1")))
        #expect(!CreateTableStatement.isCreateTableAsSelect(tokens("CREATE TABLE x(a AS (1))")))
        #expect(!CreateTableStatement.isCreateTableAsSelect(tokens("CREATE VIEW v AS SELECT 1")))
    }

    @Test func foreignKeysAndTheirDeferrability() throws {
        let t = try CreateTableStatement(
            sql: """
                CREATE TABLE c(
                  a INT REFERENCES "P a"(id) DEFERRABLE INITIALLY DEFERRED,
                  b INT REFERENCES [q] NOT DEFERRABLE INITIALLY DEFERRED,
                  c INT REFERENCES 'r' DEFERRABLE INITIALLY IMMEDIATE,
                  d INT,
                  FOREIGN KEY (`d`, "a") REFERENCES s(x, y) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
                  FOREIGN KEY (d) REFERENCES s(x)
                )
                """)
        #expect(t.foreignKeys.map(\.columns) == [["a"], ["b"], ["c"], ["d", "a"], ["d"]])
        #expect(t.foreignKeys.map(\.parentTable) == ["P a", "q", "r", "s", "s"])
        #expect(t.foreignKeys.map(\.isDeferred) == [true, false, false, true, false])
    }

    // MARK: Virtual tables

    @Test func virtualTablesInEveryForm() {
        let fts = VirtualTableArguments(
            sql: #"CREATE VIRTUAL TABLE IF NOT EXISTS main.[f t] USING "FTS5"(a, "b", tokenize = 'porter (x)');"#)
        #expect(fts?.name.identifierValue == "f t")
        #expect(fts?.module == "FTS5")
        #expect(fts?.arguments.count == 3)
        #expect(fts?.option("TOKENIZE") == "porter (x)")
        #expect(
            VirtualTableArguments(sql: "CREATE VIRTUAL TABLE r USING 'rtree'(id, (minX), maxX)")?.arguments.count == 3)
        let bare = VirtualTableArguments(sql: "CREATE VIRTUAL TABLE s USING `my``module`")
        #expect(bare?.module == "my`module" && bare?.arguments.isEmpty == true)
        // An argument list left open runs to the end of the text; nothing crashes.
        #expect(VirtualTableArguments(sql: "CREATE VIRTUAL TABLE f USING fts5(a, b")?.arguments.count == 2)
        #expect(VirtualTableArguments(sql: "CREATE VIRTUAL TABLE f USING fts5(a, 'b")?.arguments.count == 2)
        #expect(VirtualTableArguments(sql: "CREATE VIRTUAL TABLE f USING") == nil)
        #expect(VirtualTableArguments(sql: "CREATE TABLE t(a) -- USING fts5(a)") == nil)
        #expect(VirtualTableArguments(sql: "CREATE VIRTUAL TABLE f USING fts5 junk") == nil)
        #expect(VirtualTableArguments.isVirtualTable("/* c */ create virtual table f using fts5(a)"))
        #expect(!VirtualTableArguments.isVirtualTable("CREATE TABLE virtual(a)"))
    }

    /// The module of a virtual table written with a quoted module name is read unquoted (it was
    /// read as `"fts5"` in one place and `fts5` in another), so its shadow tables are known.
    @Test(arguments: [nil, SQLiteVersion(3, 36)])
    func quotedModuleIsReadUnquotedFromALiveDatabase(capabilityLimit: SQLiteVersion?) throws {
        var configuration = Configuration()
        // Below 3.37 the shadow tables are found from the module's name (no PRAGMA table_list).
        configuration.capabilityLimit = capabilityLimit
        let db = try Database(inMemory: configuration)
        defer { db.close() }
        try db.execute(sql: #"CREATE VIRTUAL TABLE docs USING "fts5"(body); CREATE TABLE docs_stat(x)"#)
        let schema = try DatabaseSchema.read(from: db)
        #expect(schema.table(named: "docs")?.module == "fts5")
        #expect(schema.tables.map(\.name).sorted() == ["docs", "docs_stat"])
    }

    // MARK: CREATE INDEX

    @Test func createIndexInEveryQuotingForm() {
        let a = CreateIndexStatement(
            sql: #"CREATE UNIQUE INDEX IF NOT EXISTS main."i x" ON [t y](a, lower("b")) WHERE a > 0"#)
        #expect(a?.name == "i x" && a?.table == "t y" && a?.isUnique == true)
        #expect(a?.body.first?.text == "(" && a?.body.last?.text == "0")
        let b = CreateIndexStatement(sql: "create index 'i' on `t`(a)")
        #expect(b?.name == "i" && b?.table == "t" && b?.isUnique == false)
        #expect(CreateIndexStatement(sql: "CREATE TABLE t(a)") == nil)
        #expect(CreateIndexStatement(sql: "CREATE INDEX i ON") == nil)
        #expect(CreateIndexStatement(sql: #"CREATE INDEX "unterminated ON t(a)"#) == nil)
    }

    // MARK: Table constraints and the statements Strata reads back

    @Test func tableConstraintsInEveryQuotingForm() {
        #expect(
            TableConstraint(sql: #"CONSTRAINT "a ""b""" CHECK (x > 0)"#)
                == TableConstraint(sql: "constraint 'a \"b\"' check(1)"))
        #expect(TableConstraint(sql: #"CONSTRAINT "a ""b""" CHECK (x > 0)"#)?.name == #"a "b""#)
        #expect(TableConstraint(sql: "CONSTRAINT [k] FOREIGN KEY (a) REFERENCES p")?.kind == .foreignKey)
        #expect(TableConstraint(sql: "CONSTRAINT `k` UNIQUE (a)")?.name == "k")
        #expect(
            TableConstraint(sql: "PRIMARY KEY (a, b)").map { [$0.name == nil, $0.kind == .primaryKey] } == [true, true])
        #expect(TableConstraint(sql: "CHECK ((a) > (b))")?.kind == .check)
        #expect(TableConstraint(sql: "CONSTRAINT") == nil)
        #expect(TableConstraint(sql: "CONSTRAINT k") == nil)
        #expect(TableConstraint(sql: "a INT CHECK (a > 0)") == nil)
    }

    @Test func rebuildStatementsAreReadBack() {
        let renames = StatementShape.tableRenames(
            in: """
                INSERT INTO x SELECT 1; ALTER TABLE "strata_tmp_1f" RENAME TO [my task];
                alter table 'a' rename to `b`; ALTER TABLE c RENAME COLUMN d TO e; ALTER TABLE f RENAME TO
                """)
        #expect(renames.map(\.from) == ["strata_tmp_1f", "a"])
        #expect(renames.map(\.to) == ["my task", "b"])
        #expect(StatementShape.begins("/* x */ -- y\n insert into t values (1)", with: "INSERT"))
        #expect(!StatementShape.begins("-- insert", with: "INSERT"))
    }

    // MARK: Mentioned names and comments

    @Test func mentionedNamesInEveryQuotingFormButNotInComments() {
        let names = SQLMentions.names(
            in: #"""
                CREATE VIEW v AS SELECT "Full ""Name""", [B c], `D`, 'E' FROM People -- Secret
                /* Hidden */ WHERE x = 1
                """#)
        #expect(names.isSuperset(of: ["v", "full \"name\"", "b c", "d", "e", "people", "x"]))
        #expect(!names.contains("secret") && !names.contains("hidden") && !names.contains("1"))
        #expect(SQLMentions.names(in: "SELECT 'open").contains("open"))
    }

    @Test func commentsAreRemovedOutsideStringsOnly() {
        #expect(
            SQLComments.removingLineComments("b TEXT DEFAULT '--x' -- @renamed from=a\n  CHECK (b <> '')")
                == "b TEXT DEFAULT '--x' \n  CHECK (b <> '')")
        #expect(SQLComments.removingLineComments("  a INT  ") == "a INT")
        #expect(SQLComments.removingComments("'' -- @renamed from=a") == "''")
        #expect(SQLComments.removingComments("'/*' /* never closed") == "'/*'")
        #expect(SQLComments.removingComments("'a--b'") == "'a--b'")
    }

    // MARK: Through the desired-schema loader

    @Test func desiredSchemaFindsHintsInAnyCaseAndNamesInEveryQuotingForm() throws {
        let schema = try DatabaseSchema(
            sql: """
                CREATE TABLE 'bigdata' ( /* @RENAMED FROM=old */
                  'data' integer, -- @Renamed From=[the data]
                  [b c] TEXT DEFAULT '-- @renamed from=nothing',
                  `d` INT
                );;
                CREATE INDEX 'i' ON `bigdata`([b c]);
                """)
        let table = try #require(schema.table(named: "bigdata"))
        #expect(table.renamedFrom == "old")
        #expect(table.columns.map(\.name) == ["data", "b c", "d"])
        #expect(table.columns.map(\.renamedFrom) == ["the data", nil, nil])
        #expect(schema.indexes.map(\.name) == ["i"])
    }
}
