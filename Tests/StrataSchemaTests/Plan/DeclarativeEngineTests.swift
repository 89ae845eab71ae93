import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("Declarative engine")
struct DeclarativeEngineTests {
    @Test(arguments: declarativeCases)
    func scenario(_ c: DeclarativeCase) throws {
        try run(c)
    }

    /// The oldest SQLite Strata supports (3.26), simulated: no DROP COLUMN, RETURNING, generated
    /// columns, STRICT or the 3.53 ALTER forms, so those changes go through rebuilds and must give
    /// the same result; a desired schema with generated columns or STRICT is refused by name
    /// (`.featureUnavailable`), the database unchanged.
    @Test(arguments: declarativeCases)
    func scenarioOnOldSQLite(_ c: DeclarativeCase) throws {
        try run(c, capabilityLimit: SQLiteVersion.minimumSupported)
    }

    @Test(.requiresSQLite(3, 31, "a database with generated columns"), arguments: generatedColumnCases)
    func scenarioWithGeneratedColumns(_ c: DeclarativeCase) throws {
        try run(c)
    }

    /// A database with generated columns, on a connection limited to the floor: the desired
    /// schema's generated columns are refused by name, the database unchanged.
    @Test(.requiresSQLite(3, 31, "a database with generated columns"), arguments: generatedColumnCases)
    func scenarioWithGeneratedColumnsOnOldSQLite(_ c: DeclarativeCase) throws {
        try run(c, capabilityLimit: SQLiteVersion.minimumSupported)
    }

    /// A connection with `legacy_alter_table` on: ALTER TABLE no longer rewrites or checks the
    /// views and triggers that stay in place. The schema copy alters the same way, so each plan
    /// (its steps may differ: a DROP COLUMN need not move a trigger that uses the column) is
    /// proven against what the live connection will do, and gives the same schema and rows.
    @Test(arguments: declarativeCases)
    func scenarioWithLegacyAlterTable(_ c: DeclarativeCase) throws {
        try run(c, legacyAlterTable: true)
    }

