import Foundation
import Strata
import StrataTestSupport
import StrataTesting
import Testing

/// The migration test kit: history files, upgrades verified from every historical version.
@Suite("Migration test kit")
struct MigrationKitTests {
    /// Three migrations done right: a table, a defaulted column and an index, a rebuild that
    /// copies every column, a child table with a foreign key, an FTS5 table with its triggers.
    static func goodMigrator() -> Migrator {
        var migrator = Migrator()
        migrator.registerMigration(
            "0001_create",
            sql: """
                CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT, score REAL NOT NULL, data BLOB,
                  status TEXT NOT NULL CHECK (status IN ('open', 'done')), "odd ""name"" col" INTEGER UNIQUE);
                """)
        migrator.registerMigration(
            "0002_tags",
            sql: """
                ALTER TABLE note ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE tag(id INTEGER PRIMARY KEY, note_id INTEGER NOT NULL REFERENCES note(id), name TEXT NOT NULL);
                CREATE INDEX tag_note ON tag(note_id);
                """)
        migrator.registerMigration(
            "0003_rebuild",
            sql: """
                CREATE TABLE note_new(id INTEGER PRIMARY KEY, body TEXT, score REAL NOT NULL, data BLOB,
                  status TEXT NOT NULL CHECK (status IN ('open', 'done', 'archived')), "odd ""name"" col" INTEGER UNIQUE,
                  pinned INTEGER NOT NULL DEFAULT 0);
                INSERT INTO note_new SELECT id, body, score, data, status, "odd ""name"" col", pinned FROM note;
                DROP TABLE note;
                ALTER TABLE note_new RENAME TO note;
                CREATE VIRTUAL TABLE note_fts USING fts5(body, content='note', content_rowid='id');
                INSERT INTO note_fts(note_fts) VALUES ('rebuild');
                CREATE TRIGGER note_ai AFTER INSERT ON note BEGIN
                  INSERT INTO note_fts(rowid, body) VALUES (new.id, new.body);
                END;
                """)
        return migrator
    }

