import StrataSQLite
import Testing

/// `including(required:)` and `including(optional:)`: pinned SQL, rows with scopes, nested
/// Decodable records against hand-written SQL, optional associations without a match, nested
/// includes, self-references, composite keys and odd identifiers.
@Suite("Query interface: including to-one associations")
struct IncludingTests {
    typealias Folder = AssociationTests.Folder
    typealias Note = AssociationTests.Note
    typealias Translation = AssociationTests.Translation
    typealias Review = AssociationTests.Review

    struct NoteInfo: FetchableRecord, Decodable, Equatable {
        var note: Note
        var folder: Folder?
    }

    struct RequiredNoteInfo: FetchableRecord, Decodable, Equatable {
        var note: Note
        var folder: Folder
    }

    struct FolderInfo: FetchableRecord, Decodable, Equatable {
        var folder: Folder
        var parent: Folder?
    }

    struct NestedFolder: Decodable, Equatable, FetchableRecord {
        var id: Int64
        var name: String
        var parentId: Int64?
        var parent: Folder?
    }

    struct DeepNoteInfo: FetchableRecord, Decodable, Equatable {
        var note: Note
        var folder: NestedFolder
    }

    struct ReviewInfo: FetchableRecord, Decodable, Equatable {
        var review: Review
        var translation: Translation
    }

    /// The records of a hand-written query that selects `a.*` then `b.*`, paired.
    static func pairs<A: FetchableRecord, B: FetchableRecord>(
        _ db: Database, _ a: A.Type, _ b: B.Type, from: String, aAlias: String, bAlias: String
    ) throws -> [(A, B?)] {
        let first = try A.fetchAll(db, sql: "SELECT \(aAlias).* FROM \(from)")
        let second = try db.fetchAll(sql: "SELECT \(bAlias).* FROM \(from)")
        #expect(first.count == second.count)
        return try zip(first, second).map { ($0, $1.containsNonNullValue ? try B(row: $1) : nil) }
    }

