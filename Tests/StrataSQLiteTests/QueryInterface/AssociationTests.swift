import StrataSQLite
import Testing

/// belongsTo, hasMany and hasOne: joins (pinned SQL, results against hand-written SQL),
/// self-references, composite keys, `request(for:)`, and foreign-key errors.
@Suite("Query interface: associations")
struct AssociationTests {
    struct Folder: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "folder"
        var id: Int64
        var name: String
        var parentId: Int64?
        static let parent = belongsTo(Folder.self, key: "parent")
        static let children = hasMany(Folder.self, key: "children")
        static let notes = hasMany(Note.self, using: ForeignKey(["folderId"]))
    }

    struct Note: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "note"
        var id: Int64
        var title: String
        var folderId: Int64?
        var movedFromId: Int64?
        static let folder = belongsTo(Folder.self, using: ForeignKey(["folderId"]))
        static let movedFrom = belongsTo(Folder.self, key: "movedFrom", using: ForeignKey(["movedFromId"]))
        static let ambiguousFolder = belongsTo(Folder.self)
        static let tags = hasMany(Tag.self)
    }

    struct Tag: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "tag"
        var id: Int64
        var name: String
    }

    struct Translation: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "translation"
        var noteId: Int64
        var lang: String
        static let reviews = hasMany(Review.self)
        static let review = hasOne(Review.self)
        static let badKey = hasMany(Review.self, using: ForeignKey(["noteId"]))
    }

    struct Review: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "review"
        var id: Int64
        var noteId: Int64
        var lang: String
        var stars: Int
        static let translation = belongsTo(Translation.self)
    }

    static func database() throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE folder(id INTEGER PRIMARY KEY, name TEXT NOT NULL, parentId INTEGER REFERENCES folder);
                CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL,
                  folderId INTEGER REFERENCES folder(id), movedFromId INTEGER REFERENCES folder(id));
                CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE translation(noteId INTEGER NOT NULL, lang TEXT NOT NULL, PRIMARY KEY (noteId, lang));
                CREATE TABLE review(id INTEGER PRIMARY KEY, noteId INTEGER NOT NULL, lang TEXT NOT NULL, stars INTEGER NOT NULL,
                  FOREIGN KEY (noteId, lang) REFERENCES translation(noteId, lang));
                INSERT INTO folder VALUES (1, 'Root', NULL), (2, 'Work', 1), (3, 'Home', 1), (4, 'Trash', NULL);
                INSERT INTO note VALUES (1, 'Apples', 3, NULL), (2, 'Report', 2, 4), (3, 'Loose', NULL, NULL),
                  (4, 'Budget', 2, NULL), (5, 'Old', 4, 2);
                INSERT INTO translation VALUES (1, 'en'), (1, 'fr'), (2, 'fr');
                INSERT INTO review VALUES (1, 1, 'fr', 5), (2, 1, 'fr', 3), (3, 2, 'fr', 4);
                """)
        return db
    }

    struct Case<Record: FetchableRecord & Equatable>: CustomTestStringConvertible {
        let name: String
        let request: QueryInterfaceRequest<Record>
        let sql: String
        /// The same query written by hand.
        let handWritten: String
        var testDescription: String { name }
    }

    static let noteCases: [Case<Note>] = [
        Case(
            name: "required belongsTo", request: Note.joining(required: Note.folder).order(Column("id")),
            sql:
                #"SELECT "note".* FROM "note" JOIN "folder" ON "folder"."id" = "note"."folderId" ORDER BY "note"."id" | []"#,
            handWritten: "SELECT note.* FROM note JOIN folder ON folder.id = note.folderId ORDER BY note.id"),
        Case(
            name: "optional belongsTo with filters",
            request: Note.joining(optional: Note.folder.filter(Column("name") == "Work"))
                .filter(Column("title") != "Old").order(Column("id")),
            sql:
                #"SELECT "note".* FROM "note" LEFT JOIN "folder" ON "folder"."id" = "note"."folderId" AND "folder"."name" = ? WHERE "note"."title" <> ? ORDER BY "note"."id" | ['Work', 'Old']"#,
            handWritten:
                "SELECT note.* FROM note LEFT JOIN folder ON folder.id = note.folderId AND folder.name = 'Work' WHERE note.title <> 'Old' ORDER BY note.id"
        ),
        Case(
            name: "two joins of one table",
            request: Note.joining(required: Note.folder.filter(Column("name") == "Work"))
                .joining(required: Note.movedFrom.order(Column("name"))).order(Column("title")),
            sql:
                #"SELECT "note".* FROM "note" JOIN "folder" ON "folder"."id" = "note"."folderId" AND "folder"."name" = ? JOIN "folder" "folder2" ON "folder2"."id" = "note"."movedFromId" ORDER BY "note"."title", "folder2"."name" | ['Work']"#,
            handWritten:
                "SELECT note.* FROM note JOIN folder f ON f.id = note.folderId AND f.name = 'Work' JOIN folder m ON m.id = note.movedFromId ORDER BY note.title, m.name"
        ),
        Case(
            name: "nested joins",
            request: Note.joining(
                required: Note.folder.joining(required: Folder.parent.filter(Column("name") == "Root"))
            )
            .order(Column("id")),
            sql:
                #"SELECT "note".* FROM "note" JOIN "folder" ON "folder"."id" = "note"."folderId" JOIN "folder" "folder2" ON "folder2"."id" = "folder"."parentId" AND "folder2"."name" = ? ORDER BY "note"."id" | ['Root']"#,
            handWritten:
                "SELECT note.* FROM note JOIN folder f ON f.id = note.folderId JOIN folder p ON p.id = f.parentId AND p.name = 'Root' ORDER BY note.id"
        ),
    ]

    static let folderCases: [Case<Folder>] = [
        Case(
            name: "self-reference with an alias",
            request: {
                let parent = TableAlias(name: "p")
                return Folder.joining(required: Folder.parent.aliased(parent)).filter(parent[Column("name")] == "Root")
                    .order(Column("name"))
            }(),
            sql:
                #"SELECT "folder".* FROM "folder" JOIN "folder" "p" ON "p"."id" = "folder"."parentId" WHERE "p"."name" = ? ORDER BY "folder"."name" | ['Root']"#,
            handWritten:
                "SELECT f.* FROM folder f JOIN folder p ON p.id = f.parentId WHERE p.name = 'Root' ORDER BY f.name"),
        Case(
            name: "hasMany, distinct",
            request: Folder.joining(required: Folder.notes.filter(Column("title").like("%e%"))).distinct().order(
                Column("id")),
            sql:
                #"SELECT DISTINCT "folder".* FROM "folder" JOIN "note" ON "note"."folderId" = "folder"."id" AND "note"."title" LIKE ? ORDER BY "folder"."id" | ['%e%']"#,
            handWritten:
                "SELECT DISTINCT folder.* FROM folder JOIN note ON note.folderId = folder.id AND note.title LIKE '%e%' ORDER BY folder.id"
        ),
        Case(
            name: "self-referencing hasMany",
            request: Folder.joining(optional: Folder.children).filter(Column("id") == 1),
            sql:
                #"SELECT "folder".* FROM "folder" LEFT JOIN "folder" "folder2" ON "folder2"."parentId" = "folder"."id" WHERE "folder"."id" = ? | [1]"#,
            handWritten: "SELECT f.* FROM folder f LEFT JOIN folder c ON c.parentId = f.id WHERE f.id = 1"),
    ]

    static let reviewCases: [Case<Review>] = [
        Case(
            name: "composite belongsTo",
            request: Review.joining(required: Review.translation.filter(Column("lang") == "fr")).order(Column("id")),
            sql:
                #"SELECT "review".* FROM "review" JOIN "translation" ON "translation"."noteId" = "review"."noteId" AND "translation"."lang" = "review"."lang" AND "translation"."lang" = ? ORDER BY "review"."id" | ['fr']"#,
            handWritten:
                "SELECT review.* FROM review JOIN translation t ON t.noteId = review.noteId AND t.lang = review.lang AND t.lang = 'fr' ORDER BY review.id"
        )
    ]

    static func check<R: FetchableRecord & Equatable>(_ c: Case<R>) throws {
        let db = try database()
        let actual = try c.request.sqlAndArguments(db)
        #expect(actual == c.sql, "\(c.name)")
        let expected = try R.fetchAll(db, sql: c.handWritten)
        #expect(try c.request.fetchAll(db) == expected, "\(c.name)")
        #expect(try c.request.fetchCount(db) == expected.count, "\(c.name)")
    }

    @Test(arguments: noteCases) func noteJoins(_ c: Case<Note>) throws { try Self.check(c) }
    @Test(arguments: folderCases) func folderJoins(_ c: Case<Folder>) throws { try Self.check(c) }
    @Test(arguments: reviewCases) func reviewJoins(_ c: Case<Review>) throws { try Self.check(c) }

    @Test func requestForARecord() throws {
        let db = try Self.database()
        let work = try Folder.find(db, key: 2)
        let notes = work.request(for: Folder.notes).order(Column("title"))
        #expect(try notes.sqlAndArguments(db) == #"SELECT * FROM "note" WHERE "folderId" = ? ORDER BY "title" | [2]"#)
        #expect(try notes.fetchAll(db).map(\.title) == ["Budget", "Report"])
        let report = try Note.find(db, key: 2)
        #expect(try report.request(for: Note.folder).fetchOne(db) == work)
        #expect(try report.request(for: Note.movedFrom).fetchOne(db)?.name == "Trash")
        #expect(try Note.find(db, key: 3).request(for: Note.folder).fetchOne(db) == nil)  // NULL key
        #expect(try work.request(for: Folder.parent).fetchOne(db)?.name == "Root")
        #expect(try Folder.find(db, key: 1).request(for: Folder.children).fetchCount(db) == 2)
        let french = Translation(noteId: 1, lang: "fr")
        let reviews = french.request(for: Translation.reviews)
        #expect(
            try reviews.sqlAndArguments(db) == #"SELECT * FROM "review" WHERE "noteId" = ? AND "lang" = ? | [1, 'fr']"#)
        #expect(try reviews.fetchAll(db).map(\.stars) == [5, 3])
        #expect(try french.request(for: Translation.review).fetchOne(db)?.id == 1)
        #expect(
            try Review.find(db, key: 3).request(for: Review.translation).fetchOne(db)
                == Translation(noteId: 2, lang: "fr"))
    }

    @Test func deleteAndUpdateThroughAJoin() throws {
        let db = try Self.database()
        let inTrash = Note.joining(required: Note.folder.filter(Column("name") == "Trash"))
        // The statements, on another database: the rows whose key the joined SELECT returns.
        let other = try Self.database()
        var statements: [String] = []
        other.trace { statements.append($0.sql) }
        _ = try inTrash.updateAll(other, Column("title").set(to: "Trashed"))
        _ = try inTrash.deleteAll(other)
        other.trace(nil)
        #expect(
            statements.filter { $0.hasPrefix("UPDATE") || $0.hasPrefix("DELETE") } == [
                #"UPDATE "note" SET "title" = ? WHERE "id" IN (SELECT "note"."id" FROM "note" JOIN "folder" ON "folder"."id" = "note"."folderId" AND "folder"."name" = ?)"#,
                #"DELETE FROM "note" WHERE "id" IN (SELECT "note"."id" FROM "note" JOIN "folder" ON "folder"."id" = "note"."folderId" AND "folder"."name" = ?)"#,
            ])
        #expect(try inTrash.updateAll(db, Column("title").set(to: "Trashed")) == 1)
        #expect(try Note.find(db, key: 5).title == "Trashed")
        #expect(try inTrash.deleteAll(db) == 1)
        #expect(try db.fetchColumn(Int64.self, sql: "SELECT id FROM note ORDER BY id") == [1, 2, 3, 4])
    }

    @Test func foreignKeyErrorsNameBothTablesAndTheCandidates() throws {
        let db = try Self.database()
        let ambiguous = #expect(throws: SQLiteError.self) {
            try Note.joining(required: Note.ambiguousFolder).fetchAll(db)
        }
        #expect(
            ambiguous?.message
                == #"ambiguous foreign key from table "note" to table "folder": candidates (folderId), (movedFromId); choose one with ForeignKey([...])"#
        )
        let missing = #expect(throws: SQLiteError.self) { try Note.joining(optional: Note.tags).fetchAll(db) }
        #expect(
            missing?.message == #"no foreign key from table "tag" to table "note"; give one with ForeignKey([...])"#)
        let wrongCount = #expect(throws: SQLiteError.self) {
            try Translation(noteId: 1, lang: "fr").request(for: Translation.badKey).fetchAll(db)
        }
        #expect(
            wrongCount?.message
                == #"ForeignKey(["noteId"]) has 1 columns and the primary key of "translation" has 2 (noteId, lang)"#)
        let twice = TableAlias(name: "x")
        let doubled = #expect(throws: SQLiteError.self) {
            try Note.joining(required: Note.folder.aliased(twice)).joining(required: Note.movedFrom.aliased(twice))
                .fetchAll(db)
        }
        #expect(doubled?.message == #"the table alias "x" is used twice in the request"#)
        #expect(try Note.fetchCount(db) == 5)  // nothing changed
    }

    @Test func aggregates() throws {
        let db = try Self.database()
        let counted = Folder.annotated(with: Folder.notes.count).order(Column("id")).asRequest(of: Row.self)
        #expect(
            try counted.sqlAndArguments(db)
                == #"SELECT *, (SELECT COUNT(*) FROM "note" WHERE "note"."folderId" = "folder"."id") AS "notesCount" FROM "folder" ORDER BY "id" | []"#
        )
        #expect(
            try counted.fetchAll(db)
                == db.fetchAll(
                    sql:
                        "SELECT f.*, (SELECT COUNT(*) FROM note WHERE folderId = f.id) AS notesCount FROM folder f ORDER BY id"
                ))
        #expect(try counted.fetchAll(db).map { try $0["notesCount"] as Int } == [0, 2, 1, 1])
        let empty = Folder.having(Folder.notes.isEmpty)
        #expect(
            try empty.sqlAndArguments(db)
                == #"SELECT * FROM "folder" WHERE NOT EXISTS (SELECT * FROM "note" WHERE "note"."folderId" = "folder"."id") | []"#
        )
        #expect(try empty.fetchAll(db).map(\.name) == ["Root"])
        let busy = Folder.all().having(Folder.notes.filter(Column("title") != "Budget").count >= 1).order(Column("id"))
        #expect(
            try busy.sqlAndArguments(db)
                == #"SELECT * FROM "folder" WHERE (SELECT COUNT(*) FROM "note" WHERE "note"."folderId" = "folder"."id" AND "note"."title" <> ?) >= ? ORDER BY "id" | ['Budget', 1]"#
        )
        #expect(try busy.fetchAll(db).map(\.name) == ["Work", "Home", "Trash"])
        // Self-reference: the inner table is renamed.
        let parents = Folder.having(Folder.children.count > 0)
        #expect(
            try parents.sqlAndArguments(db)
                == #"SELECT * FROM "folder" WHERE (SELECT COUNT(*) FROM "folder" "folder2" WHERE "folder2"."parentId" = "folder"."id") > ? | [0]"#
        )
        #expect(try parents.fetchAll(db).map(\.name) == ["Root"])
        #expect(
            try Folder.select(Column("name")).annotated(with: Folder.notes.count).databaseRegion(db).description
                == "folder(id, name), note(*)")
        let error = #expect(throws: SQLiteError.self) { try Note.annotated(with: Note.tags.count).fetchAll(db) }
        #expect(error?.message == #"no foreign key from table "tag" to table "note"; give one with ForeignKey([...])"#)
    }

    @Test func regionOfAJoin() throws {
        let db = try Self.database()
        let region = try Note.select(Column("title")).joining(required: Note.folder).databaseRegion(db)
        #expect(region.description == "folder(*), note(folderid, title)")
    }
}
