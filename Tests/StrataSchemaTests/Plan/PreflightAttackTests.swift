import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// Changes the rows cannot take, refused before anything is written and naming their culprit:
/// new keys and constraints the rows break, a rowid that would hold NULLs or text, destructive
/// changes, and guards that fire when rows change between planning and applying.
@Suite("Engine attacks: the preflight and its guards", .tags(.attack))
struct PreflightAttackTests: EngineAttackSuite {
    let dir = TemporaryDirectory("strata-engine-attacks")

    /// The new `a` is NOT NULL without a default: the rows cannot get it, and the preflight says so
    /// before anything is written, naming the column.
    @Test(arguments: [true, false])
    func reusedOldNameAsNotNullColumnIsRefusedByThePreflight(_ native: Bool) throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); INSERT INTO t VALUES (1, 'x')")
        let error = try refusal(
            db, to: "CREATE TABLE t(id INTEGER PRIMARY KEY, b TEXT, a TEXT NOT NULL)",
            options: SchemaChangeOptions(renames: [.column("a", to: "b", inTable: "t")], useNativeAlter: native))
        #expect(error.code == .preflightFailed, "\(error)")
        #expect(error.culprit == "t", "\(error)")
        #expect(error.message.contains("a"), "\(error)")
    }

    /// A new foreign key that rows break: the error names the child table (a hostile name), and
    /// nothing changed.
    @Test func newForeignKeyBrokenByRowsNamesTheChild() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: """
                CREATE TABLE "p: arent"(id INTEGER PRIMARY KEY);
                CREATE TABLE "ch ild"(id INTEGER PRIMARY KEY, pid INTEGER);
                INSERT INTO "p: arent" VALUES (1);
                INSERT INTO "ch ild" VALUES (1, 1), (2, 5);
                """)
        let error = try refusal(
            db,
            to: """
                CREATE TABLE "p: arent"(id INTEGER PRIMARY KEY);
                CREATE TABLE "ch ild"(id INTEGER PRIMARY KEY, pid INTEGER REFERENCES "p: arent"(id));
                """)
        #expect(error.code == .foreignKeyViolation, "\(error)")
        #expect(error.culprit == "ch ild", "\(error)")
    }

    /// A column that becomes the INTEGER PRIMARY KEY while two rows share a value.
    @Test func newIntegerPrimaryKeyOverDuplicates() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(sql: #"CREATE TABLE "t.t"(k INTEGER, v TEXT); INSERT INTO "t.t" VALUES (1, 'a'), (1, 'b')"#)
        let error = try refusal(db, to: #"CREATE TABLE "t.t"(k INTEGER PRIMARY KEY, v TEXT)"#)
        #expect(error.culprit == "t.t", "\(error)")
    }

    @Test(.requiresSQLite(3, 37, "STRICT tables"))
    func strictTypeChangeTheRowsBreak() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: "CREATE TABLE [s t](id INTEGER PRIMARY KEY, a TEXT) STRICT; INSERT INTO [s t] VALUES (1, 'x')")
        let error = try refusal(db, to: "CREATE TABLE [s t](id INTEGER PRIMARY KEY, a INTEGER) STRICT")
        #expect(error.culprit == "s t", "\(error)")
    }

    func becomingTheRowIDWithNullsOrText(_ definition: String, _ value: String) throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: "CREATE TABLE [t t](\(definition), v TEXT); INSERT INTO [t t] VALUES (\(value), 'a'), (7, 'b')")
        let error = try refusal(db, to: "CREATE TABLE [t t](id INTEGER PRIMARY KEY, v TEXT)")
        #expect(error.culprit == "t t", "\(error)")
    }

    /// A rowid table whose PRIMARY KEY holds a NULL (SQLite allows it there) made WITHOUT ROWID
    /// (which does not): refused, naming the table, nothing changed.
    @Test func withoutRowIDOverANullPrimaryKey() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql: "CREATE TABLE `k v`(k TEXT PRIMARY KEY, v TEXT); INSERT INTO `k v` VALUES (NULL, 'a'), ('b', 'b')")
        let error = try refusal(db, to: "CREATE TABLE `k v`(k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID")
        #expect(error.culprit == "k v", "\(error)")
    }

    /// A refused destructive change names what it would destroy first (a table, or table.column,
    /// names with dots and colons whole).
    @Test func refusedDestructiveChangeNamesItsCulprit() throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(sql: #"CREATE TABLE "a.b: c"(id INTEGER PRIMARY KEY, "d.e" TEXT); CREATE TABLE "gone t"(x);"#)
        let before = try DatabaseContents(db)
        let column = try #require(throws: SchemaError.self) {
            try db.migrateSchema(to: #"CREATE TABLE "a.b: c"(id INTEGER PRIMARY KEY); CREATE TABLE "gone t"(x);"#)
        }
        #expect(column.code == .destructiveChangesRefused)
        #expect(column.culprit == "a.b: c.d.e", "\(column)")
        let table = try #require(throws: SchemaError.self) {
            try db.migrateSchema(to: #"CREATE TABLE "a.b: c"(id INTEGER PRIMARY KEY, "d.e" TEXT);"#)
        }
        #expect(table.culprit == "gone t", "\(table)")
        #expect(try DatabaseContents(db) == before)
    }

    func columnRenamedIntoAGeneratedColumnIsDestructive(_ column: String) throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); INSERT INTO t VALUES (1, 'keep me')")
        let error = try refusal(db, to: "CREATE TABLE t(id INTEGER PRIMARY KEY, \(column))")
        #expect(error.code == .destructiveChangesRefused, "\(error)")
    }

    /// Rows that break a condition arrive between planning and applying, in a table and column
    /// whose names hold quotes and a colon: the guard fires, names the table, and nothing changed.
    @Test(arguments: [true, false])
    func guardFiresOnHostileNames(_ native: Bool) throws {
        let db = try Database(path: dir.file("db.sqlite"))
        try db.execute(
            sql:
                #"CREATE TABLE "it's ""x"": y"(id INTEGER PRIMARY KEY, "c'd" TEXT); INSERT INTO "it's ""x"": y" VALUES (1, 'v')"#
        )
        let plan = try db.planSchemaChange(
            to:
                #"CREATE TABLE "it's ""x"": y"(id INTEGER PRIMARY KEY, "c'd" TEXT NOT NULL, e INTEGER NOT NULL DEFAULT 1)"#,
            options: SchemaChangeOptions(useNativeAlter: native))
        try db.execute(sql: #"INSERT INTO "it's ""x"": y" VALUES (2, NULL)"#)
        let before = try DatabaseContents(db)
        let error = try #require(throws: SchemaError.self) { try db.applySchemaChange(plan) }
        #expect(error.code == .preflightFailed, "\(error)")
        #expect(error.culprit == #"it's "x": y"#, "\(error)")
        #expect(error.message.contains("1 row"), "\(error)")
        #expect(try DatabaseContents(db) == before)
    }
}
