import StrataMigrations
import StrataSQLite
import StrataSchema
import StrataTestSupport
import Testing

/// Migrations written as the desired schema, applied by the declarative engine.
@Suite("Declarative migrations")
struct DeclarativeMigrationTests {
    private static let v1 = """
        CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE book(id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES author(id) ON DELETE CASCADE, title TEXT);
        """
    private static let v2 = """
        CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL COLLATE NOCASE, birth_year INTEGER);
        CREATE TABLE book(id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES author(id) ON DELETE CASCADE, title TEXT);
        CREATE INDEX book_author ON book(author_id);
        """

    @Test func bringsTheDatabaseToTheDesiredSchemaAndKeepsRows() throws {
        var migrator = Migrator()
        migrator.registerMigration("0001_v1", schema: Self.v1)
        migrator.registerMigration(
            "0002_data",
            sql: """
                INSERT INTO author(id, name) VALUES (1, 'Ursula');
                INSERT INTO book(author_id, title) VALUES (1, 'The Dispossessed');
                """)
        migrator.registerMigration("0003_v2", schema: Self.v2)
        let db = try Database(inMemory: Configuration())
        try migrator.migrate(db)
        #expect(try DatabaseSchema.read(from: db) == DatabaseSchema(sql: Self.v2))
        // author was rebuilt (a collation changed) with foreign keys off: no cascade emptied book.
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM book") == 1)
        #expect(try db.fetchValue(String.self, sql: "SELECT name FROM author WHERE name = 'URSULA'") == "Ursula")
        try #require(migrator.migrations.count > 2)
        // Checksummed on the normalized schema (SchemaChecksumTests); the text checksum of the
        // same text, which ledgers written before hold, is still accepted.
        #expect(migrator.migrations[2].checksum != nil)
        #expect(migrator.migrations[2].acceptsRecordedChecksum(Migration("x", sql: Self.v2).checksum ?? ""))
    }

    @Test func destructiveChangeFailsTheMigrationUnlessAllowed() throws {
        var migrator = Migrator()
        migrator.registerMigration("0001_v1", schema: Self.v1)
        migrator.registerMigration(
            "0002_drop_book", schema: "CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);")
        let db = try Database(inMemory: Configuration())
        try migrator.migrate(db, upTo: "0001_v1")
        let before = try DatabaseContents(db)
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.code == .migrationFailed)
        #expect(
            error.description
                == "migration 0002_drop_book failed: refused 1 destructive change (allow destructive changes to apply): drop table book (0 rows); rolled back"
        )
        #expect(error.underlyingError is SchemaError)
        #expect(try DatabaseContents(db) == before)

        var allowing = Migrator()
        allowing.registerMigration("0001_v1", schema: Self.v1)
        allowing.registerMigration(
            "0002_drop_book", schema: "CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);",
            options: SchemaChangeOptions(allowDestructive: true))
        #expect(try allowing.migrate(db) == ["0002_drop_book"])
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'book'") == 0)
    }
}
