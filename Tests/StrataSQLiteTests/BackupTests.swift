import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@Suite("Online backup")
struct BackupTests {
    @Test func backupToAnotherConnection() throws {
        let source = try Database(inMemory: Configuration())
        try source.execute(
            sql: """
                CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT);
                CREATE INDEX t_name ON t(name);
                INSERT INTO t(name) VALUES ('a'), ('b');
                """)
        let copy = try Database(inMemory: Configuration())
        try copy.execute(sql: "CREATE TABLE replaced(x)")
        try source.backup(to: copy)
        #expect(
            try copy.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master ORDER BY name") == ["t", "t_name"])
        #expect(try copy.fetchColumn(String.self, sql: "SELECT name FROM t ORDER BY id") == ["a", "b"])
    }

    @Test func backupToAFile() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("backup.sqlite")
        try Data("old content".utf8).write(to: URL(fileURLWithPath: path))
        let source = try Database(inMemory: Configuration())
        try source.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (42)")
        let refused = try #require(throws: BackupError.self) { try source.backup(toPath: path) }
        #expect(refused.code == .destinationExists)
        #expect(
            refused.description
                == "\(path): already exists; a backup replaces a file only when asked to (replacingExisting)")
        #expect(fileBytes(path) == Data("old content".utf8))
        try source.backup(toPath: path, replacingExisting: true)
        let reopened = try Database(path: path)
        #expect(try reopened.fetchValue(Int.self, sql: "SELECT x FROM t") == 42)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["backup.sqlite"])
    }

    /// A database and its journal files, reached by any path, are never a backup's destination.
    @Test func theSourceAndItsJournalFilesAreRefused() throws {
        for wal in [false, true] {
            let dir = TemporaryDirectory()
            let path = dir.file("app.sqlite")
            let db = try Database(path: path)
            defer { db.close() }
            if wal { try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try db.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
            try FileManager.default.createSymbolicLink(atPath: dir.file("link"), withDestinationPath: path)
            try FileManager.default.linkItem(atPath: path, toPath: dir.file("hard"))
            let before = try DatabaseContents(db)
            let bytes = fileBytes(path)
            let cases: [(String, BackupError.Code)] = [
                (path, .destinationIsSource), (dir.path + "/./app.sqlite", .destinationIsSource),
                (dir.file("link"), .destinationIsSource), (dir.file("hard"), .destinationIsSource),
                (path + "-journal", .destinationIsSource), (path + "-wal", .destinationIsSource),
                (path + "-shm", .destinationIsSource),
            ]
            for (target, kind) in cases {
                for replacing in [false, true] {
                    let error = try #require(throws: BackupError.self, "\(target)") {
                        try db.backup(toPath: target, replacingExisting: replacing)
                    }
                    #expect(error.code == kind, "\(target): \(error)")
                    #expect(error.path == target)
                    #expect(error.description.hasPrefix("\(target): is the "), "\(error)")
                    #expect(try DatabaseContents(db) == before)
                    #expect(fileBytes(path) == bytes, "\(target)")
                }
            }
        }
    }

    @Test func directoriesAndLinksAreNeverReplaced() throws {
        let dir = TemporaryDirectory()
        let source = try Database(inMemory: Configuration())
        try source.execute(sql: "CREATE TABLE t(x)")
        let folder = dir.file("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try Data("kept".utf8).write(to: URL(fileURLWithPath: folder + "/file"))
        try Data("target".utf8).write(to: URL(fileURLWithPath: dir.file("target")))
        try FileManager.default.createSymbolicLink(atPath: dir.file("link"), withDestinationPath: dir.file("target"))
        for (path, message) in [(folder, "is a directory"), (dir.file("link"), "is a symbolic link")] {
            let error = try #require(throws: BackupError.self) {
                try source.backup(toPath: path, replacingExisting: true)
            }
            #expect(error.code == .destinationNotRegularFile)
            #expect(error.description.hasPrefix("\(path): \(message)"), "\(error)")
        }
        #expect(fileBytes(folder + "/file") == Data("kept".utf8))
        #expect(fileBytes(dir.file("target")) == Data("target".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["folder", "link", "target"])
    }

    /// A -journal or -wal file beside the destination would be applied to the new backup by the
    /// next connection that opens it: refused.
    @Test func aJournalBesideTheDestinationIsRefused() throws {
        let dir = TemporaryDirectory()
        let source = try Database(inMemory: Configuration())
        try source.execute(sql: "CREATE TABLE t(x)")
        for suffix in ["-journal", "-wal"] {
            let target = dir.file("backup\(suffix == "-wal" ? "2" : "1").sqlite")
            try Data("leftover".utf8).write(to: URL(fileURLWithPath: target + suffix))
            let error = try #require(throws: BackupError.self) { try source.backup(toPath: target) }
            #expect(error.code == .destinationInUse)
            #expect(error.description.hasPrefix("\(target): \(target + suffix) exists"), "\(error)")
            #expect(!FileManager.default.fileExists(atPath: target))
            #expect(fileBytes(target + suffix) == Data("leftover".utf8))
        }
    }

    /// A WAL database with rows only in its WAL, another connection open: the backup holds them
    /// all, and opens as a WAL database.
    @Test func aWALDatabaseIsCopiedWhole() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        let writer = try Database(path: path)
        defer { writer.close() }
        try writer.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
        try writer.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
        let other = try Database(path: path)
        defer { other.close() }
        try other.backup(toPath: dir.file("backup.sqlite"))
        let backup = try Database(path: dir.file("backup.sqlite"))
        defer { backup.close() }
        #expect(try backup.fetchColumn(Int.self, sql: "SELECT x FROM t ORDER BY x") == [1, 2, 3])
        #expect(try backup.fetchValue(String.self, sql: "PRAGMA journal_mode") == "wal")
        #expect(try backup.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    /// The backup gets the source's permissions (never wider), whatever was at the path before.
    @Test func theBackupKeepsTheSourcePermissions() throws {
        for mode in [0o600, 0o640, 0o644] {
            let dir = TemporaryDirectory()
            let path = dir.file("app.sqlite")
            try Database(path: path).execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            let target = dir.file("backup.sqlite")
            try Data().write(to: URL(fileURLWithPath: target))
            try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: target)
            let db = try Database(path: path)
            try db.backup(toPath: target, replacingExisting: true)
            let attributes = try FileManager.default.attributesOfItem(atPath: target)
            let backupMode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
            #expect(backupMode & ~mode == 0, "source \(String(mode, radix: 8)), backup \(String(backupMode, radix: 8))")
            #expect(backupMode & 0o600 == 0o600)
        }
    }

    @Test func aBackupThatCannotBeWrittenLeavesNothing() throws {
        let dir = TemporaryDirectory()
        let source = try Database(inMemory: Configuration())
        try source.execute(sql: "CREATE TABLE t(x)")
        try Data("a file".utf8).write(to: URL(fileURLWithPath: dir.file("file")))
        for target in [dir.file("missing/backup.sqlite"), dir.file("file/backup.sqlite")] {
            let error = try #require(throws: BackupError.self) { try source.backup(toPath: target) }
            #expect(error.code == .writeFailed, "\(error)")
            #expect(error.description.hasPrefix("\(target): cannot write the backup"), "\(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["file"])
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
