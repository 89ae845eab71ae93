import Foundation
import Strata
import StrataTestSupport
import Testing

/// The reported case, through the built `strata` binary: an Android app's table and columns
/// renamed by letter case only.
@Suite("strata apply: case-only renames and --exact-names")
struct CaseOnlyRenameCommandTests {
    static let live = """
        CREATE TABLE "Authentication_List"(id INTEGER PRIMARY KEY, "Username" TEXT, "Password" TEXT);
        INSERT INTO "Authentication_List" VALUES (1, 'ann', 's3cret'), (2, 'bob', NULL);
        """
    static let plain = """
        CREATE TABLE authentication_list(
          id INTEGER PRIMARY KEY,
          username TEXT,
          password TEXT
        );
        """
    static let hinted = """
        CREATE TABLE authentication_list( -- @renamed from=Authentication_List
          id INTEGER PRIMARY KEY,
          username TEXT, -- @renamed from=Username
          password TEXT -- @renamed from=Password
        );
        """

    static func setUp(_ dir: TemporaryDirectory, schema text: String) throws -> (db: String, schema: String) {
        let db = dir.file("app.sqlite")
        let database = try Database(path: db)
        try database.execute(sql: live)
        database.close()
        let schema = dir.file("schema.sql")
        try Data(text.utf8).write(to: URL(fileURLWithPath: schema))
        return (db, schema)
    }

    static func names(_ path: String) throws -> (tables: [String], columns: [String], rows: [[SQLValue]]) {
        let db = try Database(path: path)
        defer { db.close() }
        let tables: [String] = try db.fetchColumn(
            sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'strata%'")
        let table = tables.first ?? ""
        let columns: [String] = try db.fetchColumn(
            sql: "SELECT name FROM pragma_table_info(?) ORDER BY cid", arguments: [table])
        let rows = try db.fetchAll(sql: "SELECT * FROM \(SQL.quoteIdentifier(table)) ORDER BY id").map(\.values)
        return (tables, columns, rows)
    }

    @Test func hintedCaseOnlyRenamesAreApplied() throws {
        let dir = TemporaryDirectory("strata-cli")
        let (db, schema) = try Self.setUp(dir, schema: Self.hinted)
        let rowsBefore = try Self.names(db).rows
        let apply = try StrataProcess.run(["apply", "--db", db, "--schema", schema])
        #expect(apply.exitCode == 0, "\(apply)")
        #expect(apply.stdout.contains("- rename table Authentication_List to authentication_list\n"), "\(apply)")
        #expect(apply.stdout.contains("- rename column authentication_list.Username to username\n"), "\(apply)")
        let after = try Self.names(db)
        #expect(after.tables == ["authentication_list"])
        #expect(after.columns == ["id", "username", "password"])
        #expect(after.rows == rowsBefore)
        let again = try StrataProcess.run(["apply", "--db", db, "--schema", schema])
        #expect(again.stdout == "No changes.\n", "\(again)")
    }

    @Test func exactNamesFlag() throws {
        let dir = TemporaryDirectory("strata-cli")
        let (db, schema) = try Self.setUp(dir, schema: Self.plain)
        let before = fileBytes(db)
        let plan = try StrataProcess.run(["plan", "--db", db, "--schema", schema])
        #expect(plan.stdout == "No changes.\n", "\(plan)")
        #expect(fileBytes(db) == before)
        let rowsBefore = try Self.names(db).rows
        let apply = try StrataProcess.run(["apply", "--db", db, "--schema", schema, "--exact-names"])
        #expect(apply.exitCode == 0, "\(apply)")
        let after = try Self.names(db)
        #expect(after.tables == ["authentication_list"])
        #expect(after.columns == ["id", "username", "password"])
        #expect(after.rows == rowsBefore)
        let again = try StrataProcess.run(["plan", "--db", db, "--schema", schema, "--exact-names"])
        #expect(again.stdout == "No changes.\n", "\(again)")
    }
}
