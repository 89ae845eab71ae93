import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata apply --restore-point`, `strata migrate --restore-point`, `strata restore` and
/// `strata upgrade status` (issue 38): the restore point reported and usable, the upgrade taken
/// back with every row, the JSON documents, and bad input refused naming its culprit with the
/// database unchanged.
@Suite("strata restore and upgrade status")
struct UpgradeCommandTests {
    static let v1 = "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, legacy TEXT NOT NULL DEFAULT '');\n"
    /// Drops `note.legacy` (destructive) and adds a table.
    static let v2 = """
        CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
        CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT NOT NULL);

        """

    struct Fixture {
        let dir = TemporaryDirectory("strata-upgrade")
        var db: String { dir.file("app.sqlite") }
        var folder: String { db + "-strata-upgrade" }
        var v1: String { dir.file("v1.sql") }
        var v2: String { dir.file("v2.sql") }

        /// A database at v1 with three notes, and both schema files.
        init() throws {
            try Data(UpgradeCommandTests.v1.utf8).write(to: URL(fileURLWithPath: dir.file("v1.sql")))
            try Data(UpgradeCommandTests.v2.utf8).write(to: URL(fileURLWithPath: dir.file("v2.sql")))
            let database = try Database(path: dir.file("app.sqlite"))
            defer { database.close() }
            try database.migrateSchema(to: UpgradeCommandTests.v1)
            try database.execute(
                sql: "INSERT INTO note(title, legacy) VALUES ('first', 'a'), ('it''s', 'b'), ('third', 'c')")
        }

        func strata(_ arguments: [String]) throws -> ChildProcess.Result { try StrataProcess.run(arguments) }

        /// `strata apply --db --schema v2.sql --restore-point --allow-destructive`, which must succeed.
        @discardableResult
        func upgrade(_ extra: [String] = []) throws -> ChildProcess.Result {
            let r = try strata(["apply", "--db", db, "--schema", v2, "--restore-point", "--allow-destructive"] + extra)
            #expect(r.exitCode == 0, "\(r)")
            return r
        }

        func contents() throws -> DatabaseContents {
            let database = try Database(path: db)
            defer { database.close() }
            return try DatabaseContents(database)
        }

        func dump() throws -> String {
            let r = try strata(["dump", "--db", db])
            #expect(r.exitCode == 0, "\(r)")
            return r.stdout
        }

        func restorePointFiles() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".sqlite") }
                .sorted()
        }
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    // MARK: Happy paths

    @Test func applyWithARestorePointThenRestoreGivesBackTheSchemaAndEveryRow() throws {
        let f = try Fixture()
        let before = try f.contents()
        let dumpBefore = try f.dump()
        let r = try f.upgrade()
        let files = f.restorePointFiles()
        try #require(files.count == 1, "\(r)")
        let id = String(files[0].dropLast(".sqlite".count))
        let path = f.folder + "/" + files[0]
        let bytes = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)
        #expect(r.stdout.contains("Restore point \(id) (\(RestorePointSizeText.size(bytes.int64Value)), "), "\(r)")
        #expect(r.stdout.contains(path), "the restore point's path is printed: \(r)")
        #expect(r.stdout.contains("Applied 2 changes"), "\(r)")
        #expect(try f.dump() != dumpBefore)

        let restore = try f.strata(["restore", "--db", f.db])
        #expect(restore.exitCode == 0, "\(restore)")
        #expect(restore.stdout.contains("Restored \(f.db) to restore point \(id)"), "\(restore)")
        #expect(restore.stdout.contains("exactly the restore point"), "\(restore)")
        #expect(try f.dump() == dumpBefore)
        #expect(try f.contents() == before)
    }

    @Test func rowsWrittenSinceTheUpgradeAreCarriedBackAndTheDroppedColumnComesBack() throws {
        let f = try Fixture()
        let dumpBefore = try f.dump()
        try f.upgrade()
        do {
            let database = try Database(path: f.db)
            defer { database.close() }
            try database.execute(sql: "INSERT INTO note(id, title) VALUES (10, 'written after')")
            try database.execute(sql: "UPDATE note SET title = 'edited' WHERE id = 2")
        }
        let r = try f.strata(["restore", "--db", f.db, "--format", "json"])
        #expect(r.exitCode == 0, "\(r)")
        let document = try Self.json(r.stdout)
        #expect(document["result"] as? String == "ok")
        #expect(document["exact"] as? Bool == false)
        #expect(document["carriedBack"] as? [String] == ["note"])
        #expect(document["acceptedLoss"] as? [String] == [])
        // The old schema: the column the restore adds back is spelled quoted (`"legacy" TEXT ...`),
        // which the engine compares as the same schema.
        try Data(dumpBefore.utf8).write(to: URL(fileURLWithPath: f.dir.file("before.sql")))
        let plan = try f.strata(["plan", "--db", f.db, "--schema", f.dir.file("before.sql")])
        #expect(plan.exitCode == 0, "\(plan)")
        let dumpAfter = try f.dump()
        #expect(plan.stdout == "No changes.\n", "the schema is the old one: \(dumpAfter)")
        let database = try Database(path: f.db)
        defer { database.close() }
        let rows = try database.fetchAll(sql: "SELECT id, title, legacy FROM note ORDER BY id").map {
            [$0.value(at: 0), $0.value(at: 1), $0.value(at: 2)]
        }
        #expect(
            rows == [
                [.integer(1), .text("first"), .text("a")], [.integer(2), .text("edited"), .text("b")],
                [.integer(3), .text("third"), .text("c")], [.integer(10), .text("written after"), .text("")],
            ])
    }

    @Test func applyJSONReportsTheRestorePointAndThePlanStatesItsCost() throws {
        let f = try Fixture()
        let plan = try f.strata(["plan", "--db", f.db, "--schema", f.v2, "--allow-destructive", "--format", "json"])
        #expect(plan.exitCode == 0, "\(plan)")
        let estimate = try #require(try Self.json(plan.stdout)["estimate"] as? [String: Any])
        let estimatedBytes = try #require(estimate["restorePointBytes"] as? Int)
        #expect(estimatedBytes > 0)
        #expect(estimate["restorePointSeconds"] is Double || estimate["restorePointSeconds"] is Int)
        let steps = try #require(try Self.json(plan.stdout)["steps"] as? [[String: Any]])
        #expect(steps.allSatisfy { ($0["estimate"] as? [String: Any])?["restorePointBytes"] == nil })

        let r = try f.upgrade(["--format", "json"])
        let entries = try #require(try Self.json(r.stdout)["databases"] as? [[String: Any]])
        try #require(entries.count == 1)
        let point = try #require(entries[0]["restorePoint"] as? [String: Any], "\(r)")
        let id = try #require(point["id"] as? String)
        let path = try #require(point["path"] as? String)
        #expect(path == f.folder + "/" + id + ".sqlite")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)
        #expect(point["bytes"] as? Int == size.intValue)
        #expect(point["bytes"] as? Int == estimatedBytes, "the plan's estimate is the restore point's size")
        #expect(point["encrypted"] as? Bool == false)
        #expect((entries[0]["restorePointReason"] as? String)?.contains("before every upgrade") == true)
        #expect(r.stderr == "")

        // Nothing to apply: no restore point, and why.
        let again = try f.strata(["apply", "--db", f.db, "--schema", f.v2, "--restore-point", "--format", "json"])
        #expect(again.exitCode == 0, "\(again)")
        let entry = try #require((try Self.json(again.stdout)["databases"] as? [[String: Any]])?.first)
        #expect(entry["restorePoint"] == nil)
        #expect(entry["restorePointReason"] as? String == "nothing to apply")
        #expect(f.restorePointFiles().count == 1)
    }

    @Test func migrateWithARestorePointThenRestore() throws {
        let migrations = try migrationFolder([
            "0001_note.sql": Self.v1, "0002_rows.sql": "INSERT INTO note(title) VALUES ('one'), ('two');\n",
        ])
        let work = TemporaryDirectory("strata-upgrade-migrate")
        let db = work.file("app.sqlite")
        var r = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path, "--to", "0001_note"])
        #expect(r.exitCode == 0, "\(r)")
        let before = try StrataProcess.run(["dump", "--db", db]).stdout
        r = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path, "--restore-point"])
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stdout.contains("Restore point rp-"), "\(r)")
        let status = try StrataProcess.run(["upgrade", "status", "--db", db, "--format", "json"])
        #expect(status.exitCode == 0, "\(status)")
        let document = try Self.json(status.stdout)
        let last = try #require(document["lastUpgrade"] as? [String: Any])
        #expect(last["phase"] as? String == "unconfirmed")
        #expect(last["fromVersion"] as? String == "0001_note")
        #expect(last["toVersion"] as? String == "0002_rows")
        #expect(last["migrations"] as? [String] == ["0002_rows"])
        #expect(last["launchesWithoutSuccess"] as? Int == 0, "the command is not one of the app's launches")
        let points = try #require(document["restorePoints"] as? [[String: Any]])
        try #require(points.count == 1)
        #expect(points[0]["file"] as? String == "ok")
        let point = try #require(points[0]["restorePoint"] as? [String: Any])
        #expect(point["fromVersion"] as? String == "0001_note")
        #expect(document["restorePointBytes"] as? Int == point["bytes"] as? Int)

        r = try StrataProcess.run(["restore", "--db", db, "--restore-point", try #require(point["id"] as? String)])
        #expect(r.exitCode == 0, "\(r)")
        #expect(try StrataProcess.run(["dump", "--db", db]).stdout == before)
        let pending = try StrataProcess.run(["status", "--db", db, "--migrations", migrations.path])
        #expect(pending.stdout.contains("0002_rows"), "\(pending)")
        // JSON of migrate --restore-point.
        r = try StrataProcess.run([
            "migrate", "--db", db, "--migrations", migrations.path, "--restore-point", "--format", "json",
        ])
        #expect(r.exitCode == 0, "\(r)")
        let entry = try #require((try Self.json(r.stdout)["databases"] as? [[String: Any]])?.first)
        #expect((entry["restorePoint"] as? [String: Any])?["id"] is String, "\(r)")
    }

    @Test func upgradeStatusTextShowsTheRestorePointsAndTheLastUpgrade() throws {
        let f = try Fixture()
        var r = try f.strata(["upgrade", "status", "--db", f.db])
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stdout == "\(f.db): no upgrade followed\nRestore points: none\nHeld back: none\n")
        #expect(!FileManager.default.fileExists(atPath: f.folder), "status writes nothing")
        try f.upgrade()
        let id = String(try #require(f.restorePointFiles().first).dropLast(".sqlite".count))
        r = try f.strata(["upgrade", "status", "--db", f.db])
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stdout.contains("unconfirmed (0 launches without success, 0 launches successful)"), "\(r)")
        #expect(r.stdout.contains("Restore points (1, "), "\(r)")
        #expect(r.stdout.contains("  \(id)  "), "\(r)")
        try f.strata(["restore", "--db", f.db]).expectSuccess()
        r = try f.strata(["upgrade", "status", "--db", f.db])
        #expect(r.stdout.contains(": restored (on request)\n"), "\(r)")
    }

    /// A crash loop of an app (the library, as at launch) shows in `strata upgrade status`; an
    /// `apply --restore-point` of the held-back schema refuses naming it and changes nothing.
    @Test func aHeldBackUpgradeShowsInStatusAndApplyWithARestorePointRefusesIt() throws {
        let f = try Fixture()
        let safety = UpgradeSafety(crashLoopLaunches: 1)
        for _ in 1...2 {
            let database = try Database(path: f.db)
            defer { database.close() }
            try database.migrateSchema(
                to: Self.v2, options: SchemaChangeOptions(allowDestructive: true), safety: safety)
        }
        let before = try f.contents()
        let bytes = fileBytes(f.db)
        let r = try f.strata(["upgrade", "status", "--db", f.db, "--format", "json"])
        #expect(r.exitCode == 0, "\(r)")
        let document = try Self.json(r.stdout)
        #expect((document["lastUpgrade"] as? [String: Any])?["phase"] as? String == "restored")
        let held = try #require(document["heldBack"] as? [[String: Any]])
        try #require(held.count == 1, "\(r)")
        #expect((held[0]["reason"] as? String)?.hasPrefix("crash loop") == true)
        let text = try f.strata(["upgrade", "status", "--db", f.db])
        #expect(text.stdout.contains("Held back (not run again by the build that held them back):"), "\(text)")

        let apply = try f.strata(["apply", "--db", f.db, "--schema", f.v2, "--restore-point", "--allow-destructive"])
        #expect(apply.exitCode == 1, "\(apply)")
        #expect(apply.stderr.contains("is held back"), "\(apply)")
        #expect(apply.stderr.contains("strata upgrade status --db \(f.db)"), "\(apply)")
        #expect(fileBytes(f.db) == bytes)
        #expect(try f.contents() == before)
    }

    /// Two `apply --restore-point` of the same schema at once: one upgrades behind one restore
    /// point; the other, deciding under the restore folder's lock, finds nothing to do, writes no
    /// restore point and says "No changes." (whichever order they run in).
    @Test func twoAppliesAtOnceWriteOneRestorePointAndUpgradeOnce() throws {
        let f = try Fixture()
        do {
            let database = try Database(path: f.db)
            defer { database.close() }
            try database.execute(
                sql: """
                    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 50000)
                    INSERT INTO note(title, legacy) SELECT 'note ' || i, hex(randomblob(20)) FROM c
                    """)
        }
        let arguments = ["apply", "--db", f.db, "--schema", f.v2, "--restore-point", "--allow-destructive"]
        let outputs = [TemporaryDirectory("strata-race-a"), TemporaryDirectory("strata-race-b")]
        let processes = try outputs.map { try ChildProcess.launch("strata", arguments, output: $0) }
        let results = zip(processes, outputs).map { ChildProcess.result(of: $0, output: $1) }
        for r in results { #expect(r.exitCode == 0, "\(r)") }
        #expect(results.filter { $0.stdout.contains("Applied 2 changes") }.count == 1, "\(results)")
        #expect(results.filter { $0.stdout.hasSuffix("No changes.\n") }.count == 1, "\(results)")
        #expect(f.restorePointFiles().count == 1)
        let database = try Database(path: f.db)
        defer { database.close() }
        #expect(try database.fetchValue(Int.self, sql: "SELECT count(*) FROM note") == 50003)
        #expect(try database.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    // MARK: Refusals and bad input

    @Test func aRestoreThatWouldLoseRowsIsRefusedNamingTheTableUnlessTheLossIsAccepted() throws {
        let f = try Fixture()
        try f.upgrade()
        do {
            let database = try Database(path: f.db)
            defer { database.close() }
            try database.execute(sql: "INSERT INTO tag(name) VALUES ('written after')")
        }
        let before = try f.contents()
        let bytes = fileBytes(f.db)
        var r = try f.strata(["restore", "--db", f.db])
        #expect(r.exitCode == 3, "\(r)")
        #expect(
            r.stderr.contains(
                "table tag: 1 row written since the upgrade; the older schema has no such table; nothing was changed (pass --accept-loss to restore anyway)"
            ), "\(r)")
        r = try f.strata(["restore", "--db", f.db, "--format", "json"])
        #expect(r.exitCode == 3, "\(r)")
        let document = try Self.json(r.stdout)
        #expect(document["result"] as? String == "refused")
        #expect(document["culprit"] as? String == "tag")
        #expect(fileBytes(f.db) == bytes)
        #expect(try f.contents() == before)

        r = try f.strata(["restore", "--db", f.db, "--accept-loss"])
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stdout.contains("Lost (accepted): table tag"), "\(r)")
        let database = try Database(path: f.db)
        defer { database.close() }
        #expect(try database.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master WHERE name = 'tag'") == [])
    }

    @Test func aMissingDatabaseIsNamedAndNotCreated() throws {
        let dir = TemporaryDirectory("strata-upgrade-missing")
        let db = dir.file("nope.sqlite")
        for command in [["restore"], ["upgrade", "status"]] {
            let r = try StrataProcess.run(command + ["--db", db])
            #expect(r.exitCode == 1, "\(command): \(r)")
            #expect(r.stderr == "strata: \(db): no such database file\n", "\(command): \(r)")
            let j = try StrataProcess.run(command + ["--db", db, "--format", "json"])
            #expect(j.exitCode == 1, "\(command): \(j)")
            let document = try Self.json(j.stdout)
            #expect(document["result"] as? String == "failed")
            #expect(document["culprit"] as? String == db)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [])
    }

    @Test func aRestorePointThatIsNotKeptIsNamed() throws {
        let f = try Fixture()
        let before = try f.contents()
        let bytes = fileBytes(f.db)
        var r = try f.strata(["restore", "--db", f.db])
        #expect(r.exitCode == 1, "\(r)")
        #expect(r.stderr == "strata: \(f.db): no restore point is kept\n", "\(r)")
        #expect(fileBytes(f.db) == bytes)
        #expect(try f.contents() == before)
        try f.upgrade()
        let after = try f.contents()
        let upgradedBytes = fileBytes(f.db)
        r = try f.strata(["restore", "--db", f.db, "--restore-point", "rp-20990101T000000000-nothere"])
        #expect(r.exitCode == 1, "\(r)")
        #expect(r.stderr == "strata: \(f.db): no restore point rp-20990101T000000000-nothere is kept\n", "\(r)")
        let document = try Self.json(
            try f.strata(["restore", "--db", f.db, "--restore-point", "rp-x", "--format", "json"]).stdout)
        #expect(document["culprit"] as? String == "rp-x")
        #expect(fileBytes(f.db) == upgradedBytes)
        #expect(try f.contents() == after)
    }

    /// A restore point truncated, with a byte changed, or replaced by another database's file:
    /// refused naming the file, the database unchanged.
    @Test func aDamagedRestorePointIsRefusedNamingItsFile() throws {
        let damages: [(String, (String, Fixture) throws -> Void)] = [
            (
                "truncated",
                { point, _ in try Data(fileBytes(point).prefix(4096)).write(to: URL(fileURLWithPath: point)) }
            ),
            (
                "a byte changed",
                { point, _ in
                    var bytes = fileBytes(point)
                    bytes[bytes.count / 2] ^= 0x5A
                    try bytes.write(to: URL(fileURLWithPath: point))
                }
            ),
            (
                "another database's",
                { point, f in
                    let other = f.dir.file("other.sqlite")
                    let database = try Database(path: other)
                    try database.migrateSchema(to: UpgradeCommandTests.v1)
                    try database.execute(sql: "INSERT INTO note(title) VALUES ('someone else')")
                    database.close()
                    var bytes = fileBytes(other)
                    let size = fileBytes(point).count
                    if bytes.count < size { bytes.append(Data(count: size - bytes.count)) }
                    try bytes.prefix(size).write(to: URL(fileURLWithPath: point))
                }
            ),
        ]
        for (name, damage) in damages {
            let f = try Fixture()
            try f.upgrade()
            let point = f.folder + "/" + (try #require(f.restorePointFiles().first))
            try damage(point, f)
            let before = try f.contents()
            let bytes = fileBytes(f.db)
            let r = try f.strata(["restore", "--db", f.db])
            #expect(r.exitCode == 1, "\(name): \(r)")
            #expect(r.stderr.hasPrefix("strata: \(f.db): \(point): "), "\(name): names the file: \(r)")
            #expect(r.stderr.contains("the database was not changed"), "\(name): \(r)")
            let j = try f.strata(["restore", "--db", f.db, "--format", "json"])
            #expect(try Self.json(j.stdout)["culprit"] as? String == point, "\(name): \(j)")
            #expect(fileBytes(f.db) == bytes, "\(name)")
            #expect(try f.contents() == before, "\(name)")
            // Status flags the truncated one from its size (without reading it).
            if name == "truncated" {
                #expect(try f.strata(["upgrade", "status", "--db", f.db]).stdout.contains("FILE SIZE DIFFERS"))
            }
        }
    }

    @Test func aStateFileOfANewerStrataOrDamagedIsRefusedNamingIt() throws {
        for (name, text) in [("newer", #"{"format": 99, "restorePoints": []}"#), ("garbage", "{ not json")] {
            let f = try Fixture()
            try f.upgrade()
            let state = f.folder + "/upgrade.json"
            try Data(text.utf8).write(to: URL(fileURLWithPath: state))
            let before = try f.contents()
            let bytes = fileBytes(f.db)
            for command in [
                ["restore"], ["upgrade", "status"],
                ["apply", "--schema", f.v1, "--restore-point", "--allow-destructive"],
            ] {
                let r = try f.strata(command + ["--db", f.db])
                #expect(r.exitCode == 1, "\(name) \(command): \(r)")
                #expect(r.stderr.contains("\(state): "), "\(name) \(command): names the state file: \(r)")
                if name == "newer" { #expect(r.stderr.contains("written by a newer Strata (format 99"), "\(r)") }
            }
            let j = try f.strata(["upgrade", "status", "--db", f.db, "--format", "json"])
            #expect(try Self.json(j.stdout)["culprit"] as? String == state, "\(name): \(j)")
            #expect(fileBytes(f.db) == bytes, "\(name)")
            #expect(try f.contents() == before, "\(name)")
            #expect(fileBytes(state) == Data(text.utf8), "\(name): the state file is left as it was")
        }
    }

    /// An encrypted database: the restore point is encrypted under its key (no plaintext beside
    /// it), `restore --key-file` takes the upgrade back, and another key is refused naming the
    /// restore point, the database unchanged.
    @Test(.requiresEncryption) func anEncryptedDatabaseIsRestoredWithItsKeyAndRefusedWithAnother() throws {
        let dir = TemporaryDirectory("strata-upgrade-encrypted")
        let db = dir.file("app.sqlite")
        let key = dir.file("key.txt")
        let other = dir.file("other.txt")
        try Data("upgrade secret\n".utf8).write(to: URL(fileURLWithPath: key))
        try Data("another secret\n".utf8).write(to: URL(fileURLWithPath: other))
        try Data(Self.v1.utf8).write(to: URL(fileURLWithPath: dir.file("v1.sql")))
        try Data(Self.v2.utf8).write(to: URL(fileURLWithPath: dir.file("v2.sql")))
        let marker = "STRATA-UPGRADE-MARKER-77c1"
        var r = try StrataProcess.run(["apply", "--db", db, "--schema", dir.file("v1.sql"), "--key-file", key])
        #expect(r.exitCode == 0, "\(r)")
        do {
            var configuration = Configuration()
            configuration.encryptionKey = { .passphrase("upgrade secret") }
            let database = try Database(path: db, configuration: configuration)
            defer { database.close() }
            try database.execute(sql: "INSERT INTO note(title, legacy) VALUES (?, 'kept')", arguments: [marker])
        }
        let before = try StrataProcess.run(["dump", "--db", db, "--key-file", key]).stdout
        r = try StrataProcess.run([
            "apply", "--db", db, "--schema", dir.file("v2.sql"), "--restore-point", "--allow-destructive", "--key-file",
            key, "--format", "json",
        ])
        #expect(r.exitCode == 0, "\(r)")
        let entry = try #require((try Self.json(r.stdout)["databases"] as? [[String: Any]])?.first)
        let point = try #require(entry["restorePoint"] as? [String: Any])
        #expect(point["encrypted"] as? Bool == true)
        #expect(plaintextLeaks(in: dir.path, marker: marker).isEmpty, "no plaintext restore point")

        let bytes = fileBytes(db)
        r = try StrataProcess.run(["restore", "--db", db, "--key-file", other])
        #expect(r.exitCode == 1, "\(r)")
        #expect(fileBytes(db) == bytes, "another key changes nothing")
        r = try StrataProcess.run(["restore", "--db", db, "--key-file", key])
        #expect(r.exitCode == 0, "\(r)")
        #expect(try StrataProcess.run(["dump", "--db", db, "--key-file", key]).stdout == before)
        #expect(plaintextLeaks(in: dir.path, marker: marker).isEmpty)
    }

    @Test func restorePointAndDryRunTogetherAreAUsageError() throws {
        let f = try Fixture()
        for command in [["apply", "--schema", f.v2], ["migrate", "--migrations", f.dir.path]] {
            let r = try f.strata(command + ["--db", f.db, "--restore-point", "--dry-run"])
            #expect(r.exitCode != 0, "\(r)")
            #expect(r.stderr.contains("--restore-point writes a restore point; --dry-run writes nothing"), "\(r)")
        }
        #expect(!FileManager.default.fileExists(atPath: f.folder))
    }
}

/// The CLI's size text (powers of 1000, one decimal), as the restore point line prints it.
enum RestorePointSizeText {
    static func size(_ bytes: Int64) -> String {
        let value = Double(bytes)
        for (limit, suffix) in [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")] where value >= limit {
            return "\(((value / limit) * 10).rounded() / 10) \(suffix)"
        }
        return "\(bytes) B"
    }
}

extension ChildProcess.Result {
    fileprivate func expectSuccess(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(exitCode == 0, "\(self)", sourceLocation: sourceLocation)
    }
}
