import Foundation
import Strata
import Testing

@testable import StrataSchema

/// The shortcuts that make planning large schemas fast (see the README's Benchmarks section) must
/// give exactly what the slow paths gave.
@Suite("Planner fast path")
struct PlannerFastPathTests {
    @Test(arguments: [
        ("a->>'$.x'", ["a", "->>", "'$.x'"]),
        ("a->'$'", ["a", "->", "'$'"]),
        ("a||b", ["a", "||", "b"]),
        ("a<=b>=c==d!=e<>f<<g>>h", ["a", "<=", "b", ">=", "c", "==", "d", "!=", "e", "<>", "f", "<<", "g", ">>", "h"]),
        ("a<b>c=d-e|f!g", ["a", "<", "b", ">", "c", "=", "d", "-", "e", "|", "f", "!", "g"]),
        ("x-", ["x", "-"]),
        ("(a,b);", ["(", "a", ",", "b", ")", ";"]),
        ("a × b", ["a", "×", "b"]),
    ])
    func tokenizerSymbols(_ sql: String, _ expected: [String]) {
        let tokens = SQLTokenizer.significantTokens(sql)
        #expect(tokens.map(\.text) == expected, "tokens of \(sql)")
        // Offsets still point at each token's first byte.
        var searchFrom = sql.startIndex
        var offsets = [Int]()
        for text in expected {
            guard let range = sql[searchFrom...].range(of: text) else { break }
            offsets.append(sql.utf8.distance(from: sql.startIndex, to: range.lowerBound))
            searchFrom = range.upperBound
        }
        #expect(tokens.map(\.offset) == offsets, "offsets of \(sql)")
    }

    @Test func whitespaceRunsAreOneToken() throws {
        let tokens = SQLTokenizer.tokenize("a \t\r\n\u{0C} b")
        #expect(tokens.map(\.kind) == [.word, .whitespace, .word])
        try #require(tokens.count == 3)
        #expect(tokens[2].line == 2)
    }

    @Test(arguments: [
        ("users", "users"), ("Users", "users"), ("ÉTÉ_Table", "ÉtÉ_table"), ("", ""), ("a1_B2", "a1_b2"),
    ])
    func asciiLowercasing(_ input: String, _ expected: String) {
        #expect(input.asciiLowercased() == expected)
    }

    @Test func asciiCaseInsensitiveComparison() {
        #expect("Users".asciiCaseInsensitiveEquals("uSERS"))
        #expect("users".asciiCaseInsensitiveEquals("users"))
        #expect(!"users".asciiCaseInsensitiveEquals("user"))
        #expect(!"users".asciiCaseInsensitiveEquals("usert"))
        // Only ASCII letters fold, as in SQLite's identifiers.
        #expect(!"É".asciiCaseInsensitiveEquals("é"))
        #expect(!"[".asciiCaseInsensitiveEquals("{"))
        #expect("".asciiCaseInsensitiveEquals(""))
    }

    @Test func readingOneTableEqualsReadingItFromTheWholeSchema() throws {
        let db = try Database(inMemory: Configuration())
        let generated = db.capabilities.supportsGeneratedColumns  // SQLite 3.31
        try db.execute(
            sql: """
                CREATE TABLE "Parent"(id INTEGER PRIMARY KEY, name TEXT NOT NULL COLLATE NOCASE UNIQUE);
                CREATE TABLE child(
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    parent_id INTEGER REFERENCES "Parent"(id) ON DELETE CASCADE,
                    amount NUMERIC DEFAULT 0 CHECK (amount >= 0)\(generated ? ",\n    total AS (amount * 2) STORED" : ""));
                CREATE INDEX child_parent ON child(parent_id);
                CREATE VIEW v AS SELECT * FROM child;
                CREATE VIRTUAL TABLE notes USING fts5(body);
                """)
        let whole = try DatabaseSchema.read(from: db)
        for name in ["parent", "PARENT", "child", "notes"] {
            let alone = try SchemaReader(db: db).readTable(named: name)
            #expect(alone == whole.table(named: name), "table \(name)")
        }
        let reader = SchemaReader(db: db)
        #expect(try reader.readTable(named: "missing") == nil)
        #expect(try reader.readTable(named: "v") == nil)  // a view is not a table
        #expect(try reader.readTable(named: "child_parent") == nil)
    }

    @Test func aSchemaCopyHasTheSchemaButNoRowsAndIsIndependent() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE a(id INTEGER PRIMARY KEY, b_id INTEGER REFERENCES b(id));
                CREATE TABLE b(id INTEGER PRIMARY KEY, name TEXT);
                CREATE INDEX a_b ON a(b_id);
                CREATE TRIGGER b_touch AFTER UPDATE ON b BEGIN UPDATE a SET b_id = NEW.id WHERE b_id = OLD.id; END;
                INSERT INTO b VALUES (1, 'row that the copies must not get');
                """)
        let copy = try SchemaCopy.make(of: db)
        #expect(try DatabaseSchema.read(from: copy).differences(from: DatabaseSchema.read(from: db)).isEmpty)
        #expect(try copy.fetchValue(Int.self, sql: "SELECT count(*) FROM b") == 0)
        #expect(try copy.foreignKeysEnabled() == false)
        try copy.execute(sql: "DROP TABLE a")
        #expect(try DatabaseSchema.read(from: db).table(named: "a") != nil)
    }

    /// A plan over many tables, where some changes are native and some are rebuilds, still
    /// converges and applies (the planner reads single tables on the copy and clones the copy for
    /// the proof).
    @Test func planOverManyTablesMixesNativeStepsAndRebuilds() throws {
        func schema(changed: Bool) -> String {
            (0..<40).map { i in
                let parent = i > 0 ? " REFERENCES t\(i - 1)(id)" : ""
                let type = changed && i % 10 == 5 ? "NUMERIC" : "REAL"
                let extra = changed && i % 10 == 0 ? ", note TEXT" : ""
                var sql = "CREATE TABLE t\(i)(id INTEGER PRIMARY KEY, p INTEGER\(parent), amount \(type)\(extra));\n"
                sql += "CREATE INDEX t\(i)_p ON t\(i)(p);\n"
                if i % 5 == 0 { sql += "CREATE VIEW v\(i) AS SELECT id, amount FROM t\(i);\n" }
                return sql
            }.joined()
        }
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: schema(changed: false))
        try db.execute(sql: "INSERT INTO t0 VALUES (1, NULL, 1.5); INSERT INTO t5 VALUES (1, NULL, 2.5)")
        let plan = try db.planSchemaChange(to: schema(changed: true))
        let added = plan.steps.filter { $0.kind == .addColumn }.map(\.object)
        let rebuilt = plan.steps.filter { $0.kind == .rebuildTable }.map(\.object)
        #expect(added == ["t0.note", "t10.note", "t20.note", "t30.note"])
        #expect(rebuilt == ["t5", "t15", "t25", "t35"])
        try db.applySchemaChange(plan)
        #expect(try db.planSchemaChange(to: schema(changed: true)).isEmpty)
        #expect(try db.fetchValue(Double.self, sql: "SELECT amount FROM t5 WHERE id = 1") == 2.5)
    }
}
