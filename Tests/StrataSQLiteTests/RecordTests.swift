import Foundation
import StrataSQLite
import Testing

@Suite("Records")
struct RecordTests {
    @Test func insertGivesTheAutoIncrementedIdBack() throws {
        let db = try recordDatabase()
        var note = Note.make("Groceries", tags: ["home", "food"])
        try note.insert(db)
        #expect(note.id == 1)
        let second = try Note.make("Work").inserted(db)
        #expect(second.id == 2)
        let row = try #require(try db.fetchOne(sql: "SELECT * FROM note WHERE id = 1"))
        #expect(row.values[1] == "Groceries")
        #expect(row.values[2] == "2024-05-01 09:30:05.250")
        #expect(row.values[3] == #"["home","food"]"#)
        #expect(row.values[4] == "text")
        #expect(row.values[5] == note.uuid.sqlValue)
    }

    @Test func fetchesRoundTrip() throws {
        let db = try recordDatabase()
        let notes = try [
            Note.make("b", tags: ["x"]), Note.make("a", tags: [], kind: .checklist), Note.make("c", tags: ["y", "z"]),
        ].map { try $0.inserted(db) }
        #expect(try Note.fetchAll(db) == notes)
        #expect(try Note.fetchAll(db, sql: "SELECT * FROM note ORDER BY title") == notes.sorted { $0.title < $1.title })
        #expect(try Note.fetchOne(db, sql: "SELECT * FROM note WHERE kind = ?", arguments: ["checklist"]) == notes[1])
        #expect(try Note.fetchOne(db, sql: "SELECT * FROM note WHERE 0") == nil)
        #expect(try Note.fetchOne(db, key: 3) == notes[2])
        #expect(try Note.fetchOne(db, key: 99) == nil)
        #expect(try Note.fetchOne(db, key: Int64?.none) == nil)
        #expect(try Note.fetchOne(db, key: ["uuid": notes[0].uuid]) == notes[0])  // a unique index
        #expect(try Note.fetchAll(db, keys: [3, 1, 42]).compactMap(\.id).sorted() == [1, 3])
        #expect(try Note.fetchCount(db) == 3)
        #expect(try Note.exists(db, key: 2))
        #expect(try !Note.exists(db, key: 4))
        #expect(try Note.fetchOne(db) != nil)

        let cursor = try Note.fetchCursor(db, sql: "SELECT * FROM note ORDER BY id")
        #expect(try cursor.next() == notes[0])
        #expect(try cursor.collect() == Array(notes[1...]))
        #expect(try cursor.next() == nil)
        #expect(try Note.fetchCursor(db).collect().count == 3)

        #expect(
            try db.fetchAll(Note.self, sql: "SELECT * FROM note WHERE id > ?", arguments: [1]) == Array(notes[1...]))
        #expect(try db.fetchOne(Note.self, sql: "SELECT * FROM note WHERE id = 2") == notes[1])
        #expect(try db.fetchCursor(Note.self, sql: "SELECT * FROM note").collect() == notes)
        let statement = try db.makeStatement(sql: "SELECT * FROM note WHERE id = ?")
        #expect(try Note.fetchAll(statement, arguments: [1]) == [notes[0]])
        #expect(try Note.fetchOne(statement, arguments: [2]) == notes[1])
    }

    @Test func updateUpdateColumnsSaveAndDelete() throws {
        let db = try recordDatabase()
        var note = try Note.make("Groceries").inserted(db)
        note.title = "Shopping"
        note.tags = ["errands"]
        try note.update(db)
        #expect(try Note.fetchOne(db, key: note.id) == note)

        var partial = note
        partial.title = "Title only"
        partial.tags = ["not written"]
        try partial.update(db, columns: ["TITLE"])
        let stored = try #require(try Note.fetchOne(db, key: note.id))
        #expect(stored.title == "Title only" && stored.tags == ["errands"])

        // save: an update when the row exists, an insert otherwise.
        var saved = stored
        saved.title = "Saved"
        try saved.save(db)
        #expect(try Note.fetchCount(db) == 1)
        #expect(try Note.fetchOne(db, key: note.id)?.title == "Saved")
        var fresh = Note.make("Fresh")
        try fresh.save(db)
        #expect(fresh.id == 2)
        var ghost = Note.make("Ghost")
        ghost.id = 40
        try ghost.save(db)
        #expect(ghost.id == 40)
        #expect(try Note.fetchCount(db) == 3)

        #expect(try ghost.exists(db))
        #expect(try ghost.delete(db))
        #expect(try !ghost.delete(db))
        #expect(try !ghost.exists(db))
        #expect(try Note.deleteOne(db, key: 2))
        #expect(try !Note.deleteOne(db, key: 2))
        #expect(try Note.deleteAll(db) == 1)
        #expect(try Note.fetchCount(db) == 0)
    }

    @Test(.requiresSQLite(3, 35, "upsert on every unique key (ON CONFLICT DO UPDATE without target)"))
    func upsertInsertsOrUpdates() throws {
        let db = try recordDatabase()
        var note = Note.make("First")
        try note.upsert(db)
        #expect(note.id == 1)
        note.title = "Upserted"
        try note.upsert(db)
        #expect(note.id == 1)
        #expect(try Note.fetchAll(db) == [note])
        var other = Note.make("Other")
        other.id = 7
        try other.upsert(db)
        #expect(other.id == 7)
        #expect(try Note.fetchCount(db) == 2)

        let tag = Tag(name: "urgent", color: "red")
        try tag.upsert(db)
        try Tag(name: "urgent", color: "orange").upsert(db)
        #expect(try Tag.fetchAll(db) == [Tag(name: "urgent", color: "orange")])
    }

    /// Before 3.35 the note table (whose uuid is UNIQUE) is upserted on a named key: the primary
    /// key here, the behaviour `upsert(db)` had before it handled every unique key.
    @Test func upsertWithoutReturningOnSQLite334() throws {
        var configuration = Configuration()
        configuration.capabilityLimit = SQLiteVersion(3, 34)
        let db = try recordDatabase(configuration)
        var note = Note.make("First")
        try note.upsert(db, onConflict: ["id"])
        #expect(note.id == 1)
        _ = try Note.make("Second").inserted(db)
        note.title = "Again"
        note.id = 1
        try note.upsert(db, onConflict: ["id"])
        #expect(note.id == 1)
        #expect(try Note.fetchOne(db, key: 1)?.title == "Again")
    }

    @Test func upsertIsAClearErrorBeforeSQLite324() throws {
        var configuration = Configuration()
        configuration.capabilityLimit = SQLiteVersion(3, 23)
        let db = try recordDatabase(configuration)
        var note = Note.make("First")
        let error = #expect(throws: RecordError.self) { try note.upsert(db) }
        #expect(error?.code == .unsupportedBySQLite)
        #expect(
            error?.description == "Note: upsert needs SQLite 3.24 or later (INSERT ... ON CONFLICT DO UPDATE); "
                + "this connection has 3.23.0")
    }

    @Test func withoutRowIDTableWithCompositeKey() throws {
        let db = try recordDatabase()
        #expect(
            try db.primaryKey("translation")
                == PrimaryKeyInfo(columns: ["noteId", "lang"], rowIDColumn: nil, tableHasRowID: false))
        let fr = Translation(noteId: 1, lang: "fr", body: "Courses")
        try fr.insert(db)
        try Translation(noteId: 1, lang: "de", body: "Einkauf").insert(db)
        #expect(try Translation.fetchOne(db, key: ["noteId": 1, "lang": "fr"]) == fr)
        #expect(try Translation.fetchOne(db, key: ["LANG": "fr", "noteid": 1]) == fr)
        #expect(try Translation.fetchOne(db, key: ["noteId": 1, "lang": nil]) == nil)
        #expect(try Translation.exists(db, key: ["noteId": 1, "lang": "de"]))
        var changed = fr
        changed.body = "Emplettes"
        try changed.update(db)
        #expect(try Translation.fetchOne(db, key: ["noteId": 1, "lang": "fr"])?.body == "Emplettes")
        try Translation(noteId: 1, lang: "fr", body: "Achats").save(db)
        try Translation(noteId: 2, lang: "fr", body: "Travail").save(db)
        #expect(try Translation.fetchCount(db) == 3)
        #expect(try Translation.deleteOne(db, key: ["noteId": 1, "lang": "de"]))
        #expect(try Translation(noteId: 2, lang: "fr", body: "").delete(db))
        #expect(try Translation.fetchAll(db) == [Translation(noteId: 1, lang: "fr", body: "Achats")])
    }

    @Test func withoutRowIDTableWithTextKey() throws {
        let db = try recordDatabase()
        #expect(try db.primaryKey("tag") == PrimaryKeyInfo(columns: ["name"], rowIDColumn: nil, tableHasRowID: false))
        try Tag(name: "home", color: nil).insert(db)
        try Tag(name: "work", color: "blue").insert(db)
        #expect(try Tag.fetchOne(db, key: "work") == Tag(name: "work", color: "blue"))
        try Tag(name: "home", color: "green").update(db)
        #expect(try Tag.fetchOne(db, key: "home")?.color == "green")
        try Tag(name: "home", color: nil).update(db)  // nil writes NULL
        #expect(try Tag.fetchOne(db, key: "home") == Tag(name: "home", color: nil))
        #expect(try Tag.deleteAll(db, keys: ["home", "nope"]) == 1)
        #expect(try Tag.fetchAll(db, keys: ["work"]) == [Tag(name: "work", color: "blue")])
    }

    @Test func tableWithoutPrimaryKeyIsKeyedByRowID() throws {
        let db = try recordDatabase()
        #expect(
            try db.primaryKey("logLine")
                == PrimaryKeyInfo(columns: ["rowid"], rowIDColumn: "rowid", tableHasRowID: true))
        try LogLine(message: "started").insert(db)
        try LogLine(message: "stopped").insert(db)
        #expect(try LogLine.fetchOne(db, key: 2) == LogLine(message: "stopped"))
        #expect(try LogLine.deleteOne(db, key: 1))
        #expect(try LogLine.fetchAll(db) == [LogLine(message: "stopped")])
        // The record does not encode its rowid: it cannot be updated.
        let error = #expect(throws: RecordError.self) { try LogLine(message: "x").update(db) }
        #expect(error?.code == .primaryKeyNotEncoded)
    }

    @Test func primaryKeyDiscovery() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE a(id INTEGER PRIMARY KEY, x);
                CREATE TABLE b(id integer primary key desc, x);
                CREATE TABLE c(code TEXT PRIMARY KEY, x);
                CREATE TABLE d(rowid TEXT, x);
                CREATE TABLE e(id INT PRIMARY KEY, x);
                """)
        #expect(try db.primaryKey("a") == PrimaryKeyInfo(columns: ["id"], rowIDColumn: "id", tableHasRowID: true))
        // INTEGER PRIMARY KEY DESC is not the rowid; neither is INT PRIMARY KEY.
        #expect(try db.primaryKey("b") == PrimaryKeyInfo(columns: ["id"], rowIDColumn: nil, tableHasRowID: true))
        #expect(try db.primaryKey("e") == PrimaryKeyInfo(columns: ["id"], rowIDColumn: nil, tableHasRowID: true))
        #expect(try db.primaryKey("c") == PrimaryKeyInfo(columns: ["code"], rowIDColumn: nil, tableHasRowID: true))
        #expect(
            try db.primaryKey("d") == PrimaryKeyInfo(columns: ["_rowid_"], rowIDColumn: "_rowid_", tableHasRowID: true))
        #expect(throws: SQLiteError.self) { try db.primaryKey("nope") }
    }

    @Test func primaryKeyCacheFollowsSchemaChanges() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE tag(name TEXT PRIMARY KEY, color TEXT) WITHOUT ROWID")
        try Tag(name: "a", color: "red").insert(db)
        #expect(try db.primaryKey("tag").columns == ["name"])
        // Same table name, another key: the cached key and INSERT must not be reused.
        try db.execute(sql: "DROP TABLE tag; CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT UNIQUE, color TEXT)")
        #expect(try db.primaryKey("tag") == PrimaryKeyInfo(columns: ["id"], rowIDColumn: "id", tableHasRowID: true))
        try Tag(name: "b", color: "blue").insert(db)
        #expect(try Tag.fetchOne(db, key: 1) == Tag(name: "b", color: "blue"))
        #expect(try Tag.fetchOne(db, key: ["name": "b"]) == Tag(name: "b", color: "blue"))

        // A change made by another connection is seen too.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("strata-records-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("db.sqlite").path
        let first = try Database(path: path)
        try first.execute(sql: "CREATE TABLE tag(name TEXT PRIMARY KEY, color TEXT)")
        try Tag(name: "a", color: nil).insert(first)
        let second = try Database(path: path)
        try second.execute(sql: "DROP TABLE tag; CREATE TABLE tag(color TEXT, name TEXT, PRIMARY KEY (color, name))")
        #expect(try first.primaryKey("tag").columns == ["color", "name"])
        try Tag(name: "b", color: "x").insert(first)
        let error = #expect(throws: RecordError.self) { try Tag.fetchOne(first, key: "b") }
        #expect(error?.code == .invalidKey)
    }

    @Test func insertsReuseOnePreparedStatementPerColumnList() throws {
        let db = try recordDatabase()
        try db.transaction {
            for i in 0..<100 { _ = try Note.make("n\(i)").inserted(db) }
        }
        #expect(try Note.fetchCount(db) == 100)
        // The statement cache of `cachedStatement` was not used for inserts.
        #expect(try Note.fetchAll(db, sql: "SELECT * FROM note WHERE id = 100").first?.title == "n99")
    }

    @Test func persistenceContainer() throws {
        let note = Note.make("Groceries", tags: ["a"])
        let container = try note.databaseContainer()
        #expect(container.columns == ["id", "title", "createdAt", "tags", "kind", "uuid"])
        #expect(container[value: "id"] == .null)
        #expect(container[value: "TITLE"] == "Groceries")
        #expect(container[value: "tags"] == #"["a"]"#)
        #expect(container[value: "nope"] == nil)
        var custom = PersistenceContainer()
        custom["a"] = 1
        custom["b"] = Int?.none
        custom["A"] = "replaced"
        #expect(custom.columns == ["a", "b"])
        #expect(custom.values == ["replaced", .null])
        #expect(custom.map(\.column) == ["a", "b"])
    }

    @Test func handWrittenRecord() throws {
        struct Player: FetchableRecord, PersistableRecord {
            var name: String
            var score: Int
            init(name: String, score: Int) {
                self.name = name
                self.score = score
            }
            init(row: Row) throws {
                name = try row["name"]
                score = try row["score"]
            }
            func encode(to container: inout PersistenceContainer) throws {
                container["name"] = name
                container["score"] = score
            }
        }
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE player(name TEXT PRIMARY KEY, score INTEGER NOT NULL)")
        #expect(Player.databaseTableName == "player")
        try Player(name: "Arthur", score: 100).insert(db)
        try Player(name: "Arthur", score: 120).update(db)
        #expect(try Player.fetchOne(db, key: "Arthur")?.score == 120)
    }

    @Test func defaultTableNames() {
        struct ReadingList: TableRecord {}
        struct URLRecord: TableRecord {}
        struct Box<T>: TableRecord {}
        struct Custom: TableRecord { static let databaseTableName = "custom_things" }
        #expect(Note.databaseTableName == "note")
        #expect(ReadingList.databaseTableName == "readingList")
        #expect(URLRecord.databaseTableName == "uRLRecord")
        #expect(Box<Int>.databaseTableName == "box")
        #expect(Custom.databaseTableName == "custom_things")
    }

    @Test func databaseSelection() throws {
        struct Title: Decodable, FetchableRecord, TableRecord {
            static let databaseTableName = "note"
            static var databaseSelection: [SQLLiteral] { ["title", "upper(title) AS loud"] }
            var title: String
            var loud: String
        }
        let db = try recordDatabase()
        _ = try Note.make("quiet").inserted(db)
        #expect(try Title.fetchAll(db).map(\.loud) == ["QUIET"])
        #expect(try Title.fetchOne(db, key: 1)?.title == "quiet")
    }

    @Test func inMemoryDatabaseQueue() throws {
        let queue = try DatabaseQueue()
        #expect(queue.path == ":memory:")
        let count = try queue.write { db in
            try db.execute(sql: "CREATE TABLE tag(name TEXT PRIMARY KEY, color TEXT)")
            try Tag(name: "a", color: nil).insert(db)
            return try Tag.fetchCount(db)
        }
        #expect(count == 1)
    }
}
