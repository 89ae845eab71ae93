import Foundation
import StrataSQLite

/// The record of the record tests: an auto-incremented id, a date, tags stored as JSON, an enum
/// and a UUID.
struct Note: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
    enum Kind: String, Codable, SQLValueConvertible {
        case text, checklist
    }
    var id: Int64?
    var title: String
    var createdAt: Date
    var tags: [String]
    var kind: Kind
    var uuid: UUID

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    static func make(_ title: String, tags: [String] = [], kind: Kind = .text) -> Note {
        Note(
            id: nil, title: title, createdAt: Date(timeIntervalSince1970: 1_714_555_805.25), tags: tags, kind: kind,
            uuid: UUID())
    }
}

/// A WITHOUT ROWID table with a composite key: (noteId, lang).
struct Translation: Codable, Equatable, FetchableRecord, PersistableRecord {
    var noteId: Int64
    var lang: String
    var body: String
}

/// A WITHOUT ROWID table with a text key.
struct Tag: Codable, Equatable, FetchableRecord, PersistableRecord {
    var name: String
    var color: String?
}

/// A table without an explicit primary key: keyed by its rowid.
struct LogLine: Codable, Equatable, FetchableRecord, PersistableRecord {
    var message: String
}

/// An in-memory database with the tables of the record tests.
func recordDatabase(_ configuration: Configuration = Configuration()) throws -> Database {
    let db = try Database(inMemory: configuration)
    try db.execute(
        sql: """
            CREATE TABLE note(
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                title TEXT NOT NULL,
                createdAt TEXT NOT NULL,
                tags TEXT NOT NULL,
                kind TEXT NOT NULL,
                uuid BLOB NOT NULL UNIQUE);
            CREATE TABLE translation(
                noteId INTEGER NOT NULL, lang TEXT NOT NULL, body TEXT NOT NULL,
                PRIMARY KEY (noteId, lang)) WITHOUT ROWID;
            CREATE TABLE tag(name TEXT PRIMARY KEY, color TEXT) WITHOUT ROWID;
            CREATE TABLE logLine(message TEXT NOT NULL);
            """)
    return db
}
