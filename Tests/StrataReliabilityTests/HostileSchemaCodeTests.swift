import Foundation
import Strata
import StrataTestSupport
import Testing

/// A desired schema that tries to run code, hang or exhaust memory while Strata parses it in its
/// scratch database (issue 11, item 6). `sql` may hold `{dir}`, replaced by the test's directory.
struct RunawaySchema: Sendable, CustomTestStringConvertible {
    var name: String
    var sql: String
    /// What the one-line error must mention; nil when the schema is legitimate and is planned
    /// (exit 0) without running anything it declares.
    var mentions: [String]?
    /// For accepted schemas: a line `strata plan` prints.
    var planned: String = ""
    /// True when SQLite's own limits decide between the two outcomes, and they differ between
    /// versions (a parser stack of 100 entries before 3.46 and a recursion limit from 3.53; at
    /// most 1,000 trigger steps from 3.53): refused in the one-line form with `mentions` (the
    /// statement, never SQLite's varying words), or accepted and planned as `planned` says.
    var eitherWay = false
    var testDescription: String { name }

    func sql(in dir: TemporaryDirectory) -> String { sql.replacingOccurrences(of: "{dir}", with: dir.path) }
}

private let table = "CREATE TABLE t(id INTEGER PRIMARY KEY, b TEXT);\n"
private let endlessCTE = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"
private let ctas = "AS SELECT runs a query: declare the table's columns instead"

let runawaySchemas: [RunawaySchema] = [
    RunawaySchema(
        name: "CTAS leaking a library address through fts3_tokenizer",
        sql: table + "CREATE TABLE leak AS SELECT fts3_tokenizer('simple') AS address;",
        mentions: ["statement 2", "CREATE TABLE leak AS SELECT fts3_tokenizer('simple') AS address", ctas]),
    RunawaySchema(
        // Unfixed, this registers a tokenizer at 0x4141414141414141 and the FTS3 table calls it: SIGSEGV.
        name: "CTAS registering a tokenizer at a forged address, then using it",
        sql: table + "CREATE TABLE x AS SELECT fts3_tokenizer('simple', x'4141414141414141') AS p;\n"
            + "CREATE VIRTUAL TABLE f USING fts3(a, tokenize=simple);",
        mentions: ["statement 2", "fts3_tokenizer('simple', x'4141414141414141')", ctas]),
    RunawaySchema(
        name: "CTAS of an endless recursive CTE",
        sql: table + "CREATE TABLE forever AS \(endlessCTE);",
        mentions: ["statement 2", "CREATE TABLE forever AS WITH RECURSIVE", ctas]),
    RunawaySchema(
        name: "CTAS of a gigabyte zeroblob",
        sql: table + "CREATE TABLE big AS SELECT zeroblob(1000000000) AS b;",
        mentions: ["statement 2", "zeroblob(1000000000)", ctas]),
    RunawaySchema(
        name: "CTAS hidden behind comments, quotes, TEMP and IF NOT EXISTS",
        sql: table + "CREATE /* x */ TEMP TABLE IF NOT EXISTS \"temp\".\"y\" -- z\n AS SELECT 1;",
        mentions: ["statement 2", ctas]),
    RunawaySchema(
        name: "a SELECT calling fts3_tokenizer",
        sql: table + "SELECT fts3_tokenizer('simple', x'4141414141414141');",
        mentions: ["statement 2", "SELECT fts3_tokenizer", "only CREATE"]),
    RunawaySchema(
        name: "an endless recursive SELECT", sql: table + "\(endlessCTE);",
        mentions: ["statement 2", "WITH RECURSIVE", "only CREATE"]),
    RunawaySchema(
        name: "load_extension", sql: table + "SELECT load_extension('{dir}/evil.so');",
        mentions: ["statement 2", "load_extension", "only CREATE"]),
    RunawaySchema(
        name: "load_extension in a CHECK constraint",
        sql: table + "CREATE TABLE u(a CHECK (load_extension('{dir}/evil.so') IS NULL));",
        mentions: ["statement 2", "CREATE TABLE u", "calls load_extension(), which a schema may not use"]),
    RunawaySchema(
        name: "fts3_tokenizer in an index expression",
        sql: table + "CREATE INDEX t_tok ON t(fts3_tokenizer(b));",
        mentions: ["statement 2", "CREATE INDEX t_tok", "calls fts3_tokenizer(), which a schema may not use"]),
    RunawaySchema(
        name: "ATTACH creating a file", sql: table + "ATTACH DATABASE '{dir}/evil.db' AS evil;",
        mentions: ["statement 2", "ATTACH DATABASE", "only CREATE"]),
    RunawaySchema(
        name: "PRAGMA writable_schema", sql: table + "PRAGMA writable_schema = ON;",
        mentions: ["statement 2", "PRAGMA writable_schema", "only CREATE"]),
    RunawaySchema(
        name: "INSERT into a declared table", sql: table + "INSERT INTO t VALUES (3, 'x');",
        mentions: ["statement 2", "INSERT INTO t", "only CREATE"]),
    RunawaySchema(
        name: "100,000 nested parentheses",
        sql: table + "CREATE TABLE deep(a CHECK (" + String(repeating: "(", count: 100_000) + "1"
            + String(repeating: ")", count: 100_000) + "));",
        mentions: ["statement 2", "CREATE TABLE deep(a CHECK (((("], planned: "- create table deep\n", eitherWay: true),
    RunawaySchema(
        name: "a 20 MiB statement",
        sql: table + "CREATE TABLE giant(a TEXT DEFAULT '" + String(repeating: "x", count: 20 << 20) + "');",
        mentions: ["statement 2", "CREATE TABLE giant(a TEXT DEFAULT 'xxx", "too big"]),
    // Legitimate schemas with a dangerous payload: planned without running it.
    RunawaySchema(
        name: "a view over an endless recursive CTE (views are not run when created)",
        sql: table + "CREATE VIEW forever AS \(endlessCTE);", planned: "- create view forever\n"),
    RunawaySchema(
        name: "a trigger whose body forges a tokenizer (triggers are not run when created)",
        sql: table
            + "CREATE TRIGGER t_ai AFTER INSERT ON t BEGIN SELECT fts3_tokenizer('simple', x'4141414141414141'); END;",
        planned: "- create trigger t_ai on t\n"),
    RunawaySchema(
        // Splitting used to call sqlite3_complete once per semicolon: quadratic, minutes here.
        name: "a trigger of 100,000 statements",
        sql: table + "CREATE TRIGGER t_big AFTER INSERT ON t BEGIN "
            + String(repeating: "UPDATE t SET b = 1; ", count: 100_000) + "END;",
        mentions: ["statement 2", "CREATE TRIGGER t_big AFTER INSERT ON t BEGIN UPDATE t SET b = 1;"],
        planned: "- create trigger t_big on t\n", eitherWay: true),
]

