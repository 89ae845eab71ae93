import Foundation
import Strata
import StrataTestSupport
import Testing

/// The records example program (`Examples/notes`, `swift run strata-notes`) runs as the README
/// shows, twice on one database: the second launch finds the schema up to date.
@Suite("Notes example")
struct NotesExampleTests {
    @Test func runsTwiceOnOneDatabase() throws {
        let dir = TemporaryDirectory("strata-notes")
        let db = dir.file("notes.sqlite")
        let first = try ChildProcess.run("strata-notes", [db])
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout.hasPrefix("Schema changes applied:\n- create table note\n"), "\(first.stdout)")
        #expect(
            first.stdout.contains("Titles like Shop%: [\"Shopping\"] tagged [[\"home\", \"errands\"]]"),
            "\(first.stdout)")
        #expect(first.stdout.contains("Full-text search run*: [\"Shopping\", \"Trip\"]"), "\(first.stdout)")
        #expect(first.stdout.hasSuffix("1 note(s) left in \(db).\n"), "\(first.stdout)")
        let second = try ChildProcess.run("strata-notes", [db])
        #expect(second.status == 0, "\(second)")
        #expect(second.stdout.hasPrefix("Schema is up to date.\n"), "\(second.stdout)")
        #expect(second.stdout.hasSuffix("2 note(s) left in \(db).\n"), "\(second.stdout)")
        let database = try Database(path: db)
        defer { database.close() }
        #expect(try database.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(
            try database.fetchValue(
                Int.self, sql: "SELECT count(*) FROM note_search WHERE note_search MATCH 'shopping'") == 2)
    }
}
