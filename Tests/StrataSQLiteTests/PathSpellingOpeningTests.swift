import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

/// `Database(path:)` opens the file the kernel names, on every SQLite version: SQLite before 3.40
/// removes `..` from a path textually, also after a symbolic link, so `link/../x.sqlite` (with
/// `link` → `deep/sub`) opened `./x.sqlite` instead of `deep/x.sqlite` on 3.28.0 and 3.38.3 (the
/// cause of two batch tests failing there). Strata resolves the folder of a path before SQLite.
@Suite("Opening a path spelled through symbolic links")
struct PathSpellingOpeningTests {
    struct Fixture {
        let dir = TemporaryDirectory("strata-path-spelling")

        init() throws {
            try FileManager.default.createDirectory(atPath: dir.file("deep/sub"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: dir.file("link"), withDestinationPath: "deep/sub")
        }

        /// Creates a table named `name` in the database at `path` (relative to the fixture).
        func create(_ name: String, at path: String) throws {
            let db = try Database(path: dir.file(path))
            defer { db.close() }
            try db.execute(sql: "CREATE TABLE \(name)(id INTEGER PRIMARY KEY)")
        }

        func tables(_ path: String) throws -> [String] {
            let db = try Database(path: dir.file(path))
            defer { db.close() }
            return try db.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master ORDER BY name")
        }

        func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: dir.file(path)) }
    }

    @Test func dotDotAfterALinkIsTheLinkTargetsParent() throws {
        let f = try Fixture()
        try f.create("through_link", at: "link/../x.sqlite")
        #expect(f.exists("deep/x.sqlite"))
        #expect(!f.exists("x.sqlite"), "the file beside the link must not be created")
        #expect(try f.tables("deep/x.sqlite") == ["through_link"])

        // A file that already exists at both spellings stays two databases.
        try f.create("beside_link", at: "x.sqlite")
        #expect(try f.tables("x.sqlite") == ["beside_link"])
        #expect(try f.tables("link/../x.sqlite") == ["through_link"])
    }

    @Test func dotsAndRepeatedSlashesReachTheSameFile() throws {
        let f = try Fixture()
        try f.create("t", at: "deep/sub/y.sqlite")
        for spelling in ["link/y.sqlite", "deep/./sub/y.sqlite", "deep//sub/../sub/y.sqlite", "link/./y.sqlite"] {
            #expect(try f.tables(spelling) == ["t"], "\(spelling)")
        }
    }

    @Test func aMissingFolderIsReportedWithThePathAsGiven() throws {
        let f = try Fixture()
        let path = f.dir.file("no/such/folder/z.sqlite")
        #expect {
            try Database(path: path)
        } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return error.resultCode == .SQLITE_CANTOPEN && error.message.hasSuffix(path)
        }
        #expect(!FileManager.default.fileExists(atPath: f.dir.file("no")))
    }

    @Test func inMemoryTemporaryAndURINamesAreLeftToSQLite() throws {
        for name in [":memory:", ""] {
            let db = try Database(path: name)
            try db.execute(sql: "CREATE TABLE t(x)")
            db.close()
        }
        let f = try Fixture()
        var configuration = Configuration()
        configuration.uriFilenames = true
        let uri = "file:\(f.dir.file("link/../u.sqlite"))?cache=private"
        let db = try Database(path: uri, configuration: configuration)
        try db.execute(sql: "CREATE TABLE t(x)")
        db.close()
        // A URI is SQLite's to read; only plain paths are resolved by Strata.
        #expect(f.exists("deep/u.sqlite") || f.exists("u.sqlite"))
    }
}