    @Test func requiredBelongsToPinnedSQLAndResults() throws {
        let db = try AssociationTests.database()
        let request = Note.including(required: Note.folder).order(Column("id"))
        #expect(
            try request.sqlAndArguments(db)
                == #"SELECT "note".*, "folder".* FROM "note" JOIN "folder" ON "folder"."id" = "note"."folderId" ORDER BY "note"."id" | []"#
        )
        let infos = try request.asRequest(of: RequiredNoteInfo.self).fetchAll(db)
        let expected = try Self.pairs(
            db, Note.self, Folder.self, from: "note JOIN folder f ON f.id = note.folderId ORDER BY note.id",
            aAlias: "note", bAlias: "f")
        #expect(infos.count == 4)
        #expect(infos.map(\.note) == expected.map(\.0))
        #expect(infos.map(\.folder) == expected.map(\.1))
        #expect(infos.first?.folder.name == "Home")
    }

    @Test func optionalBelongsToWithoutMatchDecodesNil() throws {
        let db = try AssociationTests.database()
        let request = Note.including(optional: Note.folder).order(Column("id"))
        #expect(
            try request.sqlAndArguments(db)
                == #"SELECT "note".*, "folder".* FROM "note" LEFT JOIN "folder" ON "folder"."id" = "note"."folderId" ORDER BY "note"."id" | []"#
        )
        let infos = try request.asRequest(of: NoteInfo.self).fetchAll(db)
        let expected = try Self.pairs(
            db, Note.self, Folder.self, from: "note LEFT JOIN folder f ON f.id = note.folderId ORDER BY note.id",
            aAlias: "note", bAlias: "f")
        #expect(infos.map(\.note) == expected.map(\.0))
        #expect(infos.map(\.folder) == expected.map(\.1))
        #expect(infos.count == 5)
        #expect(infos.first { $0.note.title == "Loose" }.map { $0.folder == nil } == true)

        // Rows: the base columns, and the scope with every column NULL.
        let rows = try request.asRequest(of: Row.self).fetchAll(db)
        #expect(rows.count == 5)
        let loose = rows.first { (try? $0["title"] as String) == "Loose" }
        #expect(loose?.columnNames == ["id", "title", "folderId", "movedFromId"])
        #expect(loose?.scopes["folder"]?.columnNames == ["id", "name", "parentId"])
        #expect(loose?.scopes["folder"]?.containsNonNullValue == false)
        #expect(rows.first?.scopes["folder"] == ["id": 3, "name": "Home", "parentId": 1])

        // fetchOne applies LIMIT 1 and splits as well.
        let one = try request.asRequest(of: NoteInfo.self).fetchOne(db)
        #expect(one == infos.first)
    }

    @Test func filterAndOrderOnIncludedAssociation() throws {
        let db = try AssociationTests.database()
        let request = Note.including(optional: Note.folder.filter(Column("name") == "Work").order(Column("name")))
            .order(Column("id"))
        #expect(
            try request.sqlAndArguments(db)
                == #"SELECT "note".*, "folder".* FROM "note" LEFT JOIN "folder" ON "folder"."id" = "note"."folderId" AND "folder"."name" = ? ORDER BY "note"."id", "folder"."name" | ['Work']"#
        )
        let infos = try request.asRequest(of: NoteInfo.self).fetchAll(db)
        let expected = try Self.pairs(
            db, Note.self, Folder.self,
            from: "note LEFT JOIN folder f ON f.id = note.folderId AND f.name = 'Work' ORDER BY note.id, f.name",
            aAlias: "note", bAlias: "f")
        #expect(infos.map(\.note) == expected.map(\.0))
        #expect(infos.map(\.folder) == expected.map(\.1))
        #expect(infos.compactMap(\.folder).map(\.name) == ["Work", "Work"])
    }

    @Test func selfReferenceParentFolder() throws {
        let db = try AssociationTests.database()
        let request = Folder.including(optional: Folder.parent).order(Column("id"))
        #expect(
            try request.sqlAndArguments(db)
                == #"SELECT "folder".*, "folder2".* FROM "folder" LEFT JOIN "folder" "folder2" ON "folder2"."id" = "folder"."parentId" ORDER BY "folder"."id" | []"#
        )
        let infos = try request.asRequest(of: FolderInfo.self).fetchAll(db)
        let expected = try Self.pairs(
            db, Folder.self, Folder.self, from: "folder f LEFT JOIN folder p ON p.id = f.parentId ORDER BY f.id",
            aAlias: "f", bAlias: "p")
        #expect(infos.map(\.folder) == expected.map(\.0))
        #expect(infos.map(\.parent) == expected.map(\.1))
        #expect(infos.map { $0.parent?.name } == [nil, "Root", "Root", nil])
    }

    @Test func nestedIncludes() throws {
        let db = try AssociationTests.database()
        let request = Note.including(required: Note.folder.including(optional: Folder.parent)).order(Column("id"))
        #expect(
            try request.sqlAndArguments(db)
                == #"SELECT "note".*, "folder".*, "folder2".* FROM "note" JOIN "folder" ON "folder"."id" = "note"."folderId" LEFT JOIN "folder" "folder2" ON "folder2"."id" = "folder"."parentId" ORDER BY "note"."id" | []"#
        )
        let infos = try request.asRequest(of: DeepNoteInfo.self).fetchAll(db)
        let handWritten = try db.fetchAll(
            sql: """
                SELECT note.title, f.name, p.name AS parentName FROM note JOIN folder f ON f.id = note.folderId
                LEFT JOIN folder p ON p.id = f.parentId ORDER BY note.id
                """)
        #expect(infos.count == handWritten.count)
        for (info, row) in zip(infos, handWritten) {
            #expect(info.note.title == (try row["title"] as String))
            #expect(info.folder.name == (try row["name"] as String))
            #expect(info.folder.parent?.name == (try row["parentName"] as String?))
        }
        let rows = try request.asRequest(of: Row.self).fetchAll(db)
        #expect(rows.first?.scopes["folder"]?.scopes["parent"] == ["id": 1, "name": "Root", "parentId": nil])
        #expect(rows.last?.scopes["folder"]?.scopes["parent"]?.containsNonNullValue == false)
    }

    @Test func compositeForeignKey() throws {
        let db = try AssociationTests.database()
        let request = Review.including(required: Review.translation).order(Column("id"))
        #expect(
            try request.sqlAndArguments(db)
                == #"SELECT "review".*, "translation".* FROM "review" JOIN "translation" ON "translation"."noteId" = "review"."noteId" AND "translation"."lang" = "review"."lang" ORDER BY "review"."id" | []"#
        )
        let infos = try request.asRequest(of: ReviewInfo.self).fetchAll(db)
        let expected = try Self.pairs(
            db, Review.self, Translation.self,
            from: "review r JOIN translation t ON t.noteId = r.noteId AND t.lang = r.lang ORDER BY r.id",
            aAlias: "r", bAlias: "t")
        #expect(infos.map(\.review) == expected.map(\.0))
        #expect(infos.map(\.translation) == expected.compactMap(\.1))
        #expect(infos.count == 3)

        // hasOne, included from the parent side of the composite key.
        struct TranslationInfo: FetchableRecord, Decodable, Equatable {
            var translation: Translation
            var review: Review?
        }
        let back = Translation.including(optional: Translation.review.filter(Column("stars") >= 4))
            .order(Column("noteId"), Column("lang"))
        #expect(
            try back.sqlAndArguments(db)
                == #"SELECT "translation".*, "review".* FROM "translation" LEFT JOIN "review" ON "review"."noteId" = "translation"."noteId" AND "review"."lang" = "translation"."lang" AND "review"."stars" >= ? ORDER BY "translation"."noteId", "translation"."lang" | [4]"#
        )
        let translations = try back.asRequest(of: TranslationInfo.self).fetchAll(db)
        #expect(translations.map { $0.review?.id } == [nil, 1, 3])
    }

    struct OddParent: Codable, Equatable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "order by"
        var key: Int64
        var value: String
        enum CodingKeys: String, CodingKey {
            case key = "a \"key\""
            case value = "select"
        }
    }

    struct OddChild: Codable, Equatable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "where"
        var id: Int64
        var parent: Int64?
        enum CodingKeys: String, CodingKey {
            case id
            case parent = "parent's key"
        }
        static let parentRecord = belongsTo(OddParent.self, key: "the \"parent\"")
    }

    struct OddInfo: FetchableRecord, Decodable, Equatable {
        var child: OddChild
        var parent: OddParent?
        enum CodingKeys: String, CodingKey {
            case child = "where"
            case parent = "the \"parent\""
        }
    }

    @Test func oddIdentifiers() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: #"""
                CREATE TABLE "order by"("a ""key""" INTEGER PRIMARY KEY, "select" TEXT NOT NULL);
                CREATE TABLE "where"(id INTEGER PRIMARY KEY, "parent's key" INTEGER REFERENCES "order by");
                INSERT INTO "order by" VALUES (1, 'one'), (2, 'it''s "two"');
                INSERT INTO "where" VALUES (10, 2), (11, NULL), (12, 1);
                """#)
        let request = OddChild.including(optional: OddChild.parentRecord).order(Column("id"))
        #expect(
            try request.sqlAndArguments(db)
                == #"SELECT "where".*, "order by".* FROM "where" LEFT JOIN "order by" ON "order by"."a ""key""" = "where"."parent's key" ORDER BY "where"."id" | []"#
        )
        let infos = try request.asRequest(of: OddInfo.self).fetchAll(db)
        #expect(infos.map(\.child.id) == [10, 11, 12])
        #expect(infos.map { $0.parent?.value } == [#"it's "two""#, nil, "one"])
        let rows = try request.asRequest(of: Row.self).fetchAll(db)
        #expect(rows.first?.scopes[#"the "parent""#] == [#"a "key""#: 2, "select": #"it's "two""#])
    }

    @Test func includedUnderPlainJoinIsRefused() throws {
        let db = try AssociationTests.database()
        let request = Note.joining(required: Note.folder.including(optional: Folder.parent))
        let error = #expect(throws: (any Error).self) { try request.fetchAll(db) }
        let message = "\(error.map { "\($0)" } ?? "")"
        #expect(message.contains(#"association "parent" is included under association "folder", which is only joined"#))
    }

    @Test func cursorOfIncludesIsRefused() throws {
        let db = try AssociationTests.database()
        let request = Note.including(optional: Note.folder)
        let error = #expect(throws: (any Error).self) { try request.fetchCursor(db) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("fetchCursor does not fetch included associations"))
    }

    @Test func countAndExistsIgnoreIncludedColumns() throws {
        let db = try AssociationTests.database()
        let request = Note.including(required: Note.folder)
        #expect(try request.fetchCount(db) == 4)
        #expect(try request.exists(db))
    }
}
