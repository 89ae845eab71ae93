import Foundation
import Strata
import StrataTestSupport
import Testing

/// The airbag's commands through the binary's file-step seam (`STRATA_TEST_FILE_STEPS`,
/// `STRATA_TEST_FILE_FAIL`, as in "Durable writes of the commands"): `strata migrate
/// --restore-point`, `strata apply --restore-point` and `strata restore` record their steps (the
/// restore folder, the restore point written, linked into place and flushed, the state file), and
/// each step fails in turn on a fresh copy. After every failure: the error names the file and the
/// system's message; the database holds the state before or the state after, every row; the
/// state file reads and every restore point it lists is whole; and a rerun succeeds, leaving the
/// state after and only the files the state file names.
@Suite("Durable writes of the airbag's commands")
struct DurableAirbagCommandTests {
    static let v1 = UpgradeCommandTests.v1
    /// Drops `note.legacy` (destructive) and adds a table.
    static let v2 = UpgradeCommandTests.v2

    struct Scenario: Sendable {
        var name: String
        /// Makes the database (and its inputs) in the folder; returns the command's arguments.
        var setup: @Sendable (TemporaryDirectory) throws -> [String]
    }

    static func database(_ dir: TemporaryDirectory) throws -> Database {
        let db = try Database(path: dir.file("app.sqlite"))
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        return db
    }

    static func write(_ text: String, _ path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    static let scenarios: [Scenario] = [
        Scenario(name: "apply --restore-point") { dir in
            try write(v2, dir.file("v2.sql"))
            let db = try database(dir)
            defer { db.close() }
            try db.migrateSchema(to: v1)
            try db.execute(sql: "INSERT INTO note(title, legacy) VALUES ('first', 'a'), ('it''s', 'b')")
            return [
                "apply", "--db", dir.file("app.sqlite"), "--schema", dir.file("v2.sql"), "--restore-point",
                "--allow-destructive",
            ]
        },
        Scenario(name: "migrate --restore-point") { dir in
            let folder = dir.file("migrations")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try write(v1, folder + "/0001_note.sql")
            try write("INSERT INTO note(title) VALUES ('one'), ('two');\n", folder + "/0002_rows.sql")
            var migrator = Migrator()
            migrator.registerMigration("0001_note", sql: v1)
            let db = try database(dir)
            defer { db.close() }
            try migrator.migrate(db)
            return ["migrate", "--db", dir.file("app.sqlite"), "--migrations", folder, "--restore-point"]
        },
        Scenario(name: "restore") { dir in
            try write(v2, dir.file("v2.sql"))
            do {
                let db = try database(dir)
                defer { db.close() }
                try db.migrateSchema(to: v1)
                try db.execute(sql: "INSERT INTO note(title, legacy) VALUES ('first', 'a'), ('it''s', 'b')")
            }
            let upgrade = try ChildProcess.run(
                "strata",
                [
                    "apply", "--db", dir.file("app.sqlite"), "--schema", dir.file("v2.sql"), "--restore-point",
                    "--allow-destructive",
                ])
            try #require(upgrade.status == 0, "\(upgrade)")
            // A row written since the upgrade: the restore carries it back.
            let db = try database(dir)
            defer { db.close() }
            try db.execute(sql: "INSERT INTO note(title) VALUES ('written since')")
            return ["restore", "--db", dir.file("app.sqlite")]
        },
    ]

    /// The database's schema and rows, the ledger's times left out (they differ from run to run).
    static func contents(_ dir: TemporaryDirectory) throws -> DatabaseContents {
        let db = try Database(path: dir.file("app.sqlite"))
        defer { db.close() }
        var contents = try DatabaseContents(db)
        if let ledger = contents.rows["strata_migrations"] {
            contents.rows["strata_migrations"] = ledger.map { Array($0.prefix(2)) }
        }
        return contents
    }

    /// The restore folder after a failure: the state file reads, every restore point it lists is
    /// whole (`strata upgrade status` checks each one); the names present, hidden ones included.
    static func checkFolder(_ dir: TemporaryDirectory, _ label: String) throws -> [String] {
        let folder = dir.file("app.sqlite-strata-upgrade")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        guard names.contains("upgrade.json") else { return names }
        let status = try ChildProcess.run(
            "strata", ["upgrade", "status", "--db", dir.file("app.sqlite"), "--format", "json"])
        #expect(status.status == 0, "\(label): the state file does not read: \(status)")
        if let document = try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any],
            let points = document["restorePoints"] as? [[String: Any]]
        {
            for point in points {
                #expect(point["file"] as? String == "ok", "\(label): a listed restore point is not whole: \(point)")
            }
        }
        return names
    }

