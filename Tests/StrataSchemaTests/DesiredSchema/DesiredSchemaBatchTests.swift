import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// The desired schema's statements run without a read of `sqlite_master` after each one (the
/// guard's names stand in for it, checked once at the end), falling back to the per-statement
/// path whenever that check cannot vouch for the script; and parsed schemas are reused for the
/// same text, functions and collations.
@Suite("Desired schema: batched attribution and the parse cache")
struct DesiredSchemaBatchTests {
    /// Runs `sql` into a fresh scratch database the batched way; nil when it went through, the
    /// error otherwise.
    func batched(_ sql: String) throws -> (any Error)? {
        do {
            _ = try scratchSchema(sql, attributingEachStatement: false)
            return nil
        } catch {
            return error
        }
    }

    /// The schema of a scratch database `sql` was run into, one way or the other.
    func scratchSchema(_ sql: String, attributingEachStatement: Bool) throws -> DatabaseSchema {
        var configuration = ScratchDatabase.configuration()
        configuration.acceptsDoubleQuotedStringLiterals = false
        let (scratch, guardian) = try ScratchDatabase.open(configuration)
        defer { scratch.close() }
        try DatabaseSchema.create(
            SQLScript.statements(in: sql), in: scratch, guardian: guardian,
            attributingEachStatement: attributingEachStatement)
        return try DatabaseSchema.read(from: scratch)
    }

    static let everyKind = """
        CREATE TABLE "my ""odd"" table"(id INTEGER PRIMARY KEY, "select" TEXT UNIQUE, b INT, UNIQUE(b, "select"));
        CREATE TABLE child(id INTEGER PRIMARY KEY AUTOINCREMENT, p INT REFERENCES "my ""odd"" table"(id));
        CREATE INDEX IF NOT EXISTS "idx one" ON child(p);
        CREATE UNIQUE INDEX idx_two ON "my ""odd"" table"(b) WHERE b > 0;
        CREATE VIEW v AS SELECT id, p FROM child;
        CREATE TRIGGER trg AFTER INSERT ON child BEGIN UPDATE child SET p = p WHERE id = NEW.id; END;
        CREATE VIRTUAL TABLE docs USING fts5(body);
        CREATE TABLE IF NOT EXISTS [Last] (x);
        CREATE TABLE kv(k TEXT PRIMARY KEY, v, UNIQUE(v)) WITHOUT ROWID;
        """

    @Test func aSchemaOfEveryKindGoesThroughBatched() throws {
        #expect(try batched(Self.everyKind) == nil)
        // And the result is the per-statement path's.
        let schema = try scratchSchema(Self.everyKind, attributingEachStatement: false)
        let slow = try scratchSchema(Self.everyKind, attributingEachStatement: true)
        #expect(schema.differences(from: slow).isEmpty)
        #expect(schema.description == slow.description)
        #expect(schema.tables.map(\.name) == [#"my "odd" table"#, "child", "docs", "Last", "kv"])
        #expect(schema.indexes.map(\.name) == ["idx one", "idx_two"])
        #expect(schema.views.map(\.name) == ["v"])
        #expect(schema.triggers.map(\.name) == ["trg"])
    }

    /// Each form that creates nothing, or what the batched check cannot vouch for, is handed to the
    /// per-statement path, which names the statement exactly as before.
    @Test(arguments: [
        ("CREATE TABLE t(a);\nCREATE TABLE IF NOT EXISTS t(b, c);", "statement 2", "creates nothing"),
        ("CREATE TABLE t(a);\nCREATE TABLE IF NOT EXISTS T(b, c);", "statement 2", "creates nothing"),
        ("CREATE TABLE t(a);\nCREATE VIEW IF NOT EXISTS t AS SELECT 1;", "statement 2", "creates nothing"),
        (
            "CREATE TABLE t(a, b);\nCREATE INDEX i ON t(a);\nCREATE INDEX IF NOT EXISTS i ON t(b);", "statement 3",
            "creates nothing"
        ),
        (
            "CREATE TABLE t(a);\nCREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT 1; END;\n"
                + "CREATE TRIGGER IF NOT EXISTS g AFTER DELETE ON t BEGIN SELECT 2; END;", "statement 3",
            "creates nothing"
        ),
        (
            "CREATE VIRTUAL TABLE f USING fts5(x);\nCREATE VIRTUAL TABLE IF NOT EXISTS f USING fts5(y);", "statement 2",
            "creates nothing"
        ),
        // (SQLite's own refusal of a shadow table's name, whatever its words.)
        (
            "CREATE VIRTUAL TABLE f USING fts5(x);\nCREATE TABLE IF NOT EXISTS f_data(id INTEGER PRIMARY KEY, block BLOB);",
            "statement 2", "statement 2"
        ),
        ("CREATE TABLE a(x);\nCREATE TABLE strata_migrations(y);", "statement 2", "reserved"),
        ("CREATE TABLE a(x);\nCREATE VIRTUAL TABLE strata_tmp_1f USING fts5(y);", "statement 2", "reserved"),
    ])
    func whatTheBatchCannotVouchForIsNamedByTheSlowPath(sql: String, culprit: String, reason: String) throws {
        let error = try batched(sql)
        #expect(error != nil, "the batched path accepted \(sql)")
        let thrown = #expect(throws: SchemaError.self) { try DatabaseSchema(sql: sql) }
        #expect(thrown?.code == .invalidSQL)
        #expect(thrown?.culprit == culprit)
        #expect(thrown?.message.contains(reason) == true, "\(thrown?.message ?? "")")
    }

