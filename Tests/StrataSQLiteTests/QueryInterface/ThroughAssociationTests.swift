import StrataSQLite
import Testing

/// `hasMany(_:through:using:)` and `hasOne(_:through:using:)`: joins (pinned SQL, results
/// against hand-written SQL on the same data), `including(all:)` (statements counted),
/// `including(required:)`/`including(optional:)`, `request(for:)`, aggregates, composite keys,
/// self-references, two-level through, odd identifiers, and errors naming both tables.
@Suite("Query interface: through associations", .timeLimit(.minutes(1)))
struct ThroughAssociationTests {
    struct Folder: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "folder"
        var id: Int64
        var name: String
        static let notes = hasMany(Note.self)
        /// Two levels: folder → note → noteTag → tag.
        static let tags = hasMany(Tag.self, through: notes, using: Note.tags)
    }

    struct Note: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "note"
        var id: Int64
        var title: String
        var folderId: Int64?
        static let folder = belongsTo(Folder.self)
        static let noteTags = hasMany(NoteTag.self)
        static let tags = hasMany(Tag.self, through: noteTags, using: NoteTag.tag)
        static let translations = hasMany(Translation.self)
        static let reviews = hasMany(Review.self, through: translations, using: Translation.reviews)
        /// The pivot has no foreign key to folder.
        static let badFolders = hasMany(Folder.self, through: noteTags, using: NoteTag.folder)
    }

    struct NoteTag: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "noteTag"
        var noteId: Int64
        var tagId: Int64
        static let note = belongsTo(Note.self)
        static let tag = belongsTo(Tag.self)
        static let folder = belongsTo(Folder.self)
    }

    struct Tag: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "tag"
        var id: Int64
        var name: String
        static let noteTags = hasMany(NoteTag.self)
        static let notes = hasMany(Note.self, through: noteTags, using: NoteTag.note)
    }

    struct Translation: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "translation"
        var noteId: Int64
        var lang: String
        static let reviews = hasMany(Review.self)
    }

    struct Review: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "review"
        var id: Int64
        var noteId: Int64
        var lang: String
        var stars: Int
    }

    struct Person: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "person"
        var id: Int64
        var name: String
        static let friendships = hasMany(Friendship.self, using: ForeignKey(["personId"]))
        static let friends = hasMany(Person.self, through: friendships, using: Friendship.friend)
        /// Both steps are ambiguous: friendship has two foreign keys to person.
        static let ambiguousFriends = hasMany(
            Person.self, through: hasMany(Friendship.self), using: Friendship.belongsTo(Person.self), key: "others")
    }

    struct Friendship: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "friendship"
        var personId: Int64
        var friendId: Int64
        static let friend = belongsTo(Person.self, key: "friend", using: ForeignKey(["friendId"]))
    }

    struct Country: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "country"
        var code: String
        var name: String
    }

    struct Library: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "library"
        var id: Int64
        var countryCode: String?
        static let country = belongsTo(Country.self)
    }

    struct Book: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "book"
        var id: Int64
        var title: String
        var libraryId: Int64?
        static let library = belongsTo(Library.self)
        static let country = hasOne(Country.self, through: library, using: Library.country)
    }

    /// Table `"order"`, pivot `line "item"` (columns `order id`, `select key`), table `"select"`.
    struct Order: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "order"
        var id: Int64
        var group: String
        static let items = hasMany(LineItem.self)
        static let products = hasMany(Product.self, through: items, using: LineItem.product, key: "products")
    }

    struct LineItem: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "line \"item\""
        var orderId: Int64
        var productKey: Int64
        enum CodingKeys: String, CodingKey {
            case orderId = "order id"
            case productKey = "select key"
        }
        static let product = belongsTo(Product.self)
    }

    struct Product: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "select"
        var key: Int64
        var from: String
    }

    static func database() throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: #"""
                CREATE TABLE folder(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, folderId INTEGER REFERENCES folder(id));
                CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE noteTag(noteId INTEGER NOT NULL REFERENCES note(id), tagId INTEGER NOT NULL REFERENCES tag(id),
                  PRIMARY KEY (noteId, tagId));
                CREATE TABLE translation(noteId INTEGER NOT NULL REFERENCES note(id), lang TEXT NOT NULL,
                  PRIMARY KEY (noteId, lang));
                CREATE TABLE review(id INTEGER PRIMARY KEY, noteId INTEGER NOT NULL, lang TEXT NOT NULL,
                  stars INTEGER NOT NULL, FOREIGN KEY (noteId, lang) REFERENCES translation(noteId, lang));
                CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE friendship(personId INTEGER NOT NULL REFERENCES person(id),
                  friendId INTEGER NOT NULL REFERENCES person(id));
                CREATE TABLE country(code TEXT PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE library(id INTEGER PRIMARY KEY, countryCode TEXT REFERENCES country(code));
                CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT NOT NULL, libraryId INTEGER REFERENCES library(id));
                CREATE TABLE "order"(id INTEGER PRIMARY KEY, "group" TEXT NOT NULL);
                CREATE TABLE "select"("key" INTEGER PRIMARY KEY, "from" TEXT NOT NULL);
                CREATE TABLE "line ""item"""("order id" INTEGER NOT NULL REFERENCES "order"(id),
                  "select key" INTEGER NOT NULL REFERENCES "select"("key"));
                INSERT INTO folder VALUES (1, 'Work'), (2, 'Home'), (3, 'Empty');
                INSERT INTO note VALUES (1, 'Report', 1), (2, 'Budget', 1), (3, 'Groceries', 2), (4, 'Loose', NULL);
                INSERT INTO tag VALUES (1, 'urgent'), (2, 'money'), (3, 'food'), (4, 'unused');
                INSERT INTO noteTag VALUES (1, 1), (2, 1), (2, 2), (3, 3), (3, 2);
                INSERT INTO translation VALUES (1, 'en'), (1, 'fr'), (2, 'fr');
                INSERT INTO review VALUES (1, 1, 'fr', 5), (2, 1, 'fr', 3), (3, 2, 'fr', 4), (4, 1, 'en', 2);
                INSERT INTO person VALUES (1, 'Alice'), (2, 'Bob'), (3, 'Carol');
                INSERT INTO friendship VALUES (1, 2), (1, 3), (2, 3), (3, 1);
                INSERT INTO country VALUES ('FR', 'France'), ('JP', 'Japan');
                INSERT INTO library VALUES (1, 'FR'), (2, NULL), (3, 'JP');
                INSERT INTO book VALUES (1, 'A', 1), (2, 'B', 2), (3, 'C', NULL), (4, 'D', 3);
                INSERT INTO "order" VALUES (1, 'x'), (2, 'y''s'), (3, 'none');
                INSERT INTO "select" VALUES (10, 'north'), (20, 'south "pole"');
                INSERT INTO "line ""item""" VALUES (1, 10), (1, 20), (2, 20);
                """#)
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

    static func check<R: FetchableRecord & Equatable>(_ c: Case<R>) throws {
        let db = try database()
        #expect(try c.request.sqlAndArguments(db) == c.sql, "\(c.name)")
        let expected = try R.fetchAll(db, sql: c.handWritten)
        #expect(!expected.isEmpty, "\(c.name): the hand-written query finds rows")
        #expect(try c.request.fetchAll(db) == expected, "\(c.name)")
        #expect(try c.request.fetchCount(db) == expected.count, "\(c.name)")
    }

    static let noteCases: [Case<Note>] = [
        Case(
            name: "required hasMany through belongsTo, filtered on the destination",
            request: Note.joining(required: Note.tags.filter(Column("name") == "money")).order(Column("id")),
            sql:
                #"SELECT "note".* FROM "note" JOIN "noteTag" ON "noteTag"."noteId" = "note"."id" JOIN "tag" ON "tag"."id" = "noteTag"."tagId" AND "tag"."name" = ? ORDER BY "note"."id" | ['money']"#,
            handWritten:
                "SELECT note.* FROM note JOIN noteTag nt ON nt.noteId = note.id JOIN tag ON tag.id = nt.tagId AND tag.name = 'money' ORDER BY note.id"
        ),
        Case(
            name: "optional, aliased destination",
            request: {
                let tag = TableAlias(name: "t")
                return Note.joining(optional: Note.tags.aliased(tag)).filter(tag[Column("id")] == nil)
            }(),
            sql:
                #"SELECT "note".* FROM "note" LEFT JOIN "noteTag" ON "noteTag"."noteId" = "note"."id" LEFT JOIN "tag" "t" ON "t"."id" = "noteTag"."tagId" WHERE "t"."id" IS NULL | []"#,
            handWritten:
                "SELECT note.* FROM note LEFT JOIN noteTag nt ON nt.noteId = note.id LEFT JOIN tag t ON t.id = nt.tagId WHERE t.id IS NULL"
        ),
        Case(
            name: "composite key: note → translation → review",
            request: Note.joining(required: Note.reviews.filter(Column("stars") >= 4)).distinct().order(Column("id")),
            sql:
                #"SELECT DISTINCT "note".* FROM "note" JOIN "translation" ON "translation"."noteId" = "note"."id" JOIN "review" ON "review"."noteId" = "translation"."noteId" AND "review"."lang" = "translation"."lang" AND "review"."stars" >= ? ORDER BY "note"."id" | [4]"#,
            handWritten:
                "SELECT DISTINCT note.* FROM note JOIN translation t ON t.noteId = note.id JOIN review r ON r.noteId = t.noteId AND r.lang = t.lang AND r.stars >= 4 ORDER BY note.id"
        ),
    ]

    static let otherCases: [Case<Tag>] = [
        Case(
            name: "hasMany through hasMany's reverse, ordered on the destination",
            request: Tag.joining(required: Tag.notes.filter(Column("title") == "Budget").order(Column("title")))
                .order(Column("name")),
            sql:
                #"SELECT "tag".* FROM "tag" JOIN "noteTag" ON "noteTag"."tagId" = "tag"."id" JOIN "note" ON "note"."id" = "noteTag"."noteId" AND "note"."title" = ? ORDER BY "tag"."name", "note"."title" | ['Budget']"#,
            handWritten:
                "SELECT tag.* FROM tag JOIN noteTag nt ON nt.tagId = tag.id JOIN note ON note.id = nt.noteId AND note.title = 'Budget' ORDER BY tag.name"
        )
    ]

    static let folderCases: [Case<Folder>] = [
        Case(
            name: "two-level through",
            request: Folder.joining(required: Folder.tags.filter(Column("name") == "money")).distinct()
                .order(Column("id")),
            sql:
                #"SELECT DISTINCT "folder".* FROM "folder" JOIN "note" ON "note"."folderId" = "folder"."id" JOIN "noteTag" ON "noteTag"."noteId" = "note"."id" JOIN "tag" ON "tag"."id" = "noteTag"."tagId" AND "tag"."name" = ? ORDER BY "folder"."id" | ['money']"#,
            handWritten:
                "SELECT DISTINCT f.* FROM folder f JOIN note n ON n.folderId = f.id JOIN noteTag nt ON nt.noteId = n.id JOIN tag t ON t.id = nt.tagId AND t.name = 'money' ORDER BY f.id"
        )
    ]

    static let personCases: [Case<Person>] = [
        Case(
            name: "self-reference: person → friendship → person",
            request: Person.joining(required: Person.friends.filter(Column("name") == "Carol")).order(Column("id")),
            sql:
                #"SELECT "person".* FROM "person" JOIN "friendship" ON "friendship"."personId" = "person"."id" JOIN "person" "person2" ON "person2"."id" = "friendship"."friendId" AND "person2"."name" = ? ORDER BY "person"."id" | ['Carol']"#,
            handWritten:
                "SELECT p.* FROM person p JOIN friendship f ON f.personId = p.id JOIN person q ON q.id = f.friendId AND q.name = 'Carol' ORDER BY p.id"
        )
    ]

    static let orderCases: [Case<Order>] = [
        Case(
            name: "odd identifiers: keywords, spaces, quotes",
            request: Order.joining(required: Order.products.filter(Column("from").like("south%"))).order(Column("id")),
            sql:
                #"SELECT "order".* FROM "order" JOIN "line ""item""" ON "line ""item"""."order id" = "order"."id" JOIN "select" ON "select"."key" = "line ""item"""."select key" AND "select"."from" LIKE ? ORDER BY "order"."id" | ['south%']"#,
            handWritten:
                #"SELECT o.* FROM "order" o JOIN "line ""item""" li ON li."order id" = o.id JOIN "select" s ON s."key" = li."select key" AND s."from" LIKE 'south%' ORDER BY o.id"#
        )
    ]

    @Test(arguments: noteCases) func noteJoins(_ c: Case<Note>) throws { try Self.check(c) }
    @Test(arguments: otherCases) func tagJoins(_ c: Case<Tag>) throws { try Self.check(c) }
    @Test(arguments: folderCases) func folderJoins(_ c: Case<Folder>) throws { try Self.check(c) }
    @Test(arguments: personCases) func personJoins(_ c: Case<Person>) throws { try Self.check(c) }
    @Test(arguments: orderCases) func orderJoins(_ c: Case<Order>) throws { try Self.check(c) }

    @Test func defaultKeys() {
        #expect(Note.tags.sqlAssociation.key == "tags")  // belongsTo "tag", pluralized
        #expect(Note.reviews.sqlAssociation.key == "reviews")  // a hasMany's key, already plural
        #expect(Folder.tags.sqlAssociation.key == "tags")
        #expect(Person.friends.sqlAssociation.key == "friends")  // belongsTo key "friend"
        #expect(Book.country.sqlAssociation.key == "country")
        #expect(Order.products.sqlAssociation.key == "products")
        let fixed = Note.hasMany(Tag.self, through: Note.noteTags, using: NoteTag.tag.forKey("label"))
        #expect(fixed.sqlAssociation.key == "label")
    }

    struct NoteTags: FetchableRecord, Decodable, Equatable {
        var note: Note
        var tags: [Tag]
    }

    @Test func includingAllInOneStatementPerLevel() throws {
        let db = try Self.database()
        let request = Note.including(all: Note.tags.order(Column("id"))).order(Column("id"))
            .asRequest(of: NoteTags.self)
        _ = try request.fetchAll(db)
        let log = IncludingAllTests.StatementLog(db)
        let infos = try request.fetchAll(db)
        db.trace(nil)
        #expect(
            log.requestStatements == [
                #"SELECT * FROM "note" ORDER BY "id""#,
                #"SELECT "noteTag"."noteId", "tag".* FROM "tag" JOIN "noteTag" ON "noteTag"."tagId" = "tag"."id" AND "noteTag"."noteId" IN (?, ?, ?, ?) ORDER BY "tag"."id""#,
            ])
        for info in infos {
            let expected = try Tag.fetchAll(
                db,
                sql:
                    "SELECT tag.* FROM tag JOIN noteTag ON noteTag.tagId = tag.id WHERE noteTag.noteId = ? ORDER BY tag.id",
                arguments: [info.note.id])
            #expect(info.tags == expected)
        }
        #expect(infos.map { $0.tags.map(\.name) } == [["urgent"], ["urgent", "money"], ["money", "food"], []])
        #expect(try request.fetchOne(db)?.tags.map(\.name) == ["urgent"])
    }

    struct FolderTags: FetchableRecord, Decodable, Equatable {
        var folder: Folder
        var tags: [Tag]
    }

    @Test func includingAllTwoLevelsAndSelfReference() throws {
        let db = try Self.database()
        let folders = try Folder.including(all: Folder.tags.order(Column("id"))).order(Column("id"))
            .asRequest(of: FolderTags.self).fetchAll(db)
        for info in folders {
            let expected = try Tag.fetchAll(
                db,
                sql: """
                    SELECT t.* FROM tag t JOIN noteTag nt ON nt.tagId = t.id JOIN note n ON n.id = nt.noteId
                    WHERE n.folderId = ? ORDER BY t.id
                    """, arguments: [info.folder.id])
            #expect(info.tags == expected)
        }
        // A tag reached through two notes appears twice, as in the join.
        #expect(folders.map { $0.tags.map(\.name) } == [["urgent", "urgent", "money"], ["money", "food"], []])

        let friends = try Person.including(all: Person.friends.order(Column("name"))).order(Column("id"))
            .asRequest(of: Row.self).fetchAll(db)
        #expect(
            try friends.map { row in try (row.prefetchedRows["friends"] ?? []).map { try $0["name"] as String } } == [
                ["Bob", "Carol"], ["Carol"], ["Alice"],
            ])
    }

    struct OrderProducts: FetchableRecord, Decodable, Equatable {
        var order: Order
        var products: [Product]
    }

    @Test func includingAllWithCompositeKeysAndOddIdentifiers() throws {
        let db = try Self.database()
        let notes = try Note.including(all: Note.reviews.order(Column("id"))).order(Column("id"))
            .asRequest(of: Row.self).fetchAll(db)
        #expect(
            try notes.map { row in try (row.prefetchedRows["reviews"] ?? []).map { try $0["id"] as Int64 } } == [
                [1, 2, 4], [3], [], [],
            ])
        let request = Order.including(all: Order.products.order(Column("key"))).order(Column("id"))
            .asRequest(of: OrderProducts.self)
        _ = try request.fetchAll(db)
        let log = IncludingAllTests.StatementLog(db)
        let orders = try request.fetchAll(db)
        db.trace(nil)
        #expect(
            log.requestStatements.last
                == #"SELECT "line ""item"""."order id", "select".* FROM "select" JOIN "line ""item""" ON "line ""item"""."select key" = "select"."key" AND "line ""item"""."order id" IN (?, ?, ?) ORDER BY "select"."key""#
        )
        #expect(orders.map { $0.products.map(\.from) } == [["north", "south \"pole\""], ["south \"pole\""], []])
    }

    struct BookInfo: FetchableRecord, Decodable, Equatable {
        var book: Book
        var country: Country?
    }

    @Test func hasOneThroughIncluded() throws {
        let db = try Self.database()
        let optional = Book.including(optional: Book.country).order(Column("id"))
        #expect(
            try optional.sqlAndArguments(db)
                == #"SELECT "book".*, "country".* FROM "book" LEFT JOIN "library" ON "library"."id" = "book"."libraryId" LEFT JOIN "country" ON "country"."code" = "library"."countryCode" ORDER BY "book"."id" | []"#
        )
        let infos = try optional.asRequest(of: BookInfo.self).fetchAll(db)
        #expect(infos.map(\.book.title) == ["A", "B", "C", "D"])
        #expect(infos.map { $0.country?.name } == ["France", nil, nil, "Japan"])
        let rows = try optional.asRequest(of: Row.self).fetchAll(db)
        #expect(rows[0].columnNames == ["id", "title", "libraryId"])
        #expect(rows[0].scopes["country"] == ["code": "FR", "name": "France"])
        #expect(rows[0].scopes["library"] == nil)  // the pivot is not selected

        let required = Book.including(required: Book.country.filter(Column("code") != "JP")).order(Column("id"))
        #expect(
            try required.sqlAndArguments(db)
                == #"SELECT "book".*, "country".* FROM "book" JOIN "library" ON "library"."id" = "book"."libraryId" JOIN "country" ON "country"."code" = "library"."countryCode" AND "country"."code" <> ? ORDER BY "book"."id" | ['JP']"#
        )
        #expect(try required.asRequest(of: BookInfo.self).fetchAll(db).map(\.book.title) == ["A"])
        let expected = try db.fetchAll(
            sql: """
                SELECT b.*, c.* FROM book b JOIN library l ON l.id = b.libraryId
                JOIN country c ON c.code = l.countryCode AND c.code <> 'JP' ORDER BY b.id
                """)
        let flattened = try required.asRequest(of: Row.self).fetchAll(db).map { row in
            Array(row.values) + Array(row.scopes["country"]?.values ?? [])
        }
        #expect(flattened == expected.map { Array($0.values) })
    }

    @Test func requestForARecord() throws {
        let db = try Self.database()
        let budget = try Note.find(db, key: 2)
        let tags = budget.request(for: Note.tags).order(Column("name"))
        #expect(
            try tags.sqlAndArguments(db)
                == #"SELECT "tag".* FROM "tag" JOIN "noteTag" ON "noteTag"."tagId" = "tag"."id" AND "noteTag"."noteId" = ? ORDER BY "tag"."name" | [2]"#
        )
        #expect(try tags.fetchAll(db).map(\.name) == ["money", "urgent"])
        #expect(try tags.fetchCount(db) == 2)
        #expect(try budget.request(for: Note.tags).filter(Column("name") == "money").fetchOne(db)?.id == 2)

        let work = try Folder.find(db, key: 1)
        let folderTags = work.request(for: Folder.tags).order(Column("id"))
        #expect(
            try folderTags.sqlAndArguments(db)
                == #"SELECT "tag".* FROM "tag" JOIN "noteTag" ON "noteTag"."tagId" = "tag"."id" JOIN "note" ON "note"."id" = "noteTag"."noteId" AND "note"."folderId" = ? ORDER BY "tag"."id" | [1]"#
        )
        #expect(try folderTags.fetchAll(db).map(\.name) == ["urgent", "urgent", "money"])

        let alice = try Person.find(db, key: 1)
        #expect(
            try alice.request(for: Person.friends).order(Column("name")).sqlAndArguments(db)
                == #"SELECT "person".* FROM "person" JOIN "friendship" ON "friendship"."friendId" = "person"."id" AND "friendship"."personId" = ? ORDER BY "person"."name" | [1]"#
        )
        #expect(
            try alice.request(for: Person.friends).order(Column("name")).fetchAll(db).map(\.name) == ["Bob", "Carol"])

        let french = try Note.find(db, key: 1).request(for: Note.reviews).order(Column("id"))
        #expect(
            try french.sqlAndArguments(db)
                == #"SELECT "review".* FROM "review" JOIN "translation" ON "translation"."noteId" = "review"."noteId" AND "translation"."lang" = "review"."lang" AND "translation"."noteId" = ? ORDER BY "review"."id" | [1]"#
        )
        #expect(try french.fetchAll(db).map(\.id) == [1, 2, 4])

        let bookA = try Book.find(db, key: 1)
        #expect(
            try bookA.request(for: Book.country).sqlAndArguments(db)
                == #"SELECT "country".* FROM "country" JOIN "library" ON "library"."countryCode" = "country"."code" AND "library"."id" = ? | [1]"#
        )
        #expect(try bookA.request(for: Book.country).fetchOne(db)?.name == "France")
        #expect(try Book.find(db, key: 2).request(for: Book.country).fetchOne(db) == nil)  // library without country
        #expect(try Book.find(db, key: 3).request(for: Book.country).fetchOne(db) == nil)  // no library

        let order = try Order.find(db, key: 1)
        #expect(try order.request(for: Order.products).order(Column("key")).fetchAll(db).map(\.key) == [10, 20])
    }

    @Test func aggregates() throws {
        let db = try Self.database()
        let counted = Note.annotated(with: Note.tags.count).order(Column("id")).asRequest(of: Row.self)
        #expect(
            try counted.sqlAndArguments(db)
                == #"SELECT *, (SELECT COUNT(*) FROM "tag" WHERE "tag"."id" IN (SELECT "noteTag"."tagId" FROM "noteTag" WHERE "noteTag"."noteId" = "note"."id")) AS "tagsCount" FROM "note" ORDER BY "id" | []"#
        )
        #expect(
            try counted.fetchAll(db)
                == db.fetchAll(
                    sql: """
                        SELECT n.*, (SELECT COUNT(DISTINCT t.id) FROM tag t JOIN noteTag nt ON nt.tagId = t.id
                        WHERE nt.noteId = n.id) AS tagsCount FROM note n ORDER BY id
                        """))
        // Two levels: a tag reached through two notes counts once.
        let folders = Folder.annotated(with: Folder.tags.filter(Column("name") != "food").count).order(Column("id"))
            .asRequest(of: Row.self)
        #expect(
            try folders.sqlAndArguments(db)
                == #"SELECT *, (SELECT COUNT(*) FROM "tag" WHERE "tag"."id" IN (SELECT "noteTag"."tagId" FROM "noteTag" WHERE "noteTag"."noteId" IN (SELECT "note"."id" FROM "note" WHERE "note"."folderId" = "folder"."id")) AND "tag"."name" <> ?) AS "tagsCount" FROM "folder" ORDER BY "id" | ['food']"#
        )
        #expect(try folders.fetchAll(db).map { try $0["tagsCount"] as Int } == [2, 1, 0])
        #expect(
            try folders.fetchAll(db).map { try $0["tagsCount"] as Int }
                == db.fetchColumn(
                    Int.self,
                    sql: """
                        SELECT (SELECT COUNT(DISTINCT t.id) FROM tag t JOIN noteTag nt ON nt.tagId = t.id
                        JOIN note n ON n.id = nt.noteId WHERE n.folderId = f.id AND t.name <> 'food')
                        FROM folder f ORDER BY id
                        """))
        let unused = Tag.having(Tag.notes.isEmpty)
        #expect(
            try unused.sqlAndArguments(db)
                == #"SELECT * FROM "tag" WHERE NOT EXISTS (SELECT * FROM "note" WHERE "note"."id" IN (SELECT "noteTag"."noteId" FROM "noteTag" WHERE "noteTag"."tagId" = "tag"."id")) | []"#
        )
        #expect(try unused.fetchAll(db).map(\.name) == ["unused"])
        // Self-reference: the inner person table is renamed.
        let popular = Person.having(Person.friends.count >= 2)
        #expect(
            try popular.sqlAndArguments(db)
                == #"SELECT * FROM "person" WHERE (SELECT COUNT(*) FROM "person" "person2" WHERE "person2"."id" IN (SELECT "friendship"."friendId" FROM "friendship" WHERE "friendship"."personId" = "person"."id")) >= ? | [2]"#
        )
        #expect(try popular.fetchAll(db).map(\.name) == ["Alice"])
        // Composite keys: a row value IN a subquery.
        let reviewed = Note.annotated(with: Note.reviews.count).order(Column("id")).asRequest(of: Row.self)
        #expect(
            try reviewed.sqlAndArguments(db)
                == #"SELECT *, (SELECT COUNT(*) FROM "review" WHERE ("review"."noteId", "review"."lang") IN (SELECT "translation"."noteId", "translation"."lang" FROM "translation" WHERE "translation"."noteId" = "note"."id")) AS "reviewsCount" FROM "note" ORDER BY "id" | []"#
        )
        #expect(try reviewed.fetchAll(db).map { try $0["reviewsCount"] as Int } == [3, 1, 0, 0])
        #expect(
            try Note.select(Column("title")).annotated(with: Note.tags.count).databaseRegion(db).description
                == "note(id, title), notetag, tag")
    }

    @Test func regionAndObservation() async throws {
        let db = try Self.database()
        #expect(
            try Note.select(Column("title")).joining(required: Note.tags).databaseRegion(db).description
                == "note(id, title), notetag, tag")
        let dbQueue = try DatabaseQueue { db in
            try db.execute(
                sql: """
                    CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, folderId INTEGER);
                    CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    CREATE TABLE noteTag(noteId INTEGER NOT NULL REFERENCES note(id),
                      tagId INTEGER NOT NULL REFERENCES tag(id));
                    INSERT INTO note VALUES (1, 'Report', NULL);
                    INSERT INTO tag VALUES (1, 'urgent'), (2, 'money');
                    """)
        }
        let observation = ValueObservation.tracking { db in
            try Note.including(all: Note.tags.order(Column("name"))).asRequest(of: NoteTags.self).fetchAll(db)
                .map { $0.note.title + ": " + $0.tags.map(\.name).joined(separator: ",") }
        }
        var values = observation.values(in: dbQueue).makeAsyncIterator()
        #expect(try await values.next() == ["Report: "])
        try await dbQueue.write { db in try db.execute(sql: "INSERT INTO noteTag VALUES (1, 2)") }
        #expect(try await values.next() == ["Report: money"])
        try await dbQueue.write { db in try db.execute(sql: "UPDATE tag SET name = 'cash' WHERE id = 2") }
        #expect(try await values.next() == ["Report: cash"])
    }

    @Test func errorsNameBothTablesAndTheAssociation() throws {
        let db = try Self.database()
        let before = try db.fetchAll(sql: "SELECT * FROM noteTag ORDER BY noteId, tagId")
        let missing = #expect(throws: SQLiteError.self) { try Note.joining(required: Note.badFolders).fetchAll(db) }
        #expect(
            missing?.message
                == #"no foreign key from table "noteTag" to table "folder"; give one with ForeignKey([...]) (in association "folders" of "note" through "noteTag" to "folder")"#
        )
        // The same error from every use of the association.
        let note = try Note.find(db, key: 1)
        for attempt in [
            { _ = try Note.including(all: Note.badFolders).fetchAll(db) },
            { _ = try note.request(for: Note.badFolders).fetchAll(db) },
            { _ = try Note.annotated(with: Note.badFolders.count).fetchAll(db) },
        ] as [() throws -> Void] {
            let error = #expect(throws: SQLiteError.self) { try attempt() }
            #expect(error?.message == missing?.message)
        }
        let ambiguous = #expect(throws: SQLiteError.self) {
            try Person.joining(required: Person.ambiguousFriends).fetchAll(db)
        }
        #expect(
            ambiguous?.message
                == #"ambiguous foreign key from table "friendship" to table "person": candidates (personId), (friendId); choose one with ForeignKey([...]) (in association "others" of "person" through "friendship" to "person")"#
        )
        #expect(try db.fetchAll(sql: "SELECT * FROM noteTag ORDER BY noteId, tagId") == before)  // nothing changed
    }
}
