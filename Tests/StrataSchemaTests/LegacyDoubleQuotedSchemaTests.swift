import Foundation
import StrataSQLite
import StrataSchema
import StrataTestSupport
import Testing

/// A live database whose schema relies on double-quoted string literals (created when SQLite
/// accepted them) is still migrated by the engine on a connection with the strict default: the
/// schema-only copy replays the stored schema as SQLite accepted it.
@Suite("Legacy double-quoted string literals")
struct LegacyDoubleQuotedSchemaTests {
    static let legacySchema = """
        CREATE TABLE item(id INTEGER PRIMARY KEY, kind TEXT CHECK (kind <> "draft"), name TEXT DEFAULT "x");
        CREATE TABLE log(message TEXT);
        CREATE TRIGGER item_log AFTER INSERT ON item BEGIN INSERT INTO log VALUES ("inserted"); END;
        CREATE VIEW item_view AS SELECT id, "lit" AS label FROM item;
        CREATE INDEX item_kind ON item(kind) WHERE kind <> "zz";
        """

    /// The same objects written in single quotes, plus a column: what the app now declares.
    static let desired = """
        CREATE TABLE item(id INTEGER PRIMARY KEY, kind TEXT CHECK (kind <> 'draft'), name TEXT DEFAULT 'x',
                          note TEXT NOT NULL DEFAULT '');
        CREATE TABLE log(message TEXT);
        CREATE TRIGGER item_log AFTER INSERT ON item BEGIN INSERT INTO log VALUES ('inserted'); END;
        CREATE VIEW item_view AS SELECT id, 'lit' AS label FROM item;
        CREATE INDEX item_kind ON item(kind) WHERE kind <> 'zz';
        """

    func legacyDatabase(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("legacy.sqlite")
        var legacy = Configuration()
        legacy.acceptsDoubleQuotedStringLiterals = true
        let db = try Database(path: path, configuration: legacy)
        try db.execute(sql: Self.legacySchema)
        try db.execute(sql: "INSERT INTO item(kind) VALUES ('final')")
        db.close()
        return path
    }

    @Test(.requiresSQLite(3, 29, "refusing double-quoted strings (SQLITE_DBCONFIG_DQS_DML)"))
    func aLegacySchemaIsMigratedUnderTheStrictDefault() throws {
        let dir = TemporaryDirectory()
        let path = try legacyDatabase(dir)
        let db = try Database(path: path)  // the strict default
        #expect(db.configuration.acceptsDoubleQuotedStringLiterals == false)
        // The stored schema loads (SQLite accepts legacy schemas it reads), but its trigger fails
        // when it runs under the strict default: the documented reason to migrate it.
        let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO item(kind) VALUES ('a')") }
        // SQLite 3.46+ quotes the word and adds a hint ("no such column: \"inserted\" - should this be a
        // string literal in single-quotes?"); earlier releases print the bare word.
        #expect(error?.message.contains("no such column") == true)
        #expect(error?.message.contains("inserted") == true)

        let plan = try db.migrateSchema(to: Self.desired)
        #expect(!plan.isEmpty)
        #expect(try db.planSchemaChange(to: Self.desired).isEmpty)
        #expect(
            try db.fetchAll(sql: "SELECT id, kind, name, note FROM item").map(\.values) == [
                [.integer(1), .text("final"), .text("x"), .text("")]
            ])
        try db.execute(sql: "INSERT INTO item(kind) VALUES ('b')")
        // The legacy insert logged once; this one through the migrated trigger.
        #expect(try db.fetchColumn(String.self, sql: "SELECT message FROM log") == ["inserted", "inserted"])
        #expect(try db.fetchColumn(String.self, sql: "SELECT label FROM item_view") == ["lit", "lit"])
        // The strict default is back after the migration.
        #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT \"nope\" FROM item") }
    }

    /// The desired schema stays strict: a stored legacy statement pasted into it is refused,
    /// naming the double-quoted word, and nothing changes.
    @Test func theDesiredSchemaStaysStrict() throws {
        let dir = TemporaryDirectory()
        let path = try legacyDatabase(dir)
        let db = try Database(path: path)
        let before = try DatabaseContents(db)
        let refused = #expect(throws: SchemaError.self) { try db.migrateSchema(to: Self.legacySchema) }
        #expect(refused?.message.contains("draft") == true)
        #expect(try DatabaseContents(db) == before)
    }
}
