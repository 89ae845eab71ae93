import Foundation
import Strata
import StrataTestSupport
import Testing

/// Indexes that use SQL functions and collations written in Swift survive the engine's table
/// rebuild: the desired schema's scratch database and the proof copy register them too.
@Suite("Rebuilds with custom functions")
struct CustomFunctionRebuildTests {
    static let initials = DatabaseFunction("initials", argumentCount: 1, isDeterministic: true) { arguments in
        guard case .text(let name) = arguments[0] else { return nil }
        return String(name.split(separator: " ").compactMap(\.first))
    }
    static let reversed = DatabaseCollation("reversed") { a, b in
        a == b ? .orderedSame : a < b ? .orderedDescending : .orderedAscending
    }

    static let before = """
        CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE INDEX person_initials ON person(initials(name));
        CREATE INDEX person_name_reversed ON person(name COLLATE reversed);
        """
    // A new UNIQUE column cannot be added by ALTER TABLE: the table is rebuilt.
    static let after = """
        CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT UNIQUE);
        CREATE INDEX person_initials ON person(initials(name));
        CREATE INDEX person_name_reversed ON person(name COLLATE reversed);
        """

    @Test func rebuildKeepsIndexesOnSwiftFunctionsAndCollations() throws {
        let directory = TemporaryDirectory()
        var configuration = Configuration()
        configuration.functions = [Self.initials]
        configuration.collations = [Self.reversed]
        let db = try Database(path: directory.file("p.sqlite"), configuration: configuration)
        try db.migrateSchema(to: Self.before)
        try db.execute(sql: "INSERT INTO person(name) VALUES ('Arthur Dent'), ('Ford Prefect'), ('Zaphod Beeblebrox')")
        let plan = try db.migrateSchema(to: Self.after)
        #expect(plan.steps.contains { $0.kind == .rebuildTable })
        #expect(
            try db.fetchColumn(
                String.self,
                sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'person_%' ORDER BY name")
                == ["person_initials", "person_name_reversed"])
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
        // The indexes are used and give the right rows.
        let initialsPlan = try db.fetchAll(sql: "EXPLAIN QUERY PLAN SELECT id FROM person WHERE initials(name) = 'FP'")
        #expect(try initialsPlan.contains { (try $0["detail"] as String).contains("person_initials") })
        #expect(
            try db.fetchValue(String.self, sql: "SELECT name FROM person WHERE initials(name) = 'FP'") == "Ford Prefect"
        )
        #expect(
            try db.fetchColumn(String.self, sql: "SELECT name FROM person ORDER BY name COLLATE reversed")
                == ["Zaphod Beeblebrox", "Ford Prefect", "Arthur Dent"])
        // Nothing more to do.
        #expect(try db.planSchemaChange(to: Self.after).steps.isEmpty)
    }

    /// Functions added to the connection (not through the configuration) count too.
    @Test func functionsAddedToTheConnectionAreKnownToTheEngine() throws {
        let db = try Database(inMemory: Configuration())
        try db.add(function: Self.initials)
        try db.add(collation: Self.reversed)
        try db.migrateSchema(to: Self.before)
        try db.execute(sql: "INSERT INTO person(name) VALUES ('Arthur Dent')")
        try db.migrateSchema(to: Self.after)
        #expect(try db.fetchValue(String.self, sql: "SELECT initials(name) FROM person") == "AD")
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    /// Without the function, the desired schema is refused with SQLite's own reason (no such
    /// function/collation), naming the statement; nothing changes.
    @Test func unknownCollationIsAClearError() throws {
        let db = try Database(inMemory: Configuration())
        let error = try #require(throws: SchemaError.self) { try db.migrateSchema(to: Self.before) }
        #expect(error.code == .invalidSQL)
        #expect(error.message.contains("statement 2") || error.message.contains("statement 3"))
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 0)
    }
}
