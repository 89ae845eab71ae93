import StrataSQLite
import Testing

@Suite("Statements, cache, cursors and scripts")
struct StatementTests {
    @Test func statementReusedTenThousandTimes() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, n INTEGER NOT NULL, label TEXT)")
        let insert = try db.makeStatement(sql: "INSERT INTO t(n, label) VALUES (?, ?)")
        try db.transaction {
            for i in 0..<10_000 { try insert.execute(i, "row \(i)") }
        }
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 10_000)
        #expect(try db.fetchValue(Int.self, sql: "SELECT sum(n) FROM t") == 49_995_000)
        #expect(try db.fetchValue(String.self, sql: "SELECT label FROM t WHERE n = 9999") == "row 9999")

        // A query statement re-run with new arguments 10,000 times reads fresh results each time.
        let select = try db.makeStatement(sql: "SELECT label FROM t WHERE n = :n")
        for i in stride(from: 0, to: 10_000, by: 1) {
            let row = try #require(try select.fetchOne(arguments: ["n": i]))
            if try row[0] as String != "row \(i)" {
                Issue.record("row \(i) read \(row)")
                break
            }
        }
    }

    @Test func cachedStatementsAreReused() throws {
        let db = try Database(inMemory: Configuration())
        let a = try db.cachedStatement(sql: "SELECT ?")
        let b = try db.cachedStatement(sql: "SELECT ?")
        let c = try db.cachedStatement(sql: "SELECT ? ")
        #expect(a === b)
        #expect(a !== c)
        db.clearStatementCache()
        #expect(try db.cachedStatement(sql: "SELECT ?") !== a)
    }

    @Test func cachedStatementInUseIsNotReset() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
        let sql = "SELECT x FROM t ORDER BY x"
        var outer: [Int] = []
        try db.cachedStatement(sql: sql).forEachRow { row in
            outer.append(try row[0])
            // The same SQL while the cached statement is running gets its own statement.
            #expect(try db.fetchColumn(Int.self, sql: sql) == [1, 2, 3])
        }
        #expect(outer == [1, 2, 3])
    }

    @Test func makeStatementRefusesSeveralStatements() throws {
        let db = try Database(inMemory: Configuration())
        #expect(try db.makeStatement(sql: "SELECT 1; -- trailing comment\n /* and */ ;").columnCount == 1)
        let error = try #require(throws: SQLiteError.self) { try db.makeStatement(sql: "SELECT 1; SELECT 2") }
        #expect(error.resultCode == .SQLITE_MISUSE)
        #expect(error.message == "more than one statement: use execute(sql:) to run several")
        let empty = try #require(throws: SQLiteError.self) { try db.makeStatement(sql: "  -- nothing") }
        #expect(empty.message == "no SQL statement in the text")
    }

    @Test func statementProperties() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(a, b)")
        let select = try db.makeStatement(sql: "SELECT a, b AS bee FROM t")
        #expect(select.isReadOnly)
        #expect(select.columns.names == ["a", "bee"])
        #expect(select.columnCount == 2)
        #expect(try !db.makeStatement(sql: "DELETE FROM t").isReadOnly)
    }

    @Test func cursorIsLazy() throws {
        let db = try Database(inMemory: Configuration())
        // An endless query: a cursor that loaded everything would never return.
        let cursor = try db.fetchCursor(
            sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c")
        var firstFive: [Int] = []
        while firstFive.count < 5, let row = try cursor.next() { firstFive.append(try row["x"]) }
        #expect(firstFive == [1, 2, 3, 4, 5])
        #expect(try cursor.next()?["x"] as Int? == 6)
    }

    @Test func cursorReadsToTheEnd() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3), (4)")
        let cursor = try db.fetchCursor(sql: "SELECT x FROM t WHERE x > ? ORDER BY x", arguments: [1])
        #expect(try cursor.next() == ["x": 2])
        #expect(try cursor.collect() == [["x": 3], ["x": 4]])
        #expect(try cursor.next() == nil)
        #expect(try cursor.next() == nil)
        // The statement was reset at the end: it runs again.
        #expect(try cursor.statement.fetchAll(arguments: [3]) == [["x": 4]])
    }

    @Test func executeRunsEveryStatementConsumingArgumentsInOrder() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE t(a, b);  -- no parameters
                INSERT INTO t VALUES (?, ?);
                INSERT INTO t VALUES (?, :x);
                /* a comment between statements */
                INSERT INTO t VALUES (:x, ?2);
                """,
            arguments: StatementArguments([1, 2, 3, 4], named: ["x": 9]))
        #expect(
            try db.fetchAll(sql: "SELECT a, b FROM t ORDER BY rowid") == [
                ["a": 1, "b": 2], ["a": 3, "b": 9], ["a": 9, "b": 4],
            ])
        try db.execute(sql: "")
        try db.execute(sql: "  ;; -- only a comment")
    }

    @Test func executeTooManyArgumentsLeavesTheDatabaseUnchanged() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(a, b)")
        let sql = "INSERT INTO t VALUES (?, ?); INSERT INTO t VALUES (?, ?)"
        let error = try #require(throws: SQLiteError.self) { try db.execute(sql: sql, arguments: [1, 2, 3, 4, 5]) }
        #expect(error.resultCode == .SQLITE_RANGE)
        #expect(error.message == "wrong number of arguments: the SQL takes 4 positional value(s), 5 given")
        #expect(error.sql == sql)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 1)  // the first statement ran
        let single = try #require(throws: SQLiteError.self) {
            try db.execute(sql: "DELETE FROM t WHERE a = ?", arguments: [1, 2])
        }
        #expect(single.message == "wrong number of arguments: the SQL takes 1 positional value(s), 2 given")
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 1)
    }

    @Test func executeTooFewArgumentsNamesTheStatement() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(a)")
        let error = try #require(throws: SQLiteError.self) {
            try db.execute(sql: "INSERT INTO t VALUES (?);\nINSERT INTO t VALUES (?)", arguments: [1])
        }
        #expect(error.message == "wrong number of arguments: the statement takes 1 positional value(s), 0 given")
        #expect(error.sql == "INSERT INTO t VALUES (?)")
    }

    @Test func executeStopsAtTheFirstFailingStatement() throws {
        let db = try Database(inMemory: Configuration())
        let error = try #require(throws: SQLiteError.self) {
            try db.execute(sql: "CREATE TABLE a(x); CREATE TABLE a(x); CREATE TABLE b(x)")
        }
        #expect(error.message == "table a already exists")
        #expect(error.sql == "CREATE TABLE a(x)")
        #expect(try db.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master") == ["a"])
    }
}
