import Foundation
import StrataSQLite
import Testing

@Suite("Record errors")
struct RecordErrorTests {
    @Test func missingColumnNamesTypeAndColumn() throws {
        let db = try recordDatabase()
        _ = try Note.make("x").inserted(db)
        let error = #expect(throws: RowDecodingError.self) {
            _ = try Note.fetchAll(db, sql: "SELECT id, title FROM note")
        }
        #expect(error?.code == .columnNotFound)
        #expect(error?.recordType == "Note")
        #expect(
            error?.description
                == #"Note: no column "createdAt" in row (columns: "id", "title") - from `SELECT id, title FROM note`"#)
    }

    @Test func nullIntoNonOptional() throws {
        let db = try recordDatabase()
        let error = #expect(throws: RowDecodingError.self) {
            _ = try Tag.fetchOne(db, sql: "SELECT NULL AS name, 'red' AS color")
        }
        #expect(
            error?.description == #"Tag: column "name" is NULL, which does not convert to String "#
                + #"(read it as Optional<String> if it may be NULL) - from `SELECT NULL AS name, 'red' AS color`"#)
    }

    @Test func textIntoInt() throws {
        struct Score: Decodable, FetchableRecord { var points: Int }
        let db = try Database(inMemory: Configuration())
        let error = #expect(throws: RowDecodingError.self) {
            _ = try Score.fetchOne(db, sql: "SELECT 'many' AS points")
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.value == "many")
        #expect(
            error?.description
                == #"Score: column "points" holds text 'many', which does not convert to Int - from `SELECT 'many' AS points`"#
        )
    }

    @Test func overflowIsAnErrorNotATruncation() throws {
        struct Small: Decodable, FetchableRecord { var level: Int8 }
        let db = try Database(inMemory: Configuration())
        let error = #expect(throws: RowDecodingError.self) { _ = try Small.fetchOne(db, sql: "SELECT 1000 AS level") }
        #expect(
            error?.description.hasPrefix(#"Small: column "level" holds integer 1000, which does not convert to Int8"#)
                == true)
    }

    @Test func badDateUUIDEnumAndJSON() throws {
        let db = try recordDatabase()
        let base = [
            "id": "1", "title": "'t'", "createdAt": "'2024-05-01'", "tags": "'[]'", "kind": "'text'",
            "uuid": "x'E621E1F8C36C495A93FC0C247A3E6E5F'",
        ]
        func select(_ replacing: [String: String]) -> String {
            "SELECT "
                + ["id", "title", "createdAt", "tags", "kind", "uuid"]
                .map { "\(replacing[$0] ?? base[$0] ?? "NULL") AS \($0)" }.joined(separator: ", ")
        }
        #expect(try Note.fetchOne(db, sql: select([:]))?.tags == [])
        func decodeNote(_ column: String, _ sql: String) throws -> RowDecodingError? {
            #expect(throws: RowDecodingError.self) { _ = try Note.fetchOne(db, sql: select([column: sql])) }
        }
        let date = try #require(try decodeNote("createdAt", "'tomorrow'"))
        #expect(
            date.description.hasPrefix(
                #"Note: column "createdAt" holds text 'tomorrow', which does not convert to Date"#))
        let uuid = try #require(try decodeNote("uuid", "'not-a-uuid'"))
        #expect(
            uuid.description.hasPrefix(#"Note: column "uuid" holds text 'not-a-uuid', which does not convert to UUID"#))
        let kind = try #require(try decodeNote("kind", "'poem'"))
        #expect(kind.description.hasPrefix(#"Note: column "kind" holds text 'poem', which does not convert to Kind"#))
        let tags = try #require(try decodeNote("tags", "'[1, 2'"))
        #expect(
            tags.description.hasPrefix(
                #"Note: column "tags" holds text '[1, 2', which does not convert to Array<String> (JSON: "#))
        let tagTypes = try #require(try decodeNote("tags", "'[1, 2]'"))
        #expect(tagTypes.description.contains("which does not convert to Array<String> (JSON: at [0]:"))
    }

    @Test func updateOfAMissingRow() throws {
        let db = try recordDatabase()
        var note = Note.make("Ghost")
        note.id = 42
        let error = #expect(throws: RecordError.self) { try note.update(db) }
        #expect(error?.code == .recordNotFound)
        #expect(error?.recordType == "Note")
        #expect(error?.tableName == "note")
        #expect(error?.key == ["id": 42])
        #expect(error?.description == #"Note: no row in table "note" with id = 42"#)

        note.id = nil
        let nullKey = #expect(throws: RecordError.self) { try note.update(db) }
        #expect(nullKey?.description == #"Note: no row in table "note" with id = NULL"#)

        let composite = #expect(throws: RecordError.self) {
            try Translation(noteId: 1, lang: "it's", body: "").update(db)
        }
        #expect(
            composite?.description == #"Translation: no row in table "translation" with noteId = 1 AND lang = 'it''s'"#)
    }

    @Test func invalidKeys() throws {
        let db = try recordDatabase()
        let composite = #expect(throws: RecordError.self) { _ = try Translation.fetchOne(db, key: 1) }
        #expect(composite?.code == .invalidKey)
        #expect(
            composite?.description == #"Translation: table "translation" has a primary key of 2 columns "#
                + #"(noteId, lang): give a key such as ["noteId": ..., "lang": ...]"#)
        let notUnique = #expect(throws: RecordError.self) { _ = try Note.fetchOne(db, key: ["title": "x"]) }
        #expect(
            notUnique?.description
                == #"Note: columns (title) are neither the primary key nor a unique index of table "note" (primary key: id)"#
        )
    }

    @Test func unknownColumnInUpdate() throws {
        let db = try recordDatabase()
        let note = try Note.make("x").inserted(db)
        let error = #expect(throws: RecordError.self) { try note.update(db, columns: ["titel"]) }
        #expect(error?.code == .unknownColumn)
        #expect(
            error?.description.hasPrefix(
                #"Note: update(columns:) names column "titel", which the record does not encode"#) == true)
    }

    @Test func constraintViolationsAreSQLiteErrors() throws {
        let db = try recordDatabase()
        let note = try Note.make("x").inserted(db)
        var copy = note
        copy.id = nil  // same UUID: UNIQUE
        let error = #expect(throws: SQLiteError.self) { try copy.insert(db) }
        #expect(error?.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
        #expect(copy.id == nil)  // didInsert not called
    }

    @Test func missingTable() throws {
        struct Nowhere: Codable, FetchableRecord, PersistableRecord { var x: Int }
        let db = try Database(inMemory: Configuration())
        let insert = #expect(throws: SQLiteError.self) { try Nowhere(x: 1).insert(db) }
        #expect(insert?.message == "no such table: nowhere")
        #expect(throws: SQLiteError.self) { try Nowhere(x: 1).update(db) }
        #expect(throws: SQLiteError.self) { _ = try Nowhere.fetchAll(db) }
    }
}
