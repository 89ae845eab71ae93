import Foundation
import Strata
import StrataTestSupport
import Testing

/// A migrations folder that must be refused: `strata migrate` exits 1 naming the file, the
/// library's `MigrationDirectory` / `Migrator` throw naming it, and the database bytes never change.
struct HostileFolder: Sendable, CustomTestStringConvertible {
    var name: String
    /// File name -> bytes.
    var files: [String: [UInt8]]
    var mentions: [String]
    var testDescription: String { name }

    static func text(_ s: String) -> [UInt8] { Array(s.utf8) }
}

let hostileFolders: [HostileFolder] = [
    HostileFolder(
        name: "a gap in the numbering",
        files: [
            "0001_create.sql": HostileFolder.text("CREATE TABLE a(x);"),
            "0003_more.sql": HostileFolder.text("CREATE TABLE c(x);"),
        ],
        mentions: ["0003_more.sql", "gap"]),
    HostileFolder(
        name: "a duplicate number",
        files: [
            "0001_create.sql": HostileFolder.text("CREATE TABLE a(x);"),
            "0002_one.sql": HostileFolder.text("CREATE TABLE b(x);"),
            "0002-other.sql": HostileFolder.text("CREATE TABLE c(x);"),
        ],
        mentions: ["0002", "duplicate"]),
    HostileFolder(
        name: "a file that is not UTF-8",
        files: [
            "0001_create.sql": HostileFolder.text("CREATE TABLE a(x);"),
            "0002_latin1.sql": [0x2D, 0x2D, 0x20, 0xE9, 0xE8, 0xFF, 0x0A],
        ],
        mentions: ["0002_latin1.sql", "UTF-8"]),
    HostileFolder(
        name: "a badly named file",
        files: [
            "0001_create.sql": HostileFolder.text("CREATE TABLE a(x);"),
            "add column.sql": HostileFolder.text("SELECT 1;"),
        ],
        mentions: ["add column.sql", "not a migration file name"]),
    HostileFolder(
        name: "a migration with a syntax error after a semicolon in a string",
        files: [
            "0001_create.sql": HostileFolder.text("CREATE TABLE a(x);"),
            "0002_broken.sql": HostileFolder.text("INSERT INTO a VALUES ('; -- @renamed from=x');\nCREATE TABLE b(x;"),
        ],
        mentions: ["0002_broken", "syntax error"]),
    HostileFolder(
        name: "a migration that commits the transaction it runs in",
        files: [
            "0001_create.sql": HostileFolder.text("CREATE TABLE a(x);"),
            "0002_sneaky.sql": HostileFolder.text(
                "CREATE TABLE b(x);\nCOMMIT;\nCREATE TABLE c(x);\nINSERT INTO missing VALUES (1);"),
        ],
        mentions: ["0002_sneaky", "COMMIT"]),
]

@Suite("Hostile migration folders")
struct HostileMigrationFolderTests {
    /// A database where `0001_create` was applied, holding a row.
    static func database(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("db.sqlite")
        let db = try Database(path: path)
        var migrator = Migrator()
        migrator.registerMigration("0001_create", sql: "CREATE TABLE a(x);")
        try migrator.migrate(db)
        try db.execute(sql: "INSERT INTO a VALUES ('kept')")
        db.close()
        return path
    }