    /// A trigger may share its name with a table (separate namespaces): the batch falls back, the
    /// schema is accepted as before.
    @Test func aTriggerNamedLikeATableIsAcceptedThroughTheFallback() throws {
        let sql = "CREATE TABLE t(a);\nCREATE TRIGGER t AFTER INSERT ON t BEGIN SELECT 1; END;"
        #expect(try batched(sql) != nil)
        let schema = try DatabaseSchema(sql: sql)
        #expect(schema.tables.map(\.name) == ["t"])
        #expect(schema.triggers.map(\.name) == ["t"])
    }

    /// An SQLite error in the batch is the same error the per-statement path gives.
    @Test func sqliteErrorsNameTheStatement() throws {
        let sql = "CREATE TABLE a(x);\nCREATE TABLE b(y);\nCREATE INDEX i ON missing(z);\nCREATE TABLE c(;"
        let thrown = #expect(throws: SchemaError.self) { try DatabaseSchema(sql: sql) }
        #expect(thrown?.culprit == "statement 3")
        #expect(thrown?.message.contains("missing") == true)
    }

    // MARK: The parse cache

    @Test func theSameTextIsParsedOnceAndEqual() throws {
        // Another test may empty the shared cache at any time: the second parse is equal either way.
        let first = try DatabaseSchema(sql: Self.everyKind)
        let second = try DatabaseSchema(sql: Self.everyKind)
        #expect(first.differences(from: second).isEmpty)
        #expect(first.description == second.description)
        let cache = DesiredSchemaCache(limit: 4)
        let key = DesiredSchemaCache.Key(sql: Self.everyKind, functions: [], collations: [])
        #expect(cache.schema(for: key) == nil)
        cache.store(first, for: key)
        #expect(cache.schema(for: key)?.description == first.description)
        // Other functions or collations: another key.
        let initials = DatabaseFunction("initials", argumentCount: 1, isDeterministic: true) { _ in "x" }
        #expect(cache.schema(for: .init(sql: Self.everyKind, functions: [initials], collations: [])) == nil)
    }

    @Test func errorsAreNotKeptAndFailAgain() throws {
        let sql = "CREATE TABLE a(x);\nDROP TABLE a;"
        for _ in 0..<2 {
            let thrown = #expect(throws: SchemaError.self) { try DatabaseSchema(sql: sql) }
            #expect(thrown?.culprit == "statement 2")
        }
        #expect(DesiredSchemaCache.shared.schema(for: .init(sql: sql, functions: [], collations: [])) == nil)
    }

    /// The functions and collations are part of the key: a text accepted with a deterministic
    /// function or a collation is still refused without them, or with a non-deterministic one.
    @Test func functionsAndCollationsArePartOfTheKey() throws {
        let sql = "CREATE TABLE t(a TEXT COLLATE folded);\nCREATE INDEX i ON t(initials(a));"
        let deterministic = DatabaseFunction("initials", argumentCount: 1, isDeterministic: true) { _ in "x" }
        let unstable = DatabaseFunction("initials", argumentCount: 1, isDeterministic: false) { _ in "x" }
        let folded = DatabaseCollation("folded") {
            $0.lowercased() < $1.lowercased() ? .orderedAscending : .orderedSame
        }
        _ = try DatabaseSchema(sql: sql, functions: [deterministic], collations: [folded])
        #expect(throws: SchemaError.self) { try DatabaseSchema(sql: sql, functions: [unstable], collations: [folded]) }
        #expect(throws: SchemaError.self) { try DatabaseSchema(sql: sql, functions: [], collations: [folded]) }
        #expect(throws: SchemaError.self) { try DatabaseSchema(sql: sql, functions: [deterministic], collations: []) }
        #expect(throws: SchemaError.self) { try DatabaseSchema(sql: sql) }
        // Still accepted with both, from the cache or not.
        _ = try DatabaseSchema(sql: sql, functions: [deterministic], collations: [folded])
    }

    /// A cached schema is a value: changing the one returned does not change the next.
    @Test func aCachedSchemaIsAValue() throws {
        let sql = "CREATE TABLE t(a, b);"
        var first = try DatabaseSchema(sql: sql)
        first.tables.removeAll()
        #expect(try DatabaseSchema(sql: sql).tables.map(\.name) == ["t"])
    }

    @Test func theCacheIsBounded() throws {
        let cache = DesiredSchemaCache(limit: 3, textLimit: 64)
        let schema = try DatabaseSchema(sql: "CREATE TABLE t(a);")
        for i in 0..<10 {
            cache.store(schema, for: .init(sql: "CREATE TABLE t\(i)(a);", functions: [], collations: []))
            #expect(cache.count <= 3)
        }
        let long = String(repeating: "-- padding\n", count: 10) + "CREATE TABLE t(a);"
        cache.store(schema, for: .init(sql: long, functions: [], collations: []))
        #expect(cache.schema(for: .init(sql: long, functions: [], collations: [])) == nil)
    }
}
