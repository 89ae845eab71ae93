import Foundation
import StrataMigrations
import StrataSQLite
import StrataSchema
import StrataTestSupport
import Testing

/// Declarative migrations with a data step: expanding part, data step, contracting part, in one
/// transaction (issue 28 part 4).
@Suite("Data steps in declarative migrations")
struct DataStepTests {
    static let v2 = """
        CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL, tags TEXT);
        """
    /// The tags column split into a table; the column dropped.
    static let v3 = """
        -- strata:allow-destructive
        CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
        CREATE TABLE note_tag(
            note_id INTEGER NOT NULL REFERENCES note(id),
            tag TEXT NOT NULL CHECK (tag <> ''),
            PRIMARY KEY(note_id, tag)
        ) WITHOUT ROWID;
        CREATE INDEX note_tag_tag ON note_tag(tag);
        """
    static let split = """
        INSERT INTO note_tag(note_id, tag)
        SELECT note.id, json_each.value FROM note, json_each(note.tags) WHERE note.tags IS NOT NULL;
        """
    static let destructive = SchemaChangeOptions(allowDestructive: true)

    /// A database at v2 with three notes (one without tags, one with a hostile tag).
    static func databaseAtV2() throws -> Database {
        let db = try Database(inMemory: Configuration())
        var migrator = Migrator()
        migrator.registerMigration("0001_v2", schema: v2)
        _ = try migrator.migrate(db)
        try db.execute(
            sql: """
                INSERT INTO note(id, body, tags) VALUES
                  (1, 'groceries', '["home","errands"]'),
                  (2, 'no tags', NULL),
                  (3, 'quotes', '["it''s \\"x\\"","home"]');
                """)
        return db
    }

    static func noteTags(_ db: Database) throws -> [String] {
        try db.fetchAll(sql: "SELECT note_id, tag FROM note_tag ORDER BY note_id, tag").map {
            "\($0.values[0].sqlLiteral) \($0.values[1].sqlLiteral)"
        }
    }

    static let expectedTags = ["1 'errands'", "1 'home'", "3 'home'", #"3 'it''s "x"'"#]

    @Test(.requiresSQLite(3, 38, "json_each built in"))
    func jsonTagsSplitIntoATableWithAClosure() throws {
        let db = try Self.databaseAtV2()
        defer { db.close() }
        var migrator = Migrator()
        migrator.registerMigration("0001_v2", schema: Self.v2)
        migrator.registerMigration("0002_split_tags", to: Self.v3, options: Self.destructive) { db in
            try db.execute(sql: Self.split)
        }
        #expect(try migrator.migrate(db) == ["0002_split_tags"])
        #expect(try Self.noteTags(db) == Self.expectedTags)
        let columns = try db.fetchColumn(String.self, sql: "SELECT name FROM pragma_table_info('note')")
        #expect(columns == ["id", "body"])
        // The result is the desired schema exactly.
        let desired = try DatabaseSchema(sql: Self.v3)
        #expect(try DatabaseSchema.read(from: db).differences(from: desired).isEmpty)
        #expect(try migrator.migrate(db).isEmpty, "applied once")
    }

    @Test(.requiresSQLite(3, 38, "json_each built in"))
    func theSameWithSQLAndWithTheOtherSchemaForms() throws {
        let db = try Self.databaseAtV2()
        defer { db.close() }
        var migrator = Migrator()
        migrator.registerMigration("0001_v2", schema: Self.v2)
        migrator.registerMigration("0002_split_tags", to: Self.v3, options: Self.destructive, dataSQL: Self.split)
        _ = try migrator.migrate(db)
        #expect(try Self.noteTags(db) == Self.expectedTags)
        let applied = try #require(migrator.migrations.last)
        #expect(applied.dataSQL == Self.split)

        // A DatabaseSchema and a SchemaDefinition as targets.
        let other = try Self.databaseAtV2()
        defer { other.close() }
        var typed = Migrator()
        typed.registerMigration("0001_v2", schema: Self.v2)
        typed.registerMigration("0002_split_tags", to: try DatabaseSchema(sql: Self.v3), options: Self.destructive) {
            db in try db.execute(sql: Self.split)
        }
        _ = try typed.migrate(other)
        #expect(try Self.noteTags(other) == Self.expectedTags)

        let third = try Database(inMemory: Configuration())
        defer { third.close() }
        var definition = SchemaDefinition()
        definition.table("note") { t in
            t.primaryKey("id", .integer)
            t.column("body", .text).notNull()
            t.column("title", .text).notNull()
        }
        try third.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try third.execute(sql: "INSERT INTO note VALUES (1, 'Title\nrest'), (2, 'one line')")
        var dsl = Migrator()
        dsl.registerMigration("0001_titles", to: definition) { db in
            try db.execute(
                sql:
                    "UPDATE note SET title = CASE WHEN instr(body, char(10)) > 0 THEN substr(body, 1, instr(body, char(10)) - 1) ELSE body END"
            )
        }
        _ = try dsl.migrate(third)
        #expect(try third.fetchColumn(String.self, sql: "SELECT title FROM note ORDER BY id") == ["Title", "one line"])
        #expect(
            try third.fetchValue(
                Bool.self, sql: "SELECT \"notnull\" FROM pragma_table_info('note') WHERE name = 'title'") == true)
    }

