import StrataSQLite
import Testing

/// The records and data of the query interface tests: folders, notes, tags, and a table whose
/// names are keywords, with spaces and quotes.
enum QueryFixtures {
    struct Note: Codable, Hashable, FetchableRecord, PersistableRecord, Identifiable {
        static let databaseTableName = "note"
        var id: Int64?
        var title: String
        var score: Int?
        var pinned: Bool
        var folderId: Int64?

        enum Columns {
            static let id = Column(CodingKeys.id)
            static let title = Column(CodingKeys.title)
            static let score = Column(CodingKeys.score)
            static let pinned = Column(CodingKeys.pinned)
            static let folderId = Column(CodingKeys.folderId)
        }
    }

    struct Translation: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "translation"
        var noteId: Int64
        var lang: String
        var text: String
    }

    /// Table `"select"` with columns `"group by"` and `a "quoted" name`.
    struct Odd: Codable, Hashable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "select"
        var order: Int64
        var groupBy: String
        var quoted: String?

        enum CodingKeys: String, CodingKey {
            case order
            case groupBy = "group by"
            case quoted = "a \"quoted\" name"
        }
    }

    static let schema = """
        CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, score INTEGER, \
        pinned BOOLEAN NOT NULL DEFAULT 0, folderId INTEGER);
        CREATE TABLE translation(noteId INTEGER NOT NULL, lang TEXT NOT NULL, text TEXT NOT NULL, \
        PRIMARY KEY (noteId, lang));
        CREATE TABLE "select"("order" INTEGER PRIMARY KEY, "group by" TEXT NOT NULL, "a ""quoted"" name" TEXT);
        """

    static let notes: [Note] = [
        Note(id: 1, title: "Apples", score: 10, pinned: true, folderId: 1),
        Note(id: 2, title: "apricots", score: nil, pinned: false, folderId: 1),
        Note(id: 3, title: "Bananas", score: 30, pinned: true, folderId: 2),
        Note(id: 4, title: "Cherries", score: 5, pinned: false, folderId: nil),
        Note(id: 5, title: "it's \"odd\"", score: 30, pinned: false, folderId: 2),
    ]

    /// An in-memory database with the schema and the notes, translations and odd rows.
    static func database(_ configuration: Configuration = Configuration()) throws -> Database {
        let db = try Database(inMemory: configuration)
        try db.execute(sql: schema)
        for note in notes { try note.insert(db) }
        for (noteId, lang, text) in [(1, "en", "Apples"), (1, "fr", "Pommes"), (3, "fr", "Bananes")] {
            try Translation(noteId: Int64(noteId), lang: lang, text: text).insert(db)
        }
        try Odd(order: 1, groupBy: "x", quoted: "q").insert(db)
        try Odd(order: 2, groupBy: "y", quoted: nil).insert(db)
        return db
    }
}

extension QueryInterfaceRequest {
    /// The SQL and arguments of the request, as `SQL | [arguments]`.
    func sqlAndArguments(_ db: Database) throws -> String {
        let prepared = try makePreparedRequest(db)
        return "\(prepared.sql) | [" + prepared.arguments.positional.map(\.sqlLiteral).joined(separator: ", ") + "]"
    }
}