    static func folder(_ h: HostileFolder, in dir: TemporaryDirectory) throws -> String {
        let folder = dir.file("migrations")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for (name, bytes) in h.files { try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name)) }
        return folder
    }

    @Test(arguments: hostileFolders)
    func throughTheCommandLine(_ h: HostileFolder) throws {
        let dir = TemporaryDirectory("strata-hostile-folder")
        let path = try Self.database(dir)
        let folder = try Self.folder(h, in: dir)
        let bytes = fileBytes(path)
        for arguments in [["migrate"], ["migrate", "--dry-run"], ["status"]] {
            let r = try ChildProcess.strata(arguments + ["--db", path, "--migrations", folder])
            if arguments == ["status"], h.mentions.contains("syntax error") || h.name.contains("commits") {
                continue  // status does not run migrations
            }
            #expect(r.status == 1, "\(h.name) \(arguments): \(r)")
            #expect(r.stderr.hasPrefix("strata: "), "\(h.name) \(arguments): \(r.stderr)")
            for m in h.mentions { #expect(r.stderr.contains(m), "\(h.name) \(arguments): `\(m)` not in \(r.stderr)") }
        }
        #expect(fileBytes(path) == bytes, "\(h.name): the database changed")
    }

    @Test(arguments: hostileFolders)
    func throughTheLibrary(_ h: HostileFolder) throws {
        let dir = TemporaryDirectory("strata-hostile-folder-lib")
        let path = try Self.database(dir)
        let folder = try Self.folder(h, in: dir)
        let bytes = fileBytes(path)
        do {
            var migrator = Migrator()
            migrator.registerMigrations(from: try MigrationDirectory(path: folder))
            let db = try Database(path: path)
            defer { db.close() }
            try migrator.migrate(db)
            Issue.record("\(h.name): migrated")
        } catch let error as MigrationError {
            for m in h.mentions { #expect(error.description.contains(m), "\(h.name): `\(m)` not in \(error)") }
        }
        #expect(fileBytes(path) == bytes, "\(h.name): the database changed")
        let db = try Database(path: path)
        defer { db.close() }
        #expect(
            try db.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                == ["a", "strata_migrations"])
    }

    /// Statements that end the migration's transaction are refused before they run (the
    /// migration rolls back); the same words inside trigger bodies, CASE expressions, strings and
    /// savepoints are not. More cases: TransactionControlTests.
    @Test func transactionControlInsideAMigration() throws {
        let refused = [
            "CREATE TABLE b(x); COMMIT; CREATE TABLE c(x);",
            "CREATE TABLE b(x);\nend transaction;",
            "CREATE TABLE b(x); ROLLBACK;",
            "CREATE TABLE b(x); /* ; */ -- ;\n  Rollback Transaction;",
            "CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT CASE WHEN 1 THEN 2 END; END; COMMIT;",
        ]
        for sql in refused {
            let dir = TemporaryDirectory("strata-commit")
            let path = try Self.database(dir)
            let bytes = fileBytes(path)
            var migrator = Migrator()
            migrator.registerMigration("0001_create", sql: "CREATE TABLE a(x);")
            migrator.registerMigration("0002_sneaky", sql: sql)
            let db = try Database(path: path)
            #expect {
                try migrator.migrate(db)
            } throws: { error in
                "\(error)".contains("0002_sneaky") && "\(error)".contains("would end the migration's transaction")
            }
            db.close()
            #expect(fileBytes(path) == bytes, "\(sql)")
        }
        let accepted = """
            CREATE TABLE log(msg TEXT DEFAULT 'COMMIT; END;');
            CREATE TRIGGER a_log AFTER INSERT ON a BEGIN
              INSERT INTO log(msg) SELECT CASE WHEN NEW.x IS NULL THEN 'end' ELSE 'commit' END;
              UPDATE log SET msg = msg WHERE 0;
            END;
            SAVEPOINT inner; INSERT INTO a VALUES ('rolled back'); ROLLBACK TO inner; RELEASE inner;
            INSERT INTO a VALUES (NULL);
            """
        let dir = TemporaryDirectory("strata-commit-ok")
        let path = try Self.database(dir)
        var migrator = Migrator()
        migrator.registerMigration("0001_create", sql: "CREATE TABLE a(x);")
        migrator.registerMigration("0002_trigger", sql: accepted)
        let db = try Database(path: path)
        defer { db.close() }
        #expect(try migrator.migrate(db) == ["0002_trigger"])
        #expect(try db.fetchColumn(String.self, sql: "SELECT msg FROM log") == ["end"])
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM a") == 2)
    }

    @Test func aMissingFolder() throws {
        let dir = TemporaryDirectory("strata-no-folder")
        let path = try Self.database(dir)
        let bytes = fileBytes(path)
        let r = try ChildProcess.strata(["migrate", "--db", path, "--migrations", dir.file("nope")])
        #expect(r.status == 1 && r.stderr.contains(dir.file("nope")), "\(r)")
        #expect(fileBytes(path) == bytes)
    }
}
