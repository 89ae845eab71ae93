// strata-notes: a small notes app's data layer on Strata, start to finish.
//
//   swift run strata-notes [DATABASE]      (a temporary database when none is given)
//
// The schema is declared in Swift (a table, an index and a full-text index kept in sync by
// triggers); every launch brings the database to it with the declarative engine. Notes are
// `Codable` structs: inserted, updated, searched and deleted as records, with SQL
// interpolation binding every value.
import Foundation
import Strata

struct Note: Codable, FetchableRecord, MutablePersistableRecord {
    enum Mood: String, Codable { case calm, busy }
    var id: Int64?
    var title: String
    var body: String
    var mood: Mood
    var tags: [String]  // JSON text
    var createdAt: Date  // "yyyy-MM-dd HH:mm:ss.SSS" UTC

    // Columns are snake_case in the database, camelCase in Swift.
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

let schema = SchemaDefinition { s in
    s.table("note") { t in
        t.autoIncrementedPrimaryKey("id")
        t.column("title", .text).notNull().check { $0.length > 0 }
        t.column("body", .text).notNull().defaults(to: "")
        t.column("mood", .text).notNull().defaults(to: "calm")
        t.column("tags", .text).notNull().defaults(to: "[]")
        t.column("created_at", .text).notNull()
    }
    s.index("note_on_created_at", on: "note", columns: ["created_at"])
    s.virtualTable("note_search", using: FTS5()) { t in
        t.synchronize(withTable: "note", rowID: "id")
        t.tokenizer = .porter(wrapping: .unicode61(diacritics: .remove))
        t.column("title")
        t.column("body")
    }
}

func run() throws {
    let given = CommandLine.arguments.dropFirst().first
    let path =
        given
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("strata-notes-\(UUID().uuidString).sqlite")
        .path
    let db = try Database(path: path)
    defer {
        db.close()
        if given == nil { try? FileManager.default.removeItem(atPath: path) }
    }

    let plan = try db.migrateSchema(to: schema)
    print(plan.isEmpty ? "Schema is up to date." : "Schema changes applied:\n\(plan.summary)")

    var groceries = Note(
        id: nil, title: "Groceries", body: "Apples, running shoes laces, coffee",
        mood: .busy, tags: ["home"], createdAt: Date())
    try groceries.insert(db)
    var trip = Note(
        id: nil, title: "Trip", body: "Book the train; pack the running gear",
        mood: .calm, tags: ["travel", "summer"], createdAt: Date())
    try trip.insert(db)
    print("Inserted notes \(groceries.id!) and \(trip.id!).")

    groceries.title = "Shopping"
    groceries.tags.append("errands")
    try groceries.update(db)

    let prefix = "Shop%"
    let shopping = try Note.fetchAll(db, literal: "SELECT * FROM note WHERE title LIKE \(prefix) ORDER BY id")
    print("Titles like \(prefix): \(shopping.map(\.title)) tagged \(shopping.map(\.tags))")

    let query = "run*"
    let found = try Note.fetchAll(
        db,
        literal: """
            SELECT note.* FROM note JOIN note_search ON note_search.rowid = note.id
            WHERE note_search MATCH \(query) ORDER BY rank
            """)
    print("Full-text search \(query): \(found.map(\.title))")

    if let loaded = try Note.fetchOne(db, key: trip.id) {
        print("Note \(trip.id!): \(loaded.title), \(loaded.mood), \(loaded.tags)")
    }
    try trip.delete(db)
    print("Deleted note \(trip.id!); \(try Note.fetchCount(db)) note(s) left in \(path).")
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("strata-notes: \(error)\n".utf8))
    exit(1)
}
