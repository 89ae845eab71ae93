import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataSchema

/// The databases and migration folders the upgrade-airbag suites (issue 38) start from: version 1
/// (four related tables with rows, a WITHOUT ROWID table, an index and a trigger) and an upgrade
/// that adds a column and a table, drops a column (SQLite 3.35.5 and later), rebuilds a table by
/// hand and runs a data step, all run by `StrataTestHelper airbag` in one transaction.
enum AirbagFixture {
    static let version1: [(String, String)] = [
        (
            "0001_create",
            """
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL, legacy TEXT NOT NULL DEFAULT '');
            CREATE TABLE book(
              id INTEGER PRIMARY KEY AUTOINCREMENT, author_id INTEGER NOT NULL REFERENCES author(id),
              title TEXT, pages INTEGER);
            CREATE INDEX book_author ON book(author_id);
            CREATE TABLE review(id INTEGER PRIMARY KEY, book_id INTEGER REFERENCES book(id), stars INTEGER, note TEXT);
            CREATE TABLE tag(name TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE audit(review_id INTEGER);
            CREATE TRIGGER review_audit AFTER INSERT ON review BEGIN INSERT INTO audit VALUES (new.id); END;
            """
        )
    ]

    static func seed(books: Int) -> (String, String) {
        (
            "0002_seed",
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(max(1, books / 10)))
            INSERT INTO author(id, name, legacy) SELECT i, 'author ' || i, 'legacy ' || (i % 7) FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(books))
            INSERT INTO book(id, author_id, title, pages)
              SELECT i, 1 + i % \(max(1, books / 10)), 'title ' || i || ' ' || printf('%08x', (i * 2654435761) % 4294967296),
                     CASE WHEN i % 7 = 0 THEN NULL ELSE i % 900 END FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(books))
            INSERT INTO review(id, book_id, stars, note)
              SELECT i, 1 + (i * 7) % \(books), CASE WHEN i % 9 = 0 THEN NULL ELSE 1 + i % 5 END,
                     CASE WHEN i % 3 = 0 THEN NULL ELSE 'note ' || i END FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
            INSERT INTO tag(name, n) SELECT 'tag ' || i, i FROM n;
            """
        )
    }

    /// ALTER TABLE DROP COLUMN: SQLite 3.35.5 and later (earlier ones corrupt or refuse).
    static var hasDropColumn: Bool { SQLiteVersion.runtime >= SQLiteVersion(3, 35, 5) }

    /// The upgrade: add, drop (where SQLite can), rebuild, data step.
    static var upgrade: [(String, String)] {
        var steps: [(String, String)] = [
            (
                "0003_add",
                """
                ALTER TABLE book ADD COLUMN rating INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE shelf(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                """
            )
        ]
        // Before 3.35.5 the fourth step only adds an index (the folder's numbering has no gaps).
        steps.append(
            hasDropColumn
                ? ("0004_drop", "ALTER TABLE author DROP COLUMN legacy;")
                : ("0004_index", "CREATE INDEX author_name ON author(name);"))
        steps += [
            (
                "0005_rebuild",
                """
                CREATE TABLE review_new(
                  id INTEGER PRIMARY KEY, book_id INTEGER REFERENCES book(id),
                  stars INTEGER NOT NULL DEFAULT 3 CHECK (stars BETWEEN 0 AND 5), note TEXT NOT NULL DEFAULT '');
                INSERT INTO review_new(id, book_id, stars, note) SELECT id, book_id, coalesce(stars, 3), coalesce(note, '') FROM review;
                DROP TRIGGER review_audit;
                DROP TABLE review;
                ALTER TABLE review_new RENAME TO review;
                CREATE INDEX review_book ON review(book_id);
                CREATE TRIGGER review_audit AFTER INSERT ON review BEGIN INSERT INTO audit VALUES (new.id); END;
                """
            ),
            // The data step leaves the new column at its default: a restore that carries rows
            // back refuses a table whose new column holds other values (they would be lost).
            (
                "0006_data",
                """
                UPDATE book SET title = upper(title) WHERE id % 2 = 0;
                DELETE FROM tag WHERE n % 3 = 0;
                UPDATE author SET name = name || ' (checked)';
                """
            ),
        ]
        return steps
    }

    /// What the app writes on the upgraded schema that fits the older one (carried back by a
    /// restore): a new author (its dropped column comes back as the default), edited titles with
    /// the new column at its default, a review, a tag removed.
    static let writesAfterUpgrade = """
        INSERT INTO author(id, name) VALUES (100001, 'written after the upgrade');
        UPDATE book SET title = 'edited ' || id, rating = 0 WHERE id % 97 = 0;
        INSERT INTO review(id, book_id, stars, note) VALUES (900001, 1, 4, 'after the upgrade');
        DELETE FROM tag WHERE name = 'tag 1';
        """

    /// Writes `steps` as a migration folder `folder`.
    static func writeFolder(_ steps: [(String, String)], to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (identifier, sql) in steps {
            try Data(sql.utf8).write(to: URL(fileURLWithPath: folder + "/" + identifier + ".sql"))
        }
    }

    /// The restore folder of the database at `path`.
    static func restoreFolder(_ path: String) -> String { path + "-strata-upgrade" }

    /// Copies a closed database, its journal files and its restore folder to `destination`
    /// (removing what was there).
    static func copyDatabase(_ source: String, to destination: String) throws {
        removeDatabase(destination)
        for suffix in ["", "-journal", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source + suffix) {
            try FileManager.default.copyItem(atPath: source + suffix, toPath: destination + suffix)
        }
        if FileManager.default.fileExists(atPath: restoreFolder(source)) {
            try FileManager.default.copyItem(atPath: restoreFolder(source), toPath: restoreFolder(destination))
        }
    }

    static func removeDatabase(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm", "-strata-upgrade"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    static func state(of path: String) throws -> DatabaseState {
        let db = try Database(path: path)
        defer { db.close() }
        return try DatabaseState(db)
    }

    /// Runs `StrataTestHelper airbag PATH FOLDER ACTION ...` to completion.
    static func airbag(
        _ path: String, _ folder: String, _ action: String, _ extra: [String] = [],
        environment: [String: String] = [:]
    ) throws -> ChildProcess.Result {
        try ChildProcess.run("StrataTestHelper", ["airbag", path, folder, action] + extra, environment: environment)
    }

    /// What is wrong with the restore folder of `db` (empty when nothing): its state file must be
    /// readable, and every restore point it lists whole and valid by the library's own check
    /// (size, checksum, `quick_check`, the digests of its record), and hold `expected` (the state
    /// before the upgrade) by an independent comparison of every row.
    static func restoreFolderProblems(_ db: Database, expected: DatabaseState) -> [String] {
        let status: UpgradeStatus
        do {
            status = try UpgradeStatus(forDatabaseAt: db.path)
        } catch {
            return ["upgrade.json unreadable: \(error)"]
        }
        var problems: [String] = []
        let store = UpgradeStore(databasePath: db.path)
        for point in status.restorePoints {
            do {
                let copy = try store.openRestorePoint(point, for: db)
                defer { copy.close() }
                if try copy.fetchColumn(String.self, sql: "PRAGMA integrity_check") != ["ok"] {
                    problems.append("restore point \(point.id): integrity_check failed")
                }
                let held = try DatabaseState(copy)
                if held != expected {
                    problems.append(
                        "restore point \(point.id) is not the state before the upgrade: \(held.differences(from: expected))"
                    )
                }
            } catch {
                problems.append("restore point \(point.id) is listed but not whole and valid: \(error)")
            }
        }
        return problems
    }

    /// The files of the restore folder that are neither the state file, the lock, nor a listed
    /// restore point (a restore point whose writing was interrupted: removed by the next upgrade).
    static func unlistedFiles(_ path: String) throws -> [String] {
        let listed = Set(try RestorePoint.all(forDatabaseAt: path).map { $0.id + ".sqlite" })
        return filesIn(restoreFolder(path)).filter { $0 != "upgrade.json" && $0 != "lock" && !listed.contains($0) }
    }
}
