import Foundation
import StrataSQLite
import Testing

/// One value stored through a bound parameter and read back.
struct RoundTripCase: CustomTestStringConvertible, Sendable {
    var name: String
    var stored: SQLValue
    /// What SQLite gives back: the same value except for NaN.
    var expected: SQLValue
    /// `typeof()` in SQL.
    var storageClass: String
    var testDescription: String { name }

    init(_ name: String, _ stored: SQLValue, expected: SQLValue? = nil, storageClass: String) {
        self.name = name
        self.stored = stored
        self.expected = expected ?? stored
        self.storageClass = storageClass
    }

    static let all: [RoundTripCase] = [
        RoundTripCase("NULL", .null, storageClass: "null"),
        RoundTripCase("zero", .integer(0), storageClass: "integer"),
        RoundTripCase("Int64.min", .integer(.min), storageClass: "integer"),
        RoundTripCase("Int64.max", .integer(.max), storageClass: "integer"),
        RoundTripCase("real", .real(3.141592653589793), storageClass: "real"),
        RoundTripCase("integral real stays real", .real(2.0), storageClass: "real"),
        RoundTripCase("tiny real", .real(.leastNonzeroMagnitude), storageClass: "real"),
        RoundTripCase("huge real", .real(.greatestFiniteMagnitude), storageClass: "real"),
        RoundTripCase("+infinity", .real(.infinity), storageClass: "real"),
        RoundTripCase("-infinity", .real(-.infinity), storageClass: "real"),
        RoundTripCase("empty text", .text(""), storageClass: "text"),
        RoundTripCase("ascii text", .text("hello, world"), storageClass: "text"),
        RoundTripCase("quotes", .text("it's \"quoted\""), storageClass: "text"),
        RoundTripCase("emoji with ZWJ", .text("family: 👩‍👩‍👧‍👦 flag: 🇫🇷"), storageClass: "text"),
        RoundTripCase("combining marks stay decomposed", .text("e\u{301}te\u{301} n\u{303}"), storageClass: "text"),
        RoundTripCase("precomposed", .text("été ñ"), storageClass: "text"),
        RoundTripCase("text with NUL inside", .text("a\u{0}b"), storageClass: "text"),
        RoundTripCase("text that is only NUL", .text("\u{0}"), storageClass: "text"),
        RoundTripCase("empty blob stays a blob", .blob([]), storageClass: "blob"),
        RoundTripCase("blob", .blob([0, 1, 2, 0xFE, 0xFF]), storageClass: "blob"),
        RoundTripCase("blob of NULs", .blob([0, 0, 0]), storageClass: "blob"),
    ]
}

/// Byte-exact comparison: Swift's `==` on strings ignores the difference between composed and
/// decomposed characters, which a round-trip must keep.
func sameBytes(_ a: SQLValue, _ b: SQLValue) -> Bool {
    switch (a, b) {
    case (.text(let x), .text(let y)): return Array(x.utf8) == Array(y.utf8)
    case (.real(let x), .real(let y)): return x.bitPattern == y.bitPattern
    default: return a == b
    }
}

@Suite("SQLValue round-trips")
struct ValueRoundTripTests {
    @Test(arguments: RoundTripCase.all)
    func boundParameter(_ c: RoundTripCase) throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(v)")  // no type: no affinity conversion
        try db.execute(sql: "INSERT INTO t(v) VALUES (?)", arguments: [c.stored])
        let row = try #require(try db.fetchOne(sql: "SELECT v, typeof(v) FROM t"))
        #expect(sameBytes(row.values[0], c.expected), "\(c.name): read \(row.values[0])")
        #expect(try row[1] as String == c.storageClass, "\(c.name)")
        #expect(row.values[0].storageClass == c.storageClass, "\(c.name)")
    }

    @Test(arguments: RoundTripCase.all)
    func sqlLiteral(_ c: RoundTripCase) throws {
        let db = try Database(inMemory: Configuration())
        let value = try #require(try db.fetchOne(sql: "SELECT \(c.stored.sqlLiteral)")).values[0]
        #expect(sameBytes(value, c.expected), "\(c.name): literal \(c.stored.sqlLiteral) read \(value)")
    }

    @Test func textWithNULKeepsEveryByte() throws {
        let db = try Database(inMemory: Configuration())
        let text = "before\u{0}after"
        let bytes = try db.fetchValue(Int.self, sql: "SELECT length(CAST(? AS BLOB))", arguments: [text])
        #expect(bytes == 12)
        #expect(try db.fetchValue(String.self, sql: "SELECT ?", arguments: [text]) == text)
        #expect(SQLValue.text(text).sqlLiteral == "('before' || char(0) || 'after')")
    }

    @Test func combiningMarksAreNotNormalized() throws {
        let db = try Database(inMemory: Configuration())
        let decomposed = "e\u{301}"
        #expect(try db.fetchValue(Int.self, sql: "SELECT length(?)", arguments: [decomposed]) == 2)
        let back = try #require(try db.fetchValue(String.self, sql: "SELECT ?", arguments: [decomposed]))
        #expect(Array(back.unicodeScalars) == Array(decomposed.unicodeScalars))
    }

    @Test func emptyBlobIsNotNull() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(d BLOB NOT NULL, b BLOB NOT NULL)")
        try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [Data(), [UInt8]()])
        let row = try #require(try db.fetchOne(sql: "SELECT d, b, d IS NULL, length(d) FROM t"))
        #expect(row.values == [.blob([]), .blob([]), .integer(0), .integer(0)])
        #expect(try row["d"] as Data == Data())
        #expect(try row["b"] as [UInt8] == [])
    }

    /// SQLite has no NaN: `sqlite3_bind_double` would store NULL
    /// (https://www.sqlite.org/c3ref/bind_blob.html), which reads back as something else, so
    /// binding NaN throws (issue 24) and nothing is written. As an SQL literal it is NULL.
    @Test func nanIsRefused() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(x REAL)")
        let error = #expect(throws: SQLiteError.self) {
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [Double.nan])
        }
        #expect(error?.resultCode == .SQLITE_MISMATCH)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 0)
        #expect(SQLValue.real(.nan).sqlLiteral == "NULL")
    }

    @Test func swiftTypesBindAsTheirStorageClass() throws {
        let db = try Database(inMemory: Configuration())
        let values: [(any SQLValueConvertible)?] = [
            Int(7), Int64(-8), Int32(9), 2.5, true, false, "s", Data([1]), [UInt8]([2]), nil, Int?.none,
            SQLValue.integer(3),
        ]
        let row = try #require(
            try db.fetchOne(
                sql: "SELECT typeof(?), typeof(?), typeof(?), typeof(?), typeof(?), typeof(?), "
                    + "typeof(?), typeof(?), typeof(?), typeof(?), typeof(?), typeof(?)",
                arguments: StatementArguments(values)))
        #expect(
            try (0..<row.columnCount).map { try row[$0] as String } == [
                "integer", "integer", "integer", "real", "integer", "integer", "text", "blob", "blob", "null", "null",
                "integer",
            ])
    }

    @Test func sqlValueLiterals() {
        let values: [SQLValue] = [nil, 1, 1.5, "x", true]
        #expect(values == [.null, .integer(1), .real(1.5), .text("x"), .integer(1)])
        #expect(values.map(\.description) == ["NULL", "1", "1.5", "'x'", "1"])
        #expect(SQLValue.blob([0xCA, 0xFE]).sqlLiteral == "X'CAFE'")
        #expect(SQLValue.text("it's").sqlLiteral == "'it''s'")
    }
}
