import Foundation
import StrataMigrations
import StrataSQLite
import StrataSchema
import StrataTestSupport
import Testing

/// The upgrade airbag (issue 38): restore points before an upgrade, restores, launches counted
/// until the upgrade is confirmed, and a crash loop restored and held back.
@Suite("Upgrade airbag")
struct UpgradeAirbagTests {
    static let version1 = [
        "0001_note": "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, legacy TEXT NOT NULL DEFAULT '');",
        "0002_rows": """
        INSERT INTO note(title, legacy) VALUES ('first', 'a'), ('it''s', 'b'), ('third', 'c');
        CREATE TABLE audit(n INTEGER);
        CREATE TRIGGER note_audit AFTER INSERT ON note BEGIN INSERT INTO audit VALUES (new.id); END;
        """,
    ]
    /// The upgrade: a new table, a new column, a dropped column, and a data step.
    static let upgrade = [
        "0003_tags": "CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);",
        "0004_pinned": "ALTER TABLE note ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;",
        "0005_drop_legacy": "ALTER TABLE note DROP COLUMN legacy; UPDATE note SET title = upper(title);",
    ]

    static func migrator(_ steps: [[String: String]], safety: UpgradeSafety? = UpgradeSafety()) -> Migrator {
        var migrator = Migrator()
        for step in steps {
            for (identifier, sql) in step.sorted(by: { $0.key < $1.key }) {
                migrator.registerMigration(identifier, sql: sql)
            }
        }
        migrator.upgradeSafety = safety
        return migrator
    }

    /// An upgrade every SQLite of the matrix runs (no DROP COLUMN): the crash-loop test's.
    static let portableUpgrade = [
        "0003_tags": "CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);",
        "0004_pinned": "ALTER TABLE note ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;",
        "0005_shout": "UPDATE note SET title = upper(title);",
    ]

    /// A database at version 1, and its contents.
    static func databaseAtVersion1(_ dir: TemporaryDirectory) throws -> (path: String, before: DatabaseContents) {
        let path = dir.file("app.sqlite")
        let db = try Database(path: path)
        defer { db.close() }
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        try migrator([version1], safety: nil).migrate(db)
        return (path, try DatabaseContents(db))
    }

    static func requiresDropColumn() -> Bool { SQLiteVersion.runtime >= SQLiteVersion(3, 35, 5) }

    @Test(.enabled(if: requiresDropColumn(), "ALTER TABLE DROP COLUMN needs SQLite 3.35.5"))
    func anUpgradeThenARestoreGivesBackEveryRowAndTheLedger() throws {
        let dir = TemporaryDirectory("airbag-exact")
        let (path, before) = try Self.databaseAtVersion1(dir)
        let db = try Database(path: path)
        defer { db.close() }
        let outcome = try Self.migrator([Self.version1, Self.upgrade]).migrate(db, safety: UpgradeSafety())
        #expect(outcome.kind == .upgraded)
        #expect(outcome.applied == ["0003_tags", "0004_pinned", "0005_drop_legacy"])
        let point = try #require(outcome.restorePoint)
        #expect(point.fromVersion == "0002_rows")
        #expect(point.toVersion == "0005_drop_legacy")
        #expect(try RestorePoint.all(forDatabaseAt: path) == [point])
        let status = try UpgradeStatus(forDatabaseAt: path)
        #expect(status.lastUpgrade?.phase == .unconfirmed)
        #expect(try DatabaseContents(db) != before)

        let report = try db.restore()
        #expect(report.isExact, "nothing was written since the upgrade")
        #expect(try DatabaseContents(db) == before)
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(try UpgradeStatus(forDatabaseAt: path).lastUpgrade?.phase == .restored)
        // The upgrade's migrations are pending again.
        #expect(try Self.migrator([Self.version1, Self.upgrade]).pendingMigrations(db).count == 3)
    }

