import StrataSQLite
import Testing

/// `including(all:)`: one statement per to-many level (counted with the trace API), results
/// against hand-written SQL, filters and orders on the association, composite keys,
/// self-references, nesting, key lists longer than the variable limit, and observation.
@Suite("Query interface: including to-many associations", .timeLimit(.minutes(1)))
struct IncludingAllTests {
    typealias Folder = AssociationTests.Folder
    typealias Note = AssociationTests.Note
    typealias Translation = AssociationTests.Translation
    typealias Review = AssociationTests.Review

    /// The statements a connection runs, in order (trace API). Tests fetch once before they
    /// trace: the first fetch also reads the schema (foreign keys, primary key), once per
    /// connection and schema version.
    final class StatementLog {
        var statements: [String] = []
        init(_ db: Database) {
            db.trace(options: .statements) { [unowned self] event in self.statements.append(event.sql) }
        }

        /// The statements of the request itself: without the foreign-key lookups
        /// (`pragma_foreign_key_list`, `PRAGMA schema_version`) that preparing an association
        /// runs on each fetch.
        var requestStatements: [String] {
            statements.filter {
                !$0.hasPrefix("PRAGMA") && !$0.hasPrefix("-- PRAGMA") && !$0.contains("pragma_foreign_key_list")
            }
        }
    }

    struct FolderNotes: FetchableRecord, Decodable, Equatable {
        var folder: Folder
        var notes: [Note]
    }

    /// For each folder (ordered by id), its notes from a hand-written query.
    static func handWrittenNotes(
        _ db: Database, where condition: String = "1", order: String = "id"
    ) throws
        -> [(Folder, [Note])]
    {
        try Folder.fetchAll(db, sql: "SELECT * FROM folder ORDER BY id").map { folder in
            (
                folder,
                try Note.fetchAll(
                    db, sql: "SELECT * FROM note WHERE folderId = ? AND (\(condition)) ORDER BY \(order)",
                    arguments: [folder.id])
            )
        }
    }

    @Test func hasManyInTwoStatements() throws {
        let db = try AssociationTests.database()
        let request = Folder.including(all: Folder.notes).order(Column("id"))
        #expect(try request.sqlAndArguments(db) == #"SELECT * FROM "folder" ORDER BY "id" | []"#)
        _ = try request.asRequest(of: FolderNotes.self).fetchAll(db)
        let log = StatementLog(db)
        let infos = try request.asRequest(of: FolderNotes.self).fetchAll(db)
        db.trace(nil)
        #expect(
            log.requestStatements == [
                #"SELECT * FROM "folder" ORDER BY "id""#,
                #"SELECT "folderId", * FROM "note" WHERE "folderId" IN (?, ?, ?, ?)"#,
            ])
        let expected = try Self.handWrittenNotes(db)
        #expect(infos.map(\.folder) == expected.map(\.0))
        #expect(infos.map(\.notes) == expected.map(\.1))
        #expect(infos.map { $0.notes.map(\.title) } == [[], ["Report", "Budget"], ["Apples"], ["Old"]])

