// The preludes the documentation's fragments assume (scripts/doc-examples.sh): a Markdown
// block marked `<!-- doc-example: fragment(db, desiredSQL) -->` is compiled after the named
// preludes, in this order, inside one function (so the block may shadow their names). Each
// prelude starts at a line `// prelude: NAME`; its `import` lines go to the top of the
// generated file, the rest before the block. Not compiled on its own.

// prelude: db
// An open database (in memory), as the text around the fragment has it.
import Strata
let db = try Database(inMemory: Configuration())

// prelude: desiredSQL
// The desired schema, as SQL text (a schema.sql file's contents).
let desiredSQL = "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL);"

// prelude: schemaSQL
// The desired schema, as SQL text.
let schemaSQL = "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL);"

// prelude: schemaSQLWrittenByHand
// A schema written by hand in SQL, to compare with one declared in Swift.
let schemaSQLWrittenByHand = "CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"

// prelude: migrationsFolder
// The path of the app's folder of migration files.
import Strata
let migrationsFolder = "Migrations"

// prelude: migrator
// The app's migrator, being set up.
import Strata
var migrator = Migrator()
migrator.registerMigration("0001_create_book", sql: "CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT)")

// prelude: players
// The Connection layer page's database: a player table with one row, and an event table.
import StrataSQLite
let db = try Database(inMemory: Configuration())
try db.execute(
    sql: """
        CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER);
        INSERT INTO player(name, score) VALUES ('Arthur', 100);
        CREATE TABLE event(time TEXT NOT NULL, kind TEXT NOT NULL);
        INSERT INTO event VALUES ('2026-01-01 10:00', 'start'), ('2026-01-01 11:00', 'stop');
        """)

// prelude: imported
// Rows to import: (name, score) pairs.
let imported: [(String, Int)] = [("Arthur", 100), ("Barbara", 120)]

// prelude: untrustedScript
// SQL text from outside the app.
let untrustedScript = "INSERT INTO player(name) VALUES ('Dana')"

// prelude: note
// The Records page's `Note` record, a table for it, a database, and one note.
import Foundation
import StrataSQLite
struct Note: Codable, FetchableRecord, MutablePersistableRecord {
    enum Kind: String, Codable, SQLValueConvertible { case text, checklist }
    var id: Int64?
    var title: String
    var createdAt: Date
    var tags: [String]
    var kind: Kind
    var uuid: UUID
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
struct Translation: Codable, FetchableRecord, PersistableRecord {
    var noteId: Int64
    var lang: String
    var title: String
}
let db = try Database(inMemory: Configuration())
try db.execute(
    sql: """
        CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, createdAt TEXT NOT NULL, tags TEXT NOT NULL,
                          kind TEXT NOT NULL, uuid BLOB NOT NULL UNIQUE, visits INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE translation(noteId INTEGER NOT NULL, lang TEXT NOT NULL, title TEXT NOT NULL,
                                 PRIMARY KEY (noteId, lang));
        """)
let since = Date(timeIntervalSinceNow: -86_400)
var note = Note(id: nil, title: "Groceries", createdAt: Date(), tags: [], kind: .text, uuid: UUID())

// prelude: literals
// Values and a table name to put into SQL literals.
let id: Int64 = 1
let pattern = "Gro%"
let table = "note"
let ids: [Int64] = [1, 2, 3]

// prelude: queryNotes
// The Queries page's `Note` record and a database holding two notes.
import StrataSQLite
struct Note: Codable, Identifiable, FetchableRecord, PersistableRecord {
    var id: Int64
    var title: String
    var pinned: Bool
    var score: Int?
    enum Columns {
        static let title = Column(CodingKeys.title)
        static let pinned = Column(CodingKeys.pinned)
        static let score = Column(CodingKeys.score)
    }
}
let db = try Database(inMemory: Configuration())
try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, pinned BOOLEAN NOT NULL, score INTEGER)")
try Note(id: 42, title: "Milk", pinned: false, score: 3).insert(db)
