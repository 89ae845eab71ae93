import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

/// `copyDatabaseFile(toNewFile:eachBlock:)` (the restore point's one-pass copy) against another
/// process: `StrataTestHelper copy-writer` commits rows 1, 2, 3... in a tight loop, each commit
/// also touching an earlier row and the `meta` row at the front of the file, and checkpoints
/// after each commit (PASSIVE, FULL, RESTART, TRUNCATE in turn). Every copy (and every backup
/// taken when it falls back) must pass `integrity_check` and be exactly a state the writer
/// committed: rows 1...n with no gap, each payload whole, each row's `touched` the last commit
/// that touched it, `meta.n` = n.
@Suite("One-pass database file copy against another process", .serialized)
struct DatabaseFileCopyProcessTests {
    static let initialRows = 2_500  // about 4 MiB: several 1 MiB blocks
    static let copies = 25

    static func payloadSQL(_ id: String) -> String {
        "substr(replace(hex(zeroblob(300)), '00', printf('%08d', \(id))), 1, 1500)"
    }
    static func touched(_ n: Int) -> Int { (n &* 7919) % max(n - 1, 1) + 1 }

    static func prepare(_ dir: TemporaryDirectory, mode: String) throws -> String {
        let path = dir.file("app.sqlite")
        let db = try Database(path: path)
        defer { db.close() }
        try db.execute(sql: "PRAGMA journal_mode = \(mode)")
        try db.execute(sql: "CREATE TABLE meta(n INTEGER NOT NULL)")
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, payload TEXT NOT NULL, touched INTEGER NOT NULL)")
        try db.transaction {
            try db.execute(
                sql: """
                    WITH RECURSIVE c(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM c WHERE id < \(initialRows))
                    INSERT INTO t(id, payload, touched) SELECT id, \(payloadSQL("id")), id FROM c
                    """)
            try db.execute(sql: "INSERT INTO meta(n) VALUES (\(initialRows))")
        }
        return path
    }

    /// The number of the writer's last commit the database at `path` holds, after checking it is
    /// exactly the state after that commit.
    static func committedState(_ path: String, _ what: String) throws -> Int? {
        let db = try Database(path: path)
        defer { db.close() }
        let check = try db.fetchValue(String.self, sql: "PRAGMA integrity_check")
        #expect(check == "ok", "\(what): \(check ?? "nil")")
        guard let n = try db.fetchValue(Int.self, sql: "SELECT n FROM meta") else {
            Issue.record("\(what): no meta row")
            return nil
        }
        var expected = Array(0...n)  // expected[id] = touched
        for c in (initialRows + 1)...max(n, initialRows + 1) where c <= n { expected[touched(c)] = c }
        let rows = try db.fetchAll(sql: "SELECT id, touched FROM t ORDER BY id")
        let ids = try rows.map { try $0[0] as Int }
        #expect(ids == Array(1...n), "\(what): rows 1...\(n) with no gap (\(ids.count) rows, last \(ids.last ?? 0))")
        let touchedValues = try rows.map { try $0[1] as Int }
        #expect(touchedValues == Array(expected.dropFirst()), "\(what): each row's last touch")
        let damaged = try db.fetchValue(
            Int.self, sql: "SELECT count(*) FROM t WHERE payload IS NOT \(payloadSQL("id"))")
        #expect(damaged == 0, "\(what): payloads")
        return n
    }

    static func waitFor(_ word: String, in output: TemporaryDirectory, of process: Process) -> Bool {
        for _ in 0..<6_000 {
            if String(decoding: fileBytes(output.file("stdout")), as: UTF8.self).contains(word) { return true }
            if !process.isRunning { return false }
            usleep(10_000)
        }
        return false
    }

    @Test(arguments: ["wal", "delete"])
    func everyCopyIsAStateTheOtherProcessCommitted(mode: String) throws {
        let dir = TemporaryDirectory("file-copy-process-\(mode)")
        let path = try Self.prepare(dir, mode: mode)
        let db = try Database(path: path)
        defer { db.close() }
        let output = TemporaryDirectory("file-copy-writer")
        let stop = dir.file("stop")
        let writer = try ChildProcess.launch("StrataTestHelper", ["copy-writer", path, stop], output: output)
        defer { if writer.isRunning { kill(writer.processIdentifier, SIGKILL) } }
        #expect(Self.waitFor("started", in: output, of: writer), "\(ChildProcess.result(of: writer, output: output))")
        var onePass = 0
        var states: [Int] = []
        for i in 0..<Self.copies {
            let target = dir.file("copy-\(i).sqlite")
            var copied = false
            for attempt in 1...20 {
                do {
                    copied = try db.copyDatabaseFile(toNewFile: target) { _ in }
                    break
                } catch let error as SQLiteError where error.resultCode == .SQLITE_BUSY && attempt < 20 {
                    // The writer's commits kept the lock longer than the busy timeout: not a copy.
                    #expect(!FileManager.default.fileExists(atPath: target))
                }
            }
            if copied { onePass += 1 } else { try db.writeSnapshot(toNewFile: target) }
            if let n = try Self.committedState(target, "copy \(i) (\(copied ? "one pass" : "backup API"))") {
                states.append(n)
            }
            for suffix in ["", "-journal", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: target + suffix)
            }
        }
        FileManager.default.createFile(atPath: stop, contents: nil)
        let result = ChildProcess.result(of: writer, output: output)
        #expect(result.status == 0, "\(result)")
        let last = result.stdout.split(separator: "\n").last.flatMap { $0.split(separator: " ").last }.flatMap {
            Int($0)
        }
        #expect(try Self.committedState(path, "the source after the writer") == last)
        #expect(states == states.sorted(), "copies never go back in time: \(states)")
        if mode == "delete" {
            #expect(onePass == Self.copies, "in rollback mode nothing makes the copy fall back")
        }
        print("copy against a writer process (\(mode)): \(onePass) of \(Self.copies) in one pass, states \(states)")
    }

    /// The copy ends its own read transaction only: another connection's shared lock in this
    /// process still keeps another process from committing (closing a descriptor of the file
    /// would have dropped every POSIX lock this process holds on it).
    @Test func anotherConnectionsLockInThisProcessOutlivesTheCopy() throws {
        let dir = TemporaryDirectory("file-copy-locks")
        let path = try Self.prepare(dir, mode: "delete")
        let reader = try Database(path: path)
        defer { reader.close() }
        let db = try Database(path: path)
        defer { db.close() }
        try reader.execute(sql: "BEGIN")
        _ = try reader.fetchValue(Int.self, sql: "SELECT count(*) FROM t")
        #expect(try db.copyDatabaseFile(toNewFile: dir.file("copy.sqlite")) { _ in })
        let blocked = try ChildProcess.run("StrataTestHelper", ["try-write", path])
        #expect(blocked.stdout == "busy\n", "\(blocked)")
        #expect(try db.copyDatabaseFile(toNewFile: dir.file("copy2.sqlite")) { _ in })
        let stillBlocked = try ChildProcess.run("StrataTestHelper", ["try-write", path])
        #expect(stillBlocked.stdout == "busy\n", "\(stillBlocked)")
        try reader.execute(sql: "COMMIT")
        let written = try ChildProcess.run("StrataTestHelper", ["try-write", path])
        #expect(written.stdout == "written\n", "\(written)")
        #expect(try Self.committedState(dir.file("copy.sqlite"), "the copy") == Self.initialRows)
    }

    /// A writer killed in the middle of a transaction whose pages spilled into the file leaves a
    /// hot journal: the copy is the state before that transaction (SQLite rolls the journal back
    /// as the copy's read transaction starts), never the half-written file.
    @Test func aHotJournalIsRolledBackBeforeTheCopy() throws {
        let dir = TemporaryDirectory("file-copy-hot-journal")
        let path = try Self.prepare(dir, mode: "delete")
        let db = try Database(path: path)
        defer { db.close() }
        let output = TemporaryDirectory("file-copy-hang")
        let writer = try ChildProcess.launch(
            "StrataTestHelper", ["write-and-hang", path, "UPDATE t SET touched = -1"], output: output)
        defer { if writer.isRunning { kill(writer.processIdentifier, SIGKILL) } }
        #expect(Self.waitFor("written", in: output, of: writer), "\(ChildProcess.result(of: writer, output: output))")
        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        #expect(fileBytes(path + "-journal").count > 0, "a hot journal")
        let target = dir.file("copy.sqlite")
        #expect(try db.copyDatabaseFile(toNewFile: target) { _ in })
        #expect(try Self.committedState(target, "the copy") == Self.initialRows)
        #expect(try Self.committedState(path, "the source") == Self.initialRows)
    }

    /// A process killed by SIGKILL while it copies leaves the source whole and every row in it,
    /// and nothing but its copies (whole or cut short) in the folder it copied to.
    @Test(arguments: ["wal", "delete"])
    func aProcessKilledWhileCopyingLeavesTheSourceWhole(mode: String) throws {
        let dir = TemporaryDirectory("file-copy-killed-\(mode)")
        let path = try Self.prepare(dir, mode: mode)
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
        for round in 0..<3 {
            // Its own folder each time: a copy cut short is left there, and never replaced.
            let copies = dir.file("copies-\(round)")
            try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: false)
            let output = TemporaryDirectory("file-copy-loop")
            let copier = try ChildProcess.launch("StrataTestHelper", ["copy-loop", path, copies], output: output)
            defer { if copier.isRunning { kill(copier.processIdentifier, SIGKILL) } }
            #expect(
                Self.waitFor("copying \(round + 2)", in: output, of: copier),
                "\(ChildProcess.result(of: copier, output: output))")
            kill(copier.processIdentifier, SIGKILL)
            copier.waitUntilExit()
            #expect(try Self.committedState(path, "the source after kill \(round)") == Self.initialRows)
        }
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: dir.path)).subtracting(before).subtracting([
                "app.sqlite-wal", "app.sqlite-shm", "copies-0", "copies-1", "copies-2",
            ]).isEmpty)
        let db = try Database(path: path)
        defer { db.close() }
        #expect(try db.copyDatabaseFile(toNewFile: dir.file("after.sqlite")) { _ in })
        #expect(try Self.committedState(dir.file("after.sqlite"), "a copy after the kills") == Self.initialRows)
    }
}
