import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@Suite("Online backup")
struct BackupTests {
    @Test func backupToAnotherConnection() throws {
        let source = try Database(inMemory: Configuration())
        try source.execute(sql: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT);
            CREATE INDEX t_name ON t(name);
            INSERT INTO t(name) VALUES ('a'), ('b');
            """)
        let copy = try Database(inMemory: Configuration())
        try copy.execute(sql: "CREATE TABLE replaced(x)")
        try source.backup(to: copy)
        #expect(try copy.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master ORDER BY name") == ["t", "t_name"])
        #expect(try copy.fetchColumn(String.self, sql: "SELECT name FROM t ORDER BY id") == ["a", "b"])
    }

    @Test func backupToAFile() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("backup.sqlite")
        try Data("old content".utf8).write(to: URL(fileURLWithPath: path))
        let source = try Database(inMemory: Configuration())
        try source.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (42)")
        try source.backup(toPath: path)
        let reopened = try Database(path: path)
        #expect(try reopened.fetchValue(Int.self, sql: "SELECT x FROM t") == 42)
    }

    @Test func backupIntoAReadOnlyDatabaseFails() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("target.sqlite")
        try Database(path: path).execute(sql: "CREATE TABLE t(x)")
        var config = Configuration()
        config.openMode = .readOnly
        let target = try Database(path: path, configuration: config)
        let source = try Database(inMemory: Configuration())
        try source.execute(sql: "CREATE TABLE other(x)")
        let error = try #require(throws: SQLiteError.self) { try source.backup(to: target) }
        #expect(error.resultCode == .SQLITE_READONLY)
        #expect(error.message == "attempt to write a readonly database")
        #expect(try target.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master") == ["t"])
    }
}
