import Foundation
import Strata
import StrataTestSupport
import Testing

/// Other processes in the way, through the `strata` command line (issue 11, items 10a and 10c):
/// a writer that crashed and left a hot rollback journal, and a reader that keeps a read
/// transaction open while `strata apply` wants to commit in rollback-journal mode.
@Suite("Interrupted writer and reader")
struct InterruptedWriterAndReaderTests {
    /// A rollback-journal database of `rows` items with `indexes` secondary indexes, and a
    /// schema file for it: `same` describes it as it is, otherwise one that rebuilds `item`.
    static func database(
        _ dir: TemporaryDirectory, rows: Int, indexes: Int, wal: Bool = false
    ) throws -> (db: String, same: String, rebuild: String) {
        let path = dir.file("app.sqlite")
        let indexSQL = (0..<indexes).map { "CREATE INDEX item_\($0) ON item(name, n + \($0));" }.joined(separator: "\n")
        let db = try Database(path: path)
        try db.execute(sql: "PRAGMA journal_mode = \(wal ? "WAL" : "DELETE")")
        try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, n INTEGER);\n" + indexSQL)
        try db.execute(
            sql: """
                WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < \(rows))
                INSERT INTO item(name, n) SELECT printf('item %d', i), i FROM c
                """)
        db.close()
        let same = dir.file("same.sql")
        try Data(("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, n INTEGER);\n" + indexSQL).utf8)
            .write(to: URL(fileURLWithPath: same))
        let rebuild = dir.file("rebuild.sql")
        try Data(
            ("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', n INTEGER);\n" + indexSQL).utf8
        )
        .write(to: URL(fileURLWithPath: rebuild))
        return (path, same, rebuild)
    }

    /// Waits until the helper's stdout holds `word` (or it exits).
    static func waitFor(_ word: String, from process: Process, output: TemporaryDirectory) throws {
        for _ in 0..<3000 {
            if String(decoding: fileBytes(output.file("stdout")), as: UTF8.self).contains(word) { return }
            if !process.isRunning { break }
            usleep(10_000)
        }
        throw ChildProcess.NotFound(
            description: "the helper never said \(word): \(ChildProcess.result(of: process, output: output))")
    }

    static func snapshot(_ path: String) throws -> DatabaseContents {
        let db = try Database(path: path)
        defer { db.close() }
        return try DatabaseContents(db)
    }

    /// A writer killed in the middle of a big transaction leaves a hot journal (and pages of its
    /// change already in the database file). Read-only commands say so, and how to recover, and
    /// touch neither file; `strata apply` (read-write) recovers the database as it was.
    @Test func aHotJournalIsNamedAndApplyRecoversIt() throws {
        let dir = TemporaryDirectory("strata-hot-journal")
        let (path, same, _) = try Self.database(dir, rows: 20_000, indexes: 0)
        let original = try Self.snapshot(path)
        let originalBytes = fileBytes(path)

        let output = TemporaryDirectory("strata-helper")
        let writer = try ChildProcess.launch(
            "StrataTestHelper",
            ["write-and-hang", path, "UPDATE item SET name = name || ' changed by a writer that will crash'"],
            output: output)
        try Self.waitFor("written", from: writer, output: output)
        kill(writer.processIdentifier, SIGKILL)
        BoundedWait.exit(of: writer)
        #expect(writer.terminationReason == .uncaughtSignal)

        let journal = path + "-journal"
        #expect(FileManager.default.fileExists(atPath: journal), "no journal was left")
        let bytes = fileBytes(path)
        let journalBytes = fileBytes(journal)
        #expect(bytes != originalBytes, "the crashed writer's change never reached the database file")

        let commands = [
            ["plan", "--db", path, "--schema", same],
            ["dump", "--db", path],
            ["apply", "--db", path, "--schema", same, "--dry-run"],
        ]
        for command in commands {
            let r = try ChildProcess.strata(command)
            #expect(r.status == 1, "\(command[0]): \(r)")
            #expect(r.stdout == "", "\(command[0]): \(r)")
            #expect(
                r.stderr.hasPrefix("strata: \(path): a hot journal (\(journal)) from an interrupted write"),
                "\(command[0]): \(r.stderr)")
            #expect(r.stderr.contains("open the database read-write to recover it"), "\(command[0]): \(r.stderr)")
            #expect(r.stderr.contains("strata apply"), "\(command[0]): \(r.stderr)")
            #expect(!r.stderr.contains("read-only"), "\(command[0]): \(r.stderr)")
            #expect(r.stderr.filter { $0 == "\n" }.count == 1, "\(command[0]): \(r.stderr)")
            #expect(fileBytes(path) == bytes, "\(command[0]) changed the database")
            #expect(fileBytes(journal) == journalBytes, "\(command[0]) changed the journal")
        }

        // The advice works: a read-write open rolls the interrupted write back.
        let apply = try ChildProcess.strata(["apply", "--db", path, "--schema", same])
        #expect(apply.status == 0, "\(apply)")
        #expect(apply.stdout == "No changes.\n")
        #expect(!FileManager.default.fileExists(atPath: journal))
        #expect(try Self.snapshot(path) == original)
        let db = try Database(path: path)
        defer { db.close() }
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    /// A reader holding a read transaction on a rollback-journal database: `strata apply` cannot
    /// commit. It must give up after one busy timeout (it waited one per statement that spilled
    /// pages, then again at COMMIT: 25 s here), say why, and change nothing.
    @Test func applyBehindALongReaderGivesUpOnceAndChangesNothing() throws {
        let dir = TemporaryDirectory("strata-long-reader")
        // Large enough that the rebuild's pages overflow SQLite's 2 MB page cache.
        let (path, _, rebuild) = try Self.database(dir, rows: 200_000, indexes: 3)
        let output = TemporaryDirectory("strata-helper")
        let input = Pipe()
        let reader = try ChildProcess.launch(
            "StrataTestHelper", ["read-until-input", path], output: output, stdin: input)
        var released = false
        defer {
            if !released {
                input.fileHandleForWriting.write(Data("\n".utf8))
                BoundedWait.exit(of: reader)
            }
        }
        try Self.waitFor("reading", from: reader, output: output)
        let bytes = fileBytes(path)

        for (arguments, bound) in [([String](), 15.0), (["--busy-timeout", "500"], 10.0)] {
            let label = arguments.isEmpty ? "default busy timeout" : arguments.joined(separator: " ")
            let start = Date()
            let r = try ChildProcess.strata(["apply", "--db", path, "--schema", rebuild] + arguments)
            let elapsed = Date().timeIntervalSince(start)
            #expect(r.status == 1, "\(label): \(r)")
            #expect(r.stdout == "", "\(label)")
            #expect(
                r.stderr.hasPrefix("strata: \(path): the database is busy: another connection is reading it"),
                "\(label): \(r.stderr)")
            #expect(r.stderr.contains("nothing was changed"), "\(label): \(r.stderr)")
            #expect(r.stderr.contains("WAL"), "\(label): \(r.stderr)")
            #expect(r.stderr.filter { $0 == "\n" }.count == 1, "\(label): \(r.stderr)")
            #expect(elapsed < bound, "\(label): gave up after \(elapsed) s")
            #expect(fileBytes(path) == bytes, "\(label): the database changed")
            #expect(!FileManager.default.fileExists(atPath: path + "-journal"), "\(label): a journal was left")
        }

        input.fileHandleForWriting.write(Data("\n".utf8))
        let readerResult = ChildProcess.result(of: reader, output: output)
        released = true
        #expect(readerResult.status == 0 && readerResult.stdout == "reading\ndone\n", "\(readerResult)")
        // With the reader gone, the same command goes through.
        let retry = try ChildProcess.strata(["apply", "--db", path, "--schema", rebuild])
        #expect(retry.status == 0, "\(retry)")
    }

    /// Behind another writer (not a reader) the message says the database is locked.
    @Test func applyBehindAnotherWriterSaysLocked() throws {
        let dir = TemporaryDirectory("strata-other-writer")
        let (path, _, rebuild) = try Self.database(dir, rows: 100, indexes: 1)
        let setup = try Database(path: path)
        try setup.execute(sql: "CREATE TABLE log(who TEXT)")
        setup.close()
        try Data(("CREATE TABLE log(who TEXT);\n" + String(decoding: fileBytes(rebuild), as: UTF8.self)).utf8)
            .write(to: URL(fileURLWithPath: rebuild))
        let bytes = fileBytes(path)
        let output = TemporaryDirectory("strata-helper")
        let input = Pipe()
        let writer = try ChildProcess.launch(
            "StrataTestHelper", ["hold-until-input", path], output: output, stdin: input)
        try Self.waitFor("locked", from: writer, output: output)
        let r = try ChildProcess.strata(["apply", "--db", path, "--schema", rebuild, "--busy-timeout", "300"])
        input.fileHandleForWriting.write(Data("\n".utf8))
        let writerResult = ChildProcess.result(of: writer, output: output)
        #expect(writerResult.status == 0, "\(writerResult)")
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.hasPrefix("strata: \(path): the database is locked by another connection"), "\(r.stderr)")
        #expect(fileBytes(path) != bytes, "the helper's own write is committed")
        let db = try Database(path: path)
        defer { db.close() }
        #expect(try db.fetchColumn(String.self, sql: "SELECT who FROM log") == ["helper"])
        #expect(
            try db.fetchValue(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = 'item'")
                == "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, n INTEGER)", "strata's change was applied")
    }

    /// In WAL mode readers never block the writer: the same apply goes through behind the reader.
    @Test func inWALModeApplyGoesThroughBehindALongReader() throws {
        let dir = TemporaryDirectory("strata-wal-reader")
        let (path, _, rebuild) = try Self.database(dir, rows: 20_000, indexes: 1, wal: true)
        let output = TemporaryDirectory("strata-helper")
        let input = Pipe()
        let reader = try ChildProcess.launch(
            "StrataTestHelper", ["read-until-input", path], output: output, stdin: input)
        try Self.waitFor("reading", from: reader, output: output)
        let r = try ChildProcess.strata(["apply", "--db", path, "--schema", rebuild])
        input.fileHandleForWriting.write(Data("\n".utf8))
        let readerResult = ChildProcess.result(of: reader, output: output)
        #expect(r.status == 0, "\(r)")
        #expect(readerResult.status == 0, "\(readerResult)")
        let db = try Database(path: path)
        defer { db.close() }
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item") == 20_000)
    }
}
