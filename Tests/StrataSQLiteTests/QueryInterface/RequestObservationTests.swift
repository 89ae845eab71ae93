import StrataSQLite
import StrataTestSupport
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

    /// A request by key declares its rows: commits to other rows, other columns or other tables
    /// cause no fetch; one to its row does. Counted on a pool, where fetches run on readers.
    @Test func aKeyRequestIsObservedRowByRow() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("notes.sqlite")) { db in
            try db.execute(sql: QueryFixtures.schema)
            try Note(id: 1, title: "A", score: 1, pinned: false, folderId: nil).insert(db)
            try Note(id: 2, title: "B", score: 2, pinned: false, folderId: nil).insert(db)
        }
        let fetches = LockedValue(0)
        let observation = ValueObservation.tracking { db in
            fetches.withLock { $0 += 1 }
            return try Note.filter(key: 1).select(Columns.title, as: String.self).fetchOne(db) ?? ""
        }
        var values = observation.values(in: pool).makeAsyncIterator()
        #expect(try await values.next() == "A")
        for _ in 0..<5 {
            try await pool.write { db in
                _ = try Note.filter(key: 2).updateAll(db, Columns.title.set(to: "other"))  // other row
                _ = try Note.filter(key: 1).updateAll(db, Columns.score += 1)  // other column
                try QueryFixtures.Translation(noteId: 1, lang: "en", text: "x").upsert(db)  // other table
            }
        }
        try await pool.write { db in _ = try Note.filter(key: 1).updateAll(db, Columns.title.set(to: "changed")) }
        #expect(try await values.next() == "changed")
        #expect(fetches.withLock { $0 } == 2)
        await pool.close()
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
