import Foundation
import Strata
import StrataTestSupport
import Testing

/// Database files that are damaged, foreign, unwritable or locked: `strata apply` exits 1 with
/// the database named first, the library throws, and the file's bytes never change.
@Suite("Hostile database files")
struct HostileDatabaseFileTests {
    static let desired =
        "CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, born INTEGER, extra TEXT);"

    /// A real database (hundreds of rows) at `name` in `dir`.
    static func database(_ dir: TemporaryDirectory, _ name: String = "db.sqlite") throws -> String {
        let path = dir.file(name)
        try CrashFixture.makeOldDatabase(at: path, books: 3000)
        return path
    }

    /// Runs `strata apply` and the library on `path`; both must fail, mentioning `mentions`,
    /// and leave the file as it was.
    func expectRefused(
        _ path: String, label: String, mentions: [String], libraryConfiguration: Configuration = Configuration()
    ) throws {
        let bytes = fileBytes(path)
        let dir = TemporaryDirectory("strata-hostile-schema")
        let schema = dir.file("schema.sql")
        try Data((CrashFixture.newSchema).utf8).write(to: URL(fileURLWithPath: schema))
        let r = try ChildProcess.strata(["apply", "--db", path, "--schema", schema])
        #expect(r.status == 1, "\(label): \(r)")
        #expect(r.stderr.hasPrefix("strata: \(path): "), "\(label): \(r.stderr)")
        for m in mentions { #expect(r.stderr.contains(m), "\(label): `\(m)` not in \(r.stderr)") }
        #expect(fileBytes(path) == bytes, "\(label): the CLI changed the file")

        var failure: String? = nil
        do {
            let db = try Database(path: path, configuration: libraryConfiguration)
            defer { db.close() }
            try db.migrateSchema(to: CrashFixture.newSchema)
        } catch {
            failure = "\(error)"
        }
        #expect(failure != nil, "\(label): the library applied the change")
        for m in mentions { #expect(failure?.contains(m) ?? false, "\(label): `\(m)` not in \(failure ?? "")") }
        #expect(fileBytes(path) == bytes, "\(label): the library changed the file")
    }

    @Test func aTruncatedDatabase() throws {
        let dir = TemporaryDirectory("strata-truncated")
        let path = try Self.database(dir)
        let bytes = fileBytes(path)
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
        try expectRefused(path, label: "truncated", mentions: ["malformed"])
    }

    @Test func aDatabaseWithAGarbagePage() throws {
        let dir = TemporaryDirectory("strata-corrupt")
        let path = try Self.database(dir)
        var bytes = fileBytes(path)
        var rng = SeededRandom(seed: 3)
        let page = 4096
        let target = (bytes.count / page) / 2 * page
        for i in target..<(target + page) { bytes[i] = UInt8.random(in: 0...255, using: &rng) }
        try bytes.write(to: URL(fileURLWithPath: path))
        try expectRefused(path, label: "garbage page", mentions: ["malformed"])
    }

    @Test func aDatabaseWithAGarbageHeader() throws {
        let dir = TemporaryDirectory("strata-header")
        let path = try Self.database(dir)
        var bytes = fileBytes(path)
        for i in 0..<100 { bytes[i] = UInt8(truncatingIfNeeded: i * 37) }
        try bytes.write(to: URL(fileURLWithPath: path))
        try expectRefused(path, label: "garbage header", mentions: ["file is not a database"])
        let dump = try ChildProcess.strata(["dump", "--db", path])
        #expect(dump.status == 1 && dump.stderr.hasPrefix("strata: \(path): not an SQLite database"), "\(dump)")
    }

    @Test func aFileThatIsNotADatabase() throws {
        let dir = TemporaryDirectory("strata-not-db")
        let path = dir.file("notes.txt")
        try Data(String(repeating: "CREATE TABLE looks_like_sql(a);\n", count: 100).utf8).write(
            to: URL(fileURLWithPath: path))
        try expectRefused(path, label: "text file", mentions: ["file is not a database"])
        let dump = try ChildProcess.strata(["dump", "--db", path])
        #expect(dump.status == 1 && dump.stderr.hasPrefix("strata: \(path): not an SQLite database"), "\(dump)")
    }

    @Test func aDirectoryGivenAsTheDatabase() throws {
        let dir = TemporaryDirectory("strata-dir-db")
        try FileManager.default.createDirectory(atPath: dir.file("a folder.sqlite"), withIntermediateDirectories: false)
        // Refused before SQLite opens it (issue 24), naming what it is.
        try expectRefused(
            dir.file("a folder.sqlite"), label: "directory", mentions: ["not a regular file (a directory)"])
    }

    @Test(.enabled(if: Unwritable.isPossible, "needs chmod to bind (not root) or chattr +i"))
    func aReadOnlyFile() throws {
        let dir = TemporaryDirectory("strata-readonly")
        let path = try Self.database(dir)
        try Unwritable.make(path)
        defer { Unwritable.undo(path) }
        try expectRefused(path, label: "read-only file", mentions: ["readonly"])
    }

    @Test(.enabled(if: Unwritable.isPossible, "needs chmod to bind (not root) or chattr +i"))
    func aDatabaseInAReadOnlyDirectory() throws {
        let dir = TemporaryDirectory("strata-readonly-dir")
        try FileManager.default.createDirectory(atPath: dir.file("ro"), withIntermediateDirectories: false)
        let path = try Self.database(dir, "ro/db.sqlite")
        try Unwritable.make(dir.file("ro"))
        defer { Unwritable.undo(dir.file("ro")) }
        // The rollback journal cannot be created next to the database.
        try expectRefused(path, label: "read-only directory", mentions: ["unable to open"])
        let schema = dir.file("schema.sql")
        try Data(CrashFixture.newSchema.utf8).write(to: URL(fileURLWithPath: schema))
        let apply = try ChildProcess.strata(["apply", "--db", path, "--schema", schema])
        #expect(
            apply.status == 1 && apply.stderr.contains("its directory \(dir.file("ro")) is not writable"), "\(apply)")
    }

    @Test func aDatabaseLockedByAnotherProcess() throws {
        let dir = TemporaryDirectory("strata-locked")
        let path = try Self.database(dir)
        let bytes = fileBytes(path)
        defer { #expect(fileBytes(path) == bytes) }
        let lock = try LockHolder(path: path)
        defer { lock.release() }
        var config = Configuration()
        config.busyTimeout = 0.2
        try expectRefused(path, label: "locked", mentions: ["locked"], libraryConfiguration: config)
        let schema = dir.file("schema.sql")
        try Data(CrashFixture.newSchema.utf8).write(to: URL(fileURLWithPath: schema))
        let plan = try ChildProcess.strata(["plan", "--db", path, "--schema", schema])
        #expect(
            plan.status == 1 && plan.stderr.hasPrefix("strata: \(path): ") && plan.stderr.contains("locked"), "\(plan)")
        let folder = dir.file("migrations")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try Data("ALTER TABLE author ADD COLUMN extra TEXT;".utf8).write(
            to: URL(fileURLWithPath: folder + "/0001_extra.sql"))
        let migrate = try ChildProcess.strata(["migrate", "--db", path, "--migrations", folder])
        #expect(
            migrate.status == 1 && migrate.stderr.hasPrefix("strata: \(path): ") && migrate.stderr.contains("locked"),
            "\(migrate)")
    }

