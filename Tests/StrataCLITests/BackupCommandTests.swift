import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata apply --backup`: the backup never destroys what is at its path, is never the database
/// itself (by any spelling), is written whole or not at all, and is no more readable than the
/// database it copies.
@Suite("strata apply --backup")
struct BackupCommandTests {
    static let v1 = "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);\n"
    static let v2 = "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL, tag TEXT);\n"

    struct Fixture {
        let dir = TemporaryDirectory("strata-backup")
        var db: String { dir.file("app.sqlite") }
        var schema: String { dir.file("schema.sql") }

        /// A database of `rows` notes (about 100 bytes each) with permissions `mode`, and a
        /// desired schema that adds a column.
        init(rows: Int = 50, wal: Bool = false, mode: Int = 0o644) throws {
            let database = try Database(path: db)
            if wal { try database.execute(sql: "PRAGMA journal_mode = WAL") }
            try database.execute(sql: BackupCommandTests.v1)
            try database.execute(
                sql: """
                    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < \(rows))
                    INSERT INTO note(body) SELECT printf('note %d %s', i, hex(randomblob(40))) FROM c
                    """)
            database.close()
            try Data(BackupCommandTests.v2.utf8).write(to: URL(fileURLWithPath: schema))
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: db)
        }

        func apply(backup: String, force: Bool = false, in directory: String? = nil) throws -> ChildProcess.Result {
            try StrataProcess.run(
                ["apply", "--db", db, "--schema", schema, "--backup", backup] + (force ? ["--force-backup"] : []),
                in: directory)
        }

        /// The names in the fixture's folder, hidden ones included.
        func entries() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() }
    }

    static func mode(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// The attack of issue 11: a running app's database, reached through another spelling, a
    /// symbolic link, a hard link, or its -wal/-shm/-journal file, given as the backup path.
    @Test func theDatabaseByAnyOtherNameIsRefused() throws {
        let f = try Fixture(wal: true)
        // The app keeps its connection open; its last row is committed in the WAL only.
        let app = try Database(path: f.db)
        defer { app.close() }
        try app.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        try app.execute(sql: "INSERT INTO note(body) VALUES ('committed by the app')")
        try FileManager.default.createSymbolicLink(atPath: f.dir.file("link.sqlite"), withDestinationPath: f.db)
        try FileManager.default.linkItem(atPath: f.db, toPath: f.dir.file("hard.sqlite"))
        try FileManager.default.createDirectory(atPath: f.dir.file("sub"), withIntermediateDirectories: false)
        let before = try DatabaseContents(app)
        // No byte comparison here: reading the file in this process would close a descriptor on
        // it, which drops the app connection's POSIX locks (and lets strata checkpoint the WAL).
        let entries = try f.entries()
        #expect(entries.contains("app.sqlite-wal"))

        let aliases: [(backup: String, says: String)] = [
            ("./app.sqlite", "is the database being backed up"),
            ("sub/../app.sqlite", "is the database being backed up"),
            (f.dir.path + "//app.sqlite", "is the database being backed up"),
            (f.dir.file("link.sqlite"), "is the database being backed up"),
            (f.dir.file("hard.sqlite"), "is the database being backed up"),
            ("app.sqlite-wal", "is the write-ahead log of the database being backed up"),
            ("./app.sqlite-shm", "is the shared-memory file of the database being backed up"),
            ("app.sqlite-journal", "is the rollback journal of the database being backed up"),
        ]
        for (backup, says) in aliases {
            for force in [false, true] {
                let r = try f.apply(backup: backup, force: force, in: f.dir.path)
                let label = "\(backup)\(force ? " --force-backup" : "")"
                #expect(r.exitCode == 1, "\(label): \(r)")
                #expect(r.stdout == "", "\(label): \(r)")
                #expect(r.stderr.hasPrefix("strata: \(backup): \(says)"), "\(label): \(r.stderr)")
                #expect(r.stderr.filter { $0 == "\n" }.count == 1, "\(label): not one line: \(r.stderr)")
                #expect(try DatabaseContents(app) == before, "\(label): the app's database changed")
                #expect(try f.entries() == entries, "\(label): files appeared or vanished")
            }
        }
        let fresh = try Database(path: f.db)
        defer { fresh.close() }
        #expect(try DatabaseContents(fresh) == before)
        #expect(
            try fresh.fetchValue(Int.self, sql: "SELECT count(*) FROM note WHERE body = 'committed by the app'") == 1)
    }

    @Test func anExistingFileIsReplacedOnlyWithForceBackup() throws {
        let f = try Fixture(mode: 0o600)
        let target = f.dir.file("backup.sqlite")
        let older = Data("an older backup the user keeps".utf8)
        try older.write(to: URL(fileURLWithPath: target))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target)
        let db = try Database(path: f.db)
        let before = try DatabaseContents(db)
        db.close()
        let bytes = fileBytes(f.db)

        let refused = try f.apply(backup: target)
        #expect(refused.exitCode == 1, "\(refused)")
        #expect(refused.stdout == "")
        #expect(refused.stderr == "strata: \(target): already exists (pass --force-backup to replace it)\n")
        #expect(fileBytes(target) == older)
        #expect(fileBytes(f.db) == bytes)

        let forced = try f.apply(backup: target, force: true)
        #expect(forced.exitCode == 0, "\(forced)")
        #expect(forced.stderr == "Backed up \(f.db) to \(target).\n")
        let backup = try Database(path: target)
        defer { backup.close() }
        #expect(try DatabaseContents(backup) == before, "the backup is the database as it was before the apply")
        #expect(try Self.mode(target) == 0o600, "the replaced file's 0644 leaked into the backup")
        #expect(try f.entries() == ["app.sqlite", "backup.sqlite", "schema.sql"], "a temporary file was left behind")
    }

    @Test func directoriesLinksAndSpecialFilesAreNeverReplaced() throws {
        let f = try Fixture()
        let folder = f.dir.file("kept")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try Data("precious".utf8).write(to: URL(fileURLWithPath: folder + "/inside.txt"))
        let other = f.dir.file("other.sqlite")
        try Data("not the backup".utf8).write(to: URL(fileURLWithPath: other))
        let link = f.dir.file("link-to-other.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: other)
        let fifo = f.dir.file("pipe")
        #expect(mkfifo(fifo, 0o644) == 0)
        let bytes = fileBytes(f.db)
        let entries = try f.entries()

        let cases: [(backup: String, says: String)] = [
            (folder, "is a directory"),
            (link, "is a symbolic link"),
            (fifo, "is not a regular file"),
        ]
        for (backup, says) in cases {
            for force in [false, true] {
                let r = try f.apply(backup: backup, force: force)
                let label = "\(backup)\(force ? " --force-backup" : "")"
                #expect(r.exitCode == 1, "\(label): \(r)")
                #expect(r.stderr.hasPrefix("strata: \(backup): \(says)"), "\(label): \(r.stderr)")
                #expect(r.stderr.filter { $0 == "\n" }.count == 1, "\(label): \(r.stderr)")
                #expect(
                    fileBytes(folder + "/inside.txt") == Data("precious".utf8), "\(label): the folder lost its file")
                #expect(fileBytes(other) == Data("not the backup".utf8), "\(label)")
                #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == other, "\(label)")
                #expect(try f.entries() == entries, "\(label)")
                #expect(fileBytes(f.db) == bytes, "\(label): the database changed")
            }
        }
    }

    /// A backup that cannot be written (its folder is missing or is a file): the error names the
    /// backup path, nothing is created, nothing is applied.
    @Test func unwritableBackupPathsNameTheBackup() throws {
        let f = try Fixture()
        let bytes = fileBytes(f.db)
        let entries = try f.entries()
        let cases: [(backup: String, says: String)] = [
            (f.schema + "/backup.sqlite", "Not a directory"),
            (f.dir.file("missing/backup.sqlite"), "No such file or directory"),
        ]
        for (backup, says) in cases {
            let r = try f.apply(backup: backup)
            #expect(r.exitCode == 1, "\(backup): \(r)")
            #expect(r.stdout == "")
            #expect(r.stderr.hasPrefix("strata: \(backup): cannot write the backup"), "\(backup): \(r.stderr)")
            #expect(r.stderr.contains(says), "\(backup): \(r.stderr)")
            #expect(fileBytes(f.db) == bytes, "\(backup): the database changed")
            #expect(try f.entries() == entries, "\(backup)")
        }
    }

    /// Disk full while the backup is written: no partial backup, an older one kept intact, the
    /// error names the backup path, and the schema change is not applied.
    @Test(
        .enabled(
            if: SmallFileSystem.isAvailable,
            "mounting a small tmpfs failed (needs Linux and root): disk full cannot be staged"))
    func aFullDiskLeavesNoPartialBackup() throws {
        let f = try Fixture(rows: 4000)
        #expect(fileBytes(f.db).count > 400_000)
        let small = try SmallFileSystem(kilobytes: 200)
        let bytes = fileBytes(f.db)

        let target = small.file("backup.sqlite")
        let r = try f.apply(backup: target)
        #expect(r.exitCode == 1, "\(r)")
        #expect(r.stderr.hasPrefix("strata: \(target): cannot write the backup"), "\(r.stderr)")
        #expect(r.stderr.contains("disk is full"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: small.path) == [], "a partial backup was left")
        #expect(fileBytes(f.db) == bytes, "the change was applied although the backup failed")

        let older = Data(repeating: 7, count: 20_000)
        try older.write(to: URL(fileURLWithPath: target))
        let forced = try f.apply(backup: target, force: true)
        #expect(forced.exitCode == 1, "\(forced)")
        #expect(forced.stderr.hasPrefix("strata: \(target): cannot write the backup"), "\(forced.stderr)")
        #expect(fileBytes(target) == older, "the older backup was damaged")
        #expect(try FileManager.default.contentsOfDirectory(atPath: small.path) == ["backup.sqlite"])
        #expect(fileBytes(f.db) == bytes)
    }

    /// The same without root (issue 24, item 9): a file size limit (`ulimit -f`, with SIGXFSZ
    /// ignored so that the write fails with EFBIG) stops the backup partway. No partial backup is
    /// left at its path, an older one is kept intact, and the change is not applied. A backup
    /// written in place, not into a temporary file renamed at the end, fails this test wherever
    /// the tmpfs test above is skipped.
    @Test func aFileSizeLimitLeavesNoPartialBackup() throws {
        let f = try Fixture(rows: 4000)
        #expect(fileBytes(f.db).count > 400_000)
        let folder = f.dir.file("backups")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let bytes = fileBytes(f.db)
        let target = folder + "/backup.sqlite"
        let r = try Self.apply(f, backup: target, fileSizeLimitBlocks: 200)
        #expect(r.exitCode == 1, "\(r)")
        #expect(r.stderr.hasPrefix("strata: \(target): cannot write the backup"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [], "a partial backup was left")
        #expect(fileBytes(f.db) == bytes, "the change was applied although the backup failed")

        let older = Data(repeating: 7, count: 20_000)
        try older.write(to: URL(fileURLWithPath: target))
        let forced = try Self.apply(f, backup: target, force: true, fileSizeLimitBlocks: 200)
        #expect(forced.exitCode == 1, "\(forced)")
        #expect(forced.stderr.hasPrefix("strata: \(target): cannot write the backup"), "\(forced.stderr)")
        #expect(fileBytes(target) == older, "the older backup was damaged")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["backup.sqlite"])
        #expect(fileBytes(f.db) == bytes)
    }

    /// `--force-backup` replaces the older file by renaming a new one over it: the older file's
    /// inode (kept here by a hard link) still holds the older bytes, and the backup is a separate
    /// file with the database's rows. A backup written in place would have overwritten them (no
    /// root needed, unlike the tmpfs test).
    @Test func aForcedBackupReplacesTheOlderFileInsteadOfWritingIntoIt() throws {
        let f = try Fixture(rows: 200)
        let before: DatabaseContents
        do {
            let db = try Database(path: f.db)
            before = try DatabaseContents(db)
            db.close()
        }
        let target = f.dir.file("backup.sqlite")
        // An older backup that is a database too: a writer in place could open it and copy into it.
        do {
            let olderBackup = try Database(path: target)
            try olderBackup.execute(sql: "CREATE TABLE old(x); INSERT INTO old VALUES ('an older backup')")
            olderBackup.close()
        }
        let older = fileBytes(target)
        let olderLink = f.dir.file("older-backup-link")
        try FileManager.default.linkItem(atPath: target, toPath: olderLink)

        let r = try f.apply(backup: target, force: true)
        #expect(r.exitCode == 0, "\(r)")
        #expect(fileBytes(olderLink) == older, "the backup was written into the older file (in place)")
        #expect(try Self.inode(target) != Self.inode(olderLink))
        #expect(try Self.inode(target) != Self.inode(f.db))
        let backup = try Database(path: target)
        #expect(try DatabaseContents(backup) == before)
        backup.close()
    }

    static func inode(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.intValue ?? -1
    }

    /// `strata apply --backup` under `ulimit -f blocks` (SIGXFSZ ignored: writes past the limit
    /// fail with EFBIG instead of killing the process), bounded like every child process.
    static func apply(
        _ f: Fixture, backup: String, force: Bool = false, fileSizeLimitBlocks blocks: Int
    ) throws -> ChildProcess.Result {
        let output = TemporaryDirectory("strata-fsize")
        let strata = try ChildProcess.executable("strata").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments =
            ["-c", "trap '' XFSZ; ulimit -f \(blocks) && exec \"$0\" \"$@\"", strata]
            + ["apply", "--db", f.db, "--schema", f.schema, "--backup", backup] + (force ? ["--force-backup"] : [])
        for file in ["stdout", "stderr"] {
            _ = FileManager.default.createFile(atPath: output.file(file), contents: nil)
        }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output.file("stdout")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: output.file("stderr")))
        try process.run()
        return ChildProcess.result(of: process, output: output)
    }

    /// A backup is as private as its database (issue 11, item 4), rollback journal or WAL.
    @Test func theBackupHasTheDatabasePermissions() throws {
        for wal in [false, true] {
            for mode in [0o600, 0o640] {
                let f = try Fixture(wal: wal, mode: mode)
                let label = "\(wal ? "WAL" : "rollback journal"), mode \(String(mode, radix: 8))"
                let db = try Database(path: f.db)
                let before = try DatabaseContents(db)
                db.close()
                let target = f.dir.file("backup.sqlite")
                let r = try f.apply(backup: target)
                #expect(r.exitCode == 0, "\(label): \(r)")
                let backupMode = try Self.mode(target)
                #expect(backupMode & ~mode == 0, "\(label): the backup is \(String(backupMode, radix: 8))")
                #expect(backupMode & 0o600 == 0o600, "\(label): the owner cannot read the backup")
                let backup = try Database(path: target)
                #expect(try DatabaseContents(backup) == before, "\(label)")
                backup.close()
            }
        }
    }

    @Test func forceBackupNeedsBackup() throws {
        let f = try Fixture()
        let bytes = fileBytes(f.db)
        let r = try StrataProcess.run(["apply", "--db", f.db, "--schema", f.schema, "--force-backup"])
        #expect(r.exitCode == 1, "\(r)")
        #expect(r.stderr.contains("--force-backup needs --backup"), "\(r.stderr)")
        #expect(fileBytes(f.db) == bytes)
    }
}
