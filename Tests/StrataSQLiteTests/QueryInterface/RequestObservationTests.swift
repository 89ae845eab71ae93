import StrataSQLite
import Testing

/// Requests observed with ValueObservation, and the region a request reports.
@Suite("Query interface: observation and regions", .timeLimit(.minutes(1)))
struct RequestObservationTests {
    typealias Note = QueryFixtures.Note
    typealias Columns = QueryFixtures.Note.Columns

    @Test func aRequestIsObserved() async throws {
        let dbQueue = try DatabaseQueue { db in try db.execute(sql: QueryFixtures.schema) }
        let observation = ValueObservation.tracking { db in
            try Note.filter(Columns.pinned).order(Columns.title).fetchAll(db).map(\.title)
        }
        var values = observation.values(in: dbQueue).makeAsyncIterator()
        #expect(try await values.next() == [])
        // A commit to another table does not fetch again; one to the note table does.
        try await dbQueue.write { db in try QueryFixtures.Translation(noteId: 1, lang: "en", text: "x").insert(db) }
        try await dbQueue.write { db in
            try Note(id: 1, title: "B", score: nil, pinned: true, folderId: nil).insert(db)
            try Note(id: 2, title: "A", score: nil, pinned: true, folderId: nil).insert(db)
        }
        #expect(try await values.next() == ["A", "B"])
        try await dbQueue.write { db in _ = try Note.filter(key: 2).updateAll(db, Columns.title.set(to: "C")) }
        #expect(try await values.next() == ["B", "C"])
    }

    @Test func regions() throws {
        let db = try QueryFixtures.database()
        #expect(try Note.all().databaseRegion(db).description == "note(*)")
        #expect(
            try Note.select(Columns.title).filter(Columns.pinned).order(Columns.score).databaseRegion(db).description
                == "note(pinned, score, title)")
        #expect(try Note.select(Columns.title).filter(key: 3).databaseRegion(db).description == "note(id, title)[3]")
        #expect(
            try Note.select(Columns.title).filter(keys: [4, 2]).databaseRegion(db).description
                == "note(id, title)[2, 4]")
        #expect(
            try Note.select(Columns.title).filter(key: 3).filter(key: 4).databaseRegion(db).description
                == "note(id, title)[]")
        #expect(try Note.select(Columns.title).filter(literal: "score > 1").databaseRegion(db).description == "note(*)")
        // A composite primary key: the rows are not known by rowid.
        #expect(
            try QueryFixtures.Translation.select(Column("text")).filter(key: ["noteId": 1, "lang": "fr"])
                .databaseRegion(db).description == "translation(lang, noteid, text)")
        let region = try Note.filter(key: 3).databaseRegion(db)
        #expect(region.tables["note"]?.rowIDs == [3])
        #expect(region.tables["note"]?.columns == nil)
    }
}
