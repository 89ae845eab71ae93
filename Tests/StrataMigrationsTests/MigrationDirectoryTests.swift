import Foundation
import StrataMigrations
import StrataSQLite
import StrataSchema
import StrataTestSupport
import Testing

@Suite("Migration directory")
struct MigrationDirectoryTests {
    private func folder(_ files: [String: String]) throws -> TemporaryDirectory {
        let dir = TemporaryDirectory("migrations")
        for (name, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: dir.file(name))) }
        return dir
    }

    @Test func loadsInNumericOrder() throws {
        let dir = try folder([
            "0002-add-score.sql": "ALTER TABLE player ADD COLUMN score INTEGER;",
            "0001_create_player.sql": "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT);",
            "0010_last.sql": "CREATE INDEX player_name ON player(name);",
            "README.md": "not a migration",
            ".DS_Store": "",
        ])
        for n in 3...9 {
            try Data("SELECT \(n);".utf8).write(to: URL(fileURLWithPath: dir.file(String(format: "%04d_step.sql", n))))
        }
        let directory = try MigrationDirectory(path: dir.path)
        #expect(directory.files.map(\.number) == Array(1...10))
        #expect(directory.files.first?.identifier == "0001_create_player")
        try #require(directory.files.count == 10)
        #expect(directory.files[1].identifier == "0002-add-score")
        #expect(directory.nextFileName(for: "Add e-mail, again!") == "0011_add_e_mail_again.sql")

        var migrator = Migrator()
        migrator.registerMigrations(from: directory)
        let db = try Database(inMemory: Configuration())
        #expect(try migrator.migrate(db).count == 10)
    }

    @Test(arguments: [
        (
            ["0001_a.sql": "SELECT 1;", "0003_c.sql": "SELECT 1;"],
            "0003_c.sql: gap in the numbering (after 0001_a.sql, expected number 2)"
        ),
        (
            ["0001_a.sql": "SELECT 1;", "0002_b.sql": "SELECT 1;", "0002-c.sql": "SELECT 1;"],
            "0002_b.sql: duplicate migration number 2 (also 0002-c.sql)"
        ),
        (
            ["0001_a.sql": "SELECT 1;", "create_b.sql": "SELECT 1;"],
            "create_b.sql: not a migration file name (expected NNNN_name.sql or NNNN-name.sql)"
        ),
        (
            ["0001.sql": "SELECT 1;"],
            "0001.sql: not a migration file name (expected NNNN_name.sql or NNNN-name.sql)"
        ),
    ])
    func reportsTheCulpritFile(files: [String: String], message: String) throws {
        let dir = try folder(files)
        let error = try #require(throws: MigrationError.self) { try MigrationDirectory(path: dir.path) }
        #expect(error.code == .invalidMigrationFile)
        #expect(error.description == message)
    }

    @Test func rejectsNonUTF8() throws {
        let dir = try folder(["0001_a.sql": "SELECT 1;"])
        try Data([0x53, 0x45, 0xFF, 0xFE, 0x3B]).write(to: URL(fileURLWithPath: dir.file("0002_latin1.sql")))
        let error = try #require(throws: MigrationError.self) { try MigrationDirectory(path: dir.path) }
        #expect(error.description == "0002_latin1.sql: not valid UTF-8 text")
    }

    @Test func missingFolder() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("nope")
        let error = try #require(throws: MigrationError.self) { try MigrationDirectory(path: path) }
        #expect(error.description == "\(path): no such migrations folder")
    }

    /// Midway through `strata squash` the folder may lack the migrations it moved out before the
    /// baseline is written: an app loading it must not run from the middle of the history.
    @Test func aFolderWithAnInterruptedSquashIsRefusedNamingTheJournal() throws {
        let dir = try folder([
            "0004_add_score.sql": "ALTER TABLE player ADD COLUMN score INTEGER;",
            ".strata-squash-journal": "{}",
        ])
        let error = try #require(throws: MigrationError.self) { try MigrationDirectory(path: dir.path) }
        let journal = dir.file(".strata-squash-journal")
        #expect(error.code == .invalidMigrationFile)
        #expect(error.migrations == [journal])
        #expect(
            error.description.hasPrefix("\(journal): a `strata squash` was interrupted in this folder"),
            "\(error)")
        // With the journal gone (the squash finished or undone), the folder loads again.
        try FileManager.default.removeItem(atPath: journal)
        #expect(try MigrationDirectory(path: dir.path).files.map(\.number) == [4])
    }

    @Test func emptyFolderStartsAtOne() throws {
        let dir = TemporaryDirectory()
        let directory = try MigrationDirectory(path: dir.path)
        #expect(directory.files.isEmpty)
        #expect(directory.nextFileName(for: "Create players") == "0001_create_players.sql")
    }

    /// The README's app-code workflow on the bundled example: the files produce schema.sql.
    @Test func bundledExampleMigratesToItsSchema() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/migrations")
        var migrator = Migrator()
        migrator.registerMigrations(from: try MigrationDirectory(path: example.appendingPathComponent("versions").path))
        let db = try Database(inMemory: Configuration())
        #expect(
            try migrator.migrate(db) == ["0001_create_author", "0002_create_book", "0003_add_birth_year_and_book_year"])
        let declared = try String(contentsOf: example.appendingPathComponent("schema.sql"), encoding: .utf8)
        #expect(try DatabaseSchema(sql: declared).differences(from: DatabaseSchema.read(from: db)) == [])
    }
}
