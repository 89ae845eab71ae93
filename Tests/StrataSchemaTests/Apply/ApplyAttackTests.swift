import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// Applies that fail part-way or inside the caller's transaction: everything rolls back, the error
/// names its culprit (a hostile name), and nothing changed.
@Suite("Engine attacks: applying a plan", .tags(.attack))
struct ApplyAttackTests: EngineAttackSuite {
    let dir = TemporaryDirectory("strata-engine-attacks")

    /// A failing apply (the rows break a new UNIQUE) in a table with a hostile name leaves the
    /// database as it was and names the table.
    @Test func failedApplyLeavesHostileTableUnchanged() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: #"""
                CREATE TABLE "t""; DROP TABLE x; --"(id INTEGER PRIMARY KEY, v TEXT);
                CREATE TABLE x(a);
                INSERT INTO "t""; DROP TABLE x; --" VALUES (1, 'dup'), (2, 'dup');
                INSERT INTO x VALUES (1);
                """#)
        let before = try DatabaseContents(db)
        let plan = try db.planSchemaChange(
            to: #"CREATE TABLE "t""; DROP TABLE x; --"(id INTEGER PRIMARY KEY, v TEXT UNIQUE); CREATE TABLE x(a);"#)
        let error = try #require(throws: SchemaError.self) { try db.applySchemaChange(plan) }
        #expect(error.code == .applyFailed)
        #expect(error.culprit == #"t"; DROP TABLE x; --"#)
        #expect(try DatabaseContents(db) == before)
    }

    /// A later step fails after earlier ones ran (a rename, a new table, then a rebuild whose rows
    /// break a new UNIQUE): all of it is rolled back.
    @Test func aFailureAfterEarlierStepsRollsBackEverything() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: """
                CREATE TABLE a(id INTEGER PRIMARY KEY, x TEXT);
                CREATE TABLE "z z"(id INTEGER PRIMARY KEY, v TEXT);
                CREATE VIEW va AS SELECT x FROM a;
                INSERT INTO a VALUES (1, 'one');
                INSERT INTO "z z" VALUES (1, 'dup'), (2, 'dup');
                """)
        let error = try refusal(
            db,
            to: """
                CREATE TABLE "a 2"(id INTEGER PRIMARY KEY, "x 2" TEXT); -- @renamed from=x
                CREATE TABLE b(id INTEGER PRIMARY KEY);
                CREATE TABLE "z z"(id INTEGER PRIMARY KEY, v TEXT UNIQUE);
                CREATE VIEW va AS SELECT "x 2" FROM "a 2";
                """,
            options: SchemaChangeOptions(renames: [.table("a", to: "a 2")]))
        #expect(error.code == .applyFailed, "\(error)")
        #expect(error.culprit == "z z", "\(error)")
    }

    /// Inside the caller's transaction with foreign keys on, a rebuild of a referenced table is
    /// refused (an ON DELETE CASCADE would fire), naming a child, and nothing changed.
    @Test func rebuildingAParentInsideATransactionWithForeignKeysOn() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: """
                PRAGMA foreign_keys = ON;
                CREATE TABLE "pa rent"(id INTEGER PRIMARY KEY, v TEXT);
                CREATE TABLE "chi: ld"(id INTEGER PRIMARY KEY, p INTEGER REFERENCES "pa rent"(id) ON DELETE CASCADE);
                INSERT INTO "pa rent" VALUES (1, 'a'); INSERT INTO "chi: ld" VALUES (1, 1);
                """)
        let before = try DatabaseContents(db)
        let plan = try db.planSchemaChange(
            to: """
                CREATE TABLE "pa rent"(id INTEGER PRIMARY KEY, v TEXT NOT NULL DEFAULT '' CHECK (v <> 'zz'));
                CREATE TABLE "chi: ld"(id INTEGER PRIMARY KEY, p INTEGER REFERENCES "pa rent"(id) ON DELETE CASCADE);
                """)
        let error = try #require(throws: SchemaError.self) {
            try db.transaction { try db.applySchemaChange(plan) }
        }
        #expect(error.code == .unsupported)
        #expect(error.culprit == "chi: ld", "\(error)")
        #expect(try DatabaseContents(db) == before)
    }
}
