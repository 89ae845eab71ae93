import Foundation
import Strata
import StrataTestSupport
import Testing

/// A desired schema that must be refused: through the library (a ``SchemaError`` with the code
/// and a message naming the culprit) and through `strata plan` / `strata apply` (exit 1, the
/// schema file or database named first), the database bytes unchanged.
struct HostileSchema: Sendable, CustomTestStringConvertible {
    var name: String
    var sql: String
    var code: SchemaError.Code
    var mentions: [String]
    var testDescription: String { name }
}

let hostileSchemas: [HostileSchema] = [
    HostileSchema(
        name: "syntax error", sql: "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT;",
        code: .invalidSQL, mentions: ["statement 1", "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT", "syntax error"]),
    HostileSchema(
        name: "syntax error in a later statement, after a semicolon in a string and a comment",
        sql: "CREATE TABLE t(a TEXT DEFAULT ';', b /* ; */ TEXT);\nCREATE INDEX t_c ON t(c);",
        code: .invalidSQL, mentions: ["statement 2", "CREATE INDEX t_c", "no such column: c"]),
    HostileSchema(
        name: "duplicate table", sql: "CREATE TABLE t(a);\nCREATE TABLE t(b);",
        code: .invalidSQL, mentions: ["statement 2", "table t already exists"]),
    HostileSchema(
        // SQLite folds ASCII case only: "Ünï T" clashes with "Ünï t", "ÜNÏ t" would not.
        name: "duplicate table differing in ASCII case",
        sql: "CREATE TABLE \"Ünï t\"(a);\nCREATE TABLE \"ÜNÏ t\"(b);\nCREATE TABLE \"Ünï T\"(c);",
        code: .invalidSQL, mentions: ["statement 3", "Ünï T", "already exists"]),
    HostileSchema(
        name: "duplicate index", sql: "CREATE TABLE t(a, b);\nCREATE INDEX i ON t(a);\nCREATE INDEX i ON t(b);",
        code: .invalidSQL, mentions: ["statement 3", "index i already exists"]),
    HostileSchema(
        name: "an index named like a table", sql: "CREATE TABLE t(a);\nCREATE INDEX t ON t(a);",
        code: .invalidSQL, mentions: ["statement 2", "already"]),
    HostileSchema(
        name: "dangling foreign key", sql: "CREATE TABLE \"my table\"(a INTEGER REFERENCES nope(id));",
        code: .invalidSQL, mentions: ["my table", "nope"]),
    HostileSchema(
        name: "foreign key to a missing column",
        sql: "CREATE TABLE p(id INTEGER PRIMARY KEY);\nCREATE TABLE c(p_id REFERENCES p(\"no such\"));",
        code: .invalidSQL, mentions: ["table c", "p.no such"]),
    HostileSchema(
        name: "trigger on a missing table",
        sql: "CREATE TABLE t(a);\nCREATE TRIGGER tr AFTER INSERT ON ghost BEGIN SELECT 1; END;",
        code: .invalidSQL, mentions: ["statement 2", "CREATE TRIGGER tr", "no such table", "ghost"]),
    HostileSchema(
        name: "view on a missing table", sql: "CREATE TABLE t(a);\nCREATE VIEW v AS SELECT * FROM ghost;",
        code: .invalidSQL, mentions: ["v", "ghost"]),
    HostileSchema(
        name: "a statement that is not CREATE", sql: "CREATE TABLE t(a);\nINSERT INTO t VALUES (1);",
        code: .invalidSQL, mentions: ["statement 2", "INSERT INTO t", "only CREATE"]),
    HostileSchema(
        name: "DROP smuggled after a semicolon in a comment", sql: "CREATE TABLE t(a); -- ; \nDROP TABLE t;",
        code: .invalidSQL, mentions: ["statement 2", "DROP TABLE t", "only CREATE"]),
    HostileSchema(
        name: "ATTACH", sql: "CREATE TABLE t(a);\nATTACH DATABASE 'other.db' AS other;",
        code: .invalidSQL, mentions: ["statement 2", "ATTACH", "only CREATE"]),
    HostileSchema(
        name: "a reserved sqlite_ name", sql: "CREATE TABLE sqlite_mine(a);",
        code: .invalidSQL, mentions: ["statement 1", "sqlite_mine", "reserved"]),
    HostileSchema(
        name: "a table in another schema", sql: "CREATE TABLE aux.t(a);",
        code: .invalidSQL, mentions: ["statement 1", "aux"]),
    HostileSchema(
        name: "a redefinition hidden by IF NOT EXISTS", sql: "CREATE TABLE t(a);\nCREATE TABLE IF NOT EXISTS t(b, c);",
        code: .invalidSQL, mentions: ["statement 2", "CREATE TABLE IF NOT EXISTS t(b, c)", "already"]),
    HostileSchema(
        name: "an index redefinition hidden by IF NOT EXISTS",
        sql: "CREATE TABLE t(a, b);\nCREATE INDEX i ON t(a);\nCREATE UNIQUE INDEX IF NOT EXISTS i ON t(b);",
        code: .invalidSQL, mentions: ["statement 3", "already"]),
    HostileSchema(
        name: "a temporary table", sql: "CREATE TABLE t(a);\nCREATE TEMP TABLE scratch(x);",
        code: .invalidSQL, mentions: ["statement 2", "CREATE TEMP TABLE scratch", "temporary"]),
    HostileSchema(
        name: "a table in the temp schema", sql: "CREATE TABLE t(a);\nCREATE TABLE temp.scratch(x);",
        code: .invalidSQL, mentions: ["statement 2", "temporary"]),
    HostileSchema(
        name: "a rename hint naming no column",
        sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, \"new\nname\" TEXT -- @renamed from=\"gh\"\"ost\"\n);",
        code: .unresolvedRename, mentions: ["new\nname", "gh\"ost"]),
    HostileSchema(
        name: "a table rename hint naming no table",
        sql: "CREATE TABLE \"[renamed]\"( -- @renamed from=`nothing`\n id INTEGER PRIMARY KEY, b TEXT);",
        // The hint's name is read as SQLite reads a name in backticks (like "gh""ost" above).
        code: .unresolvedRename, mentions: ["[renamed]", "from=nothing`"]),
]

