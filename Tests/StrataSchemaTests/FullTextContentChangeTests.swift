import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// A change of a table that an FTS table over external content indexes (issue 24, item 1): the
/// index keys rows by the content's rowid (or FTS5's `content_rowid` column), so a rebuild that
/// gives rows new rowids must index the FTS table again in the same transaction, or the change is
/// refused naming both tables. Generated: content-table shapes x FTS links x changes x names.
@Suite("Full-text indexes over a changed content table")
struct FullTextContentChangeTests {
    /// A content table's shape. `key` is the integer column every shape has (`id`, or `key`
    /// after a column rename).
    enum Shape: String, CaseIterable, Sendable {
        /// `(id INTEGER, body TEXT)`: rowids unrelated to `id`.
        case plainRowID
        /// `(id INTEGER PRIMARY KEY, body TEXT)`: the rowid is `id`.
        case integerPrimaryKey
        /// `(id INTEGER PRIMARY KEY, body TEXT) WITHOUT ROWID`.
        case withoutRowID
        /// `(code TEXT PRIMARY KEY, id INTEGER UNIQUE, body TEXT)`: a rowid table whose primary key is not the rowid.
        case textPrimaryKey

        func sql(_ table: String, key: String = "id", extra: String = "", renamedFrom: String? = nil) -> String {
            let q = SQL.quoteIdentifier
            let hint = renamedFrom.map { " -- @renamed from=\(q($0))\n" } ?? "\n"
            let keyHint = key == "id" ? "" : " -- @renamed from=\"id\""
            let columns: String
            switch self {
            case .plainRowID: columns = "  \(q(key)) INTEGER,\(keyHint)\n  body TEXT"
            case .integerPrimaryKey, .withoutRowID: columns = "  \(q(key)) INTEGER PRIMARY KEY,\(keyHint)\n  body TEXT"
            case .textPrimaryKey:
                columns = "  code TEXT PRIMARY KEY,\n  \(q(key)) INTEGER UNIQUE,\(keyHint)\n  body TEXT"
            }
            return
                "CREATE TABLE \(q(table)) (\(hint)\(columns)\(extra)\n)\(self == .withoutRowID ? " WITHOUT ROWID" : "");"
        }
    }

    /// How the FTS table reads its content.
    enum Link: String, CaseIterable, Sendable {
        /// FTS5 keyed by the content's rowid (`content_rowid` left out).
        case fts5RowID
        /// FTS5 keyed by the `id` column (`content_rowid=id`).
        case fts5KeyColumn
        /// FTS4 (always keyed by the rowid).
        case fts4
        /// FTS3: no external content (it holds its own copy of the text); must stay as it is.
        case fts3

        func sql(_ fts: String, content: String, key: String = "id") -> String {
            let q = SQL.quoteIdentifier
            switch self {
            case .fts5RowID: return "CREATE VIRTUAL TABLE \(q(fts)) USING fts5(body, content=\(q(content)));"
            case .fts5KeyColumn:
                return
                    "CREATE VIRTUAL TABLE \(q(fts)) USING fts5(body, content=\(q(content)), content_rowid=\(q(key)));"
            case .fts4: return "CREATE VIRTUAL TABLE \(q(fts)) USING fts4(body, content=\(q(content)));"
            case .fts3: return "CREATE VIRTUAL TABLE \(q(fts)) USING fts3(body);"
            }
        }

        var module: String {
            switch self {
            case .fts5RowID, .fts5KeyColumn: "fts5"
            case .fts4, .fts3: self == .fts4 ? "fts4" : "fts3"
            }
        }

        var hasExternalContent: Bool { self != .fts3 }

        func fits(_ shape: Shape) -> Bool {
            // Keyed by the rowid, an FTS table needs a content table that has one.
            !(shape == .withoutRowID && (self == .fts5RowID || self == .fts4))
        }
    }

    /// What the desired schema does to the content table.
    enum Change: Sendable, CustomStringConvertible {
        /// The table takes another shape (a rebuild, except for shapes SQLite can reach natively).
        case reshape(Shape)
        /// `ADD COLUMN note TEXT` (native).
        case addColumn
        /// A new table CHECK constraint (a rebuild before SQLite 3.53).
        case addCheck
        /// Any change with native ALTER TABLE off: a rebuild that keeps the rowids.
        case forcedRebuild
        /// The table is renamed; with `followed`, the FTS table's `content` names the new name.
        case renameTable(followed: Bool)
        /// Column `id` becomes `key`; with `followed`, the FTS table's `content_rowid` too.
        case renameKey(followed: Bool)

