import Foundation
import Strata
import StrataTestSupport
import Testing

/// A plan moves (drops and recreates) a view or trigger only when SQLite requires it.
@Suite("Minimal plans")
struct MinimalPlanTests {
    static let before = """
        CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE book(id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES author(id), title TEXT);
        CREATE TABLE audit(what TEXT);
        CREATE INDEX book_author ON book(author_id);
        CREATE VIEW book_titles AS SELECT b.id, b.title, a.name FROM book AS b JOIN author AS a ON a.id = b.author_id;
        CREATE VIEW titled AS SELECT * FROM book_titles WHERE title IS NOT NULL;
        CREATE TRIGGER book_insert AFTER INSERT ON book BEGIN INSERT INTO audit VALUES ('book ' || new.title); END;
        CREATE TRIGGER author_delete AFTER DELETE ON author BEGIN DELETE FROM book WHERE author_id = old.id; END;
        CREATE TRIGGER titles_insert INSTEAD OF INSERT ON book_titles BEGIN
          INSERT INTO book(title, author_id) SELECT new.title, id FROM author WHERE name = new.name; END;
        INSERT INTO author VALUES (1, 'Le Guin'); INSERT INTO book VALUES (1, 1, 'Earthsea');
        """

    /// The desired schema: `before` with `columns` added to `book` (and nothing else changed).
    static func desired(bookColumns: String) -> String {
        before.components(separatedBy: "INSERT INTO author")[0].replacingOccurrences(
            of: "title TEXT);", with: "title TEXT, \(bookColumns));")
    }

    static func viewsAndTriggers(_ db: Database) throws -> [[SQLValue]] {
        try db.fetchAll(
            sql: "SELECT type, name, sql FROM sqlite_master WHERE type IN ('view', 'trigger') ORDER BY name"
        )
        .map(\.values)
    }

    static func movesViewOrTrigger(_ sql: String) -> Bool {
        let words = sql.split(whereSeparator: \.isWhitespace).prefix(2).map { $0.uppercased() }
        return words.count == 2 && ["DROP", "CREATE"].contains(words[0]) && ["VIEW", "TRIGGER"].contains(words[1])
    }

    @Test(arguments: [nil, SQLiteVersion(3, 24, 0)])
    func addingANullableColumnLeavesViewsAndTriggersAlone(capabilityLimit: SQLiteVersion?) throws {
        let dir = TemporaryDirectory("strata-minimal")
        var configuration = Configuration()
        configuration.capabilityLimit = capabilityLimit
        let db = try Database(path: dir.file("db.sqlite"), configuration: configuration)
        defer { db.close() }
        try db.execute(sql: Self.before)
        let objects = try Self.viewsAndTriggers(db)

        let desired = Self.desired(bookColumns: "year INTEGER, subtitle TEXT DEFAULT ''")
        let plan = try db.planSchemaChange(to: desired)
        #expect(plan.steps.map(\.kind) == [.addColumn, .addColumn], "\(plan.summary)")
        let statements = plan.steps.flatMap(\.statements)
        #expect(!statements.contains(where: Self.movesViewOrTrigger), "\(statements)")
        try db.applySchemaChange(plan)

        // The views and triggers are the very same entries, and still work on the new column set.
        #expect(try Self.viewsAndTriggers(db) == objects)
        #expect(try db.planSchemaChange(to: desired).isEmpty)
        try db.execute(sql: "INSERT INTO book_titles(title, name) VALUES ('Tehanu', 'Le Guin')")
        #expect(
            try db.fetchAll(sql: "SELECT title, year, subtitle FROM book ORDER BY id").map(\.values)
                == [["Earthsea", nil, ""], ["Tehanu", nil, ""]])
        #expect(try db.fetchColumn(String.self, sql: "SELECT what FROM audit") == ["book Earthsea", "book Tehanu"])
        #expect(try db.fetchColumn(String.self, sql: "SELECT title FROM titled ORDER BY id") == ["Earthsea", "Tehanu"])
    }

    /// A column that ADD COLUMN cannot add (UNIQUE) means a rebuild: every view and trigger that
    /// the rebuild would break moves, the others stay, and the plan is proven and applied.
    @Test func aRebuildStillMovesWhatItWouldBreak() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: Self.before)
        let desired = Self.desired(bookColumns: "isbn TEXT UNIQUE")
        let plan = try db.planSchemaChange(to: desired)
        let moved = Set(plan.steps.filter { [.dropView, .dropTrigger].contains($0.kind) }.map(\.object))
        // author_delete is on author and mentions book: the rename that ends the rebuild checks it.
        #expect(moved == ["book_titles", "titled", "book_insert", "author_delete", "titles_insert"], "\(plan.summary)")
        #expect(plan.steps.contains { $0.kind == .rebuildTable && $0.object == "book" })
        try db.applySchemaChange(plan)
        #expect(try db.planSchemaChange(to: desired).isEmpty)
        #expect(try DatabaseSchema.read(from: db) == DatabaseSchema(sql: desired))
        try db.execute(sql: "INSERT INTO book(author_id, title, isbn) VALUES (1, 'Tehanu', 'x')")
        #expect(try db.fetchColumn(String.self, sql: "SELECT what FROM audit") == ["book Earthsea", "book Tehanu"])
    }
}