/// Each schema through `strata plan` and `strata apply` (bounded in time and memory, so an
/// unfixed Strata fails these tests instead of hanging or exhausting the machine) and through
/// the library; the database must be unchanged by every refusal.
@Suite("Hostile schema code")
struct HostileSchemaCodeTests {
    /// Generous: a fixed Strata answers each of these in well under a second (a few in debug builds).
    static let seconds = 90.0

    @Test(arguments: runawaySchemas)
    func throughTheCommandLine(_ h: RunawaySchema) throws {
        let dir = TemporaryDirectory("strata-runaway-cli")
        let path = try HostileSchemaInputTests.database(in: dir)
        let schema = dir.file("hostile.sql")
        try Data(h.sql(in: dir).utf8).write(to: URL(fileURLWithPath: schema))
        let bytes = fileBytes(path)
        var accepted = h.mentions == nil
        for command in ["plan", "apply"] {
            let r = try ChildProcess.strata(
                [command, "--db", path, "--schema", schema, "--allow-destructive"], seconds: Self.seconds,
                memoryKiB: 1_000_000)
            #expect(!r.timedOut, "\(h.name) (\(command)): \(r)")
            if h.eitherWay, command == "apply", r.result.status == 0 { accepted = true }
            if let mentions = h.mentions, !h.eitherWay || r.result.status != 0 {
                #expect(r.result.status == 1, "\(h.name) (\(command)): \(r)")
                #expect(r.result.stderr.hasPrefix("strata: \(schema): statement "), "\(h.name) (\(command)): \(r)")
                #expect(r.result.stderr.split(separator: "\n").count == 1, "\(h.name) (\(command)): \(r)")
                for m in mentions {
                    #expect(
                        r.result.stderr.contains(m),
                        "\(h.name) (\(command)): `\(m)` not in: \(r.result.stderr.prefix(500))")
                }
                #expect(r.result.stdout.isEmpty, "\(h.name) (\(command)): \(r)")
                let unchanged = fileBytes(path) == bytes  // a Bool: #expect would diff megabytes of Data
                #expect(unchanged, "\(h.name) (\(command)): the database changed")
            } else if command == "plan" {
                #expect(r.result.status == 0, "\(h.name) (\(command)): \(r)")
                #expect(r.result.stdout.contains(h.planned), "\(h.name) (\(command)): \(r)")
                let unchanged = fileBytes(path) == bytes  // a Bool: #expect would diff megabytes of Data
                #expect(unchanged, "\(h.name) (\(command)): plan changed the database")
            } else {
                #expect(r.result.status == 0, "\(h.name) (\(command)): \(r)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("evil.db")), "\(h.name): ATTACH created a file")
        if accepted {
            // Applied: the rows are all there, nothing the schema declared has run.
            let db = try Database(path: path)
            defer { db.close() }
            #expect(try db.fetchAll(sql: "SELECT id, b FROM t ORDER BY id").map(\.values) == [[1, "x"], [2, .null]])
        }
    }

    @Test(arguments: runawaySchemas.filter { $0.mentions != nil })
    func throughTheLibrary(_ h: RunawaySchema) throws {
        let dir = TemporaryDirectory("strata-runaway")
        let path = try HostileSchemaInputTests.database(in: dir)
        let bytes = fileBytes(path)
        let db = try Database(path: path)
        let start = Date()
        let error: SchemaError
        do {
            try db.migrateSchema(to: h.sql(in: dir), options: SchemaChangeOptions(allowDestructive: true))
            // This SQLite takes it: applied, the rows kept.
            #expect(h.eitherWay, "\(h.name): expected an error, the change applied")
            #expect(try db.fetchAll(sql: "SELECT id, b FROM t ORDER BY id").map(\.values) == [[1, "x"], [2, .null]])
            return
        } catch let e as SchemaError {
            error = e
        }
        #expect(Date().timeIntervalSince(start) < Self.seconds, "\(h.name): too slow")
        #expect(error.code == .invalidSQL, "\(h.name): \(error)")
        for m in h.mentions ?? [] {
            #expect(error.message.contains(m), "\(h.name): `\(m)` not in: \(error.message.prefix(500))")
        }
        db.close()
        let unchanged = fileBytes(path) == bytes  // a Bool: #expect would diff megabytes of Data
        #expect(unchanged, "\(h.name): the database changed")
        #expect(!FileManager.default.fileExists(atPath: dir.file("evil.db")), "\(h.name): ATTACH created a file")
    }
}
