import Foundation
import Strata
import StrataTestSupport

/// The databases the crash and failure-injection tests start from: three related tables with
/// thousands of rows, an old and a new schema (every table rebuilt), and a migration list.
enum CrashFixture {
    static let oldSchema = """
        CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, born INTEGER);
        CREATE TABLE book(
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          author_id INTEGER NOT NULL REFERENCES author(id) ON DELETE CASCADE,
          title TEXT, pages INTEGER, body TEXT);
        CREATE INDEX book_author ON book(author_id);
        CREATE INDEX book_title ON book(title);
        CREATE TABLE review(
          id INTEGER PRIMARY KEY, book_id INTEGER REFERENCES book(id) ON DELETE SET NULL,
          stars INTEGER CHECK (stars BETWEEN 1 AND 5), note TEXT);
        CREATE VIEW book_list AS SELECT b.title, a.name FROM book b JOIN author a ON a.id = b.author_id;
        CREATE TRIGGER review_touch AFTER UPDATE OF stars ON review BEGIN
          UPDATE book SET pages = pages WHERE id = NEW.book_id;
        END;
        """

    /// Every table changes in a way only a rebuild gives (collation, CHECK, column order,
    /// a STORED generated column, NOT NULL with a backfilled default). Before SQLite 3.31 (no
    /// generated columns) the new column is a plain one: the rebuild is the same.
    static let newSchema = """
        CREATE TABLE author(
          id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE COLLATE NOCASE, born INTEGER CHECK (born > 0),
          country TEXT NOT NULL DEFAULT 'unknown');
        CREATE TABLE book(
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          title TEXT,
          author_id INTEGER NOT NULL REFERENCES author(id) ON DELETE CASCADE,
          pages INTEGER NOT NULL DEFAULT 0, body TEXT,
          words INTEGER\(wordsGenerated));
        CREATE INDEX book_author ON book(author_id);
        CREATE INDEX book_title ON book(title COLLATE NOCASE);
        CREATE TABLE review(
          id INTEGER PRIMARY KEY, book_id INTEGER REFERENCES book(id) ON DELETE SET NULL,
          stars INTEGER CHECK (stars BETWEEN 0 AND 5), note TEXT NOT NULL DEFAULT '');
        CREATE VIEW book_list AS SELECT b.title, a.name, a.country FROM book b JOIN author a ON a.id = b.author_id;
        CREATE TRIGGER review_touch AFTER UPDATE OF stars ON review BEGIN
          UPDATE book SET pages = pages WHERE id = NEW.book_id;
        END;
        """

    static let wordsGenerated =
        SQLiteVersion.runtime >= SQLiteFeature.generatedColumns.version
        ? " GENERATED ALWAYS AS (length(body)) STORED" : ""

    /// Rows for the old schema: `books` books (and as many reviews), a tenth as many authors.
    static func seedSQL(books: Int) -> String {
        """
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(max(1, books / 10)))
        INSERT INTO author(id, name, born) SELECT i, 'author ' || i, 1900 + i % 100 FROM n;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(books))
        INSERT INTO book(id, author_id, title, pages, body)
          SELECT i, 1 + i % \(max(1, books / 10)), 'Title ' || i, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 900 END,
                 printf('%0120d', i * 7919) FROM n;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(books))
        INSERT INTO review(id, book_id, stars, note)
          SELECT i, 1 + (i * 7) % \(books), 1 + i % 5, CASE WHEN i % 3 = 0 THEN NULL ELSE 'note ' || i END FROM n;
        UPDATE sqlite_sequence SET seq = seq + 1000 WHERE name = 'book';
        """
    }

    /// A file database at the old schema holding rows.
    static func makeOldDatabase(at path: String, books: Int, wal: Bool = false) throws {
        let db = try Database(path: path)
        defer { db.close() }
        if wal { try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try db.execute(sql: oldSchema)
        try db.execute(sql: seedSQL(books: books))
    }

    /// The migration list: create, seed, then three pending ones (a hand-written rebuild, bulk
    /// updates, an index and a column).
    static func migrations(books: Int) -> [(identifier: String, statements: [String])] {
        [
            ("0001_create", splitStatements(oldSchema)),
            ("0002_seed", splitStatements(seedSQL(books: books))),
            (
                "0003_rebuild_book",
                [
                    "CREATE TABLE book_new(id INTEGER PRIMARY KEY AUTOINCREMENT, author_id INTEGER NOT NULL REFERENCES author(id) ON DELETE CASCADE, title TEXT NOT NULL DEFAULT '', pages INTEGER, body TEXT)",
                    "INSERT INTO book_new(id, author_id, title, pages, body) SELECT id, author_id, coalesce(title, ''), pages, body FROM book",
                    "DROP VIEW book_list",
                    "DROP TRIGGER review_touch",
                    "DROP TABLE book",
                    "ALTER TABLE book_new RENAME TO book",
                    "CREATE INDEX book_author ON book(author_id)",
                    "CREATE INDEX book_title ON book(title)",
                    "CREATE VIEW book_list AS SELECT b.title, a.name FROM book b JOIN author a ON a.id = b.author_id",
                    "CREATE TRIGGER review_touch AFTER UPDATE OF stars ON review BEGIN UPDATE book SET pages = pages WHERE id = NEW.book_id; END",
                ]
            ),
            (
                "0004_bulk_updates",
                [
                    "UPDATE review SET note = coalesce(note, '') || '!'",
                    "UPDATE author SET born = born + 1",
                    "DELETE FROM review WHERE id % 11 = 0",
                ]
            ),
            (
                "0005_index_and_column",
                [
                    "CREATE INDEX review_book ON review(book_id)",
                    "ALTER TABLE author ADD COLUMN country TEXT",
                    "UPDATE author SET country = 'c' || (id % 5)",
                ]
            ),
        ]
    }

    /// Statements of a script, split on `;` at the end of a line (enough for the fixture's SQL,
    /// which keeps trigger bodies' inner `;` mid-line).
    static func splitStatements(_ sql: String) -> [String] {
        var out = [String]()
        var current = ""
        for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
            current += line + "\n"
            if line.hasSuffix(";") && !line.hasSuffix("pages WHERE id = NEW.book_id;") {
                out.append(String(current.trimmingCharacters(in: .whitespacesAndNewlines).dropLast()))
                current = ""
            }
        }
        let rest = current.trimmingCharacters(in: .whitespacesAndNewlines)
        if !rest.isEmpty { out.append(rest) }
        return out
    }

    static func migrator(
        _ list: [(identifier: String, statements: [String])], mode: Migrator.TransactionMode = .perMigration
    ) -> Migrator {
        var migrator = Migrator()
        migrator.transactionMode = mode
        for m in list { migrator.registerMigration(m.identifier, sql: m.statements.joined(separator: ";\n")) }
        return migrator
    }

    /// Writes the migration list as a folder of `NNNN_name.sql` files.
    static func writeMigrations(_ list: [(identifier: String, statements: [String])], to directory: String) throws {
        for m in list {
            try Data(m.statements.joined(separator: ";\n").utf8).write(
                to: URL(fileURLWithPath: directory + "/" + m.identifier + ".sql"))
        }
    }

    /// Copies a closed database file (and its journal files, if any).
    static func copy(_ from: String, to: String) throws {
        for suffix in ["", "-journal", "-wal", "-shm"] where FileManager.default.fileExists(atPath: from + suffix) {
            try? FileManager.default.removeItem(atPath: to + suffix)
            try FileManager.default.copyItem(atPath: from + suffix, toPath: to + suffix)
        }
    }
}
