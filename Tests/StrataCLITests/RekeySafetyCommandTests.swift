import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata rekey` writes a new file beside the database and renames it over the old one
/// (issue 24): the journal mode, owner and permissions are kept, a symbolic link stays a link,
/// and what cannot be done safely (other hard links, another connection, a full disk, a file that
/// is not a regular file) is refused with the database byte-identical and no copy left behind.
/// `RekeyKillTests` (StrataReliabilityTests) kills it a thousand times.
@Suite("strata rekey: crash-safe by construction")
struct RekeySafetyCommandTests {
    static let marker = "STRATA-REKEY-SAFETY-MARKER-41aa"

    struct Fixture {
        let dir = TemporaryDirectory("strata-rekey-safety")
        var db: String { dir.file("app 'q' db.sqlite") }
        var oldKey: String { dir.file("old.key") }
        var newKey: String { dir.file("new.key") }

        init(wal: Bool = false, encrypted: Bool = true, rows: Int = 300) throws {
            try Data("old secret\n".utf8).write(to: URL(fileURLWithPath: oldKey))
            try Data("new secret\n".utf8).write(to: URL(fileURLWithPath: newKey))
            let db = try open(encrypted ? "old secret" : nil)
            defer { db.close() }
            _ = try db.fetchValue(String.self, sql: "PRAGMA journal_mode = \(wal ? "WAL" : "DELETE")")
            try db.execute(sql: "CREATE TABLE \"select\"(id INTEGER PRIMARY KEY, \"a b\" TEXT NOT NULL)")
            try db.execute(
                sql: """
                    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < \(rows))
                    INSERT INTO "select"("a b") SELECT printf('%s %d %s', ?, i, hex(randomblob(40))) FROM c
                    """, arguments: [RekeySafetyCommandTests.marker])
        }

        func open(_ passphrase: String?, path: String? = nil) throws -> Database {
            var configuration = Configuration()
            if let passphrase { configuration.encryptionKey = { .passphrase(passphrase) } }
            return try Database(path: path ?? db, configuration: configuration)
        }

        func snapshot(_ passphrase: String?) throws -> DatabaseContents {
            let db = try open(passphrase)
            defer { db.close() }
            return try DatabaseContents(db)
        }

        func journalMode(_ passphrase: String?) throws -> String? {
            let db = try open(passphrase)
            defer { db.close() }
            return try db.fetchValue(String.self, sql: "PRAGMA journal_mode")
        }

        /// `strata rekey` from the old key (or none) to the new key (or --remove-key), bounded in time.
        func rekey(from: Bool = true, to: Bool = true, extra: [String] = []) throws -> ChildProcess.BoundedResult {
            try ChildProcess.strata(
                ["rekey", "--db", db] + (from ? ["--key-file", oldKey] : [])
                    + (to ? ["--new-key-file", newKey] : ["--remove-key"]) + extra,
                seconds: 60)
        }

        /// The copies a rekey writes beside the database.
        var copies: [String] { filesIn(dir.path).filter { $0.contains(".strata-rekey-") } }
    }

    @Test(.requiresEncryption) func theJournalModeIsKeptInEveryMode() throws {
        for wal in [false, true] {
            for (from, to) in [(false, true), (true, true), (true, false)] {
                let f = try Fixture(wal: wal, encrypted: from)
                let label =
                    "\(wal ? "WAL" : "rollback journal"), \(from ? "key" : "plaintext") → \(to ? "key" : "plaintext")"
                let before = try f.snapshot(from ? "old secret" : nil)
                let r = try f.rekey(from: from, to: to)
                #expect(r.result.status == 0 && !r.timedOut, "\(label): \(r)")
                #expect(try f.snapshot(to ? "new secret" : nil) == before, "\(label): rows")
                #expect(try f.journalMode(to ? "new secret" : nil) == (wal ? "wal" : "delete"), "\(label)")
                #expect(fileBytes(f.db).starts(with: Data("SQLite format 3\0".utf8)) == !to, "\(label): header")
                #expect(f.copies.isEmpty, "\(label): \(f.copies)")
                if from, to {
                    let leaks = plaintextLeaks(in: f.dir.path, marker: Self.marker)
                    #expect(leaks.isEmpty, "\(label): \(leaks)")
                }
            }
        }
    }

    @Test(.requiresEncryption) func ownerPermissionsAndSymbolicLinksAreKept() throws {
        let f = try Fixture()
        #expect(chmod(f.db, 0o640) == 0)
        let isRoot = geteuid() == 0
        if isRoot { #expect(chown(f.db, 65534, 65534) == 0) }
        let r = try f.rekey()
        #expect(r.result.status == 0, "\(r)")
        var st = stat()
        #expect(stat(f.db, &st) == 0)
        #expect(st.st_mode & 0o7777 == 0o640)
        if isRoot { #expect(st.st_uid == 65534 && st.st_gid == 65534, "owner \(st.st_uid):\(st.st_gid)") }

        // Through a symbolic link: the link stays, its target gets the new key.
        let link = f.dir.file("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: f.db)
        let viaLink = try ChildProcess.strata(
            ["rekey", "--db", link, "--key-file", f.newKey, "--new-key-file", f.oldKey], seconds: 60)
        #expect(viaLink.result.status == 0, "\(viaLink)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == f.db)
        #expect(try f.open("old secret").fetchValue(Int.self, sql: "SELECT count(*) FROM \"select\"") == 300)
        #expect(f.copies.isEmpty, "\(f.copies)")
    }

    @Test(.requiresEncryption) func whatCannotBeDoneSafelyIsRefusedAndChangesNothing() throws {
        // Another name for the file would keep the old key and content.
        do {
            let f = try Fixture()
            try FileManager.default.linkItem(atPath: f.db, toPath: f.dir.file("second-name.sqlite"))
            let before = fileBytes(f.db)
            let r = try f.rekey()
            #expect(r.result.status == 1 && r.result.stderr.contains("has 2 hard links"), "\(r)")
            #expect(r.result.stderr.split(separator: "\n").count == 1, "\(r)")
            #expect(fileBytes(f.db) == before && f.copies.isEmpty)
        }
        // A connection holding the write lock (rollback journal), a reader, an idle WAL connection.
        for (wal, helper) in [(false, "lock"), (false, "read-until-input"), (true, "")] {
            let f = try Fixture(wal: wal)
            let before = fileBytes(f.db)
            let r: ChildProcess.BoundedResult
            if helper.isEmpty {
                let other = try f.open("old secret")
                defer { other.close() }
                r = try f.rekey(extra: ["--busy-timeout", "300"])
            } else {
                let output = TemporaryDirectory("strata-rekey-holder")
                let input = Pipe()
                let process = try ChildProcess.launch(
                    "StrataTestHelper", [helper, f.db], output: output, stdin: input,
                    environment: ["STRATA_TEST_KEY": "old secret"])
                defer {
                    input.fileHandleForWriting.write(Data("\n".utf8))
                    process.waitUntilExit()
                }
                for _ in 0..<2000 where process.isRunning {
                    let said = String(decoding: fileBytes(output.file("stdout")), as: UTF8.self)
                    if said.contains("locked") || said.contains("reading") { break }
                    usleep(5000)
                }
                r = try f.rekey(extra: ["--busy-timeout", "300"])
            }
            #expect(r.result.status == 1, "\(helper): \(r)")
            // Refused when the lock is not granted: opening the database (a writer holds EXCLUSIVE),
            // or taking the rekey's exclusive lock (a reader, an idle WAL connection).
            #expect(r.result.stderr.contains("another connection"), "\(helper): \(r)")
            #expect(r.result.stderr.split(separator: "\n").count == 1, "\(helper): \(r)")
            #expect(fileBytes(f.db) == before, "\(helper): the database changed")
            #expect(f.copies.isEmpty, "\(helper): \(f.copies)")
            #expect(try f.snapshot("old secret").rows["select"]?.count == 300)
        }
    }

    @Test(
        .requiresEncryption,
        .enabled(if: SmallFileSystem.isAvailable, "mounting a small tmpfs failed: needs root on Linux"))
    func aFullDiskLeavesTheDatabaseAndNoCopy() throws {
        let small = try SmallFileSystem(kilobytes: 640)
        let f = try Fixture(rows: 2500)
        let db = small.file("app.sqlite")
        try FileManager.default.copyItem(atPath: f.db, toPath: db)
        let before = fileBytes(db)
        #expect(before.count > 320 * 1024, "the database (\(before.count) bytes) must not fit twice")
        let r = try ChildProcess.strata(
            ["rekey", "--db", db, "--key-file", f.oldKey, "--new-key-file", f.newKey], seconds: 60)
        #expect(r.result.status == 1 && !r.timedOut, "\(r)")
        #expect(r.result.stderr.contains("database or disk is full"), "\(r)")
        #expect(r.result.stderr.contains("the database is unchanged"), "\(r)")
        #expect(fileBytes(db) == before)
        #expect(filesIn(small.path) == ["app.sqlite"], "\(filesIn(small.path))")
    }

    @Test(.requiresEncryption) func aKilledRekeysCopiesAreRemovedByTheNextOne() throws {
        let f = try Fixture()
        // Kill strata rekey as soon as its copy exists.
        let output = TemporaryDirectory("strata-rekey-kill-once")
        let process = try ChildProcess.launch(
            "strata", ["rekey", "--db", f.db, "--key-file", f.oldKey, "--new-key-file", f.newKey], output: output)
        for _ in 0..<20000 where process.isRunning && f.copies.isEmpty { usleep(100) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let left = f.copies
        let stillOld = (try? f.open("old secret")) != nil
        if stillOld {
            #expect(!left.isEmpty, "the copy was seen before the kill")
            let r = try f.rekey()
            #expect(r.result.status == 0, "\(r)")
        }
        #expect(f.copies.isEmpty, "left: \(f.copies)")
        #expect(try f.snapshot("new secret").rows["select"]?.count == 300)
    }
}
