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

    enum CardError: Error { case emptyTitle }

    struct Card: Codable, Identifiable, FetchableRecord, MutablePersistableRecord {
        var id: Int64?
        var uuid: String  // UNIQUE: a second key
        var title: String
        var visits = 0

        func willSave(_ db: Database) throws {  // before every insert, update, save, upsert
            if title.isEmpty { throw CardError.emptyTitle }  // thrown before anything is written
        }
        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    /// The README's second records example (upsert, callbacks, updateChanges), verbatim but for
    /// `print`: it prints what its comment says.
    @Test(.enabled(if: SQLiteVersion.runtime >= SQLiteVersion(3, 35), "upsert(db) on a second key needs 3.35"))
    func upsertExample() throws {
        var output: [String] = []
        func print(_ items: Any...) { output.append(items.map { "\($0)" }.joined(separator: " ")) }

        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE card(id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
                                  visits INTEGER NOT NULL)
                """)
        var card = Card(id: nil, uuid: "9F2C", title: "Groceries")
        try card.insert(db)
        var copy = Card(id: nil, uuid: "9F2C", title: "Shopping")
        try copy.upsert(db)  // the row with that uuid is updated; copy.id == card.id
        try copy.upsert(db, onConflict: ["uuid"]) { excluded in
            [.set("visits", to: "visits + 1")]  // ON CONFLICT (uuid) DO UPDATE SET visits = visits + 1, ...
        }
        let changed = try copy.updateChanges(db) { $0.title = "Errands" }  // UPDATE card SET title = ? WHERE id = ?
        let stored = try Card.fetchOne(db, id: copy.id)
        print(stored?.title ?? "none", stored?.visits ?? 0, changed)  // Errands 1 true

        #expect(output == ["Errands 1 true"])
        #expect(copy.id == card.id)
        #expect(try Card.fetchCount(db) == 1)
        var empty = Card(id: nil, uuid: "X", title: "")
        #expect(throws: CardError.self) { try empty.insert(db) }
        #expect(try Card.fetchCount(db) == 1)
    }
}