        var description: String {
            switch self {
            case .reshape(let s): "reshape to \(s)"
            case .addColumn: "add column"
            case .addCheck: "add check"
            case .forcedRebuild: "forced rebuild"
            case .renameTable(let f): "rename table\(f ? " (FTS follows)" : "")"
            case .renameKey(let f): "rename key column\(f ? " (FTS follows)" : "")"
            }
        }

        static let all: [Change] =
            Shape.allCases.map { .reshape($0) } + [
                .addColumn, .addCheck, .forcedRebuild, .renameTable(followed: false), .renameTable(followed: true),
                .renameKey(followed: false), .renameKey(followed: true),
            ]
    }

    struct Case: Sendable, CustomStringConvertible {
        var shape: Shape
        var link: Link
        var change: Change
        var hostileNames: Bool

        var content: String { hostileNames ? "my \"doc\" table" : "doc" }
        var fts: String { hostileNames ? "doc's fts; select" : "doc_fts" }
        var renamedContent: String { hostileNames ? "the \"documents\"" : "documents" }

        var description: String {
            "\(shape) + \(link) + \(change)\(hostileNames ? " (hostile names)" : "")"
        }

        var liveSQL: String { shape.sql(content) + "\n" + link.sql(fts, content: content) }

        var desiredSQL: String {
            switch change {
            case .reshape(let s): return s.sql(content) + "\n" + link.sql(fts, content: content)
            case .addColumn: return shape.sql(content, extra: ",\n  note TEXT") + "\n" + link.sql(fts, content: content)
            case .addCheck:
                return shape.sql(content, extra: ",\n  CHECK (length(body) < 1000)") + "\n"
                    + link.sql(fts, content: content)
            case .forcedRebuild:
                return shape.sql(content, extra: ",\n  note TEXT") + "\n" + link.sql(fts, content: content)
            case .renameTable(let followed):
                return shape.sql(renamedContent, renamedFrom: content) + "\n"
                    + link.sql(fts, content: followed ? renamedContent : content)
            case .renameKey(let followed):
                return shape.sql(content, key: "key") + "\n"
                    + link.sql(fts, content: content, key: followed ? "key" : "id")
            }
        }

        var options: SchemaChangeOptions {
            // Destructive changes allowed: a reshape may drop a column (`code`), which is not what
            // these cases are about.
            if case .forcedRebuild = change {
                return SchemaChangeOptions(allowDestructive: true, useNativeAlter: false)
            }
            return SchemaChangeOptions(allowDestructive: true)
        }

        /// The content table's name after the change.
        var finalContent: String {
            if case .renameTable = change { return renamedContent }
            return content
        }
    }

    /// Every combination the linked SQLite can build (FTS3/4/5 where compiled in).
    static let cases: [Case] = {
        var cases = [Case]()
        for shape in Shape.allCases {
            for link in Link.allCases where link.fits(shape) && available(link.module) {
                for change in Change.all {
                    if case .reshape(let s) = change, s == shape { continue }
                    for hostile in [false, true] {
                        cases.append(Case(shape: shape, link: link, change: change, hostileNames: hostile))
                    }
                }
            }
        }
        return cases
    }()

    static func available(_ module: String) -> Bool {
        guard let db = try? Database(inMemory: Configuration()) else { return false }
        return (try? db.execute(sql: "CREATE VIRTUAL TABLE probe USING \(module)(x)")) != nil
    }

    /// Rows whose rowids differ from their ids (and have gaps), one word per row (`w0`, `w1`...)
    /// plus shared words, a NULL body.
    static func insertRows(_ db: Database, _ c: Case) throws {
        let q = SQL.quoteIdentifier
        let table = q(c.content)
        for i in 0..<24 {
            let id = 1000 + (i * 37) % 101
            let body: SQLValue = i == 5 ? .null : .text("w\(i) common \(i % 2 == 0 ? "even" : "odd")")
            switch c.shape {
            case .textPrimaryKey:
                try db.execute(
                    sql: "INSERT INTO \(table)(code, id, body) VALUES (?, ?, ?)", arguments: ["c\(23 - i)", id, body])
            default:
                try db.execute(sql: "INSERT INTO \(table)(id, body) VALUES (?, ?)", arguments: [id, body])
            }
        }
        if c.shape != .withoutRowID {
            try db.execute(sql: "DELETE FROM \(table) WHERE body LIKE 'w3 %' OR body LIKE 'w11 %'")
        }
        let fts = q(c.fts)
        if c.link.hasExternalContent {
            try db.execute(sql: "INSERT INTO \(fts)(\(fts)) VALUES ('rebuild')")
        } else {
            try db.execute(sql: "INSERT INTO \(fts)(docid, body) SELECT id, body FROM \(table)")
        }
    }

