import StrataSQLite
import Testing

@Suite struct ForeignKeyViolationTests {
    @Test func reportsViolationsForTheDatabaseAndForOneTable() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: #"""
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
        #expect(Set(try db.foreignKeyViolations()) == [
            expectedChild, ForeignKeyViolation(table: "other", rowid: 3, parent: "parent", foreignKeyIndex: 0),
        ])
        #expect(expectedChild.description == "table odd \"child\" rowid 8 references a missing row of parent")
        #expect(throws: SQLiteError.self) { try db.foreignKeyViolations(in: "missing") }
    }
}

@Suite struct ForeignKeysOffTests {
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
