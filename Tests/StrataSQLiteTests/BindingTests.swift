import StrataSQLite
import Testing

@Suite("Parameter binding")
struct BindingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var sql: String
        var arguments: StatementArguments
        var expected: [SQLValue]
        var testDescription: String { "\(sql) \(arguments)" }
    }

    static let cases: [Case] = [
        Case(sql: "SELECT ?, ?, ?", arguments: [1, "two", nil], expected: [1, "two", nil]),
        Case(sql: "SELECT ?2, ?1", arguments: [1, 2], expected: [2, 1]),
        Case(sql: "SELECT ?1, ?1, ?2", arguments: [7, 8], expected: [7, 7, 8]),
        Case(sql: "SELECT ?3, ?1", arguments: [1, 2, 3], expected: [3, 1]),  // ?2 unused still takes a value
        Case(sql: "SELECT ?, ?5", arguments: [1, 2, 3, 4, 5], expected: [1, 5]),
        Case(sql: "SELECT :a, :b", arguments: ["a": 1, "b": 2], expected: [1, 2]),
        Case(sql: "SELECT @a, @b", arguments: ["b": 2, "a": 1], expected: [1, 2]),
        Case(sql: "SELECT $a, $b", arguments: ["a": 1, "b": 2], expected: [1, 2]),
        Case(sql: "SELECT :a, :a, :a", arguments: ["a": "same"], expected: ["same", "same", "same"]),
        Case(sql: "SELECT :a", arguments: [":a": 1], expected: [1]),  // key written with its prefix
        Case(sql: "SELECT :a, @b, $c", arguments: ["a": 1, "b": 2, "c": 3, "unused": 4], expected: [1, 2, 3]),
        Case(
            sql: "SELECT ?, :name, ?", arguments: StatementArguments([1, 3], named: ["name": 2]), expected: [1, 2, 3]),
        Case(sql: "SELECT :x, ?", arguments: StatementArguments(["p"], named: ["x": "n"]), expected: ["n", "p"]),
        Case(sql: "SELECT 1", arguments: [], expected: [1]),
    ]

    @Test(arguments: cases)
    func binds(_ c: Case) throws {
        let db = try Database(inMemory: Configuration())
        let row = try #require(try db.fetchOne(sql: c.sql, arguments: c.arguments))
        #expect(row.values == c.expected)
        // The same through a statement bound by hand, twice (rebinding replaces old values).
        let stmt = try db.makeStatement(sql: c.sql)
        try stmt.bind(c.arguments)
        #expect(try stmt.step())
        #expect((0..<stmt.columnCount).map { stmt.columnValue(at: $0) } == c.expected)
        #expect(try stmt.fetchOne(arguments: c.arguments)?.values == c.expected)
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var sql: String
        var arguments: StatementArguments
        var message: String
        var testDescription: String { "\(sql) \(arguments)" }
    }

    static let errorCases: [ErrorCase] = [
        ErrorCase(
            sql: "SELECT ?, ?", arguments: [1],
            message: "wrong number of arguments: the statement takes 2 positional value(s), 1 given"),
        ErrorCase(
            sql: "SELECT ?", arguments: [1, 2],
            message: "wrong number of arguments: the statement takes 1 positional value(s), 2 given"),
        ErrorCase(
            sql: "SELECT ?3", arguments: [1],
            message: "wrong number of arguments: the statement takes 3 positional value(s), 1 given"),
        ErrorCase(
            sql: "SELECT 1", arguments: [1],
            message: "wrong number of arguments: the statement takes 0 positional value(s), 1 given"),
        ErrorCase(
            sql: "SELECT :a", arguments: [1],
            message: "wrong number of arguments: the statement takes 0 positional value(s), 1 given"),
        ErrorCase(
            sql: "SELECT :a, :b", arguments: ["a": 1],
            message: "missing value for parameter :b (named values given: a)"),
        ErrorCase(
            sql: "SELECT @who", arguments: [],
            message: "missing value for parameter @who (named values given: none)"),
        ErrorCase(
            sql: "SELECT $x, ?", arguments: StatementArguments([1], named: ["y": 2]),
            message: "missing value for parameter $x (named values given: y)"),
    ]

    @Test(arguments: errorCases)
    func wrongArguments(_ c: ErrorCase) throws {
        let db = try Database(inMemory: Configuration())
        let error = try #require(throws: SQLiteError.self) { try db.fetchOne(sql: c.sql, arguments: c.arguments) }
        #expect(error.resultCode == .SQLITE_RANGE)
        #expect(error.message == c.message)
        #expect(error.sql == c.sql)
        #expect(error.description == "SQLITE_RANGE (25): \(c.message) - while executing `\(c.sql)`")
    }

    @Test func variadicExecuteChecksTheCount() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(a, b)")
        let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?, ?)")
        try insert.execute(1, "x")
        let tooFew = try #require(throws: SQLiteError.self) { try insert.execute(2) }
        #expect(tooFew.message == "wrong number of arguments: the statement has 2 parameter(s), 1 value(s) given")
        let tooMany = try #require(throws: SQLiteError.self) { try insert.execute(1, 2, 3) }
        #expect(tooMany.message == "wrong number of arguments: the statement has 2 parameter(s), 3 value(s) given")
        #expect(try db.fetchAll(sql: "SELECT * FROM t") == [["a": 1, "b": "x"]])
    }

    @Test func bindOneByOne() throws {
        let db = try Database(inMemory: Configuration())
        let stmt = try db.makeStatement(sql: "SELECT ?1, :name, @other")
        #expect(stmt.parameterCount == 3)
        #expect(stmt.positionalParameterCount == 1)
        #expect(stmt.parameterNames == ["?1", ":name", "@other"])
        try stmt.bind(10, at: 1)
        try stmt.bind("n", named: "name")
        try stmt.bind(2.5, named: "@other")
        #expect(try stmt.step())
        #expect(stmt.currentRow().values == [10, "n", 2.5])
        stmt.reset()
        stmt.clearBindings()
        #expect(try stmt.step())
        #expect(stmt.currentRow().values == [nil, nil, nil])
        let error = try #require(throws: SQLiteError.self) { try stmt.bind(1, named: "nope") }
        #expect(error.message == "no parameter named nope (parameters: ?1, :name, @other)")
        let range = try #require(throws: SQLiteError.self) { try stmt.bind(1, at: 4) }
        #expect(range.resultCode == .SQLITE_RANGE)
        #expect(range.message == "column index out of range")
    }

    @Test func argumentsCombine() {
        let combined: StatementArguments = StatementArguments(["a"]) + StatementArguments(named: ["k": 1])
        #expect(combined.positional == ["a"])
        #expect(combined.named == ["k": 1])
        #expect(combined.description == "['a', k: 1]")
        #expect(StatementArguments().isEmpty)
    }
}
