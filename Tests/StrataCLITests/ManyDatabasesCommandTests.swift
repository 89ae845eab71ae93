import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata migrate` and `strata apply` on many databases at once: several `--db` values, a glob,
/// `--db-list`; `--jobs`, `--continue-on-error`; each database on its own.
@Suite("Many databases at once")
struct ManyDatabasesCommandTests {
    private static let files = [
        "0001_create_team.sql": "CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n",
        "0002_create_player.sql":
            "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT, team_id INTEGER REFERENCES team(id));\n",
        "0003_seed.sql": "INSERT INTO team(id, name) VALUES (1, 'red');\n",
    ]

    /// A database file migrated to `migration` (a template to copy).
    private static func template(in work: TemporaryDirectory, migrations: String, to migration: String) throws -> Data {
        let path = work.file("template-\(migration).sqlite")
        let r = try StrataProcess.run(["migrate", "--db", path, "--migrations", migrations, "--to", migration])
        precondition(r.exitCode == 0, "\(r)")
        return fileBytes(path)
    }

    private static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// 300 databases, 15 of them broken (corrupt, locked, in a state the migrations fail on):
    /// every good one is migrated, every bad one is byte-identical, the report lists each with
    /// its result, the exit code is 1.
    @Test func threeHundredDatabasesSomeBroken() throws {
        let migrations = try migrationFolder(Self.files)
        let work = TemporaryDirectory("many")
        let atOne = try Self.template(in: work, migrations: migrations.path, to: "1")
        try FileManager.default.createDirectory(atPath: work.file("tenants"), withIntermediateDirectories: true)

        var good: [String] = []
        var bad: [String: Data] = [:]  // path -> bytes before
        for i in 0..<285 {
            let path = work.file("tenants/good-\(i).sqlite")
            switch i % 3 {
            case 0: break  // missing: created
            case 1: try Data().write(to: URL(fileURLWithPath: path))  // an empty file is an empty database
            default: try atOne.write(to: URL(fileURLWithPath: path))  // partly migrated
            }
            good.append(path)
        }
        func addBad(_ name: String, _ bytes: Data) throws {
            let path = work.file("tenants/\(name).sqlite")
            try bytes.write(to: URL(fileURLWithPath: path))
            bad[path] = bytes
        }
        // Corrupt: not a database at all, and a valid header followed by garbage pages.
        try addBad("junk-text", Data(String(repeating: "not a database\n", count: 300).utf8))
        var garbled = atOne
        for offset in stride(from: 100, to: garbled.count, by: 7) {
            garbled[offset] = UInt8(truncatingIfNeeded: offset &* 31)
        }
        try addBad("garbled-pages", garbled)
        // Bad schema states: `player` already exists (0002 fails), team 1 already exists (0003
        // fails after 0002 ran in the same transaction), a migration from a newer app, an
        // applied file edited since, and a foreign key the migration breaks.
        for (name, sql) in [
            ("player-exists", "CREATE TABLE player(id INTEGER PRIMARY KEY)"),
            ("team-1-exists", "INSERT INTO team(id, name) VALUES (1, 'blue')"),
            ("newer-app", "INSERT INTO strata_migrations(identifier, checksum) VALUES ('0004_future', NULL)"),
            ("edited", "UPDATE strata_migrations SET checksum = 'edited' WHERE identifier = '0001_create_team'"),
        ] {
            let path = work.file("tenants/\(name).sqlite")
            try atOne.write(to: URL(fileURLWithPath: path))
            let db = try Database(path: path)
            try db.execute(sql: sql)
            db.close()
            bad[path] = fileBytes(path)
        }
        for i in 0..<8 {
            // More of the kind most likely at scale: a migration that fails on this data.
            let path = work.file("tenants/conflict-\(i).sqlite")
            try atOne.write(to: URL(fileURLWithPath: path))
            let db = try Database(path: path)
            try db.execute(sql: "INSERT INTO team(id, name) VALUES (1, 'blue')")
            db.close()
            bad[path] = fileBytes(path)
        }
        // Locked: this process holds the write lock for the whole run.
        let lockedPath = work.file("tenants/locked.sqlite")
        try atOne.write(to: URL(fileURLWithPath: lockedPath))
        bad[lockedPath] = atOne
        let locker = try Database(path: lockedPath)
        try locker.execute(sql: "BEGIN EXCLUSIVE")
        try locker.execute(sql: "SELECT count(*) FROM team")
        defer { locker.close() }
        #expect(good.count + bad.count == 300)

        // The list, in a mixed order, with a comment, a blank line and one path twice.
        var paths = good + bad.keys.sorted()
        paths.shuffle()
        let list = ["# tenants", ""] + paths + [paths[0]]
        try Data(list.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: work.file("list.txt")))

        let r = try StrataProcess.run([
            "migrate", "--db-list", work.file("list.txt"), "--migrations", migrations.path, "--jobs", "4",
            "--continue-on-error", "--busy-timeout", "100", "--format", "json",
        ])
        locker.rollbackQuietly()
        #expect(r.exitCode == 1, "\(r.stderr)")
        #expect(r.stderr == "strata: 301 databases: 15 failed\n")
        let document = try Self.json(r.stdout)
        let entries = try #require(document["databases"] as? [[String: Any]])
        #expect(
            entries.map { $0["database"] as? String } == paths + [paths[0]], "every path named, in the order given")
        let summary = document["summary"] as? [String: Int]
        #expect(
            summary == ["databases": 301, "succeeded": 285, "failed": 15, "refused": 0, "skipped": 0, "duplicates": 1])
        // The path named twice is handled once, and reported as a duplicate the second time.
        #expect(entries.last?["result"] as? String == "duplicate")
        for entry in entries.dropLast() {
            let path = try #require(entry["database"] as? String)
            if let before = bad[path] {
                #expect(entry["result"] as? String == "failed", "\(path): \(entry)")
                #expect((entry["error"] as? String)?.isEmpty == false)
                #expect(fileBytes(path) == before, "\(path) changed")
            } else {
                #expect(entry["result"] as? String == "ok", "\(path): \(entry)")
                #expect((entry["applied"] as? [[String: Any]])?.last?["identifier"] as? String == "0003_seed")
            }
        }
        for path in good {
            let db = try Database(path: path)
            defer { db.close() }
            #expect(
                try db.fetchColumn(String.self, sql: "SELECT identifier FROM strata_migrations ORDER BY rowid")
                    == ["0001_create_team", "0002_create_player", "0003_seed"], "\(path)")
            #expect(try db.fetchValue(String.self, sql: "SELECT name FROM team WHERE id = 1") == "red")
        }
        let locked = entries.first { $0["database"] as? String == lockedPath }
        #expect((locked?["error"] as? String)?.contains("locked") == true, "\(String(describing: locked))")
        let edited = entries.first { ($0["database"] as? String)?.hasSuffix("edited.sqlite") == true }
        #expect((edited?["error"] as? String)?.contains("0001_create_team: edited after it was applied") == true)
    }

    /// Without --continue-on-error no database is started after the first failure; the text
    /// report names each database, skipped ones too, and ends with a summary.
    @Test func stopsAtTheFirstFailure() throws {
        let migrations = try migrationFolder(Self.files)
        let work = TemporaryDirectory("many-stop")
        let paths = (0..<5).map { work.file("db\($0).sqlite") }
        try Data("junk".utf8).write(to: URL(fileURLWithPath: paths[1]))
        let r = try StrataProcess.run(["migrate", "--db"] + paths + ["--migrations", migrations.path, "--jobs", "1"])
        #expect(r.exitCode == 1)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6, "\(r)")
        #expect(lines[0] == "\(paths[0]): applied 3 migrations (0001_create_team, 0002_create_player, 0003_seed)")
        #expect(lines[1].hasPrefix("\(paths[1]): FAILED: not an SQLite database"))
        for i in 2..<5 {
            #expect(
                lines[i] == "\(paths[i]): skipped (not started after an earlier failure; --continue-on-error goes on)")
            #expect(!FileManager.default.fileExists(atPath: paths[i]), "a skipped database is not even created")
        }
        #expect(lines[5] == "5 databases: 1 succeeded, 1 failed, 3 skipped")
        #expect(r.stderr == "strata: 5 databases: 1 failed, 3 not started\n")

        // Again, going on: the good ones are migrated, the first one is up to date.
        let again = try StrataProcess.run(
            ["migrate", "--db"] + paths + ["--migrations", migrations.path, "--continue-on-error"])
        #expect(again.exitCode == 1)
        #expect(again.stdout.split(separator: "\n").first == "\(paths[0]): up to date")
        #expect(again.stdout.hasSuffix("5 databases: 4 succeeded, 1 failed\n"), "\(again)")
        #expect(fileBytes(paths[1]) == Data("junk".utf8))
    }

    /// A quoted glob is expanded (sorted); a database named twice is handled once (and reported
    /// as a duplicate, each path named counted in the summary); a pattern
    /// that matches nothing is an error before any database is touched.
    @Test func globAndDuplicates() throws {
        let migrations = try migrationFolder(Self.files)
        let work = TemporaryDirectory("many-glob")
        for name in ["b", "a", "c"] { try Data().write(to: URL(fileURLWithPath: work.file("\(name).sqlite"))) }
        let r = try StrataProcess.run([
            "migrate", "--db", work.file("*.sqlite"), work.file("a.sqlite"), "--migrations", migrations.path,
        ])
        #expect(r.exitCode == 0, "\(r)")
        #expect(
            r.stdout.split(separator: "\n").map { String($0.prefix { $0 != ":" }) }
                == [
                    work.file("a.sqlite"), work.file("b.sqlite"), work.file("c.sqlite"), work.file("a.sqlite"),
                    "4 databases",
                ])
        #expect(r.stdout.hasSuffix("4 databases: 3 succeeded, 0 failed, 1 duplicate\n"), "\(r)")

        // A second hard link, a symbolic link and `dir/./a` are the same database.
        try FileManager.default.linkItem(atPath: work.file("a.sqlite"), toPath: work.file("a-hard.db"))
        try FileManager.default.createSymbolicLink(
            atPath: work.file("a-soft.db"), withDestinationPath: work.file("a.sqlite"))
        let same = try StrataProcess.run([
            "migrate", "--db", work.file("a.sqlite"), work.file("a-hard.db"), work.file("a-soft.db"),
            work.path + "/./a.sqlite", "--migrations", migrations.path,
        ])
        #expect(
            same.stdout == """
                \(work.file("a.sqlite")): up to date
                \(work.file("a-hard.db")): same database as \(work.file("a.sqlite")) (handled once)
                \(work.file("a-soft.db")): same database as \(work.file("a.sqlite")) (handled once)
                \(work.path)/./a.sqlite: same database as \(work.file("a.sqlite")) (handled once)
                4 databases: 1 succeeded, 0 failed, 3 duplicates

                """, "\(same)")
        #expect(same.exitCode == 0, "\(same)")

        // The list on stdin.
        let input = Pipe()
        let output = TemporaryDirectory("strata-stdin")
        let process = try ChildProcess.launch(
            "strata", ["migrate", "--db-list", "-", "--migrations", migrations.path], output: output, stdin: input)
        input.fileHandleForWriting.write(
            Data("# two of them\n\(work.file("c.sqlite"))\n  \(work.file("b.sqlite"))  \n".utf8))
        try input.fileHandleForWriting.close()
        let fromStdin = ChildProcess.result(of: process, output: output)
        #expect(fromStdin.exitCode == 0, "\(fromStdin)")
        #expect(
            fromStdin.stdout
                == "\(work.file("c.sqlite")): up to date\n\(work.file("b.sqlite")): up to date\n2 databases: 2 succeeded, 0 failed\n"
        )

        let badJobs = try StrataProcess.run([
            "migrate", "--db", work.file("a.sqlite"), "b", "--migrations", migrations.path, "--jobs", "0",
        ])
        #expect(badJobs.exitCode == 1)
        #expect(badJobs.stderr.contains("--jobs 0: expected 1 to 256"))

        let none = try StrataProcess.run([
            "migrate", "--db", work.file("*.none"), work.file("d.sqlite"), "--migrations", migrations.path,
        ])
        #expect(none.exitCode == 1)
        #expect(none.stderr == "strata: \(work.file("*.none")): no file matches this pattern\n")
        #expect(!FileManager.default.fileExists(atPath: work.file("d.sqlite")))
    }

    /// `apply` on many databases: exit 3 when some were refused, 1 when any failed (a failure
    /// comes first), and the JSON document holds each database's plan or refusal.
    @Test func applyExitCodesAndJSON() throws {
        let work = TemporaryDirectory("many-apply")
        let schema = work.file("schema.sql")
        try Data("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT, pinned INTEGER);\n".utf8)
            .write(to: URL(fileURLWithPath: schema))
        let plain = work.file("plain.sqlite")
        let extra = work.file("extra.sqlite")
        for (path, sql) in [
            (plain, "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)"),
            (extra, "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT); CREATE TABLE old(x)"),
        ] {
            let db = try Database(path: path)
            try db.execute(sql: sql)
            db.close()
        }
        let extraBytes = fileBytes(extra)
        let refused = try StrataProcess.run([
            "apply", "--db", plain, extra, "--schema", schema, "--continue-on-error", "--format", "json",
        ])
        #expect(refused.exitCode == 3, "\(refused)")
        #expect(refused.stderr == "strata: 2 databases: 1 refused destructive changes\n")
        let entries = try #require(try Self.json(refused.stdout)["databases"] as? [[String: Any]])
        try #require(entries.count == 2)
        #expect(entries[0]["result"] as? String == "ok")
        #expect(
            ((entries[0]["plan"] as? [String: Any])?["steps"] as? [[String: Any]])?.map { $0["kind"] as? String } == [
                "add column"
            ])
        #expect(entries[1]["result"] as? String == "refused")
        #expect(entries[1]["refused"] as? [String] == ["drop table old (0 rows)"])
        #expect(fileBytes(extra) == extraBytes)

        let junk = work.file("junk.sqlite")
        try Data("junk".utf8).write(to: URL(fileURLWithPath: junk))
        let both = try StrataProcess.run([
            "apply", "--db", extra, junk, plain, "--schema", schema, "--continue-on-error",
        ])
        #expect(both.exitCode == 1, "a failure outranks a refusal: \(both)")
        let lines = both.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(both)")
        #expect(
            lines.first
                == "\(extra): REFUSED 1 destructive change (pass --allow-destructive to apply): drop table old (0 rows)"
        )
        #expect(lines.dropFirst().first?.hasPrefix("\(junk): FAILED: not an SQLite database") == true)
        #expect(Array(lines.suffix(2)) == ["\(plain): no changes", "3 databases: 1 succeeded, 1 failed, 1 refused"])
        #expect(both.stderr == "strata: 3 databases: 1 failed, 1 refused destructive changes\n")

        let backup = try StrataProcess.run([
            "apply", "--db", plain, extra, "--schema", schema, "--backup", work.file("b"),
        ])
        #expect(backup.exitCode == 1)
        #expect(backup.stderr.contains("--backup PATH takes one database, not a batch"))
    }
}
