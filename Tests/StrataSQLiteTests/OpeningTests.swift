import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@Suite("Opening a connection")
struct OpeningTests {
    @Test func createsAFileAndReopensIt() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        #expect(!FileManager.default.fileExists(atPath: path))
        do {
            let db = try Database(path: path)
            try db.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (42)")
            #expect(db.path == path)
            #expect(!db.isReadOnly)
        }
        #expect(FileManager.default.fileExists(atPath: path))
        let again = try Database(path: path)
        #expect(try again.fetchValue(Int.self, sql: "SELECT x FROM t") == 42)
    }

    @Test func inMemoryDatabasesArePrivate() throws {
        let a = try Database(inMemory: Configuration())
        let b = try Database()
        try a.execute(sql: "CREATE TABLE t(x)")
        #expect(a.path == ":memory:")
        #expect(try a.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 1)
        #expect(try b.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 0)
    }

    @Test func readWriteDoesNotCreateAMissingFile() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("missing.sqlite")
        var config = Configuration()
        config.openMode = .readWrite
        let error = try #require(throws: SQLiteError.self) { try Database(path: path, configuration: config) }
        #expect(error.resultCode == .SQLITE_CANTOPEN)
        #expect(error.message == "unable to open database file: \(path)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func readWriteOpensAnExistingFile() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("existing.sqlite")
        try Database(path: path).execute(sql: "CREATE TABLE t(x)")
        var config = Configuration()
        config.openMode = .readWrite
        let db = try Database(path: path, configuration: config)
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        #expect(db.changes == 1)
    }

    @Test func readOnlyRefusesWritesButReads() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("ro.sqlite")
        try Database(path: path).execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (7)")
        var config = Configuration()
        config.openMode = .readOnly
        let db = try Database(path: path, configuration: config)
        #expect(db.isReadOnly)
        #expect(try db.fetchValue(Int.self, sql: "SELECT x FROM t") == 7)
        let error = try #require(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO t VALUES (8)") }
        #expect(error.resultCode == .SQLITE_READONLY)
        #expect(error.message == "attempt to write a readonly database")
        #expect(error.sql == "INSERT INTO t VALUES (8)")
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 1)
    }

    @Test func readOnlyOfAMissingFileFails() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("none.sqlite")
        var config = Configuration()
        config.openMode = .readOnly
        let error = try #require(throws: SQLiteError.self) { try Database(path: path, configuration: config) }
        #expect(error.resultCode == .SQLITE_CANTOPEN)
        #expect(error.message.hasSuffix(path))
        #expect(error.culprit == path)
    }

    @Test func uriFilenames() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("uri.sqlite")
        var config = Configuration()
        config.uriFilenames = true
        // mode=rwc creates the file; mode=ro opens it read-only whatever the open mode says.
        let writer = try Database(path: "file:\(path)?mode=rwc", configuration: config)
        try writer.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES ('uri')")
        #expect(FileManager.default.fileExists(atPath: path))

        let reader = try Database(path: "file:\(path)?mode=ro", configuration: config)
        #expect(reader.isReadOnly)
        #expect(try reader.fetchValue(String.self, sql: "SELECT x FROM t") == "uri")
        let error = try #require(throws: SQLiteError.self) { try reader.execute(sql: "DELETE FROM t") }
        #expect(error.resultCode == .SQLITE_READONLY)

        // A named shared in-memory database is visible to every connection that names it.
        let name = "file:strata-\(UUID().uuidString)?mode=memory&cache=shared"
        let a = try Database(path: name, configuration: config)
        try a.execute(sql: "CREATE TABLE shared(x)")
        let b = try Database(path: name, configuration: config)
        #expect(try b.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master") == ["shared"])
    }

    @Test func foreignKeysAreOnByDefault() throws {
        let db = try Database(inMemory: Configuration())
        #expect(try db.foreignKeysEnabled())
        try db.execute(
            sql: """
                CREATE TABLE parent(id INTEGER PRIMARY KEY);
                CREATE TABLE child(id INTEGER PRIMARY KEY, parentID INTEGER REFERENCES parent(id));
                """)
        let error = try #require(throws: SQLiteError.self) {
            try db.execute(sql: "INSERT INTO child(parentID) VALUES (99)")
        }
        #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY)
        #expect(error.message == "FOREIGN KEY constraint failed")
    }

    @Test func foreignKeysCanBeTurnedOff() throws {
        var config = Configuration()
        config.foreignKeysEnabled = false
        let db = try Database(inMemory: config)
        #expect(try !db.foreignKeysEnabled())
        try db.execute(
            sql: """
                CREATE TABLE parent(id INTEGER PRIMARY KEY);
                CREATE TABLE child(id INTEGER PRIMARY KEY, parentID INTEGER REFERENCES parent(id));
                INSERT INTO child(parentID) VALUES (99);
                """)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM child") == 1)
    }

    @Test(
        arguments: [(nil, 5000), (0.25, 250), (0, nil), (-3, nil), (.nan, nil), (1e12, Int(Int32.max))]
            as [(Double?, Int?)])
    func busyTimeout(seconds: Double?, milliseconds: Int?) throws {
        var config = Configuration()
        if let seconds { config.busyTimeout = seconds }
        let db = try Database(inMemory: config)
        #expect(db.busyTimeoutMilliseconds == milliseconds, "busyTimeout \(String(describing: seconds))")
    }

    @Test func setupSQLRunsOnOpen() throws {
        var config = Configuration()
        config.setupSQL = ["PRAGMA cache_size = -1234", "CREATE TEMP TABLE scratch(x)"]
        let db = try Database(inMemory: config)
        #expect(try db.fetchValue(Int.self, sql: "PRAGMA cache_size") == -1234)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM temp.sqlite_master") == 1)
    }

    @Test func failingSetupSQLNamesTheDatabaseAndStatement() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("setup.sqlite")
        var config = Configuration()
        config.setupSQL = ["PRAGMA nonsense("]
        let error = try #require(throws: SQLiteError.self) { try Database(path: path, configuration: config) }
        #expect(error.resultCode == .SQLITE_ERROR)
        #expect(error.message == "incomplete input: \(path)")
        #expect(error.sql == "PRAGMA nonsense(")
    }

    @Test func sqliteVersionIsTheRuntimeOne() throws {
        let db = try Database(inMemory: Configuration())
        let text = try #require(try db.fetchValue(String.self, sql: "SELECT sqlite_version()"))
        #expect(db.sqliteVersion.description == text)
        #expect(db.sqliteVersion >= SQLiteVersion(3, 8))
    }
}
