import Foundation
import Strata
import StrataTestSupport
import StrataTesting
import Testing

/// The older-version matrix (`MigrationHistory.olderVersionsReport(opening:)`, `strata verify
/// --older-versions`): every shipped version opening the head database, and each verdict checked
/// by using the file as that version would.
@Suite("Older-version matrix")
struct OlderVersionMatrixTests {
    static func migrator(_ steps: [(String, String)]) -> Migrator {
        var migrator = Migrator()
        for (identifier, sql) in steps { migrator.registerMigration(identifier, sql: sql) }
        return migrator
    }

    static let base: [(String, String)] = [
        ("0001_create_note", "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT, score REAL);"),
        (
            "0002_folder",
            "CREATE TABLE folder(id INTEGER PRIMARY KEY, name TEXT NOT NULL); ALTER TABLE note ADD COLUMN due TEXT;"
        ),
    ]

    func report(_ steps: [(String, String)]) throws -> [OlderVersionOpening] {
        let migrator = Self.migrator(steps)
        let dir = TemporaryDirectory("older-matrix")
        try MigrationHistory.record(migrator, to: dir.path)
        return try MigrationHistory(folder: dir.path).olderVersionsReport(opening: migrator, rows: 8)
    }

    @Test func eachVersionGetsItsVerdictAndTheVerdictHolds() throws {
        let openings = try report(
            Self.base + [
                ("0003_unique_title", "CREATE UNIQUE INDEX note_title ON note(title);"),
                (
                    "0004_tag",
                    "CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT); ALTER TABLE folder ADD COLUMN color TEXT DEFAULT 'red';"
                ),
                (
                    "0005_drop_score",
                    "CREATE TABLE note_new(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT, due TEXT); INSERT INTO note_new SELECT id, title, body, due FROM note; DROP TABLE note; ALTER TABLE note_new RENAME TO note; CREATE UNIQUE INDEX note_title ON note(title);"
                ),
                ("0006_label", "CREATE TABLE label(name TEXT);"),
            ])
        #expect(openings.map(\.version) == [1, 2, 3, 4, 5, 6])
        #expect(openings.allSatisfy { $0.passed }, "\(openings.map(\.summary))")
        // Versions 1-4 read note.score, which version 5 dropped: refused, naming it.
        for opening in openings.prefix(4) {
            #expect(opening.verdict == .refused, "\(opening.summary)")
            #expect(opening.reason?.contains("note.score") == true, "\(opening.summary)")
        }
        #expect(openings[4].verdict == .opensNormally, "\(openings[4].summary)")
        #expect(openings[4].rowsWrittenAndRead > 0)
        #expect(openings[4].summary.hasPrefix("version 5 (0005_drop_score) opening head: opens normally ("))
        #expect(openings[5].verdict == .isHead)
    }

    @Test func aConstraintOnlyRefusingWritesOpensReadOnlyAndWritesAreRefused() throws {
        let openings = try report(Self.base + [("0003_unique_title", "CREATE UNIQUE INDEX note_title ON note(title);")])
        #expect(openings.map(\.verdict) == [.opensReadOnly, .opensReadOnly, .isHead], "\(openings.map(\.summary))")
        #expect(openings.allSatisfy { $0.passed })
        #expect(openings[0].reason?.contains("note_title") == true, "\(openings[0].summary)")
    }

    /// A new trigger counts as compatible, yet this one refuses every insert the older version
    /// makes: the matrix writes the version's rows and catches it, naming the table and the error.
    @Test func aVerdictThatDoesNotHoldFailsNamingTheTable() throws {
        let openings = try report(
            Self.base + [
                (
                    "0003_guard",
                    "CREATE TRIGGER note_guard BEFORE INSERT ON note WHEN new.due IS NULL BEGIN SELECT RAISE(ABORT, 'due is required'); END;"
                )
            ])
        #expect(openings[2].verdict == .isHead)
        for opening in openings.prefix(2) {
            #expect(!opening.passed, "\(opening.summary)")
            #expect(opening.failure?.hasPrefix("table note: the version's writes fail") == true, "\(opening.summary)")
            #expect(opening.failure?.contains("due is required") == true, "\(opening.summary)")
        }
    }
}
