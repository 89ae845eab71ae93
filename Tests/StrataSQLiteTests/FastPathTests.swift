import StrataSQLite
import Testing

/// The hot paths tuned by the benchmarks (parameter-pack binding, in-place row reads) must keep
/// every value and every error exactly as the general paths do.
@Suite("Statement fast path")
struct FastPathTests {
    @Test func packBindingKeepsEveryTypeExact() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(a, b, c, d, e, f, g, h)")
        let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        let none: Int? = nil
        for i in 0..<3 {
            try insert.execute(
                Int64.max - Int64(i), Int.min + i, 0.5 + Double(i), "t\u{0}\(i)", [UInt8(i)], none, true, Int32(-i))
        }
        let rows = try db.fetchAll(sql: "SELECT * FROM t ORDER BY rowid")
        #expect(rows.count == 3)
        for (i, row) in rows.enumerated() {
            #expect(
                row.values == [
                    .integer(Int64.max - Int64(i)), .integer(Int64(Int.min + i)), .real(0.5 + Double(i)),
                    .text("t\u{0}\(i)"), .blob([UInt8(i)]), .null, .integer(1), .integer(Int64(-i)),
                ], "row \(i)")
        }
    }

    @Test func packBindingErrorsNameTheStatement() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(a INTEGER NOT NULL)")
        let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?)")
        let none: Int64? = nil
        let error = try #require(throws: SQLiteError.self) { try insert.execute(none) }
        #expect(error.message == "NOT NULL constraint failed: t.a")
        #expect(error.sql == "INSERT INTO t VALUES (?)")
        try insert.execute(Int64(7))  // still usable after the failure
        #expect(try db.fetchValue(Int.self, sql: "SELECT a FROM t") == 7)
    }

    /// Binding skips `sqlite3_reset` when the statement is known reset: a statement left in the
    /// middle of its rows (or run to its end) by `step()` must still be reset before binding.
    @Test func bindingAfterPartialAndFinishedRuns() throws {
        let db = try Database(inMemory: Configuration())
        let select = try db.makeStatement(sql: "SELECT ?1 + 0 UNION ALL SELECT ?1 + 1")
        try select.bind([1])
        #expect(try select.step())  // in the middle of its rows
        try select.execute(Int64(5))  // reset, bound, run to completion
        #expect(try select.step())
        #expect(select.columnValue(at: 0) == .integer(5))
        #expect(try select.step())
        #expect(try !select.step())  // at its end
        try select.execute(Int64(8))
        #expect(try select.fetchAll(arguments: [9]).map { $0.values } == [[.integer(9)], [.integer(10)]])
        try db.execute(sql: "CREATE TABLE t(a INTEGER NOT NULL)")
        let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?)")
        for i in 0..<3 { try insert.execute(Int64(i)) }
        #expect(throws: SQLiteError.self) { try insert.execute(Int64?.none) }
        try insert.execute(Int64(3))
        insert.reset()
        try insert.execute(Int64(4))
        #expect(try db.fetchAll(sql: "SELECT a FROM t ORDER BY a").map { $0.values } == (0...4).map { [.integer($0)] })
    }

    @Test func inPlaceReadsDecodeEveryStorageClass() throws {
        let db = try Database(inMemory: Configuration())
        let statement = try db.makeStatement(sql: "SELECT 42, 2.5, 'héllo', x'00ff', x'', NULL, '', 3.0")
        var seen = 0
        try statement.forEachRow { row in
            seen += 1
            #expect(try row[0] as Int64 == 42)
            #expect(try row[1] as Double == 2.5)
            #expect(try row[2] as String == "héllo")
            #expect(try row[3] as [UInt8] == [0, 255])
            #expect(row.value(at: 4) == .blob([]))
            #expect(try row[5] as Int? == nil)
            #expect(try row[6] as String == "")
            #expect(try row[7] as Int == 3)
            let mismatch = try #require(throws: RowDecodingError.self) { try row[2] as Int64 }
            #expect(mismatch.description.contains("#2"), "\(mismatch)")
            let missing = try #require(throws: RowDecodingError.self) { try row[8] as Int64 }
            #expect(missing.description.contains("#8"), "\(missing)")
        }
        #expect(seen == 1)
    }
}
