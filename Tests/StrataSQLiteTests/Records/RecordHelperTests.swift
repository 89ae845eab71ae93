import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

private struct Item: Codable, Equatable, Identifiable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var title: String
    var score: Int
    var note: String?
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A row whose `raw` column is TEXT that is not valid UTF-8, read as `Data`.
private struct Attachment: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
    var id: Int64
    var title: String
    var raw: Data
}

@Suite("Record helpers")
struct RecordHelperTests {
    func database() throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE item(id INTEGER PRIMARY KEY, title TEXT NOT NULL, score INTEGER NOT NULL DEFAULT 0,
                                  note TEXT DEFAULT 'none');
                CREATE TRIGGER item_title BEFORE INSERT ON item WHEN NEW.title = '' BEGIN
                    SELECT RAISE(ABORT, 'empty title'); END;
                """)
        return db
    }

    @Test(.requiresSQLite(3, 35, "RETURNING"))
    func andFetchReturnTheStoredRow() throws {
        let db = try database()
        let inserted = try Item(id: nil, title: "a", score: 1, note: nil).insertAndFetch(db)
        #expect(inserted == Item(id: 1, title: "a", score: 1, note: nil))
        var item = inserted
        item.score = 5
        #expect(try item.updateAndFetch(db) == Item(id: 1, title: "a", score: 5, note: nil))
        var fresh = Item(id: nil, title: "b", score: 2, note: "n")
        let saved = try fresh.saveAndFetch(db, as: Item.self)
        #expect(saved.id == 2)
        #expect(fresh.id == 2)  // didInsert was called
        item.title = "A"
        #expect(try item.saveAndFetch(db).title == "A")
        let missing = Item(id: 99, title: "x", score: 0, note: nil)
        let error = #expect(throws: RecordError.self) { _ = try missing.updateAndFetch(db) }
        #expect(error?.code == .recordNotFound)
    }

    @Test func andFetchBefore335IsAClearErrorAndWritesNothing() throws {
        var configuration = Configuration()
        configuration.capabilityLimit = SQLiteVersion(3, 30, 0)
        let db = try Database(inMemory: configuration)
        try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, title TEXT NOT NULL, score INTEGER, note TEXT)")
        let before = try DatabaseContents(db)
        let error = #expect(throws: RecordError.self) {
            _ = try Item(id: nil, title: "a", score: 1, note: nil).insertAndFetch(db)
        }
        // 3.30 here, or the real version when older (the 3.28 build of scripts/sqlite-versions.sh).
        #expect(
            error?.message
                == "insertAndFetch needs SQLite 3.35 or later (RETURNING); this connection has \(db.capabilities.version)"
        )
        #expect(error?.tableName == "item")
        #expect(try DatabaseContents(db) == before)
    }

    @Test func updateChangesWritesOnlyChangedColumns() throws {
        let db = try database()
        var item = Item(id: nil, title: "a", score: 1, note: "n")
        try item.insert(db)
        // Another connection's view of the row: the score changed behind our back.
        try db.execute(sql: "UPDATE item SET score = 42")
        let old = item
        item.title = "b"
        #expect(try item.updateChanges(db, from: old))
        // score was not written: it keeps the value another writer set.
        #expect(try Item.fetchOne(db, id: item.id) == Item(id: item.id, title: "b", score: 42, note: "n"))
        #expect(try !item.updateChanges(db, from: item))
        #expect(try item.updateChanges(db) { $0.note = nil })
        #expect(try Item.fetchOne(db, id: item.id)?.note == nil)
        #expect(try !item.updateChanges(db) { $0.note = nil })
        // The traced statement names only the changed column.
        var statements = [String]()
        db.trace { statements.append($0.sql) }
        try item.updateChanges(db) { $0.title = "c" }
        #expect(statements.contains { $0.hasPrefix("UPDATE \"item\" SET \"title\" = ?1 WHERE \"id\" = ?2") })
    }

    @Test func databaseChangesReportOldValues() throws {
        var item = Item(id: 1, title: "a", score: 1, note: nil)
        let changes = try item.databaseChanges {
            $0.title = "b"
            $0.score = 1
            $0.note = "n"
        }
        #expect(changes == ["title": .text("a"), "note": .null])
        #expect(try item.databaseChanges(from: item).isEmpty)
        #expect(item.databaseEquals(item))
        #expect(!item.databaseEquals(Item(id: 1, title: "a", score: 1, note: nil)))
    }

    @Test func identifiableKeyMethods() throws {
        let db = try database()
        for title in ["a", "b", "c"] { _ = try Item(id: nil, title: title, score: 0, note: nil).inserted(db) }
        #expect(try Item.fetchOne(db, id: 2)?.title == "b")
        #expect(try Item.fetchOne(db, id: nil) == nil)
        #expect(try Item.fetchOne(db, id: 9) == nil)
        #expect(try Item.fetchAll(db, ids: [1, 3, 9]).map(\.title).sorted() == ["a", "c"])
        #expect(try Item.exists(db, id: 3))
        #expect(try !Item.exists(db, id: 9))
        #expect(try Item.deleteOne(db, id: 3))
        #expect(try !Item.deleteOne(db, id: 3))
        #expect(try Item.deleteAll(db, ids: [1, 2, 9]) == 2)
        #expect(try Item.fetchCount(db) == 0)
    }

    /// A TEXT column holding bytes that are not UTF-8, read as `Data`: neither `updateChanges`
    /// nor a full `update` changes its bytes or its storage class (TEXT stays TEXT).
    @Test func untouchedNonUTF8TextKeepsItsBytesAndType() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE attachment(id INTEGER PRIMARY KEY, title TEXT NOT NULL, raw TEXT)")
        // 0xFF 0xFE 'a' 0xC3: not UTF-8, stored as TEXT by a cast.
        try db.execute(sql: "INSERT INTO attachment VALUES (1, 'photo', CAST(X'FFFE61C3' AS TEXT))")
        func stored() throws -> [SQLValue] {
            try db.fetchOne(sql: "SELECT typeof(raw), hex(raw) FROM attachment")?.values ?? []
        }
        let original = try stored()
        #expect(original == [.text("text"), .text("FFFE61C3")])
        // Read as bytes (CAST AS BLOB: the decoding of TEXT into Data is the values layer's).
        guard
            var attachment = try Attachment.fetchOne(
                db, sql: "SELECT id, title, CAST(raw AS BLOB) AS raw FROM attachment")
        else {
            Issue.record("no attachment")
            return
        }
        #expect(attachment.raw == Data([0xFF, 0xFE, 0x61, 0xC3]))
        #expect(try attachment.updateChanges(db) { $0.title = "renamed" })
        #expect(try stored() == original)
        attachment.title = "again"
        try attachment.update(db)
        #expect(try stored() == original)
        #expect(try db.fetchValue(String.self, sql: "SELECT title FROM attachment") == "again")
        // A real change of the bytes is written (as the BLOB the record holds).
        attachment.raw = Data([0x01, 0x02])
        try attachment.update(db)
        #expect(try stored() == [.text("blob"), .text("0102")])
    }
}
