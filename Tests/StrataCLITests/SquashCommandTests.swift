import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata squash`: a baseline file replaces the first migrations of a folder (issue 28 part 3).
@Suite("Squash command")
struct SquashCommandTests {
    /// A history of `count` migrations over five tables (one of them with a seed row and a
    /// hostile name), each after the fifth adding a column to one of them.
    static func history(_ count: Int) -> [String: String] {
        var files: [String: String] = [:]
        let tables = ["alpha", "beta", "gamma", "delta", "select \"x\""]
        for i in 1...count {
            let name = String(format: "%04d", i)
            if i <= tables.count {
                let quoted = "\"" + tables[i - 1].replacing("\"", with: "\"\"") + "\""
                var sql = "CREATE TABLE \(quoted)(id INTEGER PRIMARY KEY, label TEXT NOT NULL DEFAULT '');"
                if i == 1 { sql += "\nINSERT INTO alpha(label) VALUES ('seed ''row''');" }
                files["\(name)_create_\(i).sql"] = sql
            } else {
                let table = tables[i % tables.count]
                let quoted = "\"" + table.replacing("\"", with: "\"\"") + "\""
                files["\(name)_column_\(i).sql"] = "ALTER TABLE \(quoted) ADD COLUMN c\(i) INTEGER;"
            }
        }
        return files
    }

    /// Every file under `path` (relative path → bytes), for "nothing changed" checks.
    static func snapshot(_ path: String) -> [String: Data] {
        var out: [String: Data] = [:]
        guard let names = FileManager.default.subpaths(atPath: path) else { return out }
        for name in names {
            var isDirectory: ObjCBool = false
            let full = (path as NSString).appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                out[name] = fileBytes(full)
            } else {
                out[name + "/"] = Data()
            }
        }
        return out
    }

    @Test func squashThenVerifyThroughTheCommandLine() throws {
        // 60 migrations through the binary (a 200-migration verify in a debug build outlasts the
        // child-process bound on a loaded machine); SquashVerificationTests squashes and verifies 200.
        let folder = try migrationFolder(Self.history(60))
        let work = TemporaryDirectory("squash")
        let history = work.file("history")
        let recorded = try StrataProcess.run(["history", "--migrations", folder.path, "--out", history])
        #expect(recorded.exitCode == 0, "\(recorded)")

        // Databases made before the squash: one at 45 (all covered), one stopped at 20.
        let full = work.file("full.sqlite")
        let middle = work.file("middle.sqlite")
        for (db, target) in [(full, "45"), (middle, "20")] {
            let made = try StrataProcess.run(["migrate", "--db", db, "--migrations", folder.path, "--to", target])
            #expect(made.exitCode == 0, "\(made)")
        }

        let archive = work.file("archive")
        let squash = try StrataProcess.run([
            "squash", "--migrations", folder.path, "--through", "0045", "--archive", archive,
        ])
        #expect(squash.exitCode == 0, "\(squash)")
        #expect(squash.stdout.contains("0045_baseline.sql: replaces 45 migrations"), "\(squash.stdout)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names.count == 16, "\(names.prefix(3))")
        #expect(names.first == "0045_baseline.sql")
        #expect(try FileManager.default.contentsOfDirectory(atPath: archive).count == 45)
        let text = String(decoding: fileBytes(folder.file("0045_baseline.sql")), as: UTF8.self)
        #expect(text.hasPrefix("-- strata:baseline\n-- covers: 0001_create_1\n"))
        #expect(
            text.contains("-- archive: ../" + URL(fileURLWithPath: work.path).lastPathComponent + "/archive\n"),
            "relative to the folder")
        #expect(text.contains("INSERT INTO \"alpha\""), "the seed row is carried")

        // The squashed set is equivalent: every historical version upgrades to a fresh install.
        let verify = try StrataProcess.run([
            "verify", "--history", history, "--migrations", folder.path, "--rows", "2",
        ])
        #expect(verify.exitCode == 0, "\(verify.stderr)")
        #expect(verify.stdout.split(separator: "\n").count == 60)

        // Old databases reach head: the complete one skips the baseline, the stopped one runs originals.
        let fresh = work.file("fresh.sqlite")
        for db in [full, middle, fresh] {
            let migrated = try StrataProcess.run(["migrate", "--db", db, "--migrations", folder.path])
            #expect(migrated.exitCode == 0, "\(db): \(migrated)")
        }
        let freshDB = try Database(path: fresh)
        defer { freshDB.close() }
        let expected = try DatabaseSchema.read(from: freshDB)
        for db in [full, middle] {
            let opened = try Database(path: db)
            defer { opened.close() }
            #expect(try DatabaseSchema.read(from: opened).differences(from: expected).isEmpty, "\(db)")
            #expect(
                try opened.fetchValue(String.self, sql: "SELECT label FROM alpha WHERE id = 1") == "seed 'row'")
        }
        #expect(try freshDB.fetchValue(String.self, sql: "SELECT label FROM alpha WHERE id = 1") == "seed 'row'")
        let ledger = try freshDB.fetchColumn(String.self, sql: "SELECT identifier FROM strata_migrations")
        #expect(ledger.count == 16 && ledger.first == "0045_baseline")
    }

    @Test func withoutAnArchiveAStoppedDatabaseIsRefusedNamingTheOldestSupported() throws {
        let folder = try migrationFolder(Self.history(12))
        let work = TemporaryDirectory("squash")
        let stopped = work.file("stopped.sqlite")
        _ = try StrataProcess.run(["migrate", "--db", stopped, "--migrations", folder.path, "--to", "6"])
        let before = fileBytes(stopped)
        let squash = try StrataProcess.run(["squash", "--migrations", folder.path, "--through", "10"])
        #expect(squash.exitCode == 0, "\(squash)")
        let refused = try StrataProcess.run(["migrate", "--db", stopped, "--migrations", folder.path])
        #expect(refused.exitCode != 0)
        #expect(refused.stderr.contains("database stopped at 0006_column_6"), "\(refused.stderr)")
        #expect(refused.stderr.contains("the oldest version this app supports is 0010_column_10"), "\(refused.stderr)")
        #expect(fileBytes(stopped) == before, "nothing written")
    }

    @Test func oldestSupportedKeepsOnlyTheOriginalsAfterIt() throws {
        let folder = try migrationFolder(Self.history(12))
        let work = TemporaryDirectory("squash")
        let archive = work.file("archive")
        let at8 = work.file("at8.sqlite")
        let at3 = work.file("at3.sqlite")
        _ = try StrataProcess.run(["migrate", "--db", at8, "--migrations", folder.path, "--to", "8"])
        _ = try StrataProcess.run(["migrate", "--db", at3, "--migrations", folder.path, "--to", "3"])
        let squash = try StrataProcess.run([
            "squash", "--migrations", folder.path, "--through", "10", "--archive", archive, "--oldest-supported", "7",
        ])
        #expect(squash.exitCode == 0, "\(squash)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: archive).sorted() == [
                "0008_column_8.sql", "0009_column_9.sql", "0010_column_10.sql",
            ])
        let ok = try StrataProcess.run(["migrate", "--db", at8, "--migrations", folder.path])
        #expect(ok.exitCode == 0, "\(ok)")
        let refused = try StrataProcess.run(["migrate", "--db", at3, "--migrations", folder.path])
        #expect(refused.exitCode != 0)
        #expect(refused.stderr.contains("the oldest version this app supports is 0007_column_7"), "\(refused.stderr)")
        // Without an archive, an older oldest-supported cannot be kept.
        let other = try migrationFolder(Self.history(6))
        let needsArchive = try StrataProcess.run([
            "squash", "--migrations", other.path, "--through", "5", "--oldest-supported", "2",
        ])
        #expect(needsArchive.exitCode != 0)
        #expect(needsArchive.stderr.contains("give --archive DIR"), "\(needsArchive.stderr)")
    }

    @Test func everyFailureLeavesTheFoldersUnchanged() throws {
        let folder = try migrationFolder(Self.history(12))
        let work = TemporaryDirectory("squash")
        let archive = work.file("archive")
        try FileManager.default.createDirectory(atPath: archive, withIntermediateDirectories: false)
        let before = Self.snapshot(work.path)
        let folderBefore = Self.snapshot(folder.path)

        func expectRefused(
            _ arguments: [String], _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation
        )
            throws
        {
            let result = try StrataProcess.run(["squash", "--migrations", folder.path] + arguments)
            #expect(result.exitCode != 0, "\(result)", sourceLocation: sourceLocation)
            #expect(result.stderr.contains(fragment), "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(Self.snapshot(folder.path) == folderBefore, "migrations folder", sourceLocation: sourceLocation)
            #expect(Self.snapshot(work.path) == before, "archive", sourceLocation: sourceLocation)
        }
        // A bad identifier.
        try expectRefused(["--through", "99"], "99: no migration with this identifier or number")
        try expectRefused(
            ["--through", "10", "--oldest-supported", "11", "--archive", archive], "--oldest-supported 11")
        // An archive that is a file, and one that cannot be created.
        let notAFolder = work.file("file.txt")
        try Data("x".utf8).write(to: URL(fileURLWithPath: notAFolder))
        let withFile = Self.snapshot(work.path)
        let result = try StrataProcess.run([
            "squash", "--migrations", folder.path, "--through", "10", "--archive", notAFolder,
        ])
        #expect(result.exitCode != 0 && result.stderr.contains("exists and is not a folder"), "\(result)")
        #expect(Self.snapshot(folder.path) == folderBefore && Self.snapshot(work.path) == withFile)
        try FileManager.default.removeItem(atPath: notAFolder)
        try expectRefused(
            ["--through", "10", "--archive", "/proc/strata-squash-archive"], "cannot create the folder")
        // A file of the same name with other bytes in the archive: a checksum mismatch.
        try Data("CREATE TABLE other(x);".utf8).write(
            to: URL(fileURLWithPath: (archive as NSString).appendingPathComponent("0003_create_3.sql")))
        let withConflict = Self.snapshot(work.path)
        let mismatch = try StrataProcess.run([
            "squash", "--migrations", folder.path, "--through", "10", "--archive", archive,
        ])
        #expect(mismatch.exitCode != 0 && mismatch.stderr.contains("already exists with other contents"), "\(mismatch)")
        #expect(Self.snapshot(folder.path) == folderBefore && Self.snapshot(work.path) == withConflict)
        try FileManager.default.removeItem(atPath: (archive as NSString).appendingPathComponent("0003_create_3.sql"))
        // A failure in the middle (the seventh copy cannot be written, through the binary's file
        // seam): the six copies are removed.
        let withArchive = Self.snapshot(work.path)
        let middle = try ChildProcess.run(
            "strata", ["squash", "--migrations", folder.path, "--through", "10", "--archive", archive],
            environment: ["STRATA_TEST_FILE_FAIL": "write \(archive)/.0007_column_7.sql.strata-tmp-"])
        #expect(middle.exitCode != 0 && middle.stderr.contains("cannot write the file (write: "), "\(middle)")
        #expect(Self.snapshot(folder.path) == folderBefore, "migrations folder after a failure in the middle")
        #expect(Self.snapshot(work.path) == withArchive, "archive after a failure in the middle")
    }
}