    @Test func howThePlanIsSplit() throws {
        let db = try Database(inMemory: Configuration())
        defer { db.close() }
        try db.execute(
            sql: """
                CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, code TEXT, kind TEXT, CHECK (length(name) < 100));
                CREATE TABLE old_log(id INTEGER PRIMARY KEY, line TEXT);
                CREATE INDEX item_kind ON item(kind);
                INSERT INTO item(id, name, code, kind) VALUES (1, 'a', NULL, 'x');
                """)
        // code becomes NOT NULL while "select" is added (NOT NULL, no default) and name loses its
        // NOT NULL; the table CHECK is dropped, a UNIQUE index and a plain index are added, old_log dropped.
        let desired = """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, code TEXT NOT NULL, kind TEXT, "select" INTEGER NOT NULL CHECK ("select" > 0));
            CREATE TABLE "log ""new\"\""(id INTEGER PRIMARY KEY, item_id INTEGER NOT NULL REFERENCES item(id));
            CREATE UNIQUE INDEX item_code ON item(code);
            CREATE INDEX item_select ON item("select");
            """
        let split = try db.planExpandAndContract(to: desired, options: Self.destructive)
        let expanded = try DatabaseSchema(sql: split.expandedSQL)
        let item = try #require(expanded.table(named: "item"))
        #expect(item.column(named: "select")?.isNotNull == false, "added relaxed")
        #expect(item.column(named: "name")?.isNotNull == false, "NOT NULL dropped in the expanding part")
        #expect(item.column(named: "code")?.isNotNull == false, "NOT NULL added in the contracting part")
        #expect(item.constraints.isEmpty, "the dropped CHECK is gone while the data step runs")
        #expect(expanded.table(named: "old_log") != nil, "drops wait for the contracting part")
        #expect(expanded.table(named: "log \"new\"") != nil, "new tables come first")
        #expect(expanded.index(named: "item_select") != nil, "a new plain index comes first")
        #expect(expanded.index(named: "item_kind") == nil, "an index the desired schema drops goes first")
        #expect(expanded.index(named: "item_code") == nil, "a new UNIQUE index is a tightening")
        #expect(split.expanding.steps.allSatisfy { !$0.isDestructive })

        // The data step can use what the expanding part made, and must leave rows the contracting part accepts.
        let plans = try db.expandAndContract(to: desired, options: Self.destructive) { db in
            try db.execute(sql: #"UPDATE item SET code = 'c' || id, "select" = 1, name = NULL"#)
            try db.execute(sql: "INSERT INTO \"log \"\"new\"\"\"(item_id) VALUES (1)")
        }
        #expect(!plans.contracting.isEmpty)
        #expect(try DatabaseSchema.read(from: db).differences(from: try DatabaseSchema(sql: desired)).isEmpty)
        #expect(try db.fetchValue(String.self, sql: "SELECT code FROM item") == "c1")
    }

    @Test func aRenameCannotShareTheMigration() throws {
        let db = try Database(inMemory: Configuration())
        defer { db.close() }
        try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
        let before = try DatabaseContents(db)
        let desired = """
            CREATE TABLE note(
                id INTEGER PRIMARY KEY,
                text TEXT -- @renamed from=body
            );
            """
        var ran = false
        let error = #expect(throws: SchemaError.self) {
            try db.expandAndContract(to: desired) { _ in ran = true }
        }
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("column note.body -> text") == true, "\(error?.message ?? "")")
        #expect(!ran)
        #expect(try DatabaseContents(db) == before)
    }

    /// Every way a data step fails rolls back everything: the expanding part, the data step's
    /// rows, the contracting part, the ledger.
    @Test(.requiresSQLite(3, 38, "json_each built in"))
    func aFailingDataStepRollsBackEverything() throws {
        struct Stop: Error {}
        let cases: [(String, Migration, String)] = [
            (
                "SQL error",
                Migration(
                    "0002_split", schema: Self.v3, options: Self.destructive,
                    dataSQL: Self.split + "INSERT INTO nope VALUES (1);"),
                "no such table: nope"
            ),
            (
                "thrown error",
                Migration("0002_split", schema: Self.v3, options: Self.destructive) { db in
                    try db.execute(sql: Self.split)
                    throw Stop()
                }, "Stop"
            ),
            (
                "CHECK the data step violates",
                Migration(
                    "0002_split", schema: Self.v3, options: Self.destructive,
                    dataSQL: "INSERT INTO note_tag VALUES (1, '');"),
                "CHECK constraint failed"
            ),
            (
                "foreign key the data step violates",
                Migration(
                    "0002_split", schema: Self.v3, options: Self.destructive,
                    dataSQL: "INSERT INTO note_tag VALUES (99, 'x');"),
                "foreign key violation"
            ),
            (
                "NULL left in a column that becomes NOT NULL",
                Migration(
                    "0002_title",
                    schema:
                        "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL, tags TEXT, title TEXT NOT NULL);",
                    dataSQL: "UPDATE note SET title = body WHERE tags IS NOT NULL;"),
                "title"
            ),
        ]
        for (name, migration, fragment) in cases {
            let db = try Self.databaseAtV2()
            defer { db.close() }
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            let before = try DatabaseContents(db)
            var migrator = Migrator()
            migrator.registerMigration("0001_v2", schema: Self.v2)
            migrator.register(migration)
            do {
                _ = try migrator.migrate(db)
                Issue.record("\(name): the migration succeeded")
            } catch {
                #expect("\(error)".contains(fragment), "\(name): \(error)")
                #expect("\(error)".contains(migration.identifier), "\(name): names the migration: \(error)")
            }
            #expect(try DatabaseContents(db) == before, "\(name): the database is unchanged")
        }
    }

    @Test(.requiresSQLite(3, 38, "json_each built in"))
    func aFolderEntryWithSchemaAndData() throws {
        let folder = TemporaryDirectory("migrations")
        try Data(Self.v2.utf8).write(to: URL(fileURLWithPath: folder.file("0001_v2.sql")))
        let entry = folder.file("0002_split_tags")
        try FileManager.default.createDirectory(atPath: entry, withIntermediateDirectories: false)
        try Data(Self.v3.utf8).write(to: URL(fileURLWithPath: entry + "/schema.sql"))
        try Data(Self.split.utf8).write(to: URL(fileURLWithPath: entry + "/data.sql"))
        let directory = try MigrationDirectory(path: folder.path)
        #expect(directory.files.map(\.identifier) == ["0001_v2", "0002_split_tags"])
        #expect(directory.files.last?.isDeclarative == true)
        #expect(directory.files.last?.schemaOptions.allowDestructive == true, "-- strata:allow-destructive")

        let db = try Database(inMemory: Configuration())
        defer { db.close() }
        var migrator = Migrator()
        migrator.registerMigrations(from: directory)
        _ = try migrator.migrate(db, upTo: "0001_v2")
        try db.execute(sql: #"INSERT INTO note(id, body, tags) VALUES (1, 'groceries', '["home","errands"]')"#)
        _ = try migrator.migrate(db)
        #expect(try Self.noteTags(db) == ["1 'errands'", "1 'home'"])

        // The checksum covers both files: an edit of data.sql (or of the schema) after it was applied is detected.
        let checksum = try #require(directory.files.last?.migration.checksum)
        try Data((Self.split + "-- edited\nSELECT 1;").utf8).write(to: URL(fileURLWithPath: entry + "/data.sql"))
        let edited = try MigrationDirectory(path: folder.path)
        #expect(edited.files.last?.migration.checksum != checksum)
        var again = Migrator()
        again.registerMigrations(from: edited)
        let error = #expect(throws: MigrationError.self) { try again.migrate(db) }
        #expect(error?.code == .checksumMismatch)
        // A comment-only edit of schema.sql is not an edit (the schema is compared normalized).
        try Data(Self.split.utf8).write(to: URL(fileURLWithPath: entry + "/data.sql"))
        try Data(("-- a comment\n" + Self.v3).utf8).write(to: URL(fileURLWithPath: entry + "/schema.sql"))
        #expect(try MigrationDirectory(path: folder.path).files.last?.migration.checksum == checksum)

        // An entry without schema.sql is refused, naming it.
        let bad = folder.file("0003_empty")
        try FileManager.default.createDirectory(atPath: bad, withIntermediateDirectories: false)
        let refusal = #expect(throws: MigrationError.self) { try MigrationDirectory(path: folder.path) }
        #expect(refusal?.message.hasPrefix("0003_empty: a migration folder entry must hold schema.sql") == true)
    }
}
