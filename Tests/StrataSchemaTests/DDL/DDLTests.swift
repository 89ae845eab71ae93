import StrataSQLite
import Testing

@testable import StrataSchema

/// The DDL values (Sources/StrataSchema/DDL): their exact SQL, hostile names, SQLite accepting
/// what they render, and the one ADD COLUMN rule checked against SQLite itself.
@Suite("DDL values")
struct DDLTests {
    struct Case: CustomTestStringConvertible {
        let name: String
        let ddl: any DDLStatement
        let expected: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "create table from parts",
            ddl: CreateTableDDL(
                "player",
                elements: [
                    .init(#""id" INTEGER PRIMARY KEY"#), .init(#""fullName" TEXT"#, renamedFrom: "name"),
                    .init(#"CHECK ("fullName" <> '')"#),
                ],
                isWithoutRowID: true, isStrict: true, renamedFrom: "athlete"),
            expected: """
                CREATE TABLE "player" ( -- @renamed from="athlete"
                  "id" INTEGER PRIMARY KEY,
                  "fullName" TEXT, -- @renamed from="name"
                  CHECK ("fullName" <> '')
                ) WITHOUT ROWID, STRICT
                """),
        Case(
            name: "create temporary table if not exists",
            ddl: CreateTableDDL("t", elements: [.init("a")], isTemporary: true, ifNotExists: true),
            expected: "CREATE TEMPORARY TABLE IF NOT EXISTS \"t\" (\n  a\n)"),
        Case(
            name: "a rename hint that a line break would end is left out",
            ddl: CreateTableDDL("t", elements: [.init("a", renamedFrom: "x\ny")], renamedFrom: "old\rname"),
            expected: "CREATE TABLE \"t\" (\n  a\n)"),
        Case(name: "drop table", ddl: DropDDL.table("order"), expected: #"DROP TABLE "order""#),
        Case(
            name: "drop table if exists", ddl: DropDDL.table("t", ifExists: true),
            expected: #"DROP TABLE IF EXISTS "t""#
        ),
        Case(name: "drop index", ddl: DropDDL.index("i", ifExists: true), expected: #"DROP INDEX IF EXISTS "i""#),
        Case(name: "drop view", ddl: DropDDL.view("v"), expected: #"DROP VIEW "v""#),
        Case(name: "drop trigger", ddl: DropDDL.trigger("tr"), expected: #"DROP TRIGGER "tr""#),
        Case(
            name: "create unique partial index",
            ddl: CreateIndexDDL(
                "i", on: "t", terms: [#""a" COLLATE NOCASE"#, "lower(\"b\") DESC"], isUnique: true, ifNotExists: true,
                condition: #""a" IS NOT NULL"#),
            expected:
                #"CREATE UNIQUE INDEX IF NOT EXISTS "i" ON "t"("a" COLLATE NOCASE, lower("b") DESC) WHERE "a" IS NOT NULL"#
        ),
        Case(
            name: "create view with columns",
            ddl: CreateViewDDL("v", columns: ["x", "y"], as: "SELECT 1, 2", isTemporary: true, ifNotExists: true),
            expected: #"CREATE TEMPORARY VIEW IF NOT EXISTS "v"("x", "y") AS SELECT 1, 2"#),
        Case(
            name: "create trigger",
            ddl: CreateTriggerDDL("tr", .insteadOf, .update(of: ["a", "b"]), on: "v", body: ["SELECT 1", "SELECT 2"]),
            expected:
                "CREATE TRIGGER \"tr\" INSTEAD OF UPDATE OF \"a\", \"b\" ON \"v\" BEGIN\n  SELECT 1;\n  SELECT 2;\nEND"),
        Case(
            name: "create virtual table",
            ddl: CreateVirtualTableDDL(
                "f", using: "fts5", arguments: [#""body""#, "tokenize='porter'"], ifNotExists: true),
            expected: #"CREATE VIRTUAL TABLE IF NOT EXISTS "f" USING fts5("body", tokenize='porter')"#),
        Case(
            name: "add column drops line comments",
            ddl: AddColumnDDL(table: "t", definition: "c TEXT -- note\n  DEFAULT ''"),
            expected: "ALTER TABLE \"t\" ADD COLUMN c TEXT \n  DEFAULT ''"),
        Case(name: "rename table", ddl: RenameTableDDL("a", to: "b"), expected: #"ALTER TABLE "a" RENAME TO "b""#),
        Case(
            name: "rename column", ddl: RenameColumnDDL(table: "t", from: "a", to: "b"),
            expected: #"ALTER TABLE "t" RENAME COLUMN "a" TO "b""#),
        Case(
            name: "drop column", ddl: DropColumnDDL(table: "t", column: "a"),
            expected: #"ALTER TABLE "t" DROP COLUMN "a""#),
        Case(
            name: "add named check", ddl: AddCheckConstraintDDL(table: "t", name: "positive", check: #""a" > 0"#),
            expected: #"ALTER TABLE "t" ADD CONSTRAINT "positive" CHECK ("a" > 0)"#),
        Case(
            name: "add check as written", ddl: AddCheckConstraintDDL(table: "t", constraint: "CHECK (a > 0) -- why"),
            expected: #"ALTER TABLE "t" ADD CHECK (a > 0)"#),
        Case(
            name: "drop constraint", ddl: DropConstraintDDL(table: "t", name: "positive"),
            expected: #"ALTER TABLE "t" DROP CONSTRAINT "positive""#),
        Case(
            name: "set not null", ddl: AlterColumnNotNullDDL(table: "t", column: "a", isNotNull: true),
            expected: #"ALTER TABLE "t" ALTER COLUMN "a" SET NOT NULL"#),
        Case(
            name: "drop not null", ddl: AlterColumnNotNullDDL(table: "t", column: "a", isNotNull: false),
            expected: #"ALTER TABLE "t" ALTER COLUMN "a" DROP NOT NULL"#),
        Case(
            name: "rebuild copy",
            ddl: RebuildCopyDDL(
                into: "new", from: "old",
                columns: [.init(.rowID("rowid"), "_rowid_"), .init(.column("a"), "coalesce(\"a\", 0)")]),
            expected: #"INSERT OR ABORT INTO "new" (rowid, "a") SELECT _rowid_, coalesce("a", 0) FROM "old""#),
        Case(
            name: "sequence carry-over",
            ddl: SequenceCarryOverDDL(from: "it's", to: "new"),
            expected: """
                UPDATE sqlite_sequence SET seq = max(seq, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'it''s'), 0)) \
                WHERE name = 'new';
                INSERT INTO sqlite_sequence(name, seq) SELECT 'new', seq FROM sqlite_sequence WHERE name = 'it''s' \
                AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'new')
                """),
    ]

    @Test(arguments: cases) func rendersItsSQL(_ c: Case) {
        #expect(c.ddl.sql == c.expected, "\(c.name)")
    }

    @Test func everySingleStatementValueIsOneStatement() {
        for c in Self.cases where !(c.ddl is SequenceCarryOverDDL) {
            #expect(c.ddl.statements == [c.ddl.sql], "\(c.name)")
        }
        #expect(SequenceCarryOverDDL(from: "a", to: "b").statements.count == 2)
    }

    /// Names SQLite accepts only quoted: a double quote, spaces, a keyword, unicode, a would-be
    /// injection, a bracket, a single quote, an empty-looking name.
    static let hostileNames = [
        #"we"ird"#, "two words", "order", "ünï–código 表🙂", "x\"; DROP TABLE t; --", "[b]", "it's", " ",
    ]

    @Test(arguments: hostileNames) func quotesEveryNameWithTheOneQuotingFunction(_ name: String) {
        let q = SQLLiteral.quote(identifier: name)
        #expect(DropDDL.table(name).sql == "DROP TABLE \(q)")
        #expect(DropDDL.index(name).sql == "DROP INDEX \(q)")
        #expect(DropDDL.view(name).sql == "DROP VIEW \(q)")
        #expect(DropDDL.trigger(name).sql == "DROP TRIGGER \(q)")
        #expect(RenameTableDDL(name, to: name).sql == "ALTER TABLE \(q) RENAME TO \(q)")
        #expect(RenameColumnDDL(table: name, from: name, to: name).sql == "ALTER TABLE \(q) RENAME COLUMN \(q) TO \(q)")
        #expect(DropColumnDDL(table: name, column: name).sql == "ALTER TABLE \(q) DROP COLUMN \(q)")
        #expect(DropConstraintDDL(table: name, name: name).sql == "ALTER TABLE \(q) DROP CONSTRAINT \(q)")
        #expect(CreateIndexDDL(name, on: name, terms: [q]).sql == "CREATE INDEX \(q) ON \(q)(\(q))")
        #expect(CreateViewDDL(name, columns: [name], as: "SELECT 1").sql == "CREATE VIEW \(q)(\(q)) AS SELECT 1")
        #expect(CreateTableDDL(name, elements: [.init(q)]).sql == "CREATE TABLE \(q) (\n  \(q)\n)")
        #expect(
            RebuildCopyDDL(into: name, from: name, columns: [.init(.column(name), q)]).sql
                == "INSERT OR ABORT INTO \(q) (\(q)) SELECT \(q) FROM \(q)")
    }

    /// The online rebuild's statements: the log triggers (which write nothing but the log), a
    /// batch, the replay and the catch-up, by rowid names that columns leave free, for a table
    /// name with a quote and a keyword.
    @Test func onlineRebuildStatements() {
        let copy = RebuildCopyDDL(
            into: "strata_tmp_00c0ffee00c0ffee", from: #"it"s select"#,
            columns: [.init(.rowID("rowid"), "_rowid_"), .init(.column("a"), "coalesce(\"a\", 0)")])
        let ddl = OnlineRebuildDDL(copy: copy, sourceRowID: "_rowid_", tableRowID: "rowid")
        let t = #""strata_tmp_00c0ffee00c0ffee""#
        let l = #""strata_log_00c0ffee00c0ffee""#
        let s = #""it""s select""#
        let select = #"SELECT _rowid_, coalesce("a", 0) FROM "it""s select" WHERE "#
        let key = "temporary_table = 'strata_tmp_00c0ffee00c0ffee'"
        let copied = "(SELECT last_rowid FROM \"strata_online_rebuild\" WHERE \(key))"
        #expect(ddl.createLog == "CREATE TABLE \(l) (r INTEGER, d INTEGER)")
        #expect(
            ddl.createTriggers == [
                #"CREATE TRIGGER "strata_mirror_00c0ffee00c0ffee_insert" AFTER INSERT ON "it""s select" BEGIN "#
                    + "INSERT INTO \(l) (r, d) VALUES (NEW._rowid_, 1); END",
                #"CREATE TRIGGER "strata_mirror_00c0ffee00c0ffee_update" AFTER UPDATE ON "it""s select" BEGIN "#
                    + "INSERT INTO \(l) (r, d) VALUES (OLD._rowid_, 0), (NEW._rowid_, 0); END",
                #"CREATE TRIGGER "strata_mirror_00c0ffee00c0ffee_delete" AFTER DELETE ON "it""s select" BEGIN "#
                    + "INSERT INTO \(l) (r, d) VALUES (OLD._rowid_, -1); END",
            ])
        #expect(
            ddl.batchSQL(inclusive: false)
                == "INSERT OR ABORT INTO \(t) (rowid, \"a\") " + select + "\(s)._rowid_ > ?1 AND \(s)._rowid_ <= ?2")
        #expect(
            ddl.batchEndSQL(inclusive: true).contains("WHERE _rowid_ >= ?1 AND _rowid_ <= ?3 ORDER BY _rowid_ LIMIT ?2")
        )
        #expect(
            ddl.batchSQL(inclusive: true)
                == "INSERT OR ABORT INTO \(t) (rowid, \"a\") " + select + "\(s)._rowid_ >= ?1 AND \(s)._rowid_ <= ?2")
        #expect(ddl.replayDeletesLogged == "DELETE FROM \(t) WHERE \(t).rowid IN (SELECT r FROM \(l))")
        #expect(
            ddl.replayCopiesLogged
                == "INSERT OR ABORT INTO \(t) (rowid, \"a\") " + select
                + "\(s)._rowid_ IN (SELECT r FROM \(l)) AND \(s)._rowid_ <= \(copied)")
        #expect(ddl.catchUp.contains("CROSS JOIN \(s) WHERE NOT EXISTS"))
        #expect(
            ddl.catchUpPastCopied
                == "INSERT OR ABORT INTO \(t) (rowid, \"a\") " + select
                + "\(s)._rowid_ >= coalesce((SELECT last_rowid + 1 FROM \"strata_online_rebuild\" WHERE \(key)), "
                + "-9223372036854775808) AND NOT EXISTS (SELECT 1 FROM \(t) WHERE \(t).rowid = \(s)._rowid_)")
        #expect(ddl.swapCatchUp.last == "DROP TABLE IF EXISTS \(l)")
        #expect(ReservedNames.isOnlineLog(ddl.log) && ReservedNames.isStrataTable(ddl.log))

        #expect(ddl.removeRowsGoneFromSource.contains("start_rows + net_rows"))
        #expect(ddl.triggerNames.allSatisfy(ReservedNames.isMirrorTrigger))
        #expect(!ReservedNames.isMirrorTrigger("strata_mirror_notes"))
    }

    /// Every statement kind, with hostile names for the table, its columns, index, view and
    /// trigger, runs on SQLite and leaves the objects and rows it should.
    @Test(arguments: hostileNames) func sqliteAcceptsWhatTheValuesRender(_ name: String) throws {
        let db = try Database(inMemory: Configuration())
        let q = SQLLiteral.quote(identifier: name)
        let table = name + " table"
        let other = name + " other"
        func run(_ ddl: any DDLStatement) throws {
            for sql in ddl.statements { try db.execute(sql: sql) }
        }
        func names(_ type: String) throws -> [String] {
            try db.fetchColumn(
                String.self, sql: "SELECT name FROM sqlite_master WHERE type = ? ORDER BY name", arguments: [type])
        }
        try run(
            CreateTableDDL(
                table,
                elements: [
                    .init(SQL.quoteIdentifier("id") + " INTEGER PRIMARY KEY AUTOINCREMENT"),
                    .init(q + " TEXT", renamedFrom: name + " old"), .init("CHECK (\(q) <> 'no')"),
                ],
                renamedFrom: "x"))
        try db.execute(sql: "INSERT INTO \(SQL.quoteIdentifier(table)) (\(q)) VALUES ('a'), ('b')")
        try run(CreateIndexDDL(name, on: table, terms: [q + " DESC"], isUnique: true, condition: "\(q) IS NOT NULL"))
        let view = name + " view"
        let trigger = name + " trigger"
        try run(CreateViewDDL(view, columns: [name], as: "SELECT \(q) FROM \(SQL.quoteIdentifier(table))"))
        try run(
            CreateTriggerDDL(
                trigger, .after, .update(of: [name]), on: table,
                body: ["UPDATE \(SQL.quoteIdentifier(table)) SET \(q) = new.\(q) WHERE 0"]))
        try run(
            AddColumnDDL(table: table, definition: SQL.quoteIdentifier(other) + " INTEGER NOT NULL DEFAULT 7 -- hint"))
        try run(RenameColumnDDL(table: table, from: other, to: other + "2"))
        if db.capabilities.supportsDropColumn { try run(DropColumnDDL(table: table, column: other + "2")) }
        if db.capabilities.supportsAlterConstraints {
            try run(AddCheckConstraintDDL(table: table, name: name, check: "length(\(q)) = 1"))
            try run(DropConstraintDDL(table: table, name: name))
            try run(AlterColumnNotNullDDL(table: table, column: name, isNotNull: true))
            try run(AlterColumnNotNullDDL(table: table, column: name, isNotNull: false))
        }
        #expect(try names("index") == [name])
        #expect(try names("view") == [view])
        #expect(try names("trigger") == [trigger])

        // A rebuild: the stored text under a temporary name, the rows and the sequence copied.
        let storedSQL = try #require(
            try db.fetchValue(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [table]))
        let stored = try CreateTableStatement(sql: storedSQL)
        try run(CreateTableDDL.copy(of: stored, named: other))
        try run(
            RebuildCopyDDL(
                into: other, from: table,
                columns: [.init(.column("id"), SQL.quoteIdentifier("id")), .init(.column(name), q)]))
        try run(SequenceCarryOverDDL(from: table, to: other))
        try run(DropDDL.trigger(trigger))
        try run(DropDDL.view(view))
        try run(DropDDL.table(table))
        try run(RenameTableDDL(other, to: table))
        #expect(try names("table").filter { $0 != "sqlite_sequence" } == [table])
        #expect(
            try db.fetchColumn(String.self, sql: "SELECT \(q) FROM \(SQL.quoteIdentifier(table)) ORDER BY id") == [
                "a", "b",
            ])
        #expect(
            try db.fetchValue(Int.self, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table]) == 2)
        try run(DropDDL.index(name, ifExists: true))
        try run(DropDDL.index(name, ifExists: true))
        try run(DropDDL.table(table, ifExists: true))
        try run(DropDDL.table(table, ifExists: true))
        #expect(try names("table").filter { $0 != "sqlite_sequence" }.isEmpty)
    }

    @Test func copyKeepsTheStoredTextAndReplacesOnlyTheName() throws {
        let stored = try CreateTableStatement(
            sql:
                "CREATE TABLE IF NOT EXISTS [my table] ( -- @renamed from=old\n  a INTEGER PRIMARY KEY /* kept */, 'b' TEXT\n) WITHOUT ROWID"
        )
        let copy = CreateTableDDL.copy(of: stored, named: #"tmp "1""#)
        #expect(
            copy.sql
                == "CREATE TABLE IF NOT EXISTS \"tmp \"\"1\"\"\" ( -- @renamed from=old\n  a INTEGER PRIMARY KEY /* kept */, 'b' TEXT\n) WITHOUT ROWID"
        )
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: copy.sql)
        #expect(try db.fetchColumn(String.self, sql: "SELECT name FROM pragma_table_info('tmp \"1\"')") == ["a", "b"])
    }

    // MARK: - The ADD COLUMN rule

    struct RuleCase: CustomTestStringConvertible {
        let definition: String
        /// The refusal on a table that may have rows, foreign keys on.
        let withRows: AddColumnDDL.Refusal?
        /// The refusal on an empty table, foreign keys off.
        let empty: AddColumnDDL.Refusal?
        var testDescription: String { definition }
    }

    static let ruleCases: [RuleCase] = [
        RuleCase(definition: "c", withRows: nil, empty: nil),
        RuleCase(definition: "c TEXT DEFAULT 'x' COLLATE NOCASE", withRows: nil, empty: nil),
        RuleCase(definition: "c INTEGER NOT NULL DEFAULT 0", withRows: nil, empty: nil),
        RuleCase(definition: "c INTEGER NOT NULL DEFAULT -1", withRows: nil, empty: nil),
        RuleCase(definition: "c INTEGER DEFAULT NULL", withRows: nil, empty: nil),
        RuleCase(definition: "c INTEGER CHECK (c IS NOT NULL OR c IS NULL)", withRows: nil, empty: nil),
        RuleCase(definition: "c INTEGER REFERENCES p ON DELETE SET DEFAULT", withRows: nil, empty: nil),
        RuleCase(definition: "c INTEGER REFERENCES p DEFAULT NULL", withRows: nil, empty: nil),
        RuleCase(definition: "c AS (1) NOT NULL", withRows: nil, empty: nil),
        RuleCase(definition: "c GENERATED ALWAYS AS (1) VIRTUAL", withRows: nil, empty: nil),
        RuleCase(definition: "\"primary\" TEXT CONSTRAINT \"unique\" DEFAULT 'not null'", withRows: nil, empty: nil),
        RuleCase(definition: "c INTEGER PRIMARY KEY", withRows: .primaryKey, empty: .primaryKey),
        RuleCase(definition: "c TEXT CONSTRAINT u UNIQUE", withRows: .unique, empty: .unique),
        RuleCase(definition: "c TEXT unique", withRows: .unique, empty: .unique),
        RuleCase(definition: "c INTEGER REFERENCES p DEFAULT 1", withRows: .referencesWithDefault, empty: nil),
        RuleCase(definition: "c AS (1) STORED", withRows: .storedGenerated, empty: nil),
        RuleCase(definition: "c TEXT DEFAULT CURRENT_TIMESTAMP", withRows: .nonConstantDefault, empty: nil),
        RuleCase(definition: "c TEXT DEFAULT current_date", withRows: .nonConstantDefault, empty: nil),
        RuleCase(definition: "c TEXT DEFAULT (random())", withRows: .nonConstantDefault, empty: nil),
        RuleCase(definition: "c INTEGER NOT NULL", withRows: .notNullWithoutDefault, empty: nil),
        RuleCase(definition: "c INTEGER NOT NULL DEFAULT NULL", withRows: .notNullWithoutDefault, empty: nil),
        RuleCase(definition: "c INTEGER -- DEFAULT 1\n NOT NULL", withRows: .notNullWithoutDefault, empty: nil),
    ]

    @Test(arguments: ruleCases) func addColumnRule(_ c: RuleCase) {
        let ddl = AddColumnDDL(table: "t", definition: c.definition)
        #expect(ddl.refusal(for: .init(mayHaveRows: true, foreignKeysEnforced: true)) == c.withRows, "\(c.definition)")
        #expect(ddl.refusal(for: .init(mayHaveRows: false, foreignKeysEnforced: false)) == c.empty, "\(c.definition)")
    }

    @Test func everyReasonIsListed() {
        let ddl = AddColumnDDL(table: "t", definition: "c INTEGER NOT NULL UNIQUE REFERENCES p DEFAULT (1)")
        #expect(
            ddl.refusals(for: .init(mayHaveRows: true, foreignKeysEnforced: true))
                == [.unique, .referencesWithDefault, .nonConstantDefault])
        let notNull = AddColumnDDL(table: "t", definition: "c INTEGER PRIMARY KEY NOT NULL")
        #expect(
            notNull.refusals(for: .init(mayHaveRows: true, foreignKeysEnforced: false)) == [
                .primaryKey, .notNullWithoutDefault,
            ])
        #expect(notNull.refusals(for: .init(mayHaveRows: false, foreignKeysEnforced: false)) == [.primaryKey])
    }

    /// The rule is never more permissive than SQLite: whenever it lets a column through,
    /// SQLite's ADD COLUMN accepts it, on a table with a row and on an empty one (an empty one
    /// counts as one with rows before SQLite 3.37, which refuses those columns whatever the rows).
    @Test(arguments: ruleCases) func addColumnRuleAgreesWithSQLite(_ c: RuleCase) throws {
        for (rows, foreignKeys) in [(true, true), (true, false), (false, true), (false, false)] {
            let db = try Database(inMemory: Configuration())
            try db.execute(sql: "PRAGMA foreign_keys = \(foreignKeys ? "ON" : "OFF")")
            if c.definition.contains(" AS ("), !db.capabilities.supportsGeneratedColumns { continue }
            try db.execute(sql: "CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE t (a)")
            if rows { try db.execute(sql: "INSERT INTO p VALUES (1); INSERT INTO t VALUES (1)") }
            let ddl = AddColumnDDL(table: "t", definition: c.definition)
            let refusal = ddl.refusal(
                for: .init(isEmpty: !rows, foreignKeysEnforced: foreignKeys, version: db.capabilities.version))
            let accepted: Bool
            do {
                try db.execute(sql: ddl.sql)
                accepted = true
            } catch let error as SQLiteError {
                #expect(
                    error.resultCode == .SQLITE_ERROR || error.resultCode == .SQLITE_CONSTRAINT,
                    "\(c.definition): \(error)")
                accepted = false
            }
            if refusal == nil {
                #expect(
                    accepted,
                    "rule lets \(c.definition) through (rows: \(rows), foreign keys: \(foreignKeys)) but SQLite refused"
                )
            }
            if !accepted {
                #expect(refusal != nil, "SQLite refused \(c.definition) (rows: \(rows), foreign keys: \(foreignKeys))")
            }
        }
    }

    /// The DSL's `alter(table:)` follows the same rule: a raw `UNIQUE` constraint (which the
    /// DSL's own constraint kinds did not show) is rebuilt in instead of failing natively.
    @Test func tableAlterationUsesTheSameRule() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2)")
        try db.alter(table: "t") { t in
            t.add(column: "b", .text).constraint(sql: "UNIQUE")
            t.add(column: "c", .text).notNull().defaults(sql: "CURRENT_TIMESTAMP")
        }
        let columns = try db.fetchColumn(String.self, sql: "SELECT name FROM pragma_table_info('t')")
        #expect(columns == ["a", "b", "c"])
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t WHERE c IS NOT NULL") == 2)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM pragma_index_list('t') WHERE origin = 'u'") == 1)
    }

    /// A plan applied inside the caller's transaction with foreign keys on adds a REFERENCES
    /// column with a default by a rebuild (SQLite's ADD COLUMN refuses it there), the rows kept.
    @Test func plannedReferencesColumnWithDefaultRunsWithForeignKeysOn() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "PRAGMA foreign_keys = ON")
        try db.execute(
            sql:
                "CREATE TABLE p (id INTEGER PRIMARY KEY); INSERT INTO p VALUES (1); CREATE TABLE t (a); INSERT INTO t VALUES ('x')"
        )
        try db.transaction(.immediate) {
            _ = try db.migrateSchema(
                to: "CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE t (a, b INTEGER DEFAULT 1 REFERENCES p(id));"
            )
        }
        #expect(
            try db.fetchAll(sql: "SELECT a, b FROM t").map {
                [try $0.decode(at: 0) as String, "\(try $0.decode(at: 1) as Int)"]
            } == [["x", "1"]])
    }
}
