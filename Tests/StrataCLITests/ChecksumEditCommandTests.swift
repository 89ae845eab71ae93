import Foundation
import Strata
import StrataTestSupport
import Testing

/// An editor that adds a final newline, converts line endings, adds a byte order mark or leaves
/// blanks at line ends has not edited a migration: `migrate` and `status` go on. A real edit is
/// still refused, with the database unchanged.
@Suite("Harmless and real edits of applied migrations")
struct ChecksumEditCommandTests {
    static let original =
        "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT);\nINSERT INTO note(title) VALUES ('first');"

    func appliedFolder() throws -> (TemporaryDirectory, String, String) {
        let migrations = try migrationFolder(["0001_note.sql": Self.original])
        let db = migrations.file("app.sqlite")
        let run = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path])
        #expect(run.exitCode == 0, "\(run)")
        return (migrations, db, migrations.file("0001_note.sql"))
    }

    @Test func harmlessEditsAreNotEdits() throws {
        let harmless = [
            Self.original + "\n",
            "\u{FEFF}" + Self.original.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n",
            Self.original.replacingOccurrences(of: "\n", with: "   \n") + " \t\n\n",
        ]
        for text in harmless {
            let (migrations, db, file) = try appliedFolder()
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            let bytes = fileBytes(db)
            let migrate = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path])
            #expect(migrate.exitCode == 0, "\(text.debugDescription): \(migrate)")
            #expect(migrate.stdout == "Nothing to migrate: \(db) is up to date.\n", "\(text.debugDescription)")
            let status = try StrataProcess.run(["status", "--db", db, "--migrations", migrations.path])
            #expect(status.exitCode == 0, "\(text.debugDescription): \(status)")
            #expect(!status.stdout.contains("mismatch"), "\(text.debugDescription): \(status.stdout)")
            #expect(fileBytes(db) == bytes)
        }
    }

    @Test func realEditsAreRefused() throws {
        let (migrations, db, file) = try appliedFolder()
        try Data(Self.original.replacingOccurrences(of: "'first'", with: "'second'").utf8)
            .write(to: URL(fileURLWithPath: file))
        let bytes = fileBytes(db)
        let migrate = try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path])
        #expect(migrate.exitCode == 1, "\(migrate)")
        #expect(migrate.stderr.contains("0001_note"), "\(migrate.stderr)")
        #expect(fileBytes(db) == bytes)
    }

    /// A ledger written before blanks at line ends were ignored holds the earlier checksum.
    @Test func checksumsOfTheEarlierRuleAreAccepted() throws {
        let text = Self.original.replacingOccurrences(of: ";\n", with: ";  \n")
        let migrations = try migrationFolder(["0001_note.sql": text])
        let db = migrations.file("app.sqlite")
        #expect(try StrataProcess.run(["migrate", "--db", db, "--migrations", migrations.path]).exitCode == 0)
        // What the earlier rule recorded: the SHA-256 of the text with line endings normalized only.
        let database = try Database(path: db)
        let earlier = try legacyChecksum(text)
        try database.execute(sql: "UPDATE strata_migrations SET checksum = ?", arguments: [earlier])
        database.close()
        let status = try StrataProcess.run(["status", "--db", db, "--migrations", migrations.path])
        #expect(status.exitCode == 0, "\(status)")
        #expect(!status.stdout.contains("mismatch"), "\(status.stdout)")
    }

    /// The earlier rule, computed here with the system's `sha256sum` so the test does not depend on
    /// the code it checks: the SHA-256 of the text with `\r\n` as `\n`.
    func legacyChecksum(_ text: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.replacingOccurrences(of: "\r\n", with: "\n").utf8))
        try input.fileHandleForWriting.close()
        BoundedWait.exit(of: process)
        let line = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return String(line.prefix(64))
    }
}
