import Foundation
import StrataSQLite
import Testing

@Suite("SQL interpolation")
struct SQLLiteralTests {
    @Test func valuesBecomeArguments() {
        let title = "it's"
        let id: Int64? = 42
        let literal: SQLLiteral = "UPDATE note SET title = \(title), deleted = \(nil as Int?) WHERE id = \(id)"
        #expect(literal.sql == "UPDATE note SET title = ?, deleted = ? WHERE id = ?")
        #expect(literal.arguments == ["it's", nil, 42])
        #expect(literal.description == "UPDATE note SET title = ?, deleted = ? WHERE id = ? ['it''s', NULL, 42]")
    }

    @Test func injectionAttemptStaysAValue() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE x(v TEXT); CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT)")
        let hostile = "'); DROP TABLE x; --"
        try db.execute(literal: "INSERT INTO note(title) VALUES (\(hostile))")
        try db.execute(literal: "UPDATE note SET title = \(hostile + "!") WHERE title = \(hostile)")
        #expect(try db.fetchValue(String.self, literal: "SELECT title FROM note WHERE id = \(1)") == hostile + "!")
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'x'") == 1)
        let pattern = "%DROP%"
        #expect(try db.fetchAll(literal: "SELECT * FROM note WHERE title LIKE \(pattern)").count == 1)
        #expect(try db.fetchOne(literal: "SELECT * FROM note WHERE title = \(hostile)") == nil)
    }

    @Test func identifiersAreQuoted() throws {
        let db = try Database(inMemory: Configuration())
        let table = "order"  // a keyword
        let column = #"we"ird col"#
        try db.execute(literal: "CREATE TABLE \(identifier: table)(\(identifier: column) TEXT)")
        try db.execute(literal: "INSERT INTO \(identifier: table) VALUES (\("a"))")
        let literal: SQLLiteral = "SELECT \(identifier: column) FROM \(identifier: table)"
        #expect(literal.sql == #"SELECT "we""ird col" FROM "order""#)
        #expect(try db.fetchColumn(String.self, literal: literal) == ["a"])
        #expect(SQLLiteral.quote(identifier: "x") == #""x""#)
    }

    @Test func listsNestedLiteralsAndRawSQL() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t(v) VALUES ('a'), ('b'), ('c')")
        let ids: [Int64] = [1, 3]
        #expect(
            try db.fetchColumn(String.self, literal: "SELECT v FROM t WHERE id IN \(values: ids) ORDER BY id") == [
                "a", "c",
            ])
        #expect(try db.fetchColumn(String.self, literal: "SELECT v FROM t WHERE id IN \(values: [Int]())").isEmpty)
        let condition: SQLLiteral = "v > \("a")"
        let order = "DESC"
        let query: SQLLiteral = "SELECT v FROM t WHERE \(literal: condition) AND id < \(10) ORDER BY v \(sql: order)"
        #expect(query.sql == "SELECT v FROM t WHERE v > ? AND id < ? ORDER BY v DESC")
        #expect(query.arguments == ["a", 10])
        #expect(try db.fetchColumn(String.self, literal: query) == ["c", "b"])

        var built: SQLLiteral = "SELECT v FROM t"
        built.append(" WHERE id = \(2)")
        #expect(try db.fetchValue(String.self, literal: built) == "b")
        #expect((built + " AND v = \("b")").arguments == [2, "b"])
        let existential: any SQLValueConvertible = 3
        #expect(try db.fetchValue(String.self, literal: "SELECT v FROM t WHERE id = \(existential)") == "c")
        #expect(try db.fetchCursor(literal: "SELECT v FROM t WHERE id > \(1)").collect().count == 2)
    }

    @Test func valuesOfEveryConvertibleType() throws {
        let db = try Database(inMemory: Configuration())
        let date = utc(2024, 5, 1)
        let uuid = UUID()
        let row = try #require(
            try db.fetchOne(
                literal: """
                    SELECT \(date) AS d, \(uuid) AS u, \(Data([1])) AS b, \([UInt8]([2])) AS a, \(Color.green) AS c, \(2.5) AS r
                    """))
        #expect(try row["d"] as Date == date)
        #expect(try row["u"] as UUID == uuid)
        #expect(row.values[2] == .blob([1]) && row.values[3] == .blob([2]))
        #expect(try row["c"] as Color == .green)
    }

    @Test func recordFetchesWithLiterals() throws {
        let db = try recordDatabase()
        let notes = try [Note.make("milk"), Note.make("bread"), Note.make("milkshake")].map { try $0.inserted(db) }
        let pattern = "milk%"
        #expect(
            try Note.fetchAll(db, literal: "SELECT * FROM note WHERE title LIKE \(pattern) ORDER BY id") == [
                notes[0], notes[2],
            ])
        #expect(try Note.fetchOne(db, literal: "SELECT * FROM note WHERE title = \("bread")") == notes[1])
        #expect(try Note.fetchCursor(db, literal: "SELECT * FROM note WHERE id > \(1)").collect().count == 2)
        #expect(try db.fetchAll(Note.self, literal: "SELECT * FROM note WHERE id = \(notes[2].id)") == [notes[2]])
        #expect(try db.fetchOne(Note.self, literal: "SELECT * FROM note WHERE id = \(2)") == notes[1])
        #expect(try db.fetchCursor(Note.self, literal: "SELECT * FROM note").collect() == notes)
    }
}
