import Foundation
import Strata
import StrataTestSupport
import StrataTesting
import Testing

/// `verifyUpgrades` and data migrations (issue 28): a row a migration changes or deletes with its
/// own `UPDATE` or `DELETE` is a note naming the migration, not a failure; a row lost or changed
/// by a broken upgrade (a hand-written rebuild that drops it or a column's values) is still a
/// failure naming the version, the table and the row. Also `upgradeReport(...encryptionKey:)`:
/// the same checks on encrypted copies.
@Suite("Deliberate changes in verification")
struct DeliberateChangeVerificationTests {
    static func base() -> Migrator {
        var migrator = Migrator()
        migrator.registerMigration(
            "0001_create",
            sql: """
                CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE "select ""tag"" x"(name TEXT PRIMARY KEY, weight INTEGER) WITHOUT ROWID;
                """)
        return migrator
    }

    @Test func aMigrationsOwnUpdateAndDeleteAreNotesNamingIt() throws {
        var migrator = Self.base()
        migrator.registerMigration("0002_scale_scores", sql: "UPDATE player SET score = score * 10")
        migrator.registerMigration(
            "0003_prune",
            sql: """
                DELETE FROM player WHERE rowid IN (SELECT rowid FROM player ORDER BY rowid LIMIT 3);
                UPDATE "select ""tag"" x" SET weight = coalesce(weight, 0) + 1;
                """)
        let dir = TemporaryDirectory("history")
        try MigrationHistory.record(Self.base(), to: dir.path)
        let history = try MigrationHistory(folder: dir.path)
        let results = try history.verifyUpgrades(to: migrator, rows: 12)
        let v1 = try #require(results.first)
        #expect(v1.passed, "\(v1.summary)")
        #expect(v1.rowsChecked > 0)
        let notes = v1.changedByMigrations
        #expect(
            notes.contains { $0.hasPrefix("table player: ") && $0.hasSuffix("changed (score) by 0002_scale_scores") },
            "\(notes)")
        #expect(notes.contains { $0.hasPrefix("table player: ") && $0.hasSuffix("deleted by 0003_prune") }, "\(notes)")
        // A WITHOUT ROWID table is reported by table: its changed rows go to the migration that wrote it.
        #expect(
            notes.contains { $0.hasPrefix("table select \"tag\" x: ") && $0.hasSuffix("by 0003_prune") }, "\(notes)")
        #expect(v1.summary.contains("changed by the migrations (not failures): "), "\(v1.summary)")
        // Rows no migration touched are compared as before: some player rows are checked unchanged.
        #expect(!notes.contains { $0.contains("0001_create") })
    }

    @Test func aRowLostByABrokenRebuildIsStillAFailureNamingVersionTableAndRow() throws {
        var migrator = Self.base()
        migrator.registerMigration("0002_scale_scores", sql: "UPDATE player SET score = score * 10")
        // A hand-written rebuild that silently loses the row with id 2 and every name.
        migrator.registerMigration(
            "0003_rebuild",
            sql: """
                CREATE TABLE player_new(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL DEFAULT 0);
                INSERT INTO player_new SELECT id, '', score FROM player WHERE id <> 2;
                DROP TABLE player;
                ALTER TABLE player_new RENAME TO player;
                """)
        let dir = TemporaryDirectory("history")
        try MigrationHistory.record(Self.base(), to: dir.path)
        let history = try MigrationHistory(folder: dir.path)
        let results = try history.upgradeReport(to: migrator, rows: 12)
        let v1 = try #require(results.first)
        let failure = try #require(v1.failure, "\(v1.summary)")
        #expect(failure.version == 1)
        #expect(failure.kind == .row)
        #expect(failure.table == "player")
        // The rebuild copied the rows into another table, so the migration's statements wrote
        // none of them: the lost names are failures, the first row named.
        #expect(failure.row?.hasPrefix("id=") == true, "\(failure)")
        #expect(failure.message.hasPrefix("version 1: table player, row id="), "\(failure)")
        #expect(failure.message.contains("column name was") || failure.message.contains("missing"), "\(failure)")

        // Only the lost row: still named.
        var losesOne = Self.base()
        losesOne.registerMigration("0002_scale_scores", sql: "UPDATE player SET score = score * 10")
        losesOne.registerMigration(
            "0003_rebuild",
            sql: """
                CREATE TABLE player_new(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL DEFAULT 0);
                INSERT INTO player_new SELECT * FROM player WHERE id <> (SELECT max(id) FROM player);
                DROP TABLE player;
                ALTER TABLE player_new RENAME TO player;
                """)
        let lost = try #require(try history.upgradeReport(to: losesOne, rows: 12).first?.failure)
        #expect(lost.kind == .row && lost.table == "player" && lost.row?.hasPrefix("id=") == true, "\(lost)")
        #expect(lost.message.contains("missing after the upgrade"), "\(lost)")
    }

    @Test func theCommandLinePrintsTheNotesAndJSONCarriesThem() throws {
        let dir = TemporaryDirectory("verify-notes")
        let folder = dir.file("migrations")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try Data("CREATE TABLE player(id INTEGER PRIMARY KEY, score INTEGER NOT NULL DEFAULT 0);".utf8).write(
            to: URL(fileURLWithPath: folder + "/0001_create.sql"))
        let history = dir.file("history")
        let recorded = try ChildProcess.run("strata", ["history", "--migrations", folder, "--out", history])
        #expect(recorded.status == 0, "\(recorded)")
        try Data("UPDATE player SET score = score * 10;".utf8).write(
            to: URL(fileURLWithPath: folder + "/0002_scale.sql"))
        let text = try ChildProcess.run("strata", ["verify", "--history", history, "--migrations", folder])
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.contains("changed by the migrations (not failures): table player: "), "\(text)")
        #expect(text.stdout.contains("changed (score) by 0002_scale"), "\(text)")
        let json = try ChildProcess.run(
            "strata", ["verify", "--history", history, "--migrations", folder, "--format", "json"])
        #expect(json.status == 0, "\(json)")
        #expect(json.stdout.contains("\"changedByMigrations\""), "\(json)")
    }

    @Test(.requiresEncryption) func encryptedCopiesAreVerifiedAndLeftNowhere() throws {
        var migrator = Self.base()
        migrator.registerMigration("0002_add", sql: "ALTER TABLE player ADD COLUMN team TEXT")
        let dir = TemporaryDirectory("history")
        try MigrationHistory.record(Self.base(), to: dir.path)
        let history = try MigrationHistory(folder: dir.path)
        let key = EncryptionKey.passphrase("verify \"key\" with ' quotes")
        let results = try history.upgradeReport(to: migrator, rows: 8, encryptionKey: key)
        #expect(results.count == 1)
        #expect(results.allSatisfy { $0.passed }, "\(results.map { $0.summary })")
        #expect((results.first?.rowsChecked ?? 0) > 0)
        let plain = try history.upgradeReport(to: migrator, rows: 8)
        #expect(plain.map(\.rowsChecked) == results.map(\.rowsChecked), "the same checks as in memory")
        // A broken upgrade is caught on the encrypted copy too.
        var loses = Self.base()
        loses.registerMigration(
            "0002_add",
            sql: """
                CREATE TABLE p2(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL DEFAULT 0, team TEXT);
                INSERT INTO p2(id, name, score) SELECT id, name, score FROM player WHERE id <> (SELECT min(id) FROM player);
                DROP TABLE player;
                ALTER TABLE p2 RENAME TO player;
                """)
        let failure = try #require(try history.upgradeReport(to: loses, rows: 8, encryptionKey: key).first?.failure)
        #expect(failure.kind == .row && failure.message.contains("missing after the upgrade"), "\(failure)")
    }

    @Test(.requiresEncryption) func strataVerifyWithAKeyFileUsesEncryptedCopies() throws {
        let dir = TemporaryDirectory("verify-key")
        let folder = dir.file("migrations")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try Data("CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT);".utf8).write(
            to: URL(fileURLWithPath: folder + "/0001_create.sql"))
        let history = dir.file("history")
        #expect(try ChildProcess.run("strata", ["history", "--migrations", folder, "--out", history]).status == 0)
        try Data("ALTER TABLE player ADD COLUMN team TEXT;".utf8).write(
            to: URL(fileURLWithPath: folder + "/0002_team.sql"))
        try Data("x'\(String(repeating: "A1", count: 32))'\n".utf8).write(to: URL(fileURLWithPath: dir.file("key")))
        let run = try ChildProcess.run(
            "strata", ["verify", "--history", history, "--migrations", folder, "--key-file", dir.file("key")])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.hasPrefix("version 1 (0001_create): ok, "), "\(run)")
        let missing = try ChildProcess.run(
            "strata", ["verify", "--history", history, "--migrations", folder, "--key-file", dir.file("no key")])
        #expect(missing.status == 1 && missing.stderr.contains("no key: no such key file"), "\(missing)")
    }

    @Test func aKeyWithoutAnEncryptingSQLiteIsRefusedNamingTheKeyFile() throws {
        guard !Database.supportsEncryption else { return }
        let dir = TemporaryDirectory("verify-key")
        let folder = dir.file("migrations")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try Data("CREATE TABLE player(id INTEGER PRIMARY KEY);".utf8).write(
            to: URL(fileURLWithPath: folder + "/0001_create.sql"))
        let history = dir.file("history")
        #expect(try ChildProcess.run("strata", ["history", "--migrations", folder, "--out", history]).status == 0)
        try Data("secret\n".utf8).write(to: URL(fileURLWithPath: dir.file("key")))
        let run = try ChildProcess.run(
            "strata", ["verify", "--history", history, "--migrations", folder, "--key-file", dir.file("key")])
        #expect(run.status == 1, "\(run)")
        #expect(
            run.stderr.contains("\(dir.file("key")): verifying encrypted copies needs an encryption-capable SQLite"))
        #expect(run.stdout.isEmpty)
    }
}
