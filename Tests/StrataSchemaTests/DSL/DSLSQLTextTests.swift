import StrataSQLite
import StrataSchema
import Testing

/// The exact SQL text of every DSL construct, one case per construct.
@Suite("DSL: SQL text")
struct DSLSQLTextTests {
    struct Case: CustomTestStringConvertible {
        let name: String
        let sql: String
        let expected: String
        var testDescription: String { name }
    }

    /// A one-column table's column line.
    static func column(_ body: (TableBuilder) -> Void) -> String {
        TableDefinition("t", body: body).columns.map(\.sql).joined(separator: ", ")
    }

    static let columnCases: [Case] = [
        Case(name: "no type", sql: column { $0.column("a") }, expected: #""a""#),
        Case(name: "text", sql: column { $0.column("a", .text) }, expected: #""a" TEXT"#),
        Case(name: "integer", sql: column { $0.column("a", .integer) }, expected: #""a" INTEGER"#),
        Case(name: "double", sql: column { $0.column("a", .double) }, expected: #""a" DOUBLE"#),
        Case(name: "real", sql: column { $0.column("a", .real) }, expected: #""a" REAL"#),
        Case(name: "numeric", sql: column { $0.column("a", .numeric) }, expected: #""a" NUMERIC"#),
        Case(name: "boolean", sql: column { $0.column("a", .boolean) }, expected: #""a" BOOLEAN"#),
        Case(name: "blob", sql: column { $0.column("a", .blob) }, expected: #""a" BLOB"#),
        Case(name: "date", sql: column { $0.column("a", .date) }, expected: #""a" DATE"#),
        Case(name: "datetime", sql: column { $0.column("a", .datetime) }, expected: #""a" DATETIME"#),
        Case(name: "any", sql: column { $0.column("a", .any) }, expected: #""a" ANY"#),
        Case(name: "json", sql: column { $0.column("a", .json) }, expected: #""a" JSON TEXT"#),
        Case(name: "custom type", sql: column { $0.column("a", "DECIMAL(10, 2)") }, expected: #""a" DECIMAL(10, 2)"#),
        Case(name: "hostile type", sql: column { $0.column("a", "TEXT, b INT") }, expected: #""a" "TEXT, b INT""#),
        Case(name: "type with comment", sql: column { $0.column("a", "INT -- x") }, expected: #""a" "INT -- x""#),
        Case(name: "not null", sql: column { $0.column("a", .text).notNull() }, expected: #""a" TEXT NOT NULL"#),
        Case(
            name: "not null on conflict", sql: column { $0.column("a").notNull(onConflict: .ignore) },
            expected: #""a" NOT NULL ON CONFLICT IGNORE"#),
        Case(name: "unique", sql: column { $0.column("a").unique() }, expected: #""a" UNIQUE"#),
        Case(
            name: "unique on conflict", sql: column { $0.column("a").unique(onConflict: .replace) },
            expected: #""a" UNIQUE ON CONFLICT REPLACE"#),
        Case(name: "default integer", sql: column { $0.column("a").defaults(to: 42) }, expected: #""a" DEFAULT 42"#),
        Case(name: "default negative", sql: column { $0.column("a").defaults(to: -1) }, expected: #""a" DEFAULT -1"#),
        Case(name: "default double", sql: column { $0.column("a").defaults(to: 1.5) }, expected: #""a" DEFAULT 1.5"#),
        Case(
            name: "default text", sql: column { $0.column("a").defaults(to: "it's") }, expected: #""a" DEFAULT 'it''s'"#
        ),
        Case(name: "default bool", sql: column { $0.column("a").defaults(to: true) }, expected: #""a" DEFAULT 1"#),
        Case(
            name: "default blob", sql: column { $0.column("a").defaults(to: [UInt8]([0, 255])) },
            expected: #""a" DEFAULT X'00FF'"#),
        Case(
            name: "default null", sql: column { $0.column("a").defaults(to: SQLValue.null) },
            expected: #""a" DEFAULT NULL"#),
        Case(
            name: "default with NUL", sql: column { $0.column("a").defaults(to: "a\u{0}b") },
            expected: #""a" DEFAULT ('a' || char(0) || 'b')"#),
        Case(
            name: "default sql keyword", sql: column { $0.column("a").defaults(sql: "CURRENT_TIMESTAMP") },
            expected: #""a" DEFAULT CURRENT_TIMESTAMP"#),
        Case(
            name: "default sql expression", sql: column { $0.column("a").defaults(sql: "date('now')") },
            expected: #""a" DEFAULT (date('now'))"#),
        Case(
            name: "default sql number", sql: column { $0.column("a").defaults(sql: "-2.5") },
            expected: #""a" DEFAULT -2.5"#),
        Case(name: "collate binary", sql: column { $0.column("a").collate(.binary) }, expected: #""a" COLLATE BINARY"#),
        Case(name: "collate nocase", sql: column { $0.column("a").collate(.nocase) }, expected: #""a" COLLATE NOCASE"#),
        Case(name: "collate rtrim", sql: column { $0.column("a").collate(.rtrim) }, expected: #""a" COLLATE RTRIM"#),
        Case(
            name: "collate custom", sql: column { $0.column("a").collate("my coll") },
            expected: #""a" COLLATE "my coll""#),
        Case(
            name: "check closure", sql: column { $0.column("a", .integer).check { $0 > 0 } },
            expected: #""a" INTEGER CHECK ("a" > 0)"#),
        Case(
            name: "check length", sql: column { $0.column("a", .text).check { $0.length > 0 && $0.length <= 10 } },
            expected: #""a" TEXT CHECK (length("a") > 0 AND length("a") <= 10)"#),
        Case(
            name: "check sql", sql: column { $0.column("a").check(sql: "a IN (1, 2)") },
            expected: #""a" CHECK (a IN (1, 2))"#),
        Case(
            name: "references", sql: column { $0.column("a", .integer).references("p") },
            expected: #""a" INTEGER REFERENCES "p""#),
        Case(
            name: "references column and actions",
            sql: column {
                $0.column("a").references("p", column: "id", onDelete: .cascade, onUpdate: .setNull, deferred: true)
            },
            expected: #""a" REFERENCES "p"("id") ON DELETE CASCADE ON UPDATE SET NULL DEFERRABLE INITIALLY DEFERRED"#),
        Case(
            name: "references set default, restrict",
            sql: column { $0.column("a").references("p", onDelete: .setDefault, onUpdate: .restrict) },
            expected: #""a" REFERENCES "p" ON DELETE SET DEFAULT ON UPDATE RESTRICT"#),
        Case(
            name: "references no action", sql: column { $0.column("a").references("p", onDelete: .noAction) },
            expected: #""a" REFERENCES "p" ON DELETE NO ACTION"#),
        Case(
            name: "generated virtual", sql: column { $0.column("a").generatedAs(sql: "b * 2") },
            expected: #""a" GENERATED ALWAYS AS (b * 2) VIRTUAL"#),
        Case(
            name: "generated stored", sql: column { $0.column("a", .integer).generatedAs(sql: "b * 2", .stored) },
            expected: #""a" INTEGER GENERATED ALWAYS AS (b * 2) STORED"#),
        Case(
            name: "generated expression",
            sql: column { $0.column("a").generatedAs(SQLExpression.column("b") * SQLExpression.column("c")) },
            expected: #""a" GENERATED ALWAYS AS ("b" * "c") VIRTUAL"#),
        Case(
            name: "primary key", sql: column { $0.column("a", .integer).primaryKey() },
            expected: #""a" INTEGER PRIMARY KEY"#),
        Case(
            name: "primary key autoincrement", sql: column { $0.column("a", .integer).primaryKey(autoincrement: true) },
            expected: #""a" INTEGER PRIMARY KEY AUTOINCREMENT"#),
        Case(
            name: "primary key on conflict",
            sql: column { $0.column("a", .integer).primaryKey(onConflict: .replace, autoincrement: true) },
            expected: #""a" INTEGER PRIMARY KEY ON CONFLICT REPLACE AUTOINCREMENT"#),
        Case(
            name: "autoIncrementedPrimaryKey", sql: column { $0.autoIncrementedPrimaryKey("id") },
            expected: #""id" INTEGER PRIMARY KEY AUTOINCREMENT"#),
        Case(
            name: "primaryKey text", sql: column { $0.primaryKey("code", .text) },
            expected: #""code" TEXT PRIMARY KEY NOT NULL"#),
        Case(
            name: "raw column constraint", sql: column { $0.column("a").constraint(sql: "CONSTRAINT c CHECK (a > 0)") },
            expected: #""a" CONSTRAINT c CHECK (a > 0)"#),
        Case(
            name: "constraints in declaration order",
            sql: column { $0.column("a", .text).defaults(to: "x").notNull().collate(.nocase).unique() },
            expected: #""a" TEXT DEFAULT 'x' NOT NULL COLLATE NOCASE UNIQUE"#),
        Case(
            name: "redeclared constraint replaces",
            sql: column { $0.column("a").notNull().defaults(to: 1).defaults(to: 2) },
            expected: #""a" NOT NULL DEFAULT 2"#),
        Case(
            name: "checks add up", sql: column { $0.column("a").check { $0 > 0 }.check { $0 < 9 } },
            expected: #""a" CHECK ("a" > 0) CHECK ("a" < 9)"#),
        Case(name: "quoted name", sql: column { $0.column("a \"b\"", .text) }, expected: #""a ""b""" TEXT"#),
    ]

    @Test(arguments: columnCases) func columnSQL(_ c: Case) {
        #expect(c.sql == c.expected, "\(c.name)")
    }

    static let statementCases: [Case] = [
        Case(
            name: "create table",
            sql: TableDefinition("player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
            }.sql,
            expected: """
                CREATE TABLE "player" (
                  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
                  "name" TEXT NOT NULL
                )
                """),
        Case(
            name: "all table options",
            sql: TableDefinition("t", options: [.temporary, .ifNotExists, .withoutRowID, .strict]) { t in
                t.column("k", .text).primaryKey()
            }.sql,
            expected: """
                CREATE TEMPORARY TABLE IF NOT EXISTS "t" (
                  "k" TEXT PRIMARY KEY
                ) WITHOUT ROWID, STRICT
                """),
        Case(
            name: "strict only",
            sql: TableDefinition("t", options: .strict) { $0.column("a", .any) }.sql,
            expected: "CREATE TABLE \"t\" (\n  \"a\" ANY\n) STRICT"),
        Case(
            name: "table constraints",
            sql: TableDefinition("m") { t in
                t.column("a", .integer)
                t.column("b", .text)
                t.primaryKey(["a", "b"], onConflict: .rollback)
                t.uniqueKey(["b", "a"], onConflict: .fail)
                t.uniqueKey(["b"])
                t.foreignKey(["a", "b"], references: "p", columns: ["x", "y"], onDelete: .cascade, deferred: true)
                t.foreignKey(["a"], references: "q")
                t.check(SQLExpression.column("a") < SQLExpression.column("b"))
                t.check(sql: "a <> 0")
                t.constraint(sql: "CONSTRAINT named CHECK (b <> '')")
            }.sql,
            expected: """
                CREATE TABLE "m" (
                  "a" INTEGER,
                  "b" TEXT,
                  PRIMARY KEY ("a", "b") ON CONFLICT ROLLBACK,
                  UNIQUE ("b", "a") ON CONFLICT FAIL,
                  UNIQUE ("b"),
                  FOREIGN KEY ("a", "b") REFERENCES "p"("x", "y") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
                  FOREIGN KEY ("a") REFERENCES "q",
                  CHECK ("a" < "b"),
                  CHECK (a <> 0),
                  CONSTRAINT named CHECK (b <> '')
                )
                """),
        Case(
            name: "indexed column statements",
            sql: TableDefinition("p") { t in
                t.column("a").indexed()
                t.column("b")
            }.statements.joined(separator: ";\n"),
            expected: """
                CREATE TABLE "p" (
                  "a",
                  "b"
                );
                CREATE INDEX "p_on_a" ON "p"("a")
                """),
        Case(
            name: "rename hints",
            sql: SchemaDefinition { s in
                s.table("athlete", renamedFrom: "pl\"ayer") { t in
                    t.column("id", .integer).primaryKey()
                    t.column("fullName", .text).renamed(from: "name")
                    t.column("odd").renamed(from: "new\nline")
                    t.column("last").renamed(from: "x")
                }
            }.sql,
            expected: """
                CREATE TABLE "athlete" ( -- @renamed from="pl""ayer"
                  "id" INTEGER PRIMARY KEY,
                  "fullName" TEXT, -- @renamed from="name"
                  "odd",
                  "last" -- @renamed from="x"
                );

                """),
        Case(
            name: "index", sql: IndexDefinition("i", on: "t", columns: ["a", "b"]).sql,
            expected: #"CREATE INDEX "i" ON "t"("a", "b")"#),
        Case(
            name: "unique index if not exists",
            sql: IndexDefinition("i", on: "t", columns: ["a"], options: [.unique, .ifNotExists]).sql,
            expected: #"CREATE UNIQUE INDEX IF NOT EXISTS "i" ON "t"("a")"#),
        Case(
            name: "index collation and order",
            sql: IndexDefinition(
                "i", on: "t",
                columns: [
                    .column("a", collation: .nocase), .column("b", order: .descending),
                    .column("c", collation: "custom", order: .ascending),
                ]
            ).sql,
            expected: #"CREATE INDEX "i" ON "t"("a" COLLATE NOCASE, "b" DESC, "c" COLLATE "custom" ASC)"#),
        Case(
            name: "partial index",
            sql: IndexDefinition(
                "i", on: "t", columns: ["a"],
                condition: SQLExpression.column("a").isNotNull && SQLExpression.column("kind") == "x"
            ).sql,
            expected: #"CREATE INDEX "i" ON "t"("a") WHERE "a" IS NOT NULL AND "kind" = 'x'"#),
        Case(
            name: "expression index",
            sql: IndexDefinition(
                "i", on: "t",
                columns: [
                    .expression(SQLExpression.column("a").lowercased),
                    .expression(SQLExpression.column("a") + SQLExpression.column("b"), order: .descending),
                    .expression(sql: "json_extract(c, '$.x')"),
                ]
            ).sql,
            expected: #"CREATE INDEX "i" ON "t"(lower("a"), ("a" + "b") DESC, (json_extract(c, '$.x')))"#),
        Case(
            name: "view", sql: ViewDefinition("v", as: "SELECT 1").sql,
            expected: #"CREATE VIEW "v" AS SELECT 1"#),
        Case(
            name: "view with options and columns",
            sql: ViewDefinition("v", options: [.temporary, .ifNotExists], columns: ["x", "y"], as: "SELECT 1, 2").sql,
            expected: #"CREATE TEMPORARY VIEW IF NOT EXISTS "v"("x", "y") AS SELECT 1, 2"#),
        Case(
            name: "alter table",
            sql: TableAlteration("t") { t in
                t.add(column: "c", .text).notNull().defaults(to: "")
                t.add(column: "d", .integer).indexed()
                t.rename(column: "a", to: "b")
                t.drop(column: "x")
            }.statements.joined(separator: ";\n"),
            expected: """
                ALTER TABLE "t" ADD COLUMN "c" TEXT NOT NULL DEFAULT '';
                ALTER TABLE "t" ADD COLUMN "d" INTEGER;
                CREATE INDEX "t_on_d" ON "t"("d");
                ALTER TABLE "t" RENAME COLUMN "a" TO "b";
                ALTER TABLE "t" DROP COLUMN "x"
                """),
        Case(
            name: "schema definition",
            sql: SchemaDefinition { s in
                s.table("a") { t in t.column("x").indexed() }
                s.index("a_x", on: "a", columns: ["x"], options: .unique)
                s.index("a_lower_x", on: "a", expressions: [SQLExpression.column("x").lowercased])
                s.view("v", as: "SELECT x FROM a")
                s.trigger(sql: "CREATE TRIGGER tr AFTER INSERT ON a BEGIN SELECT 1; END; \n")
            }.sql,
            expected: """
                CREATE TABLE "a" (
                  "x"
                );

                CREATE INDEX "a_on_x" ON "a"("x");

                CREATE UNIQUE INDEX "a_x" ON "a"("x");

                CREATE INDEX "a_lower_x" ON "a"(lower("x"));

                CREATE VIEW "v" AS SELECT x FROM a;

                CREATE TRIGGER tr AFTER INSERT ON a BEGIN SELECT 1; END;

                """),
    ]

    @Test(arguments: statementCases) func statementSQL(_ c: Case) {
        #expect(c.sql == c.expected, "\(c.name)")
    }

    static let expressionCases: [Case] = {
        let a = SQLExpression.column("a")
        let b = SQLExpression.column("b")
        return [
            Case(name: "column", sql: a.sql, expected: #""a""#),
            Case(name: "equal value", sql: (a == 1).sql, expected: #""a" = 1"#),
            Case(name: "value on the left", sql: (1 < a).sql, expected: #"1 < "a""#),
            Case(name: "not equal", sql: (a != "x").sql, expected: #""a" <> 'x'"#),
            Case(name: "equal NULL", sql: (a == SQLValue.null).sql, expected: #""a" IS NULL"#),
            Case(name: "not equal NULL", sql: (a != SQLValue.null).sql, expected: #""a" IS NOT NULL"#),
            Case(name: "comparisons", sql: (a <= b && a >= 0).sql, expected: #""a" <= "b" AND "a" >= 0"#),
            Case(
                name: "or inside and", sql: ((a > 1 || b > 1) && a < 9).sql,
                expected: #"("a" > 1 OR "b" > 1) AND "a" < 9"#),
            Case(
                name: "and inside or", sql: (a > 1 && b > 1 || a < 0).sql, expected: #""a" > 1 AND "b" > 1 OR "a" < 0"#),
            Case(name: "not", sql: (!(a == 1)).sql, expected: #"NOT "a" = 1"#),
            Case(name: "not of and", sql: (!(a == 1 && b == 2)).sql, expected: #"NOT ("a" = 1 AND "b" = 2)"#),
            Case(name: "arithmetic precedence", sql: ((a + b) * 2).sql, expected: #"("a" + "b") * 2"#),
            Case(name: "right associativity", sql: (a - (b - 1)).sql, expected: #""a" - ("b" - 1)"#),
            Case(name: "left associativity", sql: (a - b - 1).sql, expected: #""a" - "b" - 1"#),
            Case(name: "minus negative", sql: (a - -1).sql, expected: #""a" - -1"#),
            Case(name: "unary minus", sql: (-(a + 1)).sql, expected: #"- ("a" + 1)"#),
            Case(name: "division", sql: (a / 2 > b * 3).sql, expected: #""a" / 2 > "b" * 3"#),
            Case(name: "comparison of comparisons", sql: ((a < 1) == (b < 1)).sql, expected: #""a" < 1 = "b" < 1"#),
            Case(name: "implicit member", sql: (a < .column("b")).sql, expected: #""a" < "b""#),
            Case(name: "in", sql: a.in(["x", "y'z"]).sql, expected: #""a" IN ('x', 'y''z')"#),
            Case(name: "like", sql: a.like("%'%").sql, expected: #""a" LIKE '%''%'"#),
            Case(name: "glob", sql: a.glob("*.txt").sql, expected: #""a" GLOB '*.txt'"#),
            Case(name: "between", sql: a.between(1, and: 10).sql, expected: #""a" BETWEEN 1 AND 10"#),
            Case(name: "functions", sql: (a.uppercased == b.typeOf).sql, expected: #"upper("a") = typeof("b")"#),
            Case(name: "collating", sql: (a.collating(.nocase) == "x").sql, expected: #""a" COLLATE NOCASE = 'x'"#),
            Case(
                name: "raw sql is parenthesized", sql: (SQLExpression(sql: "x OR y") && a > 0).sql,
                expected: #"(x OR y) AND "a" > 0"#),
            Case(name: "is null", sql: (a + 1).isNull.sql, expected: #""a" + 1 IS NULL"#),
        ]
    }()

    @Test(arguments: expressionCases) func expressionSQL(_ c: Case) {
        #expect(c.sql == c.expected, "\(c.name)")
    }
}
