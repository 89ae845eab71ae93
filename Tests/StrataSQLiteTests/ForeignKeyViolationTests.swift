import StrataSQLite
import Testing

@Suite("Foreign key violations")
struct ForeignKeyViolationTests {
    @Test func reportsViolationsForTheDatabaseAndForOneTable() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: #"""
                PRAGMA foreign_keys = OFF;
                CREATE TABLE parent(id INTEGER PRIMARY KEY);
                CREATE TABLE "odd ""child"""(id INTEGER PRIMARY KEY, p INTEGER REFERENCES parent(id));
                CREATE TABLE other(id INTEGER PRIMARY KEY, p INTEGER REFERENCES parent(id));
                INSERT INTO parent VALUES (1);
                INSERT INTO "odd ""child""" VALUES (7, 1), (8, 2);
                INSERT INTO other VALUES (3, 9);
                """#)
        let expectedChild = ForeignKeyViolation(table: "odd \"child\"", rowid: 8, parent: "parent", foreignKeyIndex: 0)
        #expect(try db.foreignKeyViolations(in: "odd \"child\"") == [expectedChild])
        #expect(
            Set(try db.foreignKeyViolations()) == [
                expectedChild, ForeignKeyViolation(table: "other", rowid: 3, parent: "parent", foreignKeyIndex: 0),
            ])
        #expect(expectedChild.description == "table odd \"child\" rowid 8 references a missing row of parent")
        #expect(throws: SQLiteError.self) { try db.foreignKeyViolations(in: "missing") }
    }

    /// SQLite reports a WITHOUT ROWID table's violations with a NULL rowid: Strata names each
    /// row by its primary key, so two violations in one table stay two.
    @Test func withoutRowIDViolationsNameThePrimaryKey() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: #"""
                PRAGMA foreign_keys = OFF;
                CREATE TABLE author(id INTEGER PRIMARY KEY);
                CREATE TABLE book(isbn TEXT PRIMARY KEY, author_id INTEGER REFERENCES author) WITHOUT ROWID;
                CREATE TABLE "line item"("order" INTEGER, n INTEGER, isbn TEXT, note TEXT,
                  PRIMARY KEY("order", n), FOREIGN KEY(isbn) REFERENCES book(isbn)) WITHOUT ROWID;
                CREATE TABLE orphan(k TEXT PRIMARY KEY, p INTEGER REFERENCES gone(id)) WITHOUT ROWID;
                INSERT INTO author VALUES (1);
                INSERT INTO book VALUES ('978-0', 1), ('978-1', 2), ('it''s', 3), ('no author', NULL);
                INSERT INTO "line item" VALUES (10, 1, '978-0', 'ok'), (10, 2, 'missing', 'x'), (11, 1, NULL, 'no book'),
                  (12, 7, 'also missing', 'y');
                INSERT INTO orphan VALUES ('a', 5), ('b', NULL);
                """#)
        typealias Key = ForeignKeyViolation.ColumnValue
        let books = try db.foreignKeyViolations(in: "book")
        #expect(
            books == [
                ForeignKeyViolation(
                    table: "book", rowid: nil, parent: "author", foreignKeyIndex: 0,
                    primaryKey: [Key(column: "isbn", value: "978-1")]),
                ForeignKeyViolation(
                    table: "book", rowid: nil, parent: "author", foreignKeyIndex: 0,
                    primaryKey: [Key(column: "isbn", value: "it's")]),
            ])
        #expect(
            books.map(\.description) == [
                "table book row with isbn = '978-1' references a missing row of author",
                "table book row with isbn = 'it''s' references a missing row of author",
            ])
        let items = try db.foreignKeyViolations(in: "line item")
        #expect(
            items.map(\.primaryKey) == [
                [Key(column: "order", value: 10), Key(column: "n", value: 2)],
                [Key(column: "order", value: 12), Key(column: "n", value: 7)],
            ])
        #expect(
            items.first?.description == "table line item row with order = 10, n = 2 references a missing row of book")
        // A parent table that does not exist: every row with a foreign key value is a violation.
        #expect(try db.foreignKeyViolations(in: "orphan").map(\.primaryKey) == [[Key(column: "k", value: "a")]])
        #expect(Set(try db.foreignKeyViolations()).count == 5)
    }
}

@Suite("Foreign keys turned off")
struct ForeignKeysOffTests {
    struct Failure: Error {}

    @Test func offDuringTheBodyAndRestoredOnEveryPath() throws {
        let db = try Database(inMemory: Configuration())
        let wereOn = try db.withForeignKeysOff { (wereOn: Bool) throws -> Bool in
            #expect(try db.foreignKeysEnabled() == false)
            return wereOn
        }
        #expect(wereOn)
        #expect(try db.foreignKeysEnabled())
        #expect(throws: Failure.self) { try db.withForeignKeysOff { _ in throw Failure() } }
        #expect(try db.foreignKeysEnabled())
    }

    @Test func insideATransactionEnforcementIsLeftAsItIs() throws {
        let db = try Database(inMemory: Configuration())
        try db.transaction {
            try db.withForeignKeysOff { (wereOn: Bool) throws in
                #expect(wereOn)
                #expect(try db.foreignKeysEnabled(), "PRAGMA foreign_keys is a no-op inside a transaction")
            }
        }
        #expect(try db.foreignKeysEnabled())
    }
}
