import Foundation
import StrataSQLite
import Testing

/// The README's "Records" example, verbatim except for `import Strata` and `print`, which
/// collects lines here.
@Suite("README records example")
struct RecordsReadmeExampleTests {
    struct Note: Codable, FetchableRecord, MutablePersistableRecord {
        var id: Int64?
        var title: String
        var createdAt: Date
        var tags: [String]  // stored as JSON text
        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    @Test func recordsExample() throws {
        var output: [String] = []
        func print(_ items: Any...) { output.append(items.map { "\($0)" }.joined(separator: " ")) }

        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, createdAt TEXT NOT NULL, tags TEXT NOT NULL)
                """)

        var note = Note(id: nil, title: "Groceries", createdAt: Date(), tags: ["home"])
        try note.insert(db)  // note.id is now 1
        note.title = "Shopping"
        try note.update(db)  // UPDATE "note" SET ... WHERE "id" = ?

        let pattern = "Shop%"  // bound as a value, never spliced into SQL
        let notes = try Note.fetchAll(db, literal: "SELECT * FROM note WHERE title LIKE \(pattern)")
        let same = try Note.fetchOne(db, key: note.id)  // primary key read from the database
        print(notes.count, same?.title ?? "none", same?.tags ?? [])

        try db.execute(literal: "UPDATE \(identifier: "note") SET tags = \(#"["errands"]"#) WHERE id = \(note.id)")
        do {
            var ghost = note
            ghost.id = 42
            try ghost.update(db)
        } catch let error as RecordError where error.code == .recordNotFound {
            print(error)  // Note: no row in table "note" with id = 42
        }
        try note.delete(db)
        print(try Note.fetchCount(db))  // 0

        #expect(output == ["1 Shopping [\"home\"]", #"Note: no row in table "note" with id = 42"#, "0"])
    }
}
