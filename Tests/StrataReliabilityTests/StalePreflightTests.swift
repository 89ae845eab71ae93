import Foundation
import Strata
import StrataTestSupport
import Testing

/// Rows committed by another connection between planning and applying: every data condition the
/// preflight checked when planning is checked again inside the applying transaction.
@Suite("Preflight checked again when applying")
struct StalePreflightTests {
    struct RaceCase: CustomStringConvertible, Sendable {
        var name: String
        var live: String
        var desired: String
        /// Committed by the other connection after the plan was made.
        var interloper: String
        /// nil: the apply must succeed; otherwise the error must say this.
        var expectedError: String?
        var description: String { name }
    }

    static let cases: [RaceCase] = [
        RaceCase(
            name: "a NULL in a column that becomes the INTEGER PRIMARY KEY",
            live: "CREATE TABLE item(id INTEGER, name TEXT); INSERT INTO item VALUES (1, 'a');",
            desired: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);",
            interloper: "INSERT INTO item VALUES (NULL, 'b')",
            expectedError: "table item: column id becomes the INTEGER PRIMARY KEY but rows hold NULL (1 row), "
                + "found inside the applying transaction"),
        RaceCase(
            name: "a NULL in a column that becomes NOT NULL without a default",
            live: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item VALUES (1, 'a');",
            desired: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL);",
            interloper: "INSERT INTO item VALUES (2, NULL), (3, NULL)",
            expectedError: "table item: column name becomes NOT NULL but rows hold NULL and it has no DEFAULT (2 rows)"),
        RaceCase(
            name: "a first row in a table that gains a NOT NULL column without a default",
            live: "CREATE TABLE item(id INTEGER PRIMARY KEY);",
            desired: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL);",
            interloper: "INSERT INTO item VALUES (7)",
            expectedError: "table item: cannot add column name NOT NULL without a DEFAULT to a table with rows (1 row)"),
        RaceCase(
            name: "a NULL in a column that becomes NOT NULL with a default is backfilled",
            live: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item VALUES (1, 'a');",
            desired: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT 'unnamed');",
            interloper: "INSERT INTO item VALUES (2, NULL)",
            expectedError: nil),
        RaceCase(
            name: "a first row in a table that gains a column with an expression default",
            live: "CREATE TABLE item(id INTEGER PRIMARY KEY);",
            desired: "CREATE TABLE item(id INTEGER PRIMARY KEY, created TEXT DEFAULT (datetime('now')));",
            interloper: "INSERT INTO item VALUES (1)",
            expectedError: nil),
    ]

    @Test(arguments: cases)
    func dataChangedAfterPlanning(_ c: RaceCase) throws {
        let dir = TemporaryDirectory("strata-stale")
        let path = dir.file("app.sqlite")
        let db = try Database(path: path)
        defer { db.close() }
        try db.execute(sql: c.live)
        let plan = try db.planSchemaChange(to: c.desired)
        #expect(!plan.isEmpty)

        let other = try Database(path: path)
        try other.execute(sql: c.interloper)
        other.close()

        let before = try DatabaseContents(db)
        let rowsBefore = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item") ?? -1
        if let expected = c.expectedError {
            let error = try #require(throws: SchemaError.self, "\(c)") { try db.applySchemaChange(plan) }
            #expect(error.code == .preflightFailed, "\(c): \(error)")
            #expect(error.message.contains(expected), "\(c): \(error.message)")
            #expect(error.message.contains("database is unchanged"), "\(c): \(error.message)")
            #expect(try DatabaseContents(db) == before, "\(c)")
        } else {
            try db.applySchemaChange(plan)
            #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item") == rowsBefore, "\(c)")
            #expect(try db.planSchemaChange(to: c.desired).isEmpty, "\(c)")
            #expect(
                try db.fetchValue(
                    Int.self,
                    sql: "SELECT count(*) FROM item WHERE \(c.desired.contains("name") ? "name" : "created") IS NULL")
                    == 0, "\(c)")
        }
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(
            try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_temp_master") == 0, "guard table left behind")
    }

    /// The copy's row-count guard: a plan whose copy would skip rows (here edited by hand to
    /// `INSERT OR IGNORE`) fails before the old table is dropped.
    @Test func copyThatLosesRowsIsRolledBack() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql:
                "CREATE TABLE account(id INTEGER PRIMARY KEY, email TEXT); INSERT INTO account VALUES (1, 'a'), (2, 'a');"
        )
        var plan = try db.planSchemaChange(to: "CREATE TABLE account(id INTEGER PRIMARY KEY, email TEXT UNIQUE);")
        let i = try #require(plan.steps.firstIndex { $0.kind == .rebuildTable })
        plan.steps[i].statements = plan.steps[i].statements.map {
            $0.replacingOccurrences(of: "INSERT OR ABORT INTO", with: "INSERT OR IGNORE INTO")
        }
        let before = try DatabaseContents(db)
        let error = try #require(throws: SchemaError.self) { try db.applySchemaChange(plan) }
        #expect(
            error.message.hasPrefix("table account: the rebuilt table would hold fewer rows than the original"),
            "\(error)")
        #expect(try DatabaseContents(db) == before)
    }

    /// The planned SQL of a rebuild: guards first, the copy as `INSERT OR ABORT`, the count guard
    /// before the old table is dropped, and no guard table when no condition applies.
    @Test func rebuildStatementsCarryTheirGuards() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE item(id INTEGER, name TEXT);")
        let plan = try db.planSchemaChange(to: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL);")
        let step = try #require(plan.steps.first { $0.kind == .rebuildTable })
        let s = step.statements
        // Checked before indexing: a plan with fewer statements fails this test, not the run.
        try #require(s.count >= 9, "\(s)")
        #expect(
            s[0].hasPrefix(
                #"CREATE TEMP TABLE "strata_guard" ("c1" INTEGER CONSTRAINT "table item: column id becomes the INTEGER PRIMARY KEY but rows hold NULL" CHECK ("c1"), "c2" INTEGER CONSTRAINT "table item: column name becomes NOT NULL"#
            ), "\(s)")
        #expect(
            s[1]
                == #"INSERT INTO temp."strata_guard" SELECT NOT EXISTS (SELECT 1 FROM main."item" WHERE "id" IS NULL), NOT EXISTS (SELECT 1 FROM main."item" WHERE "name" IS NULL)"#,
            "\(s)")
        #expect(s[2] == #"DROP TABLE temp."strata_guard""#)
        #expect(s[3].hasPrefix(#"CREATE TABLE "strata_tmp_"#))
        #expect(s[4].hasPrefix(#"INSERT OR ABORT INTO "strata_tmp_"#))
        #expect(
            s[6].contains(#"(SELECT count(*) FROM main."strata_tmp_"#)
                && s[6].hasSuffix(#" = (SELECT count(*) FROM main."item")"#), "\(s)")
        #expect(s[8] == #"DROP TABLE "item""#)
    }
}