    @Test func schemaFilesThatCannotBeRead() throws {
        let dir = TemporaryDirectory("strata-schema-files")
        let path = try Self.database(dir)
        let bytes = fileBytes(path)
        let latin1 = dir.file("latin1.sql")
        try Data([0x43, 0x52, 0x45, 0x41, 0x54, 0x45, 0x20, 0xE9, 0xFF, 0x3B]).write(to: URL(fileURLWithPath: latin1))
        let cases: [(String, String)] = [
            (dir.file("missing.sql"), "no such schema file"),
            (latin1, "not UTF-8"),
            (dir.path, "is a directory"),
        ]
        for (schema, message) in cases {
            for command in ["plan", "apply"] {
                let r = try ChildProcess.strata([command, "--db", path, "--schema", schema])
                #expect(r.status == 1, "\(schema) (\(command)): \(r)")
                #expect(r.stderr.hasPrefix("strata: \(schema): ") && r.stderr.contains(message), "\(r.stderr)")
            }
        }
        #expect(fileBytes(path) == bytes)
    }
}

/// Making a file or folder unwritable: `chmod` for a normal user; as root (which ignores
/// permissions), `chattr +i` where the file system supports it.
enum Unwritable {
    static let isPossible: Bool = {
        let dir = TemporaryDirectory("strata-probe")
        let probe = dir.file("probe")
        guard FileManager.default.createFile(atPath: probe, contents: Data("x".utf8)) else { return false }
        guard (try? make(probe)) != nil else { return false }
        defer { undo(probe) }
        return FileHandle(forWritingAtPath: probe) == nil
    }()

    static func make(_ path: String) throws {
        if getuid() != 0 {
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: path)
            return
        }
        let r = try ChildProcess.runSystem("/usr/bin/chattr", ["+i", path])
        if r != 0 { throw ChildProcess.NotFound(description: "chattr +i \(path) failed") }
    }

    static func undo(_ path: String) {
        if getuid() != 0 {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        } else {
            _ = try? ChildProcess.runSystem("/usr/bin/chattr", ["-i", path])
        }
    }
}

extension ChildProcess {
    /// Runs a system tool, returning its exit status.
    static func runSystem(_ tool: String, _ arguments: [String]) throws -> Int32 {
        guard FileManager.default.isExecutableFile(atPath: tool) else { return -1 }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        BoundedWait.exit(of: process)
        return process.terminationStatus
    }
}
