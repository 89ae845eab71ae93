import Foundation
import Strata
import StrataTestSupport
import Testing

/// Tables a replication tool keeps in the database it replicates (issue 37, item 7): Litestream
/// creates `_litestream_seq` and `_litestream_lock` beside the app's tables, and once they are
/// dropped its checkpoints fail and the WAL grows without bound. A desired schema or a
/// declarative migration never lists them, so before this rule every plan dropped them (refused
/// without `allowDestructive`, done silently with it). `LitestreamReplicationTests`
/// (StrataReliabilityTests) runs the same against the real Litestream.
@Suite("Replication tools' tables are no part of a schema")
struct ReplicationToolTablesTests {
    /// What Litestream 0.5 runs when it starts replicating a database (its db.go), and one row in
    /// each table, as its sequence bump and a rolled-back lock may leave.
    static let litestreamTables = """
        CREATE TABLE IF NOT EXISTS _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER);
        CREATE TABLE IF NOT EXISTS _litestream_lock (id INTEGER);
        INSERT INTO _litestream_seq (id, seq) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET seq = seq + 1;
        INSERT INTO _litestream_lock (id) VALUES (1);
        """

    static func database() throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT)")
        try db.execute(sql: "INSERT INTO item(name) VALUES ('a'), ('b')")
        try db.execute(sql: litestreamTables)
        return db
    }

    static func litestreamRows(_ db: Database) throws -> [String] {
        try db.fetchAll(
            sql: "SELECT 'seq', id, seq FROM _litestream_seq UNION ALL SELECT 'lock', id, NULL FROM _litestream_lock"
        ).map { $0.values.map(\.sqlLiteral).joined(separator: " ") }
    }

    @Test func aPlanNeitherDropsNorListsThem() throws {
        let db = try Self.database()
        #expect(try DatabaseSchema.read(from: db).tables.map(\.name) == ["item"])
        #expect(try db.planSchemaChange(to: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);").isEmpty)
        // Destructive changes allowed, a rebuild of the app's table: Litestream's tables stay.
        let plan = try db.planSchemaChange(
            to: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');",
            options: SchemaChangeOptions(allowDestructive: true))
        let destructive = plan.steps.filter { $0.isDestructive }
        #expect(destructive.isEmpty, "\(plan.summary)")
        #expect(plan.steps.count == 1, "\(plan.summary)")
        let before = try Self.litestreamRows(db)
        try db.applySchemaChange(plan)
        #expect(try Self.litestreamRows(db) == before)
        #expect(
            try db.planSchemaChange(to: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');")
                .isEmpty)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item") == 2)
    }

    @Test func aDeclarativeMigrationWithDropsKeepsThem() throws {
        let db = try Self.database()
        let before = try Self.litestreamRows(db)
        var migrator = Migrator()
        migrator.registerMigration(
            "0001_rename_name", to: "CREATE TABLE item(id INTEGER PRIMARY KEY, label TEXT);",
            options: SchemaChangeOptions(allowDestructive: true)
        ) { db in
            try db.execute(sql: "UPDATE item SET label = name")
        }
        try migrator.migrate(db)
        #expect(try DatabaseSchema.read(from: db).tables.map(\.name) == ["item"])
        #expect(try db.fetchColumn(String.self, sql: "SELECT label FROM item ORDER BY id") == ["a", "b"])
        #expect(try Self.litestreamRows(db) == before)
    }

    @Test func theNamesAreExactlyLitestreams() {
        for name in ["_litestream_seq", "_litestream_lock", "_LITESTREAM_SEQ", "_Litestream_Lock"] {
            #expect(DatabaseSchema.isInternalName(name), "\(name)")
        }
        for name in ["_litestream", "_litestream_seq2", "litestream_seq", "_litestream_locks", "app_litestream_seq"] {
            #expect(!DatabaseSchema.isInternalName(name), "\(name)")
        }
    }
}
