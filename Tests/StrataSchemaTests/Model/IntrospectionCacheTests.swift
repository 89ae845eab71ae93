import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// The live schema's introspection is kept per object, keyed by the `sqlite_master` rows it
/// derives from (`IntrospectionCache`, issue 30): a read through the cache must always equal a
/// read through the PRAGMAs, whatever changed the schema in between (this connection, another
/// one, another process, a replaced file), and a plan must always see the live schema.
@Suite("Introspection cache")
struct IntrospectionCacheTests {
    static let schema = """
        CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE book(id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES author(id), title TEXT NOT NULL);
        CREATE INDEX book_author ON book(author_id);
        CREATE UNIQUE INDEX book_title ON book(title) WHERE title <> '';
        CREATE VIEW titles AS SELECT title FROM book;
        CREATE TRIGGER book_check BEFORE INSERT ON book BEGIN SELECT 1; END;
        """

    /// The schema read through `cache`, checked against a read with no cache at all.
    @discardableResult
    func readChecked(
        _ db: Database, cache: IntrospectionCache = .shared, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> DatabaseSchema {
        let cached = try SchemaReader(db: db, cache: cache).read()
        let fresh = try SchemaReader(db: db, cache: nil).read()
        #expect(cached == fresh, "the cached read differs from the PRAGMAs", sourceLocation: sourceLocation)
        #expect(
            cached.tables == fresh.tables && cached.indexes == fresh.indexes, sourceLocation: sourceLocation)
        let dependents = try SchemaReader(db: db, cache: cache).readDependentObjects()
        #expect(
            dependents.indexes == fresh.indexes && dependents.views == fresh.views
                && dependents.triggers == fresh.triggers, sourceLocation: sourceLocation)
        return cached
    }

    @Test func aSecondReadIsServedAndEqual() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: Self.schema)
        let cache = IntrospectionCache()
        let first = try readChecked(db, cache: cache)
        #expect(cache.reads == 4 && cache.count == 4, "two tables and two indexes read once and kept")
        let second = try readChecked(db, cache: cache)
        #expect(second == first)
        #expect(cache.reads == 4, "the second read and both readDependentObjects: every object served")
    }

    @Test func oneChangedTableReadsOnlyThatTableAndItsIndexes() throws {
        let db = try Database(inMemory: Configuration())
        var tables = ""
        for i in 0..<12 {
            tables += "CREATE TABLE t\(i)(id INTEGER PRIMARY KEY, a TEXT, b INTEGER);\n"
            tables += "CREATE INDEX t\(i)_a ON t\(i)(a);\n"
        }
        try db.execute(sql: tables)
        let cache = IntrospectionCache()
        try SchemaReader(db: db, cache: cache).read()
        #expect(cache.reads == 24)
        try db.execute(sql: "ALTER TABLE t5 ADD COLUMN c REAL NOT NULL DEFAULT 0")
        let schema = try readChecked(db, cache: cache)
        // One table and its index read again (the index is keyed by its table's row too); the
        // uncached read of readChecked does not count.
        #expect(cache.reads == 24 + 2, "t5 and t5_a only")
        #expect(schema.table(named: "t5")?.columns.map(\.name) == ["id", "a", "b", "c"])
        #expect(schema.table(named: "t5")?.column(named: "c")?.isNotNull == true)
    }

    @Test func aChangeThroughAnotherConnectionIsSeen() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        let db = try Database(path: path)
        let other = try Database(path: path)
        try db.execute(sql: Self.schema)
        try readChecked(db)
        // Each change through the other connection, then a read and a plan on the first.
        let changes = [
            "ALTER TABLE book ADD COLUMN pages INTEGER",
            "DROP INDEX book_author",
            "CREATE INDEX book_author ON book(author_id, title)",
            // The same name, another table: the index texts stay, their table's columns change.
            """
            DROP VIEW titles; DROP TABLE book;
            CREATE TABLE book(ID INTEGER PRIMARY KEY, AUTHOR_ID INTEGER, TITLE TEXT);
            CREATE INDEX book_author ON book(author_id);
            """,
            "ALTER TABLE book RENAME COLUMN TITLE TO heading",
            "ALTER TABLE author RENAME TO writer",
        ]
        for change in changes {
            try other.execute(sql: change)
            let schema = try readChecked(db)
            let otherSchema = try SchemaReader(db: other, cache: nil).read()
            #expect(schema == otherSchema, "after \(change)")
        }
        let book = try #require(try readChecked(db).table(named: "book"))
        #expect(book.columns.map(\.name) == ["ID", "AUTHOR_ID", "heading"])
        #expect(try readChecked(db).index(named: "book_author")?.columns == ["AUTHOR_ID"])
    }

    @Test func aPlanSeesEveryChangeOfAnotherConnection() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        let db = try Database(path: path)
        let other = try Database(path: path)
        try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT)")
        let desired = "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL);"
        #expect(try db.planSchemaChange(to: desired).steps.map(\.kind) == [.addColumn])
        #expect(try db.planSchemaChange(to: desired).steps.map(\.kind) == [.addColumn])
        try other.execute(sql: "ALTER TABLE item ADD COLUMN price REAL")
        #expect(try db.planSchemaChange(to: desired).isEmpty)
        // The same name and the same columns by name, another declared type.
        try other.execute(sql: "DROP TABLE item; CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price TEXT)")
        let retyped = try db.planSchemaChange(to: desired)
        #expect(retyped.steps.map(\.kind) == [.rebuildTable], "\(retyped.summary)")
        try other.execute(sql: "DROP TABLE item; CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL)")
        #expect(try db.planSchemaChange(to: desired).isEmpty)
    }

    @Test func aChangeByAnotherProcessIsSeen() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        let db = try Database(path: path)
        try db.execute(sql: Self.schema)
        let desired = Self.schema + "\nCREATE TABLE review(id INTEGER PRIMARY KEY, book_id INTEGER, stars INTEGER);"
        #expect(try db.planSchemaChange(to: desired).steps.map(\.kind) == [.createTable])
        let schemaFile = dir.file("desired.sql")
        try desired.write(toFile: schemaFile, atomically: true, encoding: .utf8)
        let child = try ChildProcess.run("StrataTestHelper", ["apply-schema", path, schemaFile])
        try #require(child.status == 0, "\(child)")
        #expect(try db.planSchemaChange(to: desired).isEmpty)
        #expect(try readChecked(db).table(named: "review")?.columns.map(\.name) == ["id", "book_id", "stars"])
        // And back: the other process applies the first schema again (dropping the table).
        try Self.schema.write(toFile: schemaFile, atomically: true, encoding: .utf8)
        let back = try ChildProcess.run("StrataTestHelper", ["apply-schema", path, schemaFile])
        try #require(back.status == 0, "\(back)")
        #expect(try db.planSchemaChange(to: desired).steps.map(\.kind) == [.createTable])
    }

    @Test func aReplacedFileWithTheSameSchemaVersionIsRead() throws {
        let dir = TemporaryDirectory()
        let first = dir.file("first.sqlite")
        let second = dir.file("second.sqlite")
        // Two files, the same table and index names and the same schema_version, other columns.
        for (path, sql) in [
            (first, "CREATE TABLE t(a TEXT, b INTEGER); CREATE INDEX t_a ON t(a);"),
            (second, "CREATE TABLE t(a INTEGER NOT NULL, c BLOB); CREATE INDEX t_a ON t(a, c);"),
        ] {
            let db = try Database(path: path)
            try db.execute(sql: sql)
            try db.execute(sql: "PRAGMA schema_version = 7")
            db.close()
        }
        var db = try Database(path: first)
        let before = try readChecked(db)
        #expect(before.table(named: "t")?.columns.map(\.name) == ["a", "b"])
        db.close()
        try FileManager.default.removeItem(atPath: first)
        try FileManager.default.copyItem(atPath: second, toPath: first)
        db = try Database(path: first)
        #expect(try db.fetchValue(Int.self, sql: "PRAGMA schema_version") == 7)
        let after = try readChecked(db)
        #expect(after.table(named: "t")?.columns.map(\.name) == ["a", "c"])
        #expect(after.table(named: "t")?.column(named: "a")?.isNotNull == true)
        #expect(after.index(named: "t_a")?.columns == ["a", "c"])
        // The plan back to the first file's schema sees the second's columns.
        let plan = try db.planSchemaChange(
            to: "CREATE TABLE t(a TEXT, b INTEGER); CREATE INDEX t_a ON t(a);",
            options: SchemaChangeOptions(allowDestructive: true))
        #expect(plan.destructiveChanges.contains { $0.contains("t.c") }, "\(plan.summary)")
    }

    @Test func theSameTextInTwoDatabasesGivesEachItsOwnSchema() throws {
        let cache = IntrospectionCache()
        let one = try Database(inMemory: Configuration())
        let two = try Database(inMemory: Configuration())
        try one.execute(sql: "CREATE TABLE t(a, b); CREATE INDEX i ON t(a);")
        try two.execute(sql: "CREATE TABLE t(a, b); CREATE INDEX i ON t(b);")
        let first = try readChecked(one, cache: cache)
        let second = try readChecked(two, cache: cache)
        #expect(first.tables == second.tables, "the same text: the same table")
        #expect(first.index(named: "i")?.columns == ["a"])
        #expect(second.index(named: "i")?.columns == ["b"])
        // A table of the same text in a file whose other objects differ.
        try two.execute(sql: "CREATE TABLE u(x TEXT)")
        #expect(try readChecked(two, cache: cache).tables.map(\.name) == ["t", "u"])
    }

    @Test func aRowThatDisagreesWithItsTextIsNeverKept() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(a, b); CREATE INDEX i ON t(a); CREATE TABLE other(x)")
        // Rows rewritten behind SQLite's back: the table row names `u` but its text creates `t`,
        // the index row names table `other` but its text is on `t`.
        try db.execute(sql: "PRAGMA writable_schema = ON")
        #expect(db.isSchemaWritable == true)
        try db.execute(sql: "UPDATE sqlite_master SET name = 'u', tbl_name = 'u' WHERE name = 't'")
        try db.execute(sql: "UPDATE sqlite_master SET tbl_name = 'other' WHERE name = 'i'")
        let version = try #require(try db.fetchValue(Int.self, sql: "PRAGMA schema_version"))
        try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
        let cache = IntrospectionCache()
        // While writable_schema is on nothing is kept.
        _ = try SchemaReader(db: db, cache: cache).read()
        #expect(cache.count == 0)
        try db.execute(sql: "PRAGMA writable_schema = OFF")
        #expect(db.isSchemaWritable == false)
        try readChecked(db, cache: cache)
        try readChecked(db, cache: cache)
        // Only `other` is kept: the rows of `u` and `i` do not say what SQLite built from them.
        #expect(cache.count == 1)
    }

    @Test func writableSchemaIsToldWithoutAQuery() throws {
        let db = try Database(inMemory: Configuration())
        #expect(db.isSchemaWritable == false)
        try db.execute(sql: "PRAGMA writable_schema = ON")
        #expect(db.isSchemaWritable == true)
        try db.execute(sql: "PRAGMA writable_schema = OFF")
        #expect(db.isSchemaWritable == false)
        db.close()
        #expect(db.isSchemaWritable == nil)
    }

    @Test func virtualTablesAndTheirShadowTablesAreReadEachTime() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);
                CREATE VIRTUAL TABLE search USING fts5(body);
                CREATE TABLE search_extra(x);
                """)
        let cache = IntrospectionCache()
        let first = try readChecked(db, cache: cache)
        #expect(first.tables.map(\.name) == ["note", "search", "search_extra"], "no shadow tables")
        try db.execute(sql: "DROP TABLE search")
        let second = try readChecked(db, cache: cache)
        #expect(second.tables.map(\.name) == ["note", "search_extra"])
        // A table named like a shadow table with no virtual table is the user's.
        try db.execute(sql: "CREATE TABLE search_content(id INTEGER PRIMARY KEY, c0)")
        #expect(try readChecked(db, cache: cache).table(named: "search_content") != nil)
    }

    @Test func aBoundedCacheStaysCorrectWhenItEmpties() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: Self.schema)
        let cache = IntrospectionCache(limit: 3)
        for _ in 0..<3 {
            try readChecked(db, cache: cache)
            #expect(cache.count <= 3)
        }
        let tiny = IntrospectionCache(byteLimit: 10)
        try readChecked(db, cache: tiny)
        #expect(tiny.count == 0, "no row fits in 10 bytes")
    }

    @Test func aReadInsideATransactionSeesItsOwnChanges() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: Self.schema)
        let cache = IntrospectionCache()
        try readChecked(db, cache: cache)
        try db.execute(sql: "BEGIN")
        try db.execute(sql: "ALTER TABLE author ADD COLUMN born TEXT")
        #expect(try readChecked(db, cache: cache).table(named: "author")?.columns.count == 3)
        try db.execute(sql: "ROLLBACK")
        #expect(try readChecked(db, cache: cache).table(named: "author")?.columns.count == 2, "rolled back")
    }

    @Test func aConnectionThatMayNotBeginATransactionIsReadAsBefore() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: Self.schema)
        db.setAuthorizer { $0.action == .transaction ? .deny : .allow }
        let cache = IntrospectionCache()
        // Each read misses (nothing can be kept without a snapshot), and succeeds.
        for _ in 0..<2 {
            let schema = try SchemaReader(db: db, cache: cache).read()
            #expect(schema == (try SchemaReader(db: db, cache: nil).read()))
            #expect(schema.tables.map(\.name) == ["author", "book"])
        }
        #expect(cache.count == 0)
        #expect(!db.isInTransaction)
        db.setAuthorizer(nil)
        try readChecked(db, cache: cache)
        #expect(cache.count == 4)
    }

    @Test func aReadOfATableByNameIsCheckedToo() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: Self.schema)
        let cache = IntrospectionCache()
        try db.transaction {
            let reader = SchemaReader(db: db, cache: cache)
            let first = try #require(try reader.readTable(named: "book"))
            try db.execute(sql: "ALTER TABLE book ADD COLUMN pages INTEGER")
            let second = try #require(try reader.readTable(named: "BOOK"))
            #expect(first.columns.count == 3 && second.columns.count == 4)
            #expect(second == (try SchemaReader(db: db, cache: nil).readTable(named: "book")))
        }
    }
}
