import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata squash` then `strata verify` of a history that leaves rows in every kind of table
/// (issue 37 item 4: a WITHOUT ROWID table of two columns made the baseline's row dump fail with
/// SQLite's raw error; virtual tables with rows were refused). A database made from the baseline
/// holds every row a database made from the original files holds.
@Suite("Squash of every kind of table")
struct SquashTableKindsCommandTests {
    /// Tables of every kind, and triggers that must not fire again on the baseline's rows.
    static let tables = #"""
        CREATE TABLE plain(id INTEGER PRIMARY KEY, label TEXT, data BLOB, score REAL);
        CREATE TABLE loose(a TEXT, b INTEGER);
        CREATE TABLE single(k TEXT PRIMARY KEY) WITHOUT ROWID;
        CREATE TABLE pair(k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID;
        CREATE TABLE composite(a INTEGER, b TEXT, c BLOB, PRIMARY KEY (b, a)) WITHOUT ROWID;
        CREATE TABLE typed(id INTEGER PRIMARY KEY, n INTEGER, r REAL, t TEXT, b BLOB, x ANY) STRICT;
        CREATE TABLE strict_pair(k INTEGER PRIMARY KEY, v TEXT NOT NULL) STRICT, WITHOUT ROWID;
        CREATE TABLE computed(a INTEGER, twice INTEGER GENERATED ALWAYS AS (a * 2) VIRTUAL,
                              tag TEXT GENERATED ALWAYS AS ('#' || a) STORED);
        CREATE TABLE "it's a ""table"" é"("col ""one""" TEXT, "ünï cödé" INTEGER, "sp ace" BLOB,
                                          PRIMARY KEY ("col ""one""", "ünï cödé")) WITHOUT ROWID;
        CREATE TABLE counter(id INTEGER PRIMARY KEY AUTOINCREMENT, x TEXT);
        CREATE TABLE audit(n INTEGER);
        CREATE TRIGGER plain_audit AFTER INSERT ON plain BEGIN INSERT INTO audit VALUES (new.id); END;
        CREATE VIRTUAL TABLE docs USING fts5(title, body);
        CREATE TABLE article(id INTEGER PRIMARY KEY, body TEXT);
        CREATE VIRTUAL TABLE article_fts USING fts5(body, content='article', content_rowid='id');
        CREATE TRIGGER article_ai AFTER INSERT ON article BEGIN
            INSERT INTO article_fts(rowid, body) VALUES (new.id, new.body);
        END;
        CREATE VIRTUAL TABLE old_docs USING fts4(body);
        CREATE VIRTUAL TABLE box USING rtree(id, minX, maxX);
        """#

    /// Rows with the values a dump gets wrong: quotes, NUL characters, empty strings and blobs,
    /// NULLs, infinities, reals that need 17 digits, the extreme integers, text that is not
    /// UTF-8, a line that looks like a baseline header, and large values.
    static let rows = #"""
        INSERT INTO plain(id, label, data, score) VALUES
            (1, 'it''s', X'00FF10', 0.1 + 0.2), (2, '', X'', 9e999), (3, NULL, NULL, -9e999),
            (5, 'a' || char(0) || 'b', zeroblob(3), 1e-300),
            (9, '-- strata:baseline' || char(10) || '-- covers: x' || char(10) || 'x;', NULL, -0.5),
            (100, replace(hex(zeroblob(100000)), '00', 'é'), zeroblob(300000), 1.0);
        INSERT INTO loose(rowid, a, b) VALUES (3, 'x', 1), (10, 'y', NULL), (11, CAST(X'FF00FE' AS TEXT), -9223372036854775808);
        INSERT INTO single VALUES ('x'), ('y'), ('');
        INSERT INTO pair VALUES ('a', 'one'), ('b', NULL), ('', '');
        INSERT INTO composite VALUES (1, 'b', X'01'), (2, 'a', NULL), (1, 'a', X'');
        INSERT INTO typed VALUES (1, 9223372036854775807, 1.5, 'text', X'BEEF', 'any text'),
            (2, NULL, NULL, NULL, NULL, 3.25), (3, -1, 0.0, '', X'', X'00');
        INSERT INTO strict_pair VALUES (1, 'one'), (-5, '');
        INSERT INTO computed(a) VALUES (1), (NULL), (21);
        INSERT INTO "it's a ""table"" é" VALUES ('q"uote', 1, X'AA'), ('ünï', 2, NULL);
        INSERT INTO counter(x) VALUES ('a'), ('b'), ('c');
        DELETE FROM counter WHERE id = 3;
        INSERT INTO docs(rowid, title, body) VALUES (4, 'first', 'hello world'), (7, 'second', 'hello again');
        INSERT INTO article(id, body) VALUES (1, 'external content'), (2, 'also indexed');
        INSERT INTO old_docs(docid, body) VALUES (1, 'fourth edition'), (8, 'fifth');
        INSERT INTO box VALUES (1, 0.5, 2.25), (2, -1, 1);
        """#

    /// Changes after the first rows: a full-text row deleted and written again (the index then
    /// holds a deletion), an update, more audit rows through the trigger.
    static let changes = """
        DELETE FROM docs WHERE rowid = 4;
        INSERT INTO docs(rowid, title, body) VALUES (4, 'again', 'new text hello');
        UPDATE plain SET label = 'changed' WHERE id = 2;
        INSERT INTO plain(label) VALUES ('late');
        DELETE FROM loose WHERE rowid = 3;
        """

    /// The tables and their first rows in one migration (a version of the history holds rows
    /// the generator adds: a later migration inserting fixed keys would collide with them).
    static let files: [String: String] = [
        "0001_tables.sql": tables + "\n" + rows,
        "0002_changes.sql": changes,
        "0003_index.sql": "CREATE INDEX pair_v ON pair(v);",
        "0004_later.sql": "ALTER TABLE plain ADD COLUMN note TEXT;\nINSERT OR IGNORE INTO pair VALUES ('c', 'after');",
    ]

    /// Every row of every table of the database at `path` (rowids included, each value with its
    /// storage class and exact bytes or bits), the shadow tables whose rows do not depend on the
    /// index's layout (`_content`, `_docsize`, `_config`), the AUTOINCREMENT counters, and what
    /// full-text and R*Tree searches find. Read here, independently of the library's comparison.
    static func everyRow(_ path: String) throws -> [String: [String]] {
        let db = try Database(path: path)
        defer { db.close() }
        func render(_ value: SQLValue) -> String {
            switch value {
            case .null: "null"
            case .integer(let i): "integer \(i)"
            case .real(let d): "real \(d.bitPattern)"
            case .text(let s): "text \(Array(s.utf8))"
            case .blob(let b): "bytes \(b.map { String(format: "%02x", $0) }.joined())"
            }
        }
        func keys(_ sql: String) throws -> [String] {
            try db.fetchAll(sql: sql).map { $0.values.map(render).joined(separator: ", ") }.sorted()
        }
        var out: [String: [String]] = [:]
        for entry in try db.fetchAll(sql: "SELECT name, type, wr FROM pragma_table_list WHERE schema = 'main'") {
            let name: String = try entry.decode(named: "name")
            let type: String = try entry.decode(named: "type")
            let layout = ["_data", "_idx", "_segments", "_segdir", "_stat", "_node", "_rowid", "_parent"]
            if name.hasPrefix("sqlite_") || name.hasPrefix("strata_") { continue }
            if type == "shadow", layout.contains(where: { name.hasSuffix($0) }) { continue }
            let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let columns = try db.fetchColumn(
                String.self, sql: "SELECT name FROM pragma_table_xinfo(?) WHERE hidden <> 1", arguments: [name])
            var selection = columns.flatMap { column -> [String] in
                let c = "\"" + column.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                return [c, "typeof(\(c))"]
            }
            if try entry.decode(Int.self, named: "wr") == 0 { selection.insert("rowid", at: 0) }
            out[name] = try keys("SELECT \(selection.joined(separator: ", ")) FROM \(quoted)")
        }
        out["sqlite_sequence"] = try keys("SELECT name, seq FROM sqlite_sequence")
        out["search docs"] = try keys("SELECT rowid FROM docs WHERE docs MATCH 'hello'")
        out["search article_fts"] = try keys(
            "SELECT rowid FROM article_fts WHERE article_fts MATCH 'indexed OR content'")
        out["search old_docs"] = try keys("SELECT docid FROM old_docs WHERE old_docs MATCH 'fourth OR fifth'")
        out["search box"] = try keys("SELECT id FROM box WHERE minX >= 0")
        for table in ["docs", "article_fts"] {
            try db.execute(sql: "INSERT INTO \(table)(\(table), rank) VALUES ('integrity-check', 1)")
        }
        out["integrity"] = try keys("PRAGMA integrity_check")
        return out
    }

    @Test(.requiresSQLite(3, 37, "STRICT tables and PRAGMA table_list"))
    func everyKindOfTableSurvivesSquashThenVerifyWithTheSameRows() throws {
        let folder = try migrationFolder(Self.files)
        let originals = try migrationFolder(Self.files)
        let work = TemporaryDirectory("squash-kinds")
        let history = work.file("history")
        let recorded = try StrataProcess.run(["history", "--migrations", folder.path, "--out", history])
        #expect(recorded.exitCode == 0, "\(recorded)")

        let archive = work.file("archive")
        let squash = try StrataProcess.run([
            "squash", "--migrations", folder.path, "--through", "0003", "--archive", archive,
        ])
        #expect(squash.exitCode == 0, "\(squash)")
        #expect(squash.stdout.contains("0003_baseline.sql: replaces 3 migrations"), "\(squash.stdout)")
        let text = String(decoding: fileBytes(folder.file("0003_baseline.sql")), as: UTF8.self)
        #expect(text.contains("INSERT INTO \"pair\"(\"k\", \"v\") VALUES('', '');"), "two-column WITHOUT ROWID rows")
        #expect(
            text.contains("INSERT INTO \"docs\"(\"rowid\", \"title\", \"body\") VALUES(4, 'again', 'new text hello');"))
        #expect(text.contains("INSERT INTO \"article_fts\"(\"article_fts\") VALUES('rebuild');"))

        let verify = try StrataProcess.run([
            "verify", "--history", history, "--migrations", folder.path, "--rows", "2",
        ])
        #expect(verify.exitCode == 0, "\(verify.stdout)\n\(verify.stderr)")
        #expect(verify.stdout.split(separator: "\n").count == 4, "\(verify.stdout)")

        // A new install from the baseline and one from the original files: the same rows, before
        // and after the migration that follows.
        for target in ["0003", nil] {
            let suffix = target ?? "head"
            let fromBaseline = work.file("baseline-\(suffix).sqlite")
            let fromOriginals = work.file("originals-\(suffix).sqlite")
            for (db, migrations) in [(fromBaseline, folder.path), (fromOriginals, originals.path)] {
                var arguments = ["migrate", "--db", db, "--migrations", migrations]
                if let target { arguments += ["--to", migrations == folder.path ? "0003_baseline" : target] }
                let migrated = try StrataProcess.run(arguments)
                #expect(migrated.exitCode == 0, "\(db): \(migrated)")
            }
            let expected = try Self.everyRow(fromOriginals)
            let actual = try Self.everyRow(fromBaseline)
            #expect(expected["pair"]?.count == (target == nil ? 4 : 3), "\(expected["pair"] ?? [])")
            #expect(expected["audit"]?.count == 7, "the trigger's rows, once each")
            for table in Set(expected.keys).union(actual.keys).sorted() {
                #expect(actual[table] == expected[table], "\(suffix): table \(table)")
            }
        }
    }

    /// A contentless full-text table keeps no text to read back: a squash that would have to
    /// carry its rows is refused, naming it, and changes nothing.
    @Test func aContentlessFullTextTableWithRowsIsRefusedNamingIt() throws {
        let folder = try migrationFolder([
            "0001_create.sql": "CREATE VIRTUAL TABLE \"odd 'name'\" USING fts5(body, content='');",
            "0002_rows.sql": "INSERT INTO \"odd 'name'\"(rowid, body) VALUES (1, 'gone once written');",
        ])
        let before = SquashCommandTests.snapshot(folder.path)
        let squash = try StrataProcess.run(["squash", "--migrations", folder.path, "--through", "2"])
        #expect(squash.exitCode != 0)
        #expect(squash.stderr.contains("table odd 'name': a contentless full-text table with rows"), "\(squash.stderr)")
        #expect(!squash.stderr.contains("SQLITE_"), "no raw SQLite error: \(squash.stderr)")
        #expect(SquashCommandTests.snapshot(folder.path) == before)
    }
}
