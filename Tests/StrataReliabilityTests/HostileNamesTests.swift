import Foundation
import Strata
import StrataTestSupport
import Testing

/// Names and text that try to confuse the SQL tokenizer, the hint parser and the quoting: they
/// must simply work, through the library and the command line, without losing a row.
@Suite("Hostile names")
struct HostileNamesTests {
    static let before = #"""
        CREATE TABLE "we""ird [table]"(
          id INTEGER PRIMARY KEY,
          "sp ace" TEXT,
          "new
        line" TEXT,
          [select] INTEGER,
          `back``tick` TEXT,
          "ünï" TEXT,
          "Ünï" TEXT,
          "a;b -- @renamed from=id" TEXT
        );
        CREATE INDEX "idx ""x"" [y]" ON "we""ird [table]"("sp ace", "Ünï");
        CREATE VIEW "v;iew -- x" AS SELECT id, "new
        line" FROM "we""ird [table]" WHERE "ünï" <> ';';
        CREATE TRIGGER "tr*g" AFTER UPDATE OF [select] ON "we""ird [table]" BEGIN
          UPDATE "we""ird [table]" SET "sp ace" = 'x; -- @renamed from=id' WHERE id = NEW.id AND 0;
        END;
        """#

    /// Renames the table and a column by hints with quoted names, retypes a keyword column (a
    /// rebuild), adds a column whose name looks like a comment.
    static let after = #"""
        CREATE TABLE "tbl ✓"( -- @renamed from="we""ird [table]"
          id INTEGER PRIMARY KEY,
          "space ""2""" TEXT, -- @renamed from="sp ace"
          "new
        line" TEXT,
          [select] TEXT,
          `back``tick` TEXT,
          "ünï" TEXT,
          "Ünï" TEXT,
          "a;b -- @renamed from=id" TEXT,
          "-- not a comment" TEXT DEFAULT '-- @renamed from=id; /* */'
        );
        CREATE INDEX "idx ""x"" [y]" ON "tbl ✓"("space ""2""", "Ünï");
        CREATE VIEW "v;iew -- x" AS SELECT id, "new
        line" FROM "tbl ✓" WHERE "ünï" <> ';';
        CREATE TRIGGER "tr*g" AFTER UPDATE OF [select] ON "tbl ✓" BEGIN
          UPDATE "tbl ✓" SET "space ""2""" = 'x; -- @renamed from=id' WHERE id = NEW.id AND 0;
        END;
        """#

    static let rows = #"""
        INSERT INTO "we""ird [table]" VALUES
          (1, 'a', 'line
        two', 42, '`', 'lower', 'UPPER', ';'),
          (2, NULL, '-- @renamed from=x', -1, NULL, 'ü', 'Ü', '/* */');
        """#

    static let expected: [[SQLValue]] = [
        [1, "a", "line\ntwo", "42", "`", "lower", "UPPER", ";", "-- @renamed from=id; /* */"],
        [2, nil, "-- @renamed from=x", "-1", nil, "ü", "Ü", "/* */", "-- @renamed from=id; /* */"],
    ]

    @Test func throughTheLibrary() throws {
        for limit in [nil, SQLiteVersion.minimumSupported] {
            var config = Configuration()
            config.capabilityLimit = limit
            let db = try Database(inMemory: config)
            try db.execute(sql: Self.before)
            try db.execute(sql: Self.rows)
            #expect(try DatabaseSchema.read(from: db) == DatabaseSchema(sql: Self.before))
            let plan = try db.migrateSchema(to: Self.after)
            #expect(!plan.isEmpty)
            #expect(try db.fetchAll(sql: "SELECT * FROM \"tbl ✓\" ORDER BY id").map(\.values) == Self.expected)
            #expect(try DatabaseSchema.read(from: db) == DatabaseSchema(sql: Self.after))
            #expect(try db.planSchemaChange(to: Self.after).isEmpty)
            #expect(try db.fetchAll(sql: "SELECT * FROM \"v;iew -- x\"").count == 2)
            #expect(try integrityProblems(db).isEmpty)
        }
    }

    @Test func throughTheCommandLine() throws {
        let dir = TemporaryDirectory("strata-names")
        let path = dir.file("we'ird db ✓.sqlite")
        let beforeFile = dir.file("before -- schema;.sql")
        let afterFile = dir.file("after.sql")
        try Data(Self.before.utf8).write(to: URL(fileURLWithPath: beforeFile))
        try Data(Self.after.utf8).write(to: URL(fileURLWithPath: afterFile))

        let created = try ChildProcess.strata(["apply", "--db", path, "--schema", beforeFile])
        #expect(created.status == 0, "\(created)")
        do {
            let db = try Database(path: path)
            try db.execute(sql: Self.rows)
            db.close()
        }
        let applied = try ChildProcess.strata(["apply", "--db", path, "--schema", afterFile])
        #expect(applied.status == 0, "\(applied)")
        #expect(applied.stdout.contains("tbl ✓"), "\(applied)")
        let again = try ChildProcess.strata(["plan", "--db", path, "--schema", afterFile])
        #expect(again.status == 0 && again.stdout == "No changes.\n", "\(again)")
        let dump = try ChildProcess.strata(["dump", "--db", path])
        #expect(dump.status == 0 && dump.stdout.contains("\"space \"\"2\"\"\""), "\(dump)")
        // The dump is itself a desired schema that makes no change.
        let dumpFile = dir.file("dump.sql")
        try Data(dump.stdout.utf8).write(to: URL(fileURLWithPath: dumpFile))
        let fromDump = try ChildProcess.strata(["plan", "--db", path, "--schema", dumpFile])
        #expect(fromDump.stdout == "No changes.\n", "\(fromDump)")

        let db = try Database(path: path)
        defer { db.close() }
        #expect(try db.fetchAll(sql: "SELECT * FROM \"tbl ✓\" ORDER BY id").map(\.values) == Self.expected)
    }
}
