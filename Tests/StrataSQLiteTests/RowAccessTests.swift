import Foundation
import StrataSQLite
import Testing

@Suite("Typed row access")
struct RowAccessTests {
    static let sql = "SELECT 42 AS i, 1.5 AS r, 2.0 AS r2, 'txt' AS s, X'0102' AS b, NULL AS n, 1 AS t, 0 AS f, '' AS e"

    func row() throws -> Row {
        let db = try Database(inMemory: Configuration())
        return try #require(try db.fetchOne(sql: Self.sql))
    }

    /// Checks `column` decodes to `expected` as `T`, by name and by index.
    func expectValue<T: SQLValueConvertible & Equatable>(
        _ row: some RowReader, _ column: String, _ expected: T, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let index = try #require(row.index(ofColumn: column), sourceLocation: sourceLocation)
        #expect(
            try row.decode(T.self, named: column) == expected, "\(column) as \(T.self)", sourceLocation: sourceLocation)
        #expect(try row.decode(T.self, at: index) == expected, "#\(index) as \(T.self)", sourceLocation: sourceLocation)
        #expect(try row[column] as T == expected, sourceLocation: sourceLocation)
        #expect(try row[index] as T == expected, sourceLocation: sourceLocation)
    }

    @Test func conversions() throws {
        let row = try row()
        try expectValue(row, "i", 42 as Int)
        try expectValue(row, "i", 42 as Int64)
        try expectValue(row, "i", 42 as Int32)
        try expectValue(row, "i", 42.0 as Double)
        try expectValue(row, "r", 1.5 as Double)
        try expectValue(row, "r2", 2 as Int)  // an exact integral real converts
        try expectValue(row, "s", "txt")
        try expectValue(row, "e", "")
        try expectValue(row, "b", Data([1, 2]))
        try expectValue(row, "b", [UInt8]([1, 2]))
        try expectValue(row, "t", true)
        try expectValue(row, "f", false)
        try expectValue(row, "i", SQLValue.integer(42))
        try expectValue(row, "n", SQLValue.null)
    }

    @Test func optionals() throws {
        let row = try row()
        try expectValue(row, "n", Int?.none)
        try expectValue(row, "n", Int64?.none)
        try expectValue(row, "n", Double?.none)
        try expectValue(row, "n", String?.none)
        try expectValue(row, "n", Bool?.none)
        try expectValue(row, "n", Data?.none)
        try expectValue(row, "n", [UInt8]?.none)
        try expectValue(row, "i", Int?.some(42))
        try expectValue(row, "i", Int64?.some(42))
        try expectValue(row, "r", Double?.some(1.5))
        try expectValue(row, "s", String?.some("txt"))
        try expectValue(row, "t", Bool?.some(true))
        try expectValue(row, "b", Data?.some(Data([1, 2])))
        try expectValue(row, "b", [UInt8]?.some([1, 2]))
    }

    @Test func namesAreCaseInsensitiveAndLeftmostWins() throws {
        let db = try Database(inMemory: Configuration())
        let row = try #require(try db.fetchOne(sql: "SELECT 1 AS Name, 2 AS name, 3 AS other"))
        #expect(try row["Name"] as Int == 1)
        #expect(try row["name"] as Int == 2)  // an exact match wins over a case-insensitive one
        #expect(try row["NAME"] as Int == 1)  // otherwise the leftmost
        #expect(try row["OTHER"] as Int == 3)
        #expect(row.hasColumn("other"))
        #expect(!row.hasColumn("missing"))
        #expect(row.value(named: "missing") == nil)
    }

    struct MismatchCase: Sendable, CustomTestStringConvertible {
        var column: String
        var read: @Sendable (Row) throws -> Void
        var message: String
        var testDescription: String { message }
    }

    static let mismatches: [MismatchCase] = [
        MismatchCase(
            column: "s", read: { _ = try $0["s"] as Int },
            message: "column \"s\" holds text 'txt', which does not convert to Int"),
        MismatchCase(
            column: "r", read: { _ = try $0["r"] as Int },
            message: "column \"r\" holds real 1.5, which does not convert to Int"),
        MismatchCase(
            column: "i", read: { _ = try $0["i"] as String },
            message: "column \"i\" holds integer 42, which does not convert to String"),
        MismatchCase(
            column: "b", read: { _ = try $0["b"] as String },
            message: "column \"b\" holds blob X'0102', which does not convert to String (a blob, or text that is not "
                + "valid UTF-8, which a String cannot hold: read it as Data or [UInt8])"),
        MismatchCase(
            column: "s", read: { _ = try $0["s"] as Data },
            message: "column \"s\" holds text 'txt', which does not convert to Data"),
        MismatchCase(
            column: "s", read: { _ = try $0["s"] as Bool },
            message: "column \"s\" holds text 'txt', which does not convert to Bool"),
        MismatchCase(
            column: "i", read: { _ = try $0["i"] as [UInt8] },
            message: "column \"i\" holds integer 42, which does not convert to Array<UInt8>"),
        MismatchCase(
            column: "s", read: { _ = try $0["s"] as Double? },
            message: "column \"s\" holds text 'txt', which does not convert to Optional<Double>"),
        MismatchCase(
            column: "n", read: { _ = try $0["n"] as Int },
            message: "column \"n\" is NULL, which does not convert to Int (read it as Optional<Int> if it may be NULL)"),
        MismatchCase(
            column: "#3", read: { _ = try $0[3] as Int },
            message: "column #3 \"s\" holds text 'txt', which does not convert to Int"),
    ]

    @Test(arguments: mismatches)
    func typeMismatch(_ c: MismatchCase) throws {
        let row = try row()
        let error = try #require(throws: RowDecodingError.self) { try c.read(row) }
        #expect(error.code == .typeMismatch)
        #expect(error.description == c.message + " - from `\(Self.sql)`")
    }

    @Test func int32OutOfRangeIsAMismatch() throws {
        let db = try Database(inMemory: Configuration())
        let row = try #require(try db.fetchOne(sql: "SELECT 4294967296 AS big"))
        let error = try #require(throws: RowDecodingError.self) { try row["big"] as Int32 }
        #expect(
            error.description
                == "column \"big\" holds integer 4294967296, which does not convert to Int32 - from `SELECT 4294967296 AS big`"
        )
    }

    @Test func unknownColumn() throws {
        let row = try row()
        let byName = try #require(throws: RowDecodingError.self) { try row["nope"] as Int }
        #expect(byName.code == .columnNotFound)
        #expect(
            byName.description == """
                no column "nope" in row (columns: "i", "r", "r2", "s", "b", "n", "t", "f", "e") - from `\(Self.sql)`
                """)
        let byIndex = try #require(throws: RowDecodingError.self) { try row[9] as Int? }
        #expect(byIndex.code == .columnNotFound)
        #expect(byIndex.column == "#9")
        #expect(byIndex.description.hasPrefix("no column #9 in row (columns: \"i\""))
        #expect(throws: RowDecodingError.self) { try row[-1] as Int }
    }

    @Test func statementRowsReadInPlace() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(id INTEGER, name TEXT); INSERT INTO t VALUES (1, 'a'), (2, NULL)")
        let stmt = try db.makeStatement(sql: "SELECT id, name FROM t ORDER BY id")
        var seen: [Row] = []
        var names: [String?] = []
        try stmt.forEachRow { row in
            try expectValue(row, "id", Int64(seen.count + 1))
            names.append(try row["name"])
            seen.append(row.copy())
        }
        #expect(names == ["a", nil])
        #expect(seen == [["id": 1, "name": "a"], ["id": 2, "name": nil]])
        let error = try #require(throws: RowDecodingError.self) {
            try stmt.forEachRow { row in _ = try row["nme"] as String }
        }
        #expect(
            error.description
                == "no column \"nme\" in row (columns: \"id\", \"name\") - from `SELECT id, name FROM t ORDER BY id`")
    }

    /// A row read in place resolves the statement's columns once per run: after the run's first
    /// step, so a statement SQLite recompiled for a changed schema is read with its new columns.
    @Test func statementRowsFollowARecompiledStatement() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1)")
        let stmt = try db.makeStatement(sql: "SELECT * FROM t")
        var seen: [[String]] = []
        try stmt.forEachRow { (row: StatementRow) throws in
            seen.append(row.columnNames)
            #expect(row.columnCount == 1)
            #expect(try row["a"] as Int64 == 1)
            #expect(row.index(ofColumn: "b") == nil)
        }
        try db.execute(sql: "ALTER TABLE t ADD COLUMN b TEXT DEFAULT 'x'")
        // Prepared before the change: its first step recompiles it with the new column.
        try stmt.forEachRow { (row: StatementRow) throws in
            seen.append(row.columnNames)
            #expect(row.columnCount == 2)
            #expect(try row["b"] as String == "x")
            #expect(try row["B"] as String == "x")
            #expect(try row[1] as String == "x")
        }
        #expect(seen == [["a"], ["a", "b"]])
        // No row: the body is never called, and the statement is left reset for its next run.
        try db.execute(sql: "DELETE FROM t")
        var calls = 0
        try stmt.forEachRow { _ in calls += 1 }
        #expect(calls == 0)
        try db.execute(sql: "INSERT INTO t VALUES (2, 'y')")
        try stmt.forEachRow { (row: StatementRow) throws in
            calls += 1
            #expect(try row["a"] as Int64 == 2)
        }
        #expect(calls == 1)
    }

    @Test func rowsAreValues() throws {
        let db = try Database(inMemory: Configuration())
        let a = try #require(try db.fetchOne(sql: "SELECT 1 AS id, 'x' AS name"))
        let b = try #require(try db.fetchOne(sql: "SELECT 1 AS id, 'x' AS name -- other SQL"))
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a == ["id": 1, "name": "x"])
        #expect(a != ["name": "x", "id": 1])
        #expect(a == Row(["id": .integer(1), "name": .text("x")]))
        #expect(a.description == "[id: 1, name: 'x']")
        #expect(Set([a, b]).count == 1)
    }

    @Test func fetchHelpers() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (3), (1), (NULL)")
        #expect(try db.fetchColumn(Int?.self, sql: "SELECT x FROM t ORDER BY x") == [nil, 1, 3])
        #expect(try db.fetchValue(Int.self, sql: "SELECT max(x) FROM t") == 3)
        #expect(try db.fetchValue(Int.self, sql: "SELECT max(x) FROM t WHERE x > 100") == nil)  // NULL
        #expect(try db.fetchValue(Int.self, sql: "SELECT x FROM t WHERE 0") == nil)  // no row
        #expect(try db.fetchValue(SQLValue.self, sql: "SELECT NULL") == .null)  // SQLValue holds NULL
        #expect(try db.fetchValue(SQLValue.self, sql: "SELECT 1 WHERE 0") == nil)
        #expect(try db.fetchAll(sql: "SELECT x FROM t WHERE x IS NOT NULL ORDER BY x") == [["x": 1], ["x": 3]])
        #expect(try db.fetchOne(sql: "SELECT x FROM t WHERE 0") == nil)
        let error = try #require(throws: RowDecodingError.self) {
            try db.fetchColumn(Int.self, sql: "SELECT x FROM t ORDER BY x")
        }
        #expect(error.description.hasPrefix("column #0 \"x\" is NULL, which does not convert to Int"))
    }
}