    /// For each word, the bodies `MATCH` returns (as the FTS table reads them from its content).
    static func matches(_ db: Database, _ c: Case) throws -> [String: [String]] {
        let fts = SQL.quoteIdentifier(c.fts)
        var result = [String: [String]]()
        for word in (0..<24).map({ "w\($0)" }) + ["common", "even", "odd"] {
            let bodies: [String?] = try db.fetchColumn(
                sql: "SELECT body FROM \(fts) WHERE \(fts) MATCH ?", arguments: [word])
            result[word] = bodies.map { $0 ?? "NULL" }.sorted()
        }
        return result
    }

    static func integrityCheck(_ db: Database, _ c: Case) throws {
        let fts = SQL.quoteIdentifier(c.fts)
        if c.link.module == "fts5" {
            try db.execute(sql: "INSERT INTO \(fts)(\(fts), rank) VALUES ('integrity-check', 1)")
        } else {
            try db.execute(sql: "INSERT INTO \(fts)(\(fts)) VALUES ('integrity-check')")
        }
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    /// Whether the desired schema, made from scratch over the same rows, can index them: the
    /// oracle for "refused" (the desired FTS table cannot read its desired content).
    static func desiredSchemaCanIndex(_ c: Case) throws -> Bool {
        guard c.link.hasExternalContent else { return true }
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: c.desiredSQL)
        let fts = SQL.quoteIdentifier(c.fts)
        return (try? db.execute(sql: "INSERT INTO \(fts)(\(fts)) VALUES ('rebuild')")) != nil
    }

    @Test(arguments: cases)
    func matchesStayTheSameOrTheChangeIsRefused(_ c: Case) throws {
        let dir = TemporaryDirectory("fts-content")
        let path = dir.file("db.sqlite")
        let before: [String: [String]]
        do {
            let db = try Database(path: path)
            try db.execute(sql: c.liveSQL)
            try Self.insertRows(db, c)
            try Self.integrityCheck(db, c)
            before = try Self.matches(db, c)
            db.close()
        }
        // Sanity: every word of a row is found in that row.
        #expect(before["w0"] == ["w0 common even"], "\(c)")

        let bytes = fileBytes(path)
        let db = try Database(path: path)
        defer { db.close() }
        let expectRefusal = try !Self.desiredSchemaCanIndex(c)
        do {
            try db.migrateSchema(to: c.desiredSQL, options: c.options)
        } catch let error as SchemaError {
            #expect(expectRefusal, "\(c): refused unexpectedly: \(error.message)")
            #expect(error.message.contains(c.fts) && error.message.contains(c.finalContent), "\(c): \(error.message)")
            db.close()
            #expect(fileBytes(path) == bytes, "\(c): the file changed")
            return
        }
        #expect(!expectRefusal, "\(c): applied, though the desired FTS table cannot read its content")
        #expect(try DatabaseSchema.read(from: db).differences(from: DatabaseSchema(sql: c.desiredSQL)) == [], "\(c)")
        #expect(try Self.matches(db, c) == before, "\(c)")
        try Self.integrityCheck(db, c)
    }