@Suite("Hostile schema input")
struct HostileSchemaInputTests {
    /// A database holding rows, at `CREATE TABLE t(id INTEGER PRIMARY KEY, b TEXT)`.
    static func database(in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("db.sqlite")
        let db = try Database(path: path)
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, b TEXT); INSERT INTO t VALUES (1, 'x'), (2, NULL);")
        db.close()
        return path
    }

    @Test(arguments: hostileSchemas)
    func throughTheLibrary(_ h: HostileSchema) throws {
        let dir = TemporaryDirectory("strata-hostile")
        let path = try Self.database(in: dir)
        let bytes = fileBytes(path)
        let db = try Database(path: path)
        do {
            try db.migrateSchema(to: h.sql, options: SchemaChangeOptions(allowDestructive: true))
            Issue.record("\(h.name): applied")
        } catch let error as SchemaError {
            #expect(error.code == h.code, "\(h.name): \(error)")
            for m in h.mentions { #expect(error.message.contains(m), "\(h.name): `\(m)` not in: \(error.message)") }
        }
        db.close()
        #expect(fileBytes(path) == bytes, "\(h.name): the database changed")
    }

    @Test(arguments: hostileSchemas)
    func throughTheCommandLine(_ h: HostileSchema) throws {
        let dir = TemporaryDirectory("strata-hostile-cli")
        let path = try Self.database(in: dir)
        let schema = dir.file("desired schema.sql")
        try Data(h.sql.utf8).write(to: URL(fileURLWithPath: schema))
        let bytes = fileBytes(path)
        for command in ["plan", "apply"] {
            let r = try ChildProcess.strata([command, "--db", path, "--schema", schema, "--allow-destructive"])
            #expect(r.status == 1, "\(h.name) (\(command)): \(r)")
            let culprit = h.code == .invalidSQL ? schema : path
            #expect(r.stderr.hasPrefix("strata: \(culprit): "), "\(h.name) (\(command)): \(r.stderr)")
            for m in h.mentions { #expect(r.stderr.contains(m), "\(h.name) (\(command)): `\(m)` not in: \(r.stderr)") }
            #expect(r.stdout.isEmpty, "\(h.name) (\(command)): \(r.stdout)")
        }
        #expect(fileBytes(path) == bytes, "\(h.name): the database changed")
    }
}