    @Test(arguments: 0..<scenarios.count) func beforeOrAfterOnAnyFailureAndARerunCompletes(_ index: Int) throws {
        let scenario = Self.scenarios[index]
        let first = TemporaryDirectory("durable-airbag")
        let arguments = try scenario.setup(first)
        let before = try Self.contents(first)
        let logs = TemporaryDirectory("durable-airbag-log")
        let log = logs.file("steps.log")
        let run = try ChildProcess.run("strata", arguments, environment: ["STRATA_TEST_FILE_STEPS": log])
        try #require(run.status == 0, "\(scenario.name): \(run)")
        let after = try Self.contents(first)
        #expect(after != before, "\(scenario.name) changed nothing")
        let trace = String(decoding: fileBytes(log), as: UTF8.self).split(separator: "\n").map(String.init)
        try #require(trace.count >= 5, "\(scenario.name): \(trace)")

        var outcomes = [String: Int]()
        for failAt in 1...trace.count {
            let dir = TemporaryDirectory("durable-airbag")
            let arguments = try scenario.setup(dir)
            let label = "\(scenario.name), step \(failAt) of \(trace.count) (\(trace[failAt - 1]))"
            let result = try ChildProcess.run("strata", arguments, environment: ["STRATA_TEST_FILE_FAIL": "\(failAt)"])
            let state = try Self.contents(dir)
            if result.status != 0 {
                #expect(result.stderr.contains(String(cString: strerror(EIO))), "\(label): \(result)")
                #expect(result.stderr.contains(dir.path), "\(label): the error names no file: \(result)")
            }
            #expect(state == before || state == after, "\(label): the database is neither before nor after")
            _ = try Self.checkFolder(dir, label)
            outcomes[
                "\(result.status == 0 ? "succeeded" : "failed"), \(state == before ? "before" : "after")", default: 0] +=
                1
            // A rerun (the same command, when the database is still before) completes.
            if state == before {
                let rerun = try ChildProcess.run("strata", arguments)
                #expect(rerun.status == 0, "\(label): the rerun failed: \(rerun)")
                #expect(try Self.contents(dir) == after, "\(label): the rerun did not complete")
            }
            // The next upgrade status leaves only the files the state file names.
            let names = try Self.checkFolder(dir, label + ", after the rerun")
            let document =
                (try? JSONSerialization.jsonObject(
                    with: Data(
                        try ChildProcess.run(
                            "strata", ["upgrade", "status", "--db", dir.file("app.sqlite"), "--format", "json"]
                        ).stdout.utf8))) as? [String: Any]
            let listed = Set(
                ((document?["restorePoints"] as? [[String: Any]]) ?? []).compactMap {
                    ($0["restorePoint"] as? [String: Any])?["id"] as? String
                }.map { $0 + ".sqlite" })
            let strays = names.filter { $0.hasSuffix(".sqlite") && !listed.contains($0) }
            #expect(strays.isEmpty, "\(label): restore points no record names: \(strays)")
        }
        print("durable airbag writes (\(scenario.name)): \(trace.count) steps failed in turn: \(outcomes)")
    }
}