    @Test(.enabled(if: requiresDropColumn(), "ALTER TABLE DROP COLUMN needs SQLite 3.35.5"))
    func rowsWrittenSinceTheUpgradeAreCarriedBackAndDroppedColumnsComeBack() throws {
        let dir = TemporaryDirectory("airbag-carry")
        let (path, _) = try Self.databaseAtVersion1(dir)
        let db = try Database(path: path)
        defer { db.close() }
        try Self.migrator([Self.version1, Self.upgrade]).migrate(db, safety: UpgradeSafety())
        // The app writes on the new schema: a note (pinned is its default), an edit.
        try db.execute(sql: "INSERT INTO note(id, title) VALUES (10, 'written after')")
        try db.execute(sql: "UPDATE note SET title = 'edited' WHERE id = 2")

        let report = try db.restore()
        #expect(!report.isExact)
        #expect(report.carriedForward.contains("note"))
        let rows = try db.fetchAll(sql: "SELECT id, title, legacy FROM note ORDER BY id").map {
            [$0.value(at: 0), $0.value(at: 1), $0.value(at: 2)]
        }
        #expect(
            rows == [
                [.integer(1), .text("FIRST"), .text("a")], [.integer(2), .text("edited"), .text("b")],
                [.integer(3), .text("THIRD"), .text("c")], [.integer(10), .text("written after"), .text("")],
            ], "current rows kept, the dropped column's values back from the restore point")
        let tables = try db.fetchColumn(
            String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        #expect(!tables.contains("tag"))
        #expect(
            try db.fetchColumn(String.self, sql: "SELECT name FROM pragma_table_info('note')") == [
                "id", "title", "legacy",
            ])
        // The trigger is back, and did not fire for the restore's own writes.
        #expect(try db.fetchColumn(Int.self, sql: "SELECT n FROM audit ORDER BY rowid") == [10])
        try db.execute(sql: "INSERT INTO note(title) VALUES ('after the restore')")
        #expect(try db.fetchColumn(Int.self, sql: "SELECT n FROM audit ORDER BY rowid") == [10, 11])
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    @Test(.enabled(if: requiresDropColumn(), "ALTER TABLE DROP COLUMN needs SQLite 3.35.5"))
    func aRestoreThatWouldLoseRowsRefusesNamingTheTableAndChangesNothing() throws {
        let dir = TemporaryDirectory("airbag-loss")
        let (path, _) = try Self.databaseAtVersion1(dir)
        let db = try Database(path: path)
        defer { db.close() }
        try Self.migrator([Self.version1, Self.upgrade]).migrate(db, safety: UpgradeSafety())
        try db.execute(sql: "INSERT INTO tag(name) VALUES ('work'), ('home')")
        let before = try DatabaseContents(db)
        #expect {
            try db.restore()
        } throws: { error in
            guard let error = error as? UpgradeError else { return false }
            return error.code == .restoreWouldLoseRows && error.culprit == "tag"
                && error.message.contains("table tag: 2 rows written since the upgrade")
        }
        #expect(try DatabaseContents(db) == before)
        // Pinned values are data too.
        try db.execute(sql: "DELETE FROM tag; UPDATE note SET pinned = 1 WHERE id = 1")
        let pinned = try DatabaseContents(db)
        #expect {
            try db.restore()
        } throws: { error in
            (error as? UpgradeError)?.culprit == "note.pinned"
        }
        #expect(try DatabaseContents(db) == pinned)
        // Accepted, it goes ahead and says what was lost.
        let report = try db.restore(acceptingLoss: true)
        #expect(report.accepted.count == 1)
        #expect(
            try db.fetchColumn(String.self, sql: "SELECT name FROM pragma_table_info('note')") == [
                "id", "title", "legacy",
            ])
    }

    /// Where another connection commits during an upgrade: nowhere, after the restore point and
    /// before the migrations, or after the migrations and before the tables' digests.
    enum ForeignCommit: String, CaseIterable, Sendable { case none, beforeTheMigrations, afterTheMigrations }

    @Test(arguments: ForeignCommit.allCases)
    func aCommitOfAnotherConnectionDuringTheUpgradeIsNeverLostToAnExactRestore(_ when: ForeignCommit) throws {
        let dir = TemporaryDirectory("airbag-foreign")
        let (path, before) = try Self.databaseAtVersion1(dir)
        let db = try Database(path: path)
        defer { db.close() }
        let pending = PendingUpgrade(
            migrations: Array(Self.portableUpgrade.keys.sorted()), key: "foreign-\(when)", fromVersion: "0002_rows",
            toVersion: "0005_shout", destructiveReason: "a data step")
        func foreignCommit() throws {
            let other = try Database(path: path)
            defer { other.close() }
            try other.execute(sql: "INSERT INTO note(id, title) VALUES (20, 'written by another connection')")
        }
        let outcome = try UpgradeAirbag.run(db, safety: UpgradeSafety(), pending: pending) {
            if when == .beforeTheMigrations { try foreignCommit() }
            let applied = try Self.migrator([Self.version1, Self.portableUpgrade], safety: nil).migrate(db)
            if when == .afterTheMigrations { try foreignCommit() }
            return applied
        }
        #expect(outcome.kind == .upgraded)
        #expect(outcome.restorePoint != nil)
        let record = try #require(UpgradeStore(databasePath: path).load().upgrade)
        if when == .none {
            #expect(!record.tableDigests.isEmpty)
            #expect(record.digestsWithheldBecause == nil)
        } else {
            #expect(record.tableDigests.isEmpty, "the restore point lacks a row the digests would count")
            #expect(record.digestsWithheldBecause?.contains("another connection committed") == true)
        }

        let report = try db.restore()
        let ids = try db.fetchColumn(Int.self, sql: "SELECT id FROM note ORDER BY id")
        if when == .none {
            #expect(report.isExact)
            #expect(try DatabaseContents(db) == before)
        } else {
            #expect(!report.isExact, "an exact restore would lose the other connection's row")
            #expect(ids == [1, 2, 3, 20], "the other connection's row is kept")
            #expect(
                try db.fetchColumn(String.self, sql: "SELECT name FROM pragma_table_info('note')") == [
                    "id", "title", "legacy",
                ])
        }
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    @Test func aCommitOfAnotherConnectionWhileTheRestoreDecidesIsCarriedBack() throws {
        let dir = TemporaryDirectory("airbag-foreign-restore")
        let (path, _) = try Self.databaseAtVersion1(dir)
        let db = try Database(path: path)
        defer { db.close() }
        let outcome = try Self.migrator([Self.version1, Self.portableUpgrade]).migrate(db, safety: UpgradeSafety())
        let point = try #require(outcome.restorePoint)
        let store = UpgradeStore(databasePath: path)
        let record = try #require(try store.load().upgrade)
        #expect(!record.tableDigests.isEmpty, "nothing else wrote during the upgrade")
        // The digests read equal; another connection commits before the copy.
        let report = try store.withLock {
            try db.restore(
                point, store: store, digestsAfterUpgrade: record.tableDigests, acceptingLoss: false,
                beforeActing: {
                    let other = try Database(path: path)
                    defer { other.close() }
                    try other.execute(sql: "INSERT INTO note(id, title) VALUES (30, 'written while restoring')")
                })
        }
        #expect(!report.isExact)
        #expect(try db.fetchColumn(Int.self, sql: "SELECT id FROM note ORDER BY id") == [1, 2, 3, 30])
        #expect(
            try db.fetchValue(String.self, sql: "SELECT title FROM note WHERE id = 30") == "written while restoring")
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    /// A build whose upgrade crashes the app: restored after two launches without success.
    static let brokenBuild: (migrator: Migrator, safety: UpgradeSafety) = {
        let safety = UpgradeSafety(crashLoopLaunches: 2)
        return (migrator([version1, portableUpgrade], safety: safety), safety)
    }()

    /// Two launches of the broken build that never report success; their outcomes.
    static func launchTwiceWithoutSuccess(_ path: String) throws -> [UpgradeOutcome] {
        try (1...2).map { _ in
            let db = try Database(path: path)
            defer { db.close() }
            return try brokenBuild.migrator.migrate(db, safety: brokenBuild.safety)
        }
    }

    @Test func aCrashLoopRestoresHoldsTheUpgradeBackAndAFixedBuildUpgrades() throws {
        let dir = TemporaryDirectory("airbag-loop")
        let (path, before) = try Self.databaseAtVersion1(dir)
        let (broken, safety) = Self.brokenBuild
        // Launch 1 upgrades, then "crashes" (never reports success); launch 2 opens and crashes.
        #expect(try Self.launchTwiceWithoutSuccess(path).map(\.kind) == [.upgraded, .upToDate])
        #expect(try UpgradeStatus(forDatabaseAt: path).lastUpgrade?.launchesWithoutSuccess == 2)
        // Launch 3: restored before anything else, and the upgrade held back.
        do {
            let db = try Database(path: path)
            defer { db.close() }
            let outcome = try broken.migrate(db, safety: safety)
            #expect(outcome.kind == .restored, "\(outcome.message)")
            #expect(outcome.heldBack?.migrations == ["0003_tags", "0004_pinned", "0005_shout"])
            #expect(outcome.message.contains("opened 2 times without a successful launch"))
            #expect(try DatabaseContents(db) == before)
        }
        // Launch 4 of the same build: the upgrade is not retried.
        do {
            let db = try Database(path: path)
            defer { db.close() }
            let outcome = try broken.migrate(db, safety: safety)
            #expect(outcome.kind == .heldBack)
            #expect(try DatabaseContents(db) == before)
            // Through the pool initializer too: nothing runs.
            #expect(try broken.migrate(db).isEmpty)
        }
        // A build with a fixed migration (another checksum) upgrades normally.
        var fixed = Self.portableUpgrade
        fixed["0005_shout"] = "UPDATE note SET title = title || '';"
        let db = try Database(path: path)
        defer { db.close() }
        let outcome = try Self.migrator([Self.version1, fixed], safety: safety).migrate(db, safety: safety)
        #expect(outcome.kind == .upgraded)
        #expect(
            try db.fetchColumn(String.self, sql: "SELECT title FROM note ORDER BY id") == ["first", "it's", "third"])
        // Successful launches confirm it, and its restore points go.
        try UpgradeSafety.launchSucceeded(forDatabaseAt: path, confirmingLaunches: 2)
        #expect(try UpgradeStatus(forDatabaseAt: path).lastUpgrade?.phase == .unconfirmed)
        try UpgradeSafety.launchSucceeded(forDatabaseAt: path, confirmingLaunches: 2)
        let status = try UpgradeStatus(forDatabaseAt: path)
        #expect(status.lastUpgrade?.phase == .confirmed)
        #expect(status.restorePoints.isEmpty)
        #expect(filesIn(path + "-strata-upgrade").filter { $0.hasSuffix(".sqlite") }.isEmpty)
    }

    @Test func thePolicyDecidesAndSaysWhy() throws {
        let dir = TemporaryDirectory("airbag-policy")
        let (path, _) = try Self.databaseAtVersion1(dir)
        let db = try Database(path: path)
        defer { db.close() }
        let additive = ["0003_tags": "CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT);"]
        let onlyDestructive = UpgradeSafety(restorePoints: .whenDestructiveOrDataSteps)
        let first = try Self.migrator([Self.version1, additive]).migrate(db, safety: onlyDestructive)
        #expect(first.kind == .upgraded)
        #expect(first.restorePoint == nil)
        #expect(first.restorePointReason?.contains("only adds") == true)

        let data = ["0004_fill": "INSERT INTO tag(name) VALUES ('x');"]
        let second = try Self.migrator([Self.version1, additive, data]).migrate(db, safety: onlyDestructive)
        #expect(second.restorePoint != nil)
        #expect(second.restorePointReason?.contains("INSERT INTO tag") == true)

        let small = UpgradeSafety(maximumRestorePointBytes: 1024)
        let third = try Self.migrator([Self.version1, additive, data, ["0005_more": "CREATE TABLE more(x);"]]).migrate(
            db, safety: small)
        #expect(third.restorePoint == nil)
        #expect(third.restorePointReason?.contains("above the limit of 1024") == true)
    }

    @Test func atMostKRestorePointsAreKept() throws {
        let dir = TemporaryDirectory("airbag-keep")
        let (path, _) = try Self.databaseAtVersion1(dir)
        let db = try Database(path: path)
        defer { db.close() }
        var steps = [Self.version1]
        var ids: [String] = []
        for n in 3...6 {
            steps.append(["000\(n)_t\(n)": "CREATE TABLE t\(n)(x);"])
            let outcome = try Self.migrator(steps).migrate(db, safety: UpgradeSafety(keptRestorePoints: 2))
            ids.append(try #require(outcome.restorePoint?.id))
        }
        #expect(try RestorePoint.all(forDatabaseAt: path).map(\.id) == Array(ids.suffix(2)))
        let files = filesIn(path + "-strata-upgrade").filter { $0.hasSuffix(".sqlite") }.sorted()
        #expect(files == ids.suffix(2).map { $0 + ".sqlite" }.sorted())
    }

    // MARK: Bad input

    /// An upgraded database with a restore point, its contents, and the restore point's path.
    static func upgraded(_ dir: TemporaryDirectory) throws -> (path: String, point: String, after: DatabaseContents) {
        let (path, _) = try databaseAtVersion1(dir)
        let db = try Database(path: path)
        defer { db.close() }
        let steps: [String: String] = ["0003_tags": "CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT);"]
        let outcome = try migrator([version1, steps]).migrate(db, safety: UpgradeSafety())
        let point = try #require(outcome.restorePoint)
        return (path, path + "-strata-upgrade/" + point.id + ".sqlite", try DatabaseContents(db))
    }

    @Test func aDamagedRestorePointIsRefusedAndTheDatabaseIsUnchanged() throws {
        let cases: [(String, (String, String) throws -> Void)] = [
            (
                "truncated",
                { point, _ in try Data(fileBytes(point).prefix(4096)).write(to: URL(fileURLWithPath: point)) }
            ),
            (
                "a byte changed",
                { point, _ in
                    var bytes = fileBytes(point)
                    bytes[bytes.count - 3000] ^= 0x5A
                    bytes[50] ^= 0x01
                    try bytes.write(to: URL(fileURLWithPath: point))
                }
            ),
            ("removed", { point, _ in try FileManager.default.removeItem(atPath: point) }),
            (
                "another database's",
                { point, dir in
                    let other = try Database(path: dir + "/other.sqlite")
                    try other.execute(
                        sql:
                            "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, legacy TEXT NOT NULL DEFAULT '')"
                    )
                    other.close()
                    let bytes = fileBytes(dir + "/other.sqlite")
                    var padded = bytes
                    let target = fileBytes(point).count
                    if padded.count < target { padded.append(Data(count: target - padded.count)) }
                    try padded.prefix(target).write(to: URL(fileURLWithPath: point))
                }
            ),
        ]
        for (name, damage) in cases {
            let dir = TemporaryDirectory("airbag-damaged")
            let (path, point, after) = try Self.upgraded(dir)
            try damage(point, dir.path)
            let db = try Database(path: path)
            defer { db.close() }
            #expect(throws: UpgradeError.self, "\(name)") { try db.restore() }
            do {
                try db.restore()
            } catch let error as UpgradeError {
                #expect(error.code == .restorePointInvalid, "\(name): \(error)")
                #expect(error.message.contains(point), "\(name): names the file: \(error.message)")
            }
            #expect(try DatabaseContents(db) == after, "\(name): the database is unchanged")
        }
    }

    /// Deletes the database's files (not the restore points beside it), as an app's "reset" does,
    /// and creates it again at version 1, a millisecond later at least.
    static func createdAgain(_ path: String, migrations: [[String: String]] = [version1]) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.removeItem(atPath: path + suffix)
        }
        Thread.sleep(forTimeInterval: 0.01)
        let db = try Database(path: path)
        defer { db.close() }
        try migrator(migrations, safety: nil).migrate(db)
    }

    @Test func aRestorePointOfTheDatabaseBeforeItWasCreatedAgainIsRefused() throws {
        let dir = TemporaryDirectory("airbag-lineage")
        let (path, _, _) = try Self.upgraded(dir)
        let tags: [String: String] = ["0003_tags": "CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT);"]
        try Self.createdAgain(path, migrations: [Self.version1, tags])
        let db = try Database(path: path)
        defer { db.close() }
        try db.execute(sql: "INSERT INTO note(title) VALUES ('written in the new life')")
        let before = try DatabaseContents(db)
        do {
            try db.restore()
            Issue.record("a restore point of the deleted database was restored over the new one")
        } catch let error as UpgradeError {
            #expect(error.code == .restorePointInvalid, "\(error)")
            #expect(error.message.contains("another database's"), "\(error.message)")
            #expect(error.message.contains("0001_note"), "names the migration: \(error.message)")
        }
        #expect(try DatabaseContents(db) == before, "the database is unchanged")
        // A restore point the new database takes itself is of its lineage.
        let more: [String: String] = ["0004_more": "CREATE TABLE more(x);"]
        let outcome = try Self.migrator([Self.version1, tags, more]).migrate(db, safety: UpgradeSafety())
        #expect(outcome.restorePoint != nil)
        try db.restore()
        #expect(try DatabaseContents(db) == before)
    }

    @Test func aCrashLoopOnADatabaseCreatedAgainDoesNotRestoreTheOldOne() throws {
        let dir = TemporaryDirectory("airbag-lineage-loop")
        let (path, _) = try Self.databaseAtVersion1(dir)
        let (broken, safety) = Self.brokenBuild
        _ = try Self.launchTwiceWithoutSuccess(path)
        // Created again and brought to the same version (nothing pending) by another tool.
        try Self.createdAgain(path, migrations: [Self.version1, Self.portableUpgrade])
        let db = try Database(path: path)
        defer { db.close() }
        try db.execute(sql: "INSERT INTO note(title) VALUES ('written in the new life')")
        let before = try DatabaseContents(db)
        let outcome = try broken.migrate(db, safety: safety)
        #expect(outcome.kind == .crashLoopNotRestored, "\(outcome.message)")
        #expect(outcome.message.contains("another database's"), "\(outcome.message)")
        #expect(try DatabaseContents(db) == before, "the new database is not restored over")
    }

    @Test func aCrashLoopThatCannotRestoreIsStillReportedWhenAnUpgradeFollows() throws {
        let dir = TemporaryDirectory("airbag-lineage-loop-upgrade")
        let (path, _) = try Self.databaseAtVersion1(dir)
        _ = try Self.launchTwiceWithoutSuccess(path)
        // Created again at version 1: the same open refuses the old restore point, then upgrades.
        try Self.createdAgain(path)
        let db = try Database(path: path)
        defer { db.close() }
        let outcome = try Self.brokenBuild.migrator.migrate(db, safety: Self.brokenBuild.safety)
        #expect(outcome.kind == .upgraded, "\(outcome.message)")
        #expect(outcome.message.contains("another database's"), "the refusal is told: \(outcome.message)")
        #expect(outcome.message.contains("upgraded to 0005_shout"), "\(outcome.message)")
        #expect(try UpgradeStatus(forDatabaseAt: path).lastUpgrade?.phase == .unconfirmed)
    }

    @Test func anUnreadableOrNewerStateFileIsRefusedNamingIt() throws {
        for (name, text) in [
            ("garbage", "not json {"), ("newer", #"{"format": 99, "restorePoints": []}"#), ("empty", ""),
        ] {
            let dir = TemporaryDirectory("airbag-state")
            let (path, _, after) = try Self.upgraded(dir)
            let state = path + "-strata-upgrade/upgrade.json"
            try Data(text.utf8).write(to: URL(fileURLWithPath: state))
            let db = try Database(path: path)
            defer { db.close() }
            do {
                try db.restore()
                Issue.record("\(name): restored from a damaged state")
            } catch let error as UpgradeError {
                #expect(error.code == .stateUnreadable, "\(name)")
                #expect(error.culprit == state, "\(name)")
                if name == "newer" { #expect(error.message.contains("newer Strata")) }
            }
            // A launch with the airbag refuses too, before anything runs.
            #expect(throws: UpgradeError.self) {
                try Self.migrator([Self.version1, ["0009_x": "CREATE TABLE x(y);"]]).migrate(
                    db, safety: UpgradeSafety())
            }
            #expect(try DatabaseContents(db) == after, "\(name)")
        }
    }

    @Test(.enabled(if: SmallFileSystem.isAvailable, "mounting a small tmpfs failed: needs root on Linux"))
    func aDiskThatFillsWhileTheRestorePointIsWrittenStopsTheUpgradeBeforeItStarts() throws {
        let full = try SmallFileSystem(kilobytes: 600)
        let path = full.file("app.sqlite")
        let db = try Database(path: path)
        defer { db.close() }
        try Self.migrator([Self.version1], safety: nil).migrate(db)
        try db.execute(sql: "CREATE TABLE big(b BLOB); INSERT INTO big VALUES (randomblob(350000))")
        let before = try DatabaseContents(db)
        #expect {
            try Self.migrator([Self.version1, ["0003_x": "CREATE TABLE x(y);"]]).migrate(db, safety: UpgradeSafety())
        } throws: { error in
            (error as? UpgradeError)?.code == .restorePointWriteFailed
        }
        #expect(try DatabaseContents(db) == before, "the upgrade did not start")
        let left = filesIn(path + "-strata-upgrade").filter { $0.contains("rp-") }
        #expect(left.isEmpty, "no partial restore point: \(left)")
    }

    @Test(.requiresEncryption) func anEncryptedDatabaseGetsAnEncryptedRestorePoint() throws {
        let dir = TemporaryDirectory("airbag-encrypted")
        let path = dir.file("secret.sqlite")
        var configuration = Configuration()
        configuration.encryptionKey = { .passphrase("correct horse") }
        let db = try Database(path: path, configuration: configuration)
        defer { db.close() }
        try Self.migrator([Self.version1], safety: nil).migrate(db)
        try db.execute(sql: "INSERT INTO note(title) VALUES ('top secret marker')")
        let before = try DatabaseContents(db)
        let outcome = try Self.migrator([Self.version1, ["0003_x": "CREATE TABLE x(y);"]]).migrate(
            db, safety: UpgradeSafety())
        let point = try #require(outcome.restorePoint)
        #expect(point.isEncrypted)
        let file = path + "-strata-upgrade/" + point.id + ".sqlite"
        #expect(!fileBytes(file).starts(with: Data("SQLite format 3\0".utf8)), "no plaintext beside an encrypted file")
        #expect(fileBytes(file).range(of: Data("top secret marker".utf8)) == nil)
        try db.restore()
        #expect(try DatabaseContents(db) == before)
    }
}