    /// The case of the report, step by step: `id` becomes the INTEGER PRIMARY KEY, so every row's
    /// rowid becomes its id; the plan indexes the FTS table again, in the same transaction.
    @Test func theReportedCasePlansAnIndexRebuild() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE doc(id INTEGER, body);
                CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc', content_rowid='rowid');
                INSERT INTO doc VALUES (20, 'apple'), (10, 'banana');
                INSERT INTO doc_fts(doc_fts) VALUES ('rebuild');
                """)
        let plan = try db.planSchemaChange(
            to: """
                CREATE TABLE doc(id INTEGER PRIMARY KEY, body);
                CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc', content_rowid='rowid');
                """)
        #expect(plan.steps.map(\.kind) == [.rebuildTable, .rebuildFullTextIndex])
        #expect(plan.steps.last?.statements == [#"INSERT INTO "doc_fts"("doc_fts") VALUES ('rebuild')"#])
        #expect(plan.sqlScript().contains(#"INSERT INTO "doc_fts"("doc_fts") VALUES ('rebuild')"#))
        try db.applySchemaChange(plan)
        #expect(try db.fetchColumn(sql: "SELECT body FROM doc_fts WHERE doc_fts MATCH 'apple'") == ["apple"])
        try db.execute(sql: "INSERT INTO doc_fts(doc_fts, rank) VALUES ('integrity-check', 1)")
    }

    /// The apply's own check: a plan whose FTS rebuild step is left out (a planted planner fault)
    /// passes the proof on the empty copy, and the integrity check inside the applying transaction
    /// fails it, naming the FTS table; nothing changes.
    @Test func theApplyChecksTheIndexAndRollsBack() throws {
        let dir = TemporaryDirectory("fts-check")
        let path = dir.file("db.sqlite")
        do {
            let db = try Database(path: path)
            try db.execute(
                sql: """
                    CREATE TABLE doc(id INTEGER, body);
                    CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc');
                    INSERT INTO doc VALUES (20, 'apple'), (10, 'banana');
                    INSERT INTO doc_fts(doc_fts) VALUES ('rebuild');
                    """)
            db.close()
        }
        let bytes = fileBytes(path)
        let db = try Database(path: path)
        defer { db.close() }
        let plan = try PlannerFaults.$dropsStep.withValue({ $0.kind == .rebuildFullTextIndex }) {
            try db.planSchemaChange(
                to: """
                    CREATE TABLE doc(id INTEGER PRIMARY KEY, body);
                    CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc');
                    """)
        }
        #expect(plan.steps.map(\.kind) == [.rebuildTable])
        let error = try #require(throws: SchemaError.self) { try db.applySchemaChange(plan) }
        #expect(error.code == .applyFailed)
        #expect(error.culprit == "doc_fts")
        #expect(error.message.hasPrefix("full-text table doc_fts:"), "\(error.message)")
        #expect(error.message.contains("content table doc"), "\(error.message)")
        db.close()
        #expect(fileBytes(path) == bytes)
    }

    /// An FTS table whose content is a view over the rebuilt table: the view's key column is the
    /// table's rowid, which the rebuild changes; the FTS table is indexed again after the view is
    /// recreated.
    @Test func aContentViewOverARebuiltTableIsIndexedAgain() throws {
        let view = """
            CREATE VIEW doc_text AS SELECT rowid AS k, body FROM doc;
            CREATE VIRTUAL TABLE doc_fts USING fts5(body, content=doc_text, content_rowid=k);
            """
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE doc(id INTEGER, body);\n" + view)
        try db.execute(sql: "INSERT INTO doc VALUES (20, 'apple'), (10, 'banana')")
        try db.execute(sql: "INSERT INTO doc_fts(doc_fts) VALUES ('rebuild')")
        let plan = try db.planSchemaChange(to: "CREATE TABLE doc(id INTEGER PRIMARY KEY, body);\n" + view)
        #expect(plan.steps.last?.kind == .rebuildFullTextIndex, "\(plan.summary)")
        try db.applySchemaChange(plan)
        #expect(try db.fetchColumn(sql: "SELECT body FROM doc_fts WHERE doc_fts MATCH 'apple'") == ["apple"])
        #expect(try db.fetchColumn(sql: "SELECT rowid FROM doc_fts WHERE doc_fts MATCH 'apple'") == [20])
        try db.execute(sql: "INSERT INTO doc_fts(doc_fts, rank) VALUES ('integrity-check', 1)")
    }

    /// A content table that becomes WITHOUT ROWID under an FTS table keyed by its rowid: refused
    /// at planning, naming both tables and what is missing.
    @Test func aContentTableThatLosesItsRowIDIsRefused() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE doc(id INTEGER PRIMARY KEY, body);
                CREATE VIRTUAL TABLE doc_fts USING fts5(body, content=doc);
                """)
        let error = try #require(throws: SchemaError.self) {
            try db.planSchemaChange(
                to: """
                    CREATE TABLE doc(id INTEGER PRIMARY KEY, body) WITHOUT ROWID;
                    CREATE VIRTUAL TABLE doc_fts USING fts5(body, content=doc);
                    """)
        }
        #expect(error.code == .unsupported)
        #expect(error.culprit == "doc_fts")
        #expect(error.message.contains("full-text table doc_fts: its content table doc"), "\(error.message)")
        #expect(error.message.contains("rowid"), "\(error.message)")
    }
}