    @Test func aCorrectHistoryPassesAndItsFilesAreStable() throws {
        let dir = TemporaryDirectory("history")
        let written = try MigrationHistory.record(Self.goodMigrator(), to: dir.path)
        #expect(written.count == 3)
        let first = try Data(contentsOf: URL(fileURLWithPath: dir.file("0002.sql")))
        #expect(
            try MigrationHistory.record(Self.goodMigrator(), to: dir.path).isEmpty,
            "the same migrations, the same bytes")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("0002.sql"))) == first)
        let text = String(decoding: first, as: UTF8.self)
        #expect(text.hasPrefix("-- Strata schema history: version 2, after migration 0002_tags.\n"))
        #expect(text.contains("CREATE INDEX tag_note ON tag(note_id);"))

        let history = try MigrationHistory(folder: dir.path)
        #expect(history.versions.map(\.number) == [1, 2, 3])
        #expect(history.versions.map(\.migration) == ["0001_create", "0002_tags", "0003_rebuild"])
        let results = try history.verifyUpgrades(to: Self.goodMigrator(), rows: 12)
        #expect(results.count == 3)
        for result in results {
            #expect(result.passed, "\(result.summary)")
        }
        // The generated rows: the CHECK's literals let rows in, the foreign key found parents.
        let v1 = try #require(results.first)
        #expect(v1.rowsInserted >= 10, "\(v1.summary)")
        #expect(v1.rowsChecked == v1.rowsInserted)
        let v2 = try #require(results.dropFirst().first)
        #expect(v2.rowsChecked >= 20, "note and tag rows: \(v2.summary)")
    }

    @Test func aMigrationThatLosesAColumnsValuesIsCaughtWithVersionTableAndRow() throws {
        var broken = Self.goodMigrator()
        // The same three migrations but the rebuild forgets body (it copies NULL).
        broken = Migrator()
        let good = Self.goodMigrator()
        for migration in good.migrations.prefix(2) { broken.register(migration) }
        broken.registerMigration(
            "0003_rebuild",
            sql: """
                CREATE TABLE note_new(id INTEGER PRIMARY KEY, body TEXT, score REAL NOT NULL, data BLOB,
                  status TEXT NOT NULL CHECK (status IN ('open', 'done', 'archived')), "odd ""name"" col" INTEGER UNIQUE,
                  pinned INTEGER NOT NULL DEFAULT 0);
                INSERT INTO note_new SELECT id, NULL, score, data, status, "odd ""name"" col", pinned FROM note;
                DROP TABLE note;
                ALTER TABLE note_new RENAME TO note;
                """)
        let dir = TemporaryDirectory("history")
        try MigrationHistory.record(broken, to: dir.path)
        let history = try MigrationHistory(folder: dir.path)
        let error = try #require(throws: UpgradeVerificationError.self) { try history.verifyUpgrades(to: broken) }
        #expect(error.failures.map(\.version) == [1, 2], "\(error)")
        let failure = try #require(error.failures.first)
        #expect(failure.kind == .row)
        #expect(failure.table == "note")
        #expect(failure.row == "id=4", "the first row with a body (rows 1 to 3 hold NULL)")
        #expect(failure.message.hasPrefix("version 1: table note, row id=4: column body was"), "\(failure.message)")
        #expect(failure.message.hasSuffix("is NULL after the upgrade"))
        #expect(error.description.contains("version 3 (0003_rebuild): ok"))
    }

    @Test func anUpgradeThatLeavesAnotherSchemaThanAFreshInstallIsCaught() throws {
        var migrator = Migrator()
        migrator.registerMigration("0001_create", sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);")
        // A data-dependent migration: only databases holding notes get the column.
        migrator.registerMigration("0002_extra") { db in
            if (try db.fetchValue(Int.self, sql: "SELECT count(*) FROM note")) ?? 0 > 0 {
                try db.execute(sql: "ALTER TABLE note ADD COLUMN extra TEXT")
            }
        }
        let dir = TemporaryDirectory("history")
        try MigrationHistory.record(migrator, to: dir.path)
        let error = try #require(throws: UpgradeVerificationError.self) {
            try MigrationHistory(folder: dir.path).verifyUpgrades(to: migrator)
        }
        let failure = try #require(error.failures.first)
        #expect(failure.version == 1)
        #expect(failure.kind == .schema)
        #expect(failure.table == "note")
        #expect(
            failure.message
                == "version 1: the upgraded schema differs from a fresh install: table note: column extra is not expected"
        )
        #expect(error.failures.count == 1, "version 2 is head: nothing to upgrade")
    }

    @Test func aHistoryThatIsNotWhatTheMigrationsGiveIsReported() throws {
        let dir = TemporaryDirectory("history")
        try MigrationHistory.record(Self.goodMigrator(), to: dir.path)
        var edited = Migrator()
        let create = try #require(Self.goodMigrator().migrations.first?.sql)
        edited.registerMigration("0001_create", sql: create + "\nCREATE INDEX note_status ON note(status);")
        for migration in Self.goodMigrator().migrations.dropFirst() { edited.register(migration) }
        let results = try MigrationHistory(folder: dir.path).upgradeReport(to: edited)
        let failure = try #require(results.first?.failure)
        #expect(failure.kind == .history)
        #expect(
            failure.message.contains("0001.sql is not the schema after migration 0001_create"), "\(failure.message)")
    }

    @Test func aDeclarativeHistoryUpgradesWithTheEngine() throws {
        let dir = TemporaryDirectory("history")
        let v1 = "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL, old TEXT);"
        let v2 = """
            CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL, old TEXT, created TEXT NOT NULL DEFAULT '');
            CREATE INDEX note_body ON note(body);
            """
        let headWithRename = """
            CREATE TABLE note(
              id INTEGER PRIMARY KEY,
              text TEXT NOT NULL, -- @renamed from=body
              created TEXT NOT NULL DEFAULT ''
            );
            CREATE INDEX note_body ON note(text);
            """
        #expect(try MigrationHistory.add(schema: v1, version: 1, to: dir.path) != nil)
        #expect(try MigrationHistory.add(schema: v2, version: 2, to: dir.path) != nil)
        #expect(try MigrationHistory.add(schema: v2, version: 2, to: dir.path) == nil, "stable: unchanged")
        let history = try MigrationHistory(folder: dir.path)
        // Dropping `old` is refused by default: the upgrade fails as it would in the app.
        let refused = try history.upgradeReport(to: headWithRename)
        #expect(refused.allSatisfy { $0.failure?.kind == .upgrade }, "\(refused.map(\.summary))")
        // Allowed: the renamed column keeps its values, the dropped one is listed.
        let results = try history.verifyUpgrades(
            to: headWithRename, options: SchemaChangeOptions(allowDestructive: true))
        #expect(results.allSatisfy { $0.passed })
        #expect(results.first?.dropped == ["note.old"])
        #expect((results.first?.rowsChecked ?? 0) > 0)
    }

    @Test func aDatabaseAtAHistoricalVersionWithGivenRows() throws {
        let dir = TemporaryDirectory("history")
        try MigrationHistory.record(Self.goodMigrator(), to: dir.path)
        let history = try MigrationHistory(folder: dir.path)
        let db = try history.makeDatabase(
            atVersion: 1, migrator: Self.goodMigrator(),
            rows: ["note": [["id": 7, "body": "it's", "score": 1.5, "status": "open"]]])
        defer { db.close() }
        #expect(try Self.goodMigrator().appliedMigrations(db) == ["0001_create"])
        try Self.goodMigrator().migrate(db)
        #expect(try db.fetchValue(String.self, sql: "SELECT body FROM note WHERE id = 7") == "it's")
        #expect(try db.fetchValue(Int.self, sql: "SELECT pinned FROM note WHERE id = 7") == 0)
        // Bad input names what is at fault, and no database is left behind.
        #expect(throws: HistoryError.self) { try history.makeDatabase(atVersion: 9) }
        let path = dir.file("v1.sqlite")
        #expect(throws: (any Error).self) {
            try history.makeDatabase(atVersion: 1, path: path, rows: ["nope": [["id": 1]]])
        }
        #expect(!FileManager.default.fileExists(atPath: path), "a failed build leaves no file")
    }

    @Test func historyFolderErrorsNameTheFile() throws {
        let dir = TemporaryDirectory("history")
        #expect(throws: HistoryError.self) { try MigrationHistory(folder: dir.file("missing")) }
        let empty = try #require(throws: HistoryError.self) { try MigrationHistory(folder: dir.path) }
        #expect(empty.message.contains("holds no version"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir.file("v2.sql")))
        let bad = try #require(throws: HistoryError.self) { try MigrationHistory(folder: dir.path) }
        #expect(bad.message == "\(dir.path)/v2.sql: not a history file name (expected digits, as in 0007.sql)")
    }

    /// Hostile names, STRICT and WITHOUT ROWID tables, a generated column, a self-referencing and a
    /// composite foreign key, a date column: the generated rows fit them and the upgrade is checked.
    @Test func hostileSchemasAreFilledAndChecked() throws {
        // STRICT tables and generated columns: SQLite 3.37.
        guard SQLiteVersion.runtime >= SQLiteVersion(3, 37) else { return }
        var migrator = Migrator()
        migrator.registerMigration(
            "0001_create",
            sql: """
                CREATE TABLE "order by"("select" INTEGER PRIMARY KEY, "a""b c" TEXT NOT NULL, amount REAL,
                  total REAL GENERATED ALWAYS AS (amount * 2), parent INTEGER REFERENCES "order by"("select"),
                  created DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP) ;
                CREATE TABLE pair(a TEXT NOT NULL, b INTEGER NOT NULL, v ANY, PRIMARY KEY (a, b)) STRICT, WITHOUT ROWID;
                CREATE TABLE child(id INTEGER PRIMARY KEY, pa TEXT, pb INTEGER, n INTEGER CHECK (n BETWEEN 1 AND 3),
                  FOREIGN KEY (pa, pb) REFERENCES pair(a, b));
                """)
        migrator.registerMigration(
            "0002_more",
            sql: """
                ALTER TABLE child ADD COLUMN note TEXT DEFAULT 'x';
                ALTER TABLE "order by" RENAME COLUMN "a""b c" TO "the name";
                CREATE INDEX child_pair ON child(pa, pb);
                """)
        let dir = TemporaryDirectory("history")
        try MigrationHistory.record(migrator, to: dir.path)
        let results = try MigrationHistory(folder: dir.path).verifyUpgrades(to: migrator, rows: 20, seed: 7)
        let v1 = try #require(results.first)
        #expect(v1.passed, "\(v1.summary)")
        // 20 rows in each of the three tables: the CHECK's literals (1, 3) let child rows in.
        #expect(v1.rowsInserted == 60, "\(v1.summary)")
        #expect(v1.rowsChecked == 60)
        // A migration declares no rename: the renamed column is not at head under its name, and
        // its values are not checked (the summary says so).
        #expect(v1.dropped == ["order by.a\"b c"])
        // The same seed, the same rows: a second run gives the same counts.
        let again = try MigrationHistory(folder: dir.path).verifyUpgrades(to: migrator, rows: 20, seed: 7)
        #expect(again == results)
    }

    /// A migration that adds to an external-content FTS5 table's content without its index: the
    /// FTS integrity check names the table.
    @Test func aFullTextIndexLeftBehindIsCaught() throws {
        var migrator = Migrator()
        migrator.registerMigration(
            "0001_create",
            sql: """
                CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
                CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc', content_rowid='id');
                CREATE TRIGGER doc_ai AFTER INSERT ON doc BEGIN INSERT INTO doc_fts(rowid, body) VALUES (new.id, new.body); END;
                """)
        // Drops the trigger that keeps the index in step, then adds a row the index never sees.
        migrator.registerMigration(
            "0002_seed", sql: "DROP TRIGGER doc_ai; INSERT INTO doc(id, body) VALUES (1000000, 'welcome');")
        let dir = TemporaryDirectory("history")
        try MigrationHistory.record(migrator, to: dir.path)
        let error = try #require(throws: UpgradeVerificationError.self) {
            try MigrationHistory(folder: dir.path).verifyUpgrades(to: migrator)
        }
        let failure = try #require(error.failures.first)
        #expect(failure.version == 1)
        #expect(failure.kind == .fullText, "\(failure)")
        #expect(failure.table == "doc_fts")
        #expect(failure.message.hasPrefix("version 1: table doc_fts: FTS integrity-check fails: "))
    }
}