        let rows = try request.asRequest(of: Row.self).fetchAll(db)
        #expect(rows.count == 4)
        #expect(rows[1].columnNames == ["id", "name", "parentId"])
        #expect(
            rows[1].prefetchedRows["notes"] == [
                ["id": 2, "title": "Report", "folderId": 2, "movedFromId": 4],
                ["id": 4, "title": "Budget", "folderId": 2, "movedFromId": nil],
            ])
        #expect(rows[0].prefetchedRows["notes"] == [])
    }

    @Test func filterAndOrderOnTheAssociation() throws {
        let db = try AssociationTests.database()
        let request = Folder.including(all: Folder.notes.filter(Column("title") != "Old").order(Column("title").desc))
            .order(Column("id"))
        _ = try request.asRequest(of: FolderNotes.self).fetchAll(db)
        let log = StatementLog(db)
        let infos = try request.asRequest(of: FolderNotes.self).fetchAll(db)
        db.trace(nil)
        #expect(
            log.requestStatements.last
                == #"SELECT "folderId", * FROM "note" WHERE "title" <> ? AND "folderId" IN (?, ?, ?, ?) ORDER BY "title" DESC"#
        )
        let expected = try Self.handWrittenNotes(db, where: "title <> 'Old'", order: "title DESC")
        #expect(infos.map(\.notes) == expected.map(\.1))
        #expect(infos.map { $0.notes.map(\.title) } == [[], ["Report", "Budget"], ["Apples"], []])
    }

    struct FolderTree: FetchableRecord, Decodable, Equatable {
        struct Child: FetchableRecord, Decodable, Equatable {
            var id: Int64
            var name: String
            var notes: [Note]
        }
        var folder: Folder
        var children: [Child]
    }

    @Test func selfReferenceNestedOneStatementPerLevel() throws {
        let db = try AssociationTests.database()
        let request = Folder.filter(Column("parentId") == nil)
            .including(all: Folder.children.order(Column("name")).including(all: Folder.notes.order(Column("id"))))
            .order(Column("id"))
        _ = try request.asRequest(of: FolderTree.self).fetchAll(db)
        let log = StatementLog(db)
        let trees = try request.asRequest(of: FolderTree.self).fetchAll(db)
        db.trace(nil)
        #expect(
            log.requestStatements == [
                #"SELECT * FROM "folder" WHERE "parentId" IS NULL ORDER BY "id""#,
                #"SELECT "parentId", * FROM "folder" WHERE "parentId" IN (?, ?) ORDER BY "name""#,
                #"SELECT "folderId", * FROM "note" WHERE "folderId" IN (?, ?) ORDER BY "id""#,
            ])
        #expect(trees.map(\.folder.name) == ["Root", "Trash"])
        #expect(trees[0].children.map(\.name) == ["Home", "Work"])
        #expect(trees[0].children.map { $0.notes.map(\.title) } == [["Apples"], ["Report", "Budget"]])
        #expect(trees[1].children.isEmpty)
        // The same through hand-written SQL.
        for tree in trees {
            let children = try db.fetchAll(
                sql: "SELECT id FROM folder WHERE parentId = ? ORDER BY name", arguments: [tree.folder.id])
            #expect(tree.children.map(\.id) == (try children.map { try $0["id"] as Int64 }))
        }
    }

    struct TranslationReviews: FetchableRecord, Decodable, Equatable {
        var translation: Translation
        var reviews: [Review]
    }

    @Test func compositeKey() throws {
        let db = try AssociationTests.database()
        let request = Translation.including(all: Translation.reviews.order(Column("id")))
            .order(Column("noteId"), Column("lang"))
        _ = try request.asRequest(of: TranslationReviews.self).fetchAll(db)
        let log = StatementLog(db)
        let infos = try request.asRequest(of: TranslationReviews.self).fetchAll(db)
        db.trace(nil)
        #expect(
            log.requestStatements.last
                == #"SELECT "noteId", "lang", * FROM "review" WHERE "noteId" = ? AND "lang" = ? OR "noteId" = ? AND "lang" = ? OR "noteId" = ? AND "lang" = ? ORDER BY "id""#
        )
        for info in infos {
            let expected = try Review.fetchAll(
                db, sql: "SELECT * FROM review WHERE noteId = ? AND lang = ? ORDER BY id",
                arguments: [info.translation.noteId, info.translation.lang])
            #expect(info.reviews == expected)
        }
        #expect(infos.map { $0.reviews.map(\.id) } == [[], [1, 2], [3]])
    }

    @Test func keysBeyondTheVariableLimitAreChunked() throws {
        var configuration = Configuration()
        configuration.limits[.variableNumber] = 10
        let db = try Database(inMemory: configuration)
        try db.execute(
            sql: """
                CREATE TABLE folder(id INTEGER PRIMARY KEY, name TEXT NOT NULL, parentId INTEGER REFERENCES folder);
                CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL,
                  folderId INTEGER REFERENCES folder(id), movedFromId INTEGER);
                """)
        for id in 1...25 {
            try db.execute(sql: "INSERT INTO folder VALUES (?, ?, NULL)", arguments: [id, "f\(id)"])
            for n in 0..<(id % 3) {
                try db.execute(
                    sql: "INSERT INTO note(title, folderId) VALUES (?, ?)", arguments: ["n\(id)-\(n)", id])
            }
        }
        let request = Folder.including(all: Folder.notes.order(Column("id"))).order(Column("id"))
            .asRequest(of: FolderNotes.self)
        _ = try request.fetchAll(db)
        let log = StatementLog(db)
        let infos = try request.fetchAll(db)
        db.trace(nil)
        // 25 keys, 5 per statement (10 variables, room left for the association's filters).
        #expect(log.requestStatements.count == 1 + 5)
        let expected = try Self.handWrittenNotes(db)
        #expect(infos.map(\.notes) == expected.map(\.1))
        #expect(infos.reduce(0) { $0 + $1.notes.count } == 25)
    }

    @Test func errors() throws {
        let db = try AssociationTests.database()
        // The origin key is not selected.
        let unselected = Folder.select(Column("name")).including(all: Folder.notes)
        let missing = #expect(throws: (any Error).self) { try unselected.asRequest(of: Row.self).fetchAll(db) }
        #expect("\(missing.map { "\($0)" } ?? "")".contains(#"needs column "id" of "folder""#))
        // Under a join, there is no record to hold the rows.
        let underJoin = Note.joining(required: Note.folder.including(all: Folder.children))
        let join = #expect(throws: (any Error).self) { try underJoin.fetchAll(db) }
        #expect("\(join.map { "\($0)" } ?? "")".contains(#"including(all:) under association "folder""#))
    }

    @Test func observed() async throws {
        let dbQueue = try DatabaseQueue { db in
            try db.execute(
                sql: """
                    CREATE TABLE folder(id INTEGER PRIMARY KEY, name TEXT NOT NULL, parentId INTEGER REFERENCES folder);
                    CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL,
                      folderId INTEGER REFERENCES folder(id), movedFromId INTEGER REFERENCES folder(id));
                    INSERT INTO folder VALUES (1, 'Work', NULL);
                    """)
        }
        let observation = ValueObservation.tracking { db in
            try Folder.including(all: Folder.notes.order(Column("title"))).asRequest(of: FolderNotes.self)
                .fetchAll(db).map { "\($0.folder.name): " + $0.notes.map(\.title).joined(separator: ",") }
        }
        var values = observation.values(in: dbQueue).makeAsyncIterator()
        #expect(try await values.next() == ["Work: "])
        try await dbQueue.write { db in try db.execute(sql: "INSERT INTO note VALUES (1, 'B', 1, NULL)") }
        #expect(try await values.next() == ["Work: B"])
        try await dbQueue.write { db in try db.execute(sql: "INSERT INTO note VALUES (2, 'A', 1, NULL)") }
        #expect(try await values.next() == ["Work: A,B"])
    }
}