    @Test func cosmeticDifferencesMakeNoStepsAndLeaveTheFileUntouched() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("db.sqlite")
        let db = try Database(path: path)
        try db.execute(
            sql: """
                CREATE TABLE "User"(id INTEGER PRIMARY KEY, "name" TEXT NOT NULL);
                CREATE INDEX user_name ON "User"(name);
                INSERT INTO User VALUES (1, 'a');
                """)
        let before = fileBytes(path)
        let plan = try db.planSchemaChange(
            to: """
                -- the same schema, written differently
                create table user ( ID integer primary key , [NAME] text not null /* comment */ ) ;
                create index USER_NAME on user ( "name" );
                """)
        #expect(plan.isEmpty)
        #expect(plan.summary == "No changes.")
        try db.applySchemaChange(plan)
        #expect(fileBytes(path) == before)
        // migrateSchema(to:) records its launch fingerprint (Strata's own table), nothing else.
        let snapshot = try DatabaseContents(db)
        try db.migrateSchema(
            to: "CREATE TABLE user(id INTEGER PRIMARY KEY, name TEXT NOT NULL); CREATE INDEX user_name ON user(name);")
        var after = try DatabaseContents(db)
        after.schema.removeAll { $0.contains("strata_schema_fingerprint") }
        after.rows["strata_schema_fingerprint"] = nil
        #expect(after == snapshot)
    }

    @Test func failureInjectedMidRebuildLeavesTheFileByteIdentical() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("db.sqlite")
        let db = try Database(path: path)
        try db.execute(
            sql: """
                CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); CREATE INDEX t_a ON t(a);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
                INSERT INTO t SELECT i, 'row ' || i FROM n;
                """)
        let before = fileBytes(path)
        let snapshot = try DatabaseContents(db)
        let plan = try db.planSchemaChange(
            to: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT NOT NULL DEFAULT ''); CREATE INDEX t_a ON t(a);")
        let rebuild = try #require(plan.steps.firstIndex { $0.kind == .rebuildTable })
        // Inject a failing statement after each statement of the rebuild in turn.
        for position in 1...plan.steps[rebuild].statements.count {
            var broken = plan
            broken.steps[rebuild].statements.insert("INSERT INTO no_such_table VALUES (1)", at: position)
            #expect(throws: SchemaError.self) { try db.applySchemaChange(broken) }
            #expect(fileBytes(path) == before, "after a failure at statement \(position)")
            #expect(try DatabaseContents(db) == snapshot)
            #expect(try db.foreignKeysEnabled())
        }
        // A disk-full failure (max_page_count) also rolls back.
        let pages = try #require(try db.fetchValue(Int.self, sql: "PRAGMA page_count"))
        try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        do {
            try db.applySchemaChange(plan)
            Issue.record("expected SQLITE_FULL")
        } catch let error as SchemaError {
            #expect(error.underlying?.resultCode == .SQLITE_FULL, "\(error)")
        }
        #expect(fileBytes(path) == before)
        #expect(try DatabaseContents(db) == snapshot)
    }

    @Test func planHasSummaryAndPureSQLRendering() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); CREATE TABLE gone(x);")
        let plan = try db.planSchemaChange(
            to: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b INTEGER DEFAULT 0);",
            options: SchemaChangeOptions(allowDestructive: true))
        #expect(plan.summary.contains("- [destructive] drop table gone"))
        #expect(plan.summary.contains("- add column t.b: b INTEGER DEFAULT 0"))
        #expect(plan.statements.contains("ALTER TABLE \"t\" ADD COLUMN b INTEGER DEFAULT 0"))
        let script = plan.sqlScript()
        #expect(script.hasPrefix("PRAGMA foreign_keys = OFF;\nBEGIN IMMEDIATE;"))
        #expect(script.contains("COMMIT;"))
        // The script runs as it is in a copy.
        let other = try Database(inMemory: Configuration())
        try other.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT); CREATE TABLE gone(x);")
        try other.execute(sql: script)
        #expect(
            try DatabaseSchema.read(from: other)
                == DatabaseSchema(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b INTEGER DEFAULT 0);"))
    }

    @Test func renamesThroughOptions() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE a(x INTEGER); INSERT INTO a VALUES (1);")
        let options = SchemaChangeOptions(renames: [.table("a", to: "b"), .column("x", to: "y", inTable: "b")])
        try db.migrateSchema(to: "CREATE TABLE b(y INTEGER);", options: options)
        #expect(try db.fetchValue(Int.self, sql: "SELECT y FROM b") == 1)
    }

    @Test func insideATransactionWithForeignKeysOffThePlanRunsInASavepoint() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE c(p_id REFERENCES p(id) ON DELETE CASCADE);
                INSERT INTO p VALUES (1); INSERT INTO c VALUES (1);
                """)
        try db.execute(sql: "PRAGMA foreign_keys = OFF")
        try db.transaction(.immediate) {
            try db.migrateSchema(
                to:
                    "CREATE TABLE p(id INTEGER PRIMARY KEY, n TEXT NOT NULL DEFAULT ''); CREATE TABLE c(p_id REFERENCES p(id) ON DELETE CASCADE);"
            )
        }
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM c") == 1)
    }

    @Test func insideATransactionWithForeignKeysOnARebuildOfAParentIsRefused() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE c(p_id REFERENCES p(id) ON DELETE CASCADE);
                INSERT INTO p VALUES (1); INSERT INTO c VALUES (1);
                """)
        #expect {
            try db.transaction(.immediate) {
                try db.migrateSchema(
                    to:
                        "CREATE TABLE p(id INTEGER PRIMARY KEY CHECK (id > 0)); CREATE TABLE c(p_id REFERENCES p(id) ON DELETE CASCADE);"
                )
            }
        } throws: { error in
            (error as? SchemaError)?.message.contains("foreign keys on") ?? false
        }
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM c") == 1)
    }
}
