import Foundation
import Strata
import StrataTestSupport
import Testing

/// The round trip of `strata generate swift`: Schema.swift (in this folder) was generated from
/// schema.sql, whose names are hostile (keywords, spaces, quotes, a leading digit, non-ASCII,
/// names that clash once converted). This target compiles it; these tests check it is the
/// generator's current output, and run queries through its types against hand-written SQL.
@Suite("Generated query types", .timeLimit(.minutes(1)))
struct GeneratedSchemaTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    static func schemaText() throws -> String {
        try String(contentsOf: folder.appendingPathComponent("schema.sql"), encoding: .utf8)
    }

    /// A database holding schema.sql, with foreign keys enforced.
    static func database() throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: try schemaText())
        return db
    }

    @Test func checkedInFileIsTheGeneratorsOutput() throws {
        let generated = try DatabaseSchema(sql: try Self.schemaText()).swiftSource(SwiftSourceOptions(records: true))
        let checkedIn = try Data(contentsOf: Self.folder.appendingPathComponent("Schema.swift"))
        #expect(
            Data(generated.utf8) == checkedIn,
            """
            Tests/GeneratedSchemaTests/Schema.swift is out of date: run `swift run strata generate swift \
            --schema Tests/GeneratedSchemaTests/schema.sql --records --out Tests/GeneratedSchemaTests/Schema.swift`
            """)
    }

    @Test func recordsWithHostileColumnsRoundTrip() throws {
        let db = try Self.database()
        let created = Date(timeIntervalSince1970: 1_700_000_000)
        var work = Folder(id: nil, name: "Work", parentId: nil, createdAt: created, isArchived: false)
        try work.insert(db)
        let workID = try #require(work.id)
        var note = Note(
            id: nil, folderId: workID, previousFolderId: nil, title: "Report", body: "x'); DROP TABLE note; --",
            score: 2.5, price: 12.25, attachment: Data([0, 1, 2]), default: "d", class: 7, self_: "s", type: "t",
            _2fa: "otp", withQuotesAndBackslash: "q\"\\", createdAt2: created, createdAt: "text", cafU00E9: "crème",
            hashValue2: 9, untyped: "u")
        try note.insert(db)
        let noteID = try #require(note.id)

        // Every column went to the column the schema names.
        let row = try #require(try db.fetchOne(sql: "SELECT * FROM note WHERE id = ?", arguments: [noteID]))
        #expect(try row["default"] as String == "d")
        #expect(try row["class"] as Int64 == 7)
        #expect(try row["self"] as String == "s")
        #expect(try row["Type"] as String == "t")
        #expect(try row["2fa"] as String == "otp")
        #expect(try row["with \"quotes\" and \\ backslash"] as String == "q\"\\")
        #expect(try row["createdAt"] as String == "text")
        #expect(try row["café"] as String == "crème")
        #expect(try row["hashValue"] as Int64 == 9)
        #expect(try row["body"] as String == "x'); DROP TABLE note; --")

        // Requests through the generated columns; the same rows as the hand-written SQL.
        let fetched = try Note.filter(NoteColumns.default == "d" && NoteColumns.self_ == "s")
            .order(NoteColumns.createdAt2.desc).limit(1).fetchOne(db)
        #expect(fetched == note)
        #expect(try Note.fetchOne(db, sql: #"SELECT * FROM note WHERE "default" = 'd'"#) == note)
        #expect(try Note.filter { $0.cafU00E9 == "crème" && $0.withQuotesAndBackslash == "q\"\\" }.fetchCount(db) == 1)
        #expect(try Folder.filter(FolderColumns.isArchived == false).fetchAll(db) == [work])

        // Update through a generated column.
        try Note.filter(NoteColumns.id == noteID).updateAll(db, NoteColumns.class.set(to: 8))
        #expect(try db.fetchValue(Int64.self, sql: #"SELECT "class" FROM note"#) == 8)
    }

    @Test func keywordAndReservedTableNames() throws {
        let db = try Self.database()
        var order = Order(id: nil, select: "s", where: 3)
        try order.insert(db)
        #expect(order.id != nil)
        #expect(try Order.filter(OrderColumns.where == 3).fetchAll(db) == [order])
        #expect(try db.fetchValue(String.self, sql: #"SELECT "select" FROM "order""#) == "s")
        try StringTable(value: "v").insert(db)
        #expect(try StringTable.fetchAll(db) == [StringTable(value: "v")])
        try Tag(name: "a").insert(db)
        #expect(try Tag.filter(key: "a").fetchOne(db) == Tag(name: "a"))
    }

    /// Folders, notes in them, tags and translations with reviews (a composite key).
    static func populated() throws -> Database {
        let db = try database()
        try db.execute(
            sql: """
                INSERT INTO folder(id, name, parent_id, created_at, "is archived") VALUES
                    (1, 'Root', NULL, '2024-01-01 00:00:00', 0), (2, 'Work', 1, '2024-01-02 00:00:00', 0),
                    (3, 'Empty', 1, '2024-01-03 00:00:00', 1);
                INSERT INTO note(id, folder_id, previous_folder_id, title, score) VALUES
                    (1, 2, 1, 'Report', 1), (2, 2, NULL, 'Budget', 0), (3, 1, 2, 'Ideas', 3);
                INSERT INTO tag(name) VALUES ('red'), ('blue');
                INSERT INTO "note tag"(note_id, tag_name) VALUES (1, 'red'), (1, 'blue'), (3, 'red');
                INSERT INTO translation(note_id, lang, "text") VALUES (1, 'fr', 'Rapport'), (1, 'de', 'Bericht');
                INSERT INTO review(id, note_id, lang, stars) VALUES (1, 1, 'fr', 5), (2, 1, 'fr', 3), (3, 1, 'de', 4);
                """)
        return db
    }

    struct FolderNotes: FetchableRecord, Decodable, Equatable {
        var folder: Folder
        var notesByFolder: [Note]
    }

    struct NoteInfo: FetchableRecord, Decodable, Equatable {
        var note: Note
        var folder: Folder
        var previousFolder: Folder?
    }

    struct TranslationReviews: FetchableRecord, Decodable, Equatable {
        var translation: Translation
        var reviews: [Review]
    }

    @Test func generatedAssociations() throws {
        let db = try Self.populated()

        // hasMany (one of two foreign keys to the same parent), against hand-written SQL.
        let folders = try Folder.including(all: Folder.notesByFolder.order(NoteColumns.id)).order(FolderColumns.id)
            .asRequest(of: FolderNotes.self).fetchAll(db)
        let expected = try Folder.fetchAll(db, sql: "SELECT * FROM folder ORDER BY id").map { folder in
            FolderNotes(
                folder: folder,
                notesByFolder: try Note.fetchAll(
                    db, sql: "SELECT * FROM note WHERE folder_id = ? ORDER BY id", arguments: [folder.id]))
        }
        #expect(folders == expected)
        #expect(folders.map { $0.notesByFolder.map(\.title) } == [["Ideas"], ["Report", "Budget"], []])

        // belongsTo, required and optional, through both keys to folder.
        let infos = try Note.including(required: Note.folder).including(optional: Note.previousFolder)
            .order(NoteColumns.id).asRequest(of: NoteInfo.self).fetchAll(db)
        #expect(infos.map(\.folder.name) == ["Work", "Work", "Root"])
        #expect(infos.map { $0.previousFolder?.name } == ["Root", nil, "Work"])

        // Self-reference: a folder's parent and children.
        let work = try #require(try Folder.fetchOne(db, key: 2))
        #expect(try work.request(for: Folder.parent).fetchOne(db)?.name == "Root")
        let root = try #require(try Folder.fetchOne(db, key: 1))
        #expect(
            try root.request(for: Folder.folders).order(FolderColumns.id).fetchAll(db).map(\.name) == ["Work", "Empty"])

        // A table with a space in its name, both ways.
        let note = try #require(try Note.fetchOne(db, key: 1))
        #expect(try note.request(for: Note.noteTags).fetchCount(db) == 2)
        let red = Tag(name: "red")
        #expect(
            try red.request(for: Tag.noteTags).joining(required: NoteTag.note).order(NoteTagColumns.noteId).fetchAll(db)
                .map(\.noteId) == [1, 3])

        // A composite foreign key.
        let translations = try Translation.including(all: Translation.reviews.order(ReviewColumns.id))
            .order(TranslationColumns.lang).asRequest(of: TranslationReviews.self).fetchAll(db)
        #expect(translations.map(\.translation.lang) == ["de", "fr"])
        #expect(translations.map { $0.reviews.map(\.stars) } == [[4], [5, 3]])
        let review = try #require(try Review.fetchOne(db, key: 3))
        #expect(try review.request(for: Review.translation).fetchOne(db)?.text == "Bericht")
    }

    @Test func viewRecords() throws {
        let db = try Self.populated()
        let pinned = try PinnedNotes.order(PinnedNotesColumns.id).fetchAll(db)
        #expect(
            pinned == [
                PinnedNotes(id: 1, title: "Report", folderName: "Work"),
                PinnedNotes(id: 3, title: "Ideas", folderName: "Root"),
            ])
        #expect(try PinnedNotes.filter(PinnedNotesColumns.folderName == "Root").fetchCount(db) == 1)
    }
}
