import Foundation
import StrataMigrations
import StrataSQLite
import StrataSchema
import StrataTestSupport
import Testing

/// Desired-schema migrations are checksummed on the normalized schema, and ledgers written before
/// (text checksums) keep working.
@Suite("Desired-schema migration checksums")
struct SchemaChecksumTests {
    static let schema = "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL);"
    /// The ledger checksum main (799a33e, before this change) recorded for `schema` as migration
    /// "0001_notes": `Migration(_:schema:)` took the text checksum (BOM dropped, line ends as
    /// "\n", trailing blanks and final newlines ignored), which for this clean text is its plain
    /// SHA-256, computed with `printf '%s' "$schema" | sha256sum`. SQL migrations still use that
    /// rule, which the first expectation below cross-checks.
    static let checksumWrittenByMain = "61582eee91303119705f194b9bf7bdbb52d0d5ebf1bae4e6bc5a9bd971a2038d"

    func migrator(_ schema: String) -> Migrator {
        var migrator = Migrator()
        migrator.register(Migration("0001_notes", schema: schema))
        return migrator
    }

    @Test func equivalentRewritesAreNotEdits() throws {
        let db = try Database(inMemory: Configuration())
        try migrator(Self.schema).migrate(db)
        let rewrites = [
            // Quoting, keyword and identifier case, whitespace, comments.
            "create table \"note\" (\n  \"id\" integer primary key,\n  \"title\" text not null -- the heading\n);",
            "CREATE TABLE [Note](ID INTEGER PRIMARY KEY, `title` TEXT NOT NULL); /* v2 */",
        ]
        for rewrite in rewrites {
            let status = try migrator(rewrite).status(db)
            #expect(status.checksumMismatches.isEmpty, "\(rewrite)")
            #expect(status.pending.isEmpty)
            #expect(try migrator(rewrite).migrate(db) == [])
        }
    }

    @Test func realChangesAreEdits() throws {
        let db = try Database(inMemory: Configuration())
        try migrator(Self.schema).migrate(db)
        let edits = [
            "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT);",  // NOT NULL dropped
            "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT 'x');",
            "CREATE TABLE note(id INTEGER PRIMARY KEY, title INT NOT NULL);",
            "CREATE TABLE note(id INTEGER PRIMARY KEY, titles TEXT NOT NULL);",
        ]
        for edit in edits {
            let status = try migrator(edit).status(db)
            #expect(status.checksumMismatches.map(\.identifier) == ["0001_notes"], "\(edit)")
        }
        // A string literal's case counts.
        #expect(
            Migration("a", schema: "CREATE TABLE t(a TEXT DEFAULT 'X');").checksum
                != Migration("a", schema: "CREATE TABLE t(a TEXT DEFAULT 'x');").checksum)
    }

    /// A ledger row written by main's code (the text checksum) is still accepted for the same text.
    @Test func ledgerWrittenByTheEarlierVersionStillMigrates() throws {
        #expect(Migration("x", sql: Self.schema).checksum == Self.checksumWrittenByMain)
        let db = try Database(inMemory: Configuration())
        try migrator(Self.schema).migrate(db)
        try db.execute(
            sql: "UPDATE strata_migrations SET checksum = ? WHERE identifier = '0001_notes'",
            arguments: [Self.checksumWrittenByMain])
        var next = migrator(Self.schema)
        next.register(Migration("0002_more", sql: "CREATE TABLE more(x);"))
        #expect(try next.status(db).checksumMismatches.isEmpty)
        #expect(try next.migrate(db) == ["0002_more"])
        #expect(Migration("0001_notes", schema: Self.schema).acceptsRecordedChecksum(Self.checksumWrittenByMain))
        #expect(!Migration("0001_notes", schema: Self.schema + " ").checksum!.isEmpty)
        // The text rule accepts only the same text (up to line ends and trailing blanks): that
        // ledger row cannot tell an equivalent rewrite from an edit.
        #expect(
            !Migration("0001_notes", schema: "create table note(id integer primary key, title text not null);")
                .acceptsRecordedChecksum(Self.checksumWrittenByMain))
    }

    @Test func aSchemaDefinitionMigrationIsChecksummedOnItsNormalizedSQL() throws {
        var schema = SchemaDefinition()
        schema.table("note") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("title", .text).notNull()
        }
        let migration = Migration("0001_notes", schema: schema)
        #expect(migration.sql == schema.sql)
        #expect(migration.checksum == Migration("0001_notes", schema: schema.sql.lowercased()).checksum)
        let db = try Database(inMemory: Configuration())
        var migrator = Migrator()
        migrator.register(migration)
        #expect(try migrator.migrate(db) == ["0001_notes"])
        #expect(try db.fetchColumn(String.self, sql: "SELECT name FROM pragma_table_info('note')") == ["id", "title"])
    }
}
