import Foundation
import Strata
import StrataTestSupport
import Testing

/// Issue 24, item 1, through `strata apply` as it was reported: `doc(id INTEGER, body)` is the
/// content of an FTS5 table keyed by its rowid; the desired schema makes `id` the INTEGER PRIMARY
/// KEY, so the rebuild gives every row its id as rowid. The FTS index is rebuilt in the same
/// transaction: `MATCH 'apple'` finds the apple row (it found the banana row) and FTS5's
/// integrity-check passes (it said "database disk image is malformed").
@Suite("strata apply and full-text indexes over a rebuilt table")
struct FullTextRebuildCommandTests {
    static let live = """
        CREATE TABLE doc(id INTEGER, body);
        CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc', content_rowid='rowid');
        """
    static let fts = "CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc', content_rowid='rowid');\n"

    static func database(in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("app.sqlite")
        let db = try Database(path: path)
        try db.execute(sql: live)
        try db.execute(sql: "INSERT INTO doc VALUES (20, 'apple'), (10, 'banana'), (30, 'cherry pie')")
        try db.execute(sql: "INSERT INTO doc_fts(doc_fts) VALUES ('rebuild')")
        db.close()
        return path
    }

    @Test func theReportedCaseKeepsMatchAndIntegrity() throws {
        let dir = TemporaryDirectory("strata-fts-cli")
        let path = try Self.database(in: dir)
        let schema = dir.file("schema.sql")
        try Data(("CREATE TABLE doc(id INTEGER PRIMARY KEY, body);\n" + Self.fts).utf8)
            .write(to: URL(fileURLWithPath: schema))

        let r = try StrataProcess.run(["apply", "--db", path, "--schema", schema])
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stdout.contains("rebuild full-text index doc_fts"), "\(r.stdout)")

        let db = try Database(path: path)
        defer { db.close() }
        for (word, body, rowid) in [("apple", "apple", 20), ("banana", "banana", 10), ("pie", "cherry pie", 30)] {
            let rows = try db.fetchAll(sql: "SELECT rowid, body FROM doc_fts WHERE doc_fts MATCH ?", arguments: [word])
            #expect(rows.count == 1, "\(word)")
            #expect(try rows.first?.decode(String.self, at: 1) == body, "\(word)")
            #expect(try rows.first?.decode(Int.self, at: 0) == rowid, "\(word)")
        }
        try db.execute(sql: "INSERT INTO doc_fts(doc_fts, rank) VALUES ('integrity-check', 1)")
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    /// A change after which the FTS table cannot read its content (the content table loses its
    /// rowid) is refused naming both tables; the file is unchanged.
    @Test func aContentTableThatLosesTheKeyIsRefused() throws {
        let dir = TemporaryDirectory("strata-fts-cli")
        let path = try Self.database(in: dir)
        let schema = dir.file("schema.sql")
        try Data(("CREATE TABLE doc(id INTEGER PRIMARY KEY, body) WITHOUT ROWID;\n" + Self.fts).utf8)
            .write(to: URL(fileURLWithPath: schema))
        let bytes = fileBytes(path)

        let r = try StrataProcess.run(["apply", "--db", path, "--schema", schema])
        #expect(r.exitCode == 1, "\(r)")
        #expect(r.stderr.contains("full-text table doc_fts: its content table doc"), "\(r.stderr)")
        #expect(r.stderr.contains("rowid"), "\(r.stderr)")
        #expect(fileBytes(path) == bytes)
    }
}
