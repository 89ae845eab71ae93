import Foundation
import StrataSQLite
import Testing

/// The fetch loops decode `Decodable` records straight from the statement after the first row:
/// the results and errors must be those of `init(row:)`.
@Suite("Record fetch fast path")
struct RecordFastPathTests {
    /// Counts its `init(row:)` calls: a Decodable record with its own initializer.
    struct Counted: Decodable, FetchableRecord {
        nonisolated(unsafe) static var calls = 0
        var value: Int
        init(row: Row) throws {
            Counted.calls += 1
            value = try row["value"] * 10
        }
    }

    @Test func ownInitRowIsCalledForEveryRow() throws {
        let db = try Database(inMemory: Configuration())
        Counted.calls = 0
        let sql =
            "WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 50) SELECT value FROM n"
        #expect(try Counted.fetchAll(db, sql: sql).map(\.value) == (1...50).map { $0 * 10 })
        #expect(try Counted.fetchCursor(db, sql: sql).collect().count == 50)
        #expect(Counted.calls == 100)
    }

    @Test func errorsAfterTheFirstRowNameTypeColumnAndValue() throws {
        struct Item: Decodable, FetchableRecord {
            var id: Int
            var name: String
            var when: Date
        }
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE item(id INTEGER, name TEXT, "when" TEXT);
                INSERT INTO item VALUES (1, 'a', '2024-01-01'), (2, 'b', '2024-01-02'), (3, NULL, '2024-01-03'),
                    (4, 'd', 'soon'), (5, 'e', '2024-01-05'), ('six', 'f', '2024-01-06');
                """)
        let null = #expect(throws: RowDecodingError.self) { _ = try Item.fetchAll(db, sql: "SELECT * FROM item") }
        #expect(
            null?.description == #"Item: column "name" is NULL, which does not convert to String "#
                + #"(read it as Optional<String> if it may be NULL) - from `SELECT * FROM item`"#)
        let date = #expect(throws: RowDecodingError.self) {
            _ = try Item.fetchAll(db, sql: "SELECT * FROM item WHERE id <> 3")
        }
        #expect(
            date?.description == #"Item: column "when" holds text 'soon', which does not convert to Date - "#
                + "from `SELECT * FROM item WHERE id <> 3`")
        let text = #expect(throws: RowDecodingError.self) {
            _ = try Item.fetchAll(db, sql: "SELECT * FROM item WHERE id NOT IN (3, 4)")
        }
        #expect(text?.value == "six")
        #expect(text?.recordType == "Item")

        let cursor = try Item.fetchCursor(db, sql: "SELECT * FROM item")
        #expect(try cursor.next()?.name == "a")
        #expect(try cursor.next()?.name == "b")
        #expect(throws: RowDecodingError.self) { _ = try cursor.next() }
    }

    @Test func columnsInAnotherOrderAndMissingOptionalColumns() throws {
        struct Item: Decodable, FetchableRecord, Equatable {
            var id: Int
            var note: String?
            var score: Double?
        }
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql:
                "CREATE TABLE item(score REAL, id INTEGER, extra); INSERT INTO item VALUES (1.5, 1, 'x'), (NULL, 2, 'y'), (3, 3, 'z')"
        )
        #expect(
            try Item.fetchAll(db, sql: "SELECT * FROM item") == [
                Item(id: 1, note: nil, score: 1.5), Item(id: 2, note: nil, score: nil),
                Item(id: 3, note: nil, score: 3),
            ])
        // The same statement again: the plan is already there, the first row included.
        #expect(try Item.fetchAll(db, sql: "SELECT * FROM item").count == 3)
    }

    @Test func schemaChangeBetweenFetchesOfTheSameStatement() throws {
        struct Item: Decodable, FetchableRecord, Equatable {
            var a: Int
            var b: String
        }
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE item(a INTEGER, b TEXT); INSERT INTO item VALUES (1, 'x'), (2, 'y')")
        #expect(try Item.fetchAll(db, sql: "SELECT * FROM item") == [Item(a: 1, b: "x"), Item(a: 2, b: "y")])
        // SELECT * now returns the columns in another order: the cached statement is recompiled.
        try db.execute(
            sql: """
                CREATE TABLE item2(b TEXT, a INTEGER); INSERT INTO item2 SELECT b, a FROM item;
                DROP TABLE item; ALTER TABLE item2 RENAME TO item
                """)
        #expect(try Item.fetchAll(db, sql: "SELECT * FROM item") == [Item(a: 1, b: "x"), Item(a: 2, b: "y")])
    }
}
