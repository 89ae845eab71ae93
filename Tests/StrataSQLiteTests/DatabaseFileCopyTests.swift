import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

/// `copyDatabaseFile(toNewFile:eachBlock:)`: the restore point's one-pass copy. It is only
/// correct when the file cannot change under it, so each case checks what the copy holds against
/// what another connection did meanwhile, and each refusal leaves nothing behind.
@Suite("One-pass copy of the database file")
struct DatabaseFileCopyTests {
    /// A database of about 3 MiB (more than one block), in `mode`, with its last commits still in
    /// the log when `mode` is WAL.
    static func database(_ dir: TemporaryDirectory, mode: String) throws -> Database {
        let db = try Database(path: dir.file("app.sqlite"))
        try db.execute(sql: "PRAGMA journal_mode = \(mode)")
        try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, payload BLOB)")
        try db.transaction {
            for _ in 0..<3_000 { try db.execute(sql: "INSERT INTO t(payload) VALUES (randomblob(1000))") }
        }
        try db.execute(sql: "INSERT INTO t(payload) VALUES (x'00')")
        return db
    }

    @Test(arguments: ["wal", "delete"])
    func theCopyIsTheDatabaseInOneFileAndItsBlocksAreItsBytes(mode: String) throws {
        let dir = TemporaryDirectory("file-copy")
        let db = try Self.database(dir, mode: mode)
        defer { db.close() }
        let before = try DatabaseContents(db)
        var blocks = Data()
        var sizes: [Int] = []
        let target = dir.file("copy.sqlite")
        let copied = try db.copyDatabaseFile(toNewFile: target) { block in
            blocks.append(contentsOf: block)
            sizes.append(block.count)
        }
        #expect(copied)
        #expect(blocks == fileBytes(target), "the blocks handed over are the file written")
        #expect(sizes.dropLast().allSatisfy { $0 == 1 << 20 } && sizes.count >= 3, "\(sizes)")
        #expect(filesIn(dir.path).sorted().filter { $0.hasPrefix("copy") } == ["copy.sqlite"])
        let copy = try Database(path: target)
        defer { copy.close() }
        #expect(try copy.fetchValue(String.self, sql: "PRAGMA journal_mode") == "delete")
        #expect(try copy.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(try DatabaseContents(copy) == before)
        #expect(try DatabaseContents(db) == before, "the source is unchanged")
    }

    @Test func aWriterInWALModeCommitsDuringTheCopyAndTheCopyIsTheStateBefore() throws {
        let dir = TemporaryDirectory("file-copy-wal-writer")
        let db = try Self.database(dir, mode: "wal")
        defer { db.close() }
        let before = try DatabaseContents(db)
        let writer = try Database(path: dir.file("app.sqlite"))
        defer { writer.close() }
        var commits = 0
        let copied = try db.copyDatabaseFile(toNewFile: dir.file("copy.sqlite")) { _ in
            // Neither blocked nor checkpointed into the file being read.
            try? writer.execute(sql: "INSERT INTO t(payload) VALUES (randomblob(5000))")
            try? writer.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)")
            commits += 1
        }
        #expect(copied)
        #expect(try writer.fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 3_001 + commits)
        let copy = try Database(path: dir.file("copy.sqlite"))
        defer { copy.close() }
        #expect(try copy.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(try DatabaseContents(copy) == before)
    }

    @Test func aWriterInRollbackModeCannotCommitDuringTheCopy() throws {
        let dir = TemporaryDirectory("file-copy-rollback-writer")
        let db = try Self.database(dir, mode: "delete")
        defer { db.close() }
        let before = try DatabaseContents(db)
        var configuration = Configuration()
        configuration.busyTimeout = 0
        let writer = try Database(path: dir.file("app.sqlite"), configuration: configuration)
        defer { writer.close() }
        var refused = 0
        _ = try db.copyDatabaseFile(toNewFile: dir.file("copy.sqlite")) { _ in
            do { try writer.execute(sql: "INSERT INTO t(payload) VALUES (x'01')") } catch { refused += 1 }
        }
        #expect(refused >= 3)
        #expect(try DatabaseContents(db) == before)
        let copy = try Database(path: dir.file("copy.sqlite"))
        defer { copy.close() }
        #expect(try DatabaseContents(copy) == before)
        try writer.execute(sql: "INSERT INTO t(payload) VALUES (x'01')")  // the lock is gone after
    }

    @Test func aLogAReaderKeepsFromEmptyingFallsBackLeavingNothing() throws {
        let dir = TemporaryDirectory("file-copy-reader")
        let db = try Self.database(dir, mode: "wal")
        defer { db.close() }
        let reader = try Database(path: dir.file("app.sqlite"))
        defer { reader.close() }
        try reader.execute(sql: "BEGIN")
        _ = try reader.fetchValue(Int.self, sql: "SELECT count(*) FROM t")
        try db.execute(sql: "INSERT INTO t(payload) VALUES (x'02')")  // a frame the reader pins
        let before = try DatabaseContents(db)
        var called = false
        #expect(try db.copyDatabaseFile(toNewFile: dir.file("copy.sqlite")) { _ in called = true } == false)
        #expect(!called)
        #expect(!FileManager.default.fileExists(atPath: dir.file("copy.sqlite")))
        try reader.execute(sql: "COMMIT")
        #expect(try DatabaseContents(db) == before)
    }

    @Test func aLogThatCannotBeLookedAtIsNotTakenForEmpty() throws {
        let dir = TemporaryDirectory("file-copy-log-unknown")
        let db = try Self.database(dir, mode: "wal")
        defer { db.close() }
        // SQLite keeps the log it opened; its name now leads nowhere (a loop of symbolic links).
        let log = dir.file("app.sqlite-wal")
        try FileManager.default.moveItem(atPath: log, toPath: dir.file("moved-wal"))
        try FileManager.default.createSymbolicLink(atPath: log, withDestinationPath: log)
        #expect(try db.copyDatabaseFile(toNewFile: dir.file("copy.sqlite")) { _ in } == false)
        #expect(!FileManager.default.fileExists(atPath: dir.file("copy.sqlite")))
    }

    @Test func insideATransactionOrInMemoryItFallsBack() throws {
        let dir = TemporaryDirectory("file-copy-refused")
        let db = try Self.database(dir, mode: "wal")
        defer { db.close() }
        try db.execute(sql: "BEGIN")
        #expect(try db.copyDatabaseFile(toNewFile: dir.file("a.sqlite")) { _ in } == false)
        try db.execute(sql: "ROLLBACK")
        let memory = try Database(inMemory: Configuration())
        defer { memory.close() }
        #expect(try memory.copyDatabaseFile(toNewFile: dir.file("b.sqlite")) { _ in } == false)
        #expect(filesIn(dir.path).filter { $0.hasPrefix("a.") || $0.hasPrefix("b.") }.isEmpty)
    }

    @Test func anExistingFileIsNeverReplaced() throws {
        let dir = TemporaryDirectory("file-copy-exists")
        let db = try Self.database(dir, mode: "wal")
        defer { db.close() }
        let target = dir.file("copy.sqlite")
        try Data("keep".utf8).write(to: URL(fileURLWithPath: target))
        #expect(throws: (any Error).self) { try db.copyDatabaseFile(toNewFile: target) { _ in } }
        #expect(fileBytes(target) == Data("keep".utf8))
    }

    /// Another connection turns a rollback-mode database to WAL and commits to the log while this
    /// connection is idle: this connection still reports its last mode until it reads again. The
    /// copy must hold those commits (or fall back), never be the file without its log.
    @Test func aDatabaseTurnedToWALByAnotherConnectionIsNeverCopiedWithoutItsLog() throws {
        let dir = TemporaryDirectory("file-copy-turned-wal")
        let db = try Self.database(dir, mode: "delete")
        defer { db.close() }
        let other = try Database(path: dir.file("app.sqlite"))
        defer { other.close() }
        try other.execute(sql: "PRAGMA journal_mode = WAL")
        try other.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        try other.execute(sql: "INSERT INTO t(payload) VALUES (x'03')")
        try other.execute(sql: "UPDATE t SET payload = x'04' WHERE id = 1")
        let after = try DatabaseContents(other)
        let target = dir.file("copy.sqlite")
        var commits = 0
        let copied = try db.copyDatabaseFile(toNewFile: target) { _ in
            // Checkpoints meanwhile would write the log's frames into the file being read.
            try? other.execute(sql: "UPDATE t SET payload = randomblob(900) WHERE id % 97 = \(commits)")
            _ = try? other.fetchAll(sql: "PRAGMA wal_checkpoint(PASSIVE)")
            commits += 1
        }
        if copied {
            let copy = try Database(path: target)
            defer { copy.close() }
            #expect(try copy.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
            #expect(try DatabaseContents(copy) == after, "the copy is the state this connection read")
        } else {
            #expect(!FileManager.default.fileExists(atPath: target))
        }
    }

    /// Copies `db` and checks the copy is its contents, whole, in rollback mode; returns the
    /// sizes of the blocks handed over (nil when it fell back, leaving nothing).
    static func copyAndCheck(_ db: Database, _ dir: TemporaryDirectory, _ name: String) throws -> [Int]? {
        let before = try DatabaseContents(db)
        let target = dir.file(name)
        var sizes: [Int] = []
        var blocks = Data()
        guard
            try db.copyDatabaseFile(
                toNewFile: target,
                eachBlock: {
                    sizes.append($0.count)
                    blocks.append(contentsOf: $0)
                })
        else {
            #expect(!FileManager.default.fileExists(atPath: target))
            return nil
        }
        #expect(blocks == fileBytes(target))
        let copy = try Database(path: target)
        defer { copy.close() }
        #expect(try copy.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(try copy.fetchValue(String.self, sql: "PRAGMA journal_mode") == "delete")
        #expect(try DatabaseContents(copy) == before)
        return sizes
    }

    @Test func anEmptyDatabaseFileIsCopiedAsAnEmptyDatabase() throws {
        let dir = TemporaryDirectory("file-copy-empty")
        let db = try Database(path: dir.file("app.sqlite"))
        defer { db.close() }
        let sizes = try Self.copyAndCheck(db, dir, "copy.sqlite")
        #expect(sizes == nil || sizes == [], "a file of 0 bytes: \(String(describing: sizes))")
        try db.execute(sql: "PRAGMA user_version = 7")  // only a header page
        #expect(try Self.copyAndCheck(db, dir, "copy2.sqlite") != nil)
    }

    /// A database whose first statement is `first` (a pragma that must precede the first table),
    /// in `mode`, with `rows` rows of `randomblob(payload)`.
    static func filled(
        _ dir: TemporaryDirectory, first: String, mode: String, rows: Int, payload: String
    ) throws
        -> Database
    {
        let db = try Database(path: dir.file("app.sqlite"))
        try db.execute(sql: first)
        try db.execute(sql: "PRAGMA journal_mode = \(mode)")
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, payload BLOB)")
        try db.execute(
            sql: "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < \(rows)) "
                + "INSERT INTO t(payload) SELECT randomblob(\(payload)) FROM c")
        return db
    }

    @Test(arguments: [512, 65536], ["wal", "delete"])
    func extremePageSizes(pageSize: Int, mode: String) throws {
        let dir = TemporaryDirectory("file-copy-page-size")
        let db = try Self.filled(
            dir, first: "PRAGMA page_size = \(pageSize)", mode: mode, rows: 1500, payload: "i % 1700")
        defer { db.close() }
        #expect(try db.fetchValue(Int.self, sql: "PRAGMA page_size") == pageSize)
        let sizes = try Self.copyAndCheck(db, dir, "copy.sqlite")
        #expect(sizes != nil)
    }

    @Test func aFileOfExactlyTwoMebibytesIsTwoWholeBlocks() throws {
        let dir = TemporaryDirectory("file-copy-exact")
        let db = try Database(path: dir.file("app.sqlite"))
        defer { db.close() }
        try db.execute(sql: "PRAGMA page_size = 65536")
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, payload BLOB)")
        var pages = 0
        for _ in 0..<5_000 {
            pages = try db.fetchValue(Int.self, sql: "PRAGMA page_count") ?? 0
            if pages == 32 { break }
            try db.execute(sql: "INSERT INTO t(payload) VALUES (randomblob(900))")
        }
        try #require(pages == 32, "the file did not stop at 32 pages of 64 KiB")
        #expect(fileBytes(dir.file("app.sqlite")).count == 2 << 20)
        #expect(try Self.copyAndCheck(db, dir, "copy.sqlite") == [1 << 20, 1 << 20])
    }

    @Test(arguments: ["wal", "delete"])
    func incrementalAutoVacuum(mode: String) throws {
        let dir = TemporaryDirectory("file-copy-auto-vacuum")
        let db = try Self.filled(
            dir, first: "PRAGMA auto_vacuum = INCREMENTAL", mode: mode, rows: 3000, payload: "1000")
        defer { db.close() }
        try db.execute(sql: "DELETE FROM t WHERE id BETWEEN 1000 AND 2000")
        _ = try db.fetchAll(sql: "PRAGMA incremental_vacuum(100)")
        #expect(try db.fetchValue(Int.self, sql: "PRAGMA freelist_count") ?? 0 > 0)
        #expect(try Self.copyAndCheck(db, dir, "copy.sqlite") != nil)
    }
}
