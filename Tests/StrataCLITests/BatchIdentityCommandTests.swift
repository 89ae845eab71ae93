import Foundation
import Strata
import StrataTestSupport
import Testing

/// Two paths of a batch are the same database only when they reach the same file (issue 24): a
/// path where nothing is yet names the file it would create, its folder's symbolic links
/// resolved (`link/../x.sqlite` with `link` → `deep/sub` is `deep/x.sqlite`); existing files are
/// compared by device and inode. Every path named is reported and counted in the summary.
@Suite("Batch: which paths are the same database")
struct BatchIdentityCommandTests {
    static let schema = "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT);\n"

    struct Fixture {
        let dir = TemporaryDirectory("strata-batch-identity")
        var schema: String { dir.file("schema.sql") }

        init() throws {
            try Data(BatchIdentityCommandTests.schema.utf8).write(to: URL(fileURLWithPath: schema))
            try FileManager.default.createDirectory(
                atPath: dir.file("deep/sub"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: dir.file("link"), withDestinationPath: "deep/sub")
        }

        func tables(_ path: String) throws -> [String] {
            let db = try Database(path: dir.file(path))
            defer { db.close() }
            return try db.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        }

        var exists: (String) -> Bool { { FileManager.default.fileExists(atPath: dir.file($0)) } }
    }

    @Test func aMissingPathThroughALinkIsADistinctDatabase() throws {
        let f = try Fixture()
        // `link/..` is `deep` (the link is followed first), not the folder holding `link`.
        let r = try ChildProcess.strata(
            ["apply", "--db", "x.sqlite", "link/../x.sqlite", "--schema", f.schema], in: f.dir.path, seconds: 60)
        #expect(r.result.status == 0, "\(r)")
        #expect(
            r.result.stdout == "x.sqlite: applied 1 change\nlink/../x.sqlite: applied 1 change\n"
                + "2 databases: 2 succeeded, 0 failed\n", "\(r)")
        #expect(f.exists("x.sqlite") && f.exists("deep/x.sqlite"))
        #expect(try f.tables("x.sqlite") == ["t"])
        #expect(try f.tables("deep/x.sqlite") == ["t"])

        // Once they exist, the same two paths are still two databases (device and inode).
        let again = try ChildProcess.strata(
            ["apply", "--db", "x.sqlite", "link/../x.sqlite", "--schema", f.schema], in: f.dir.path, seconds: 60)
        #expect(
            again.result.stdout == "x.sqlite: no changes\nlink/../x.sqlite: no changes\n"
                + "2 databases: 2 succeeded, 0 failed\n", "\(again)")
    }

    @Test func missingPathsThatReachOneFileAreOneDatabaseReportedTwice() throws {
        let f = try Fixture()
        // deep/sub/y.sqlite, link/y.sqlite and ./deep/../deep/sub/y.sqlite: one file, not created yet;
        // a dangling link to it is the same file too.
        try FileManager.default.createSymbolicLink(
            atPath: f.dir.file("dangling.sqlite"), withDestinationPath: "deep/sub/y.sqlite")
        let paths = ["deep/sub/y.sqlite", "link/y.sqlite", "./deep/../deep/sub/y.sqlite", "dangling.sqlite"]
        let r = try ChildProcess.strata(
            ["migrate", "--db"] + paths + ["--migrations", try migrations(f)], in: f.dir.path, seconds: 60)
        #expect(r.result.status == 0, "\(r)")
        #expect(
            r.result.stdout == """
                deep/sub/y.sqlite: applied 1 migration (0001_create)
                link/y.sqlite: same database as deep/sub/y.sqlite (handled once)
                ./deep/../deep/sub/y.sqlite: same database as deep/sub/y.sqlite (handled once)
                dangling.sqlite: same database as deep/sub/y.sqlite (handled once)
                4 databases: 1 succeeded, 0 failed, 3 duplicates

                """, "\(r)")
        #expect(filesIn(f.dir.file("deep/sub")) == ["y.sqlite"])

        // The JSON document lists every path too.
        let json = try ChildProcess.strata(
            ["migrate", "--db"] + paths + ["--migrations", try migrations(f), "--format", "json"], in: f.dir.path,
            seconds: 60)
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(json.result.stdout.utf8)) as? [String: Any], "\(json)")
        let entries = try #require(document["databases"] as? [[String: Any]])
        #expect(entries.map { $0["database"] as? String } == paths)
        #expect(entries.map { $0["result"] as? String } == ["ok", "duplicate", "duplicate", "duplicate"])
        #expect(
            document["summary"] as? [String: Int] == [
                "databases": 4, "succeeded": 1, "failed": 0, "refused": 0, "skipped": 0, "duplicates": 3,
            ])
    }

    private func migrations(_ f: Fixture) throws -> String {
        let folder = f.dir.file("migrations")
        if !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try Data(BatchIdentityCommandTests.schema.utf8).write(
                to: URL(fileURLWithPath: folder + "/0001_create.sql"))
        }
        return folder
    }
}
