import StrataSQLite
import StrataTestSupport
import Testing

@Suite("Smoke test")
struct SmokeTests {
    @Test func roundTrip() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: "CREATE TABLE t(a INTEGER, b TEXT, c BLOB, d REAL); INSERT INTO t VALUES (?, ?, ?, ?)",
            arguments: [1, "x\u{0}y", [UInt8](), 2.5])
        let row = try #require(try db.fetchOne(sql: "SELECT * FROM t"))
        #expect(try row["a"] as Int == 1)
        #expect(try row["B"] as String == "x\u{0}y")
        #expect(try row[2] as [UInt8] == [])
        #expect(try row.decode(Double.self, named: "d") == 2.5)
        #expect(throws: RowDecodingError.self) { try row["b"] as Int }
        let stmt = try db.makeStatement(sql: "INSERT INTO t(a) VALUES (?)")
        try db.transaction(.immediate) {
            for i in 0..<100 { try stmt.execute(i) }
        }
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 101)
        #expect(try db.foreignKeysEnabled())
    }
}
