import Foundation
import Strata
import StrataTestSupport
import Testing

/// The desired schema is loaded once per command, before any database is touched: a schema
/// that does not parse is reported naming the schema file, and no database file is created or
/// changed, for one database, a batch, JSON output, and `plan` on a file that is not a database.
@Suite("Desired schema loaded once, before any database")
struct DesiredSchemaLoadingCommandTests {
    static let bad = "CREATE TABLE user(id INTEGER PRIMARY KEY,, x);"
    static let badMessage = "statement 1 `CREATE TABLE user(id INTEGER PRIMARY KEY,, x);`: near \",\": syntax error"

    private func write(_ text: String, _ path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func applyToAMissingDatabaseCreatesNothing() throws {
        let dir = TemporaryDirectory("strata-cli")
        let schema = dir.file("bad.sql")
        try write(Self.bad, schema)
        let db = dir.file("new.sqlite")
        let result = try StrataProcess.run(["apply", "--db", db, "--schema", schema])
        #expect(result.exitCode == 1, "\(result)")
        #expect(result.stderr == "strata: \(schema): \(Self.badMessage)\n")
        #expect(result.stdout == "")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func batchIsRefusedBeforeAnyDatabase() throws {
        let dir = TemporaryDirectory("strata-cli")
        let schema = dir.file("bad.sql")
        try write(Self.bad, schema)
        let existing = dir.file("a.sqlite")
        let seed = try Database(path: existing)
        try seed.execute(sql: "CREATE TABLE user(id INTEGER PRIMARY KEY)")
        seed.close()
        let before = fileBytes(existing)
        let missing = dir.file("b.sqlite")
        let result = try StrataProcess.run(["apply", "--db", existing, missing, "--schema", schema, "--jobs", "2"])
        #expect(result.exitCode == 1, "\(result)")
        #expect(result.stderr == "strata: \(schema): \(Self.badMessage)\n")
        #expect(result.stdout == "")
        #expect(fileBytes(existing) == before)
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func jsonOutputOfOneDatabaseStillReportsIt() throws {
        let dir = TemporaryDirectory("strata-cli")
        let schema = dir.file("bad.sql")
        try write(Self.bad, schema)
        let db = dir.file("new.sqlite")
        let result = try StrataProcess.run(["apply", "--db", db, "--schema", schema, "--format", "json"])
        #expect(result.exitCode == 1, "\(result)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        let entries = try #require(document["databases"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["database"] as? String == db)
        #expect(entries.first?["result"] as? String == "failed")
        #expect(entries.first?["error"] as? String == "\(schema): \(Self.badMessage)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func planReportsTheSchemaBeforeOpeningTheDatabase() throws {
        let dir = TemporaryDirectory("strata-cli")
        let schema = dir.file("bad.sql")
        try write(Self.bad, schema)
        let garbage = dir.file("garbage.sqlite")
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: garbage))
        let result = try StrataProcess.run(["plan", "--db", garbage, "--schema", schema])
        #expect(result.exitCode == 1, "\(result)")
        #expect(result.stderr == "strata: \(schema): \(Self.badMessage)\n")
        #expect(fileBytes(garbage) == Data(repeating: 0x42, count: 4096))
    }

    @Test func newAndCheckNameTheSchemaFile() throws {
        let migrations = try migrationFolder(["0001_user.sql": "CREATE TABLE user(id INTEGER PRIMARY KEY);"])
        let dir = TemporaryDirectory("strata-cli")
        let schema = dir.file("bad.sql")
        try write(Self.bad, schema)
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: migrations.path).sorted()
        for command in [
            ["new", "--migrations", migrations.path, "--schema", schema, "--name", "x"],
            ["check", "--migrations", migrations.path, "--schema", schema],
        ] {
            let result = try StrataProcess.run(command)
            #expect(result.exitCode == 1, "\(command[0]): \(result)")
            #expect(result.stderr == "strata: \(schema): \(Self.badMessage)\n", "\(command[0])")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: migrations.path).sorted() == filesBefore)
    }
}
