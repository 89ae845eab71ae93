import Foundation
import StrataSQLite
import Testing

/// One conversion check, run against a fresh in-memory database.
struct ConversionCase: CustomTestStringConvertible, Sendable {
    var name: String
    var check: @Sendable (Database) throws -> Void
    var testDescription: String { name }

    init(_ name: String, _ check: @escaping @Sendable (Database) throws -> Void) {
        self.name = name
        self.check = check
    }
}

/// Binds `value`, checks the storage class SQLite kept, reads it back as `T`.
func roundTrip<T: SQLValueConvertible & Equatable>(
    _ value: T, storedAs storageClass: String, _ db: Database, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    try db.execute(sql: "DROP TABLE IF EXISTS rt; CREATE TABLE rt(v)")  // no affinity
    try db.execute(sql: "INSERT INTO rt(v) VALUES (?)", arguments: [value])
    let row = try #require(try db.fetchOne(sql: "SELECT v, typeof(v) FROM rt"), sourceLocation: sourceLocation)
    #expect(try row[1] as String == storageClass, "\(T.self) \(value)", sourceLocation: sourceLocation)
    #expect(
        try row[0] as T == value, "\(T.self) \(value) read back as \(row.values[0])", sourceLocation: sourceLocation)
}

/// Reads the SQL expression `sql` as `T`.
func decode<T: SQLValueConvertible>(_ sql: String, as type: T.Type, _ db: Database) throws -> T {
    let row = try #require(try db.fetchOne(sql: "SELECT \(sql) AS v"))
    return try row["v"]
}

/// Reading the SQL expression `sql` as `T` throws a type mismatch naming the column and value.
func expectMismatch<T: SQLValueConvertible>(
    _ sql: String, as type: T.Type, _ db: Database, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let row = try #require(try db.fetchOne(sql: "SELECT \(sql) AS v"), sourceLocation: sourceLocation)
    let error = #expect(throws: RowDecodingError.self, "\(sql) as \(T.self)", sourceLocation: sourceLocation) {
        _ = try row["v"] as T
    }
    #expect(error?.code == .typeMismatch, sourceLocation: sourceLocation)
    #expect(error?.description.contains("\"v\"") == true, sourceLocation: sourceLocation)
    #expect(
        error?.description.contains("\(T.self)") == true, "\(error.map { "\($0)" } ?? "no error")",
        sourceLocation: sourceLocation)
}

@Suite("Value conversions")
struct ValueConversionTests {
    static let integerCases: [ConversionCase] = [
        ConversionCase("Int8 bounds") { db in
            try roundTrip(Int8.min, storedAs: "integer", db)
            try roundTrip(Int8.max, storedAs: "integer", db)
            #expect(try decode("127.0", as: Int8.self, db) == 127)
            try expectMismatch("128", as: Int8.self, db)
            try expectMismatch("-129", as: Int8.self, db)
            try expectMismatch("1.5", as: Int8.self, db)
            try expectMismatch("'1'", as: Int8.self, db)
        },
        ConversionCase("Int16 bounds") { db in
            try roundTrip(Int16.min, storedAs: "integer", db)
            try roundTrip(Int16.max, storedAs: "integer", db)
            try expectMismatch("32768", as: Int16.self, db)
            try expectMismatch("NULL", as: Int16.self, db)
        },
        ConversionCase("Int32 bounds") { db in
            try roundTrip(Int32.min, storedAs: "integer", db)
            try expectMismatch("2147483648", as: Int32.self, db)
        },
        ConversionCase("Int and Int64 bounds") { db in
            try roundTrip(Int.min, storedAs: "integer", db)
            try roundTrip(Int64.max, storedAs: "integer", db)
            try expectMismatch("9.3e18", as: Int64.self, db)
            try expectMismatch("x'00'", as: Int.self, db)
        },
        ConversionCase("UInt8 bounds") { db in
            try roundTrip(UInt8.max, storedAs: "integer", db)
            try roundTrip(UInt8.min, storedAs: "integer", db)
            try expectMismatch("256", as: UInt8.self, db)
            try expectMismatch("-1", as: UInt8.self, db)
        },
        ConversionCase("UInt16 bounds") { db in
            try roundTrip(UInt16.max, storedAs: "integer", db)
            try expectMismatch("65536", as: UInt16.self, db)
        },
        ConversionCase("UInt32 bounds") { db in
            try roundTrip(UInt32.max, storedAs: "integer", db)
            try expectMismatch("4294967296", as: UInt32.self, db)
            try expectMismatch("-1", as: UInt32.self, db)
        },
        ConversionCase("UInt64 and UInt up to Int64.max") { db in
            try roundTrip(UInt64(Int64.max), storedAs: "integer", db)
            try roundTrip(UInt(0), storedAs: "integer", db)
            try expectMismatch("-1", as: UInt64.self, db)
            try expectMismatch("-9223372036854775808", as: UInt.self, db)
        },
        ConversionCase("Float") { db in
            try roundTrip(Float(1.5), storedAs: "real", db)
            try roundTrip(-Float.greatestFiniteMagnitude, storedAs: "real", db)
            try roundTrip(Float.infinity, storedAs: "real", db)
            #expect(try decode("3", as: Float.self, db) == 3)
            #expect(try decode("0.1", as: Float.self, db) == Float(0.1))
            try expectMismatch("1e300", as: Float.self, db)
            try expectMismatch("'1.5'", as: Float.self, db)
        },
    ]

    @Test(arguments: integerCases)
    func numbers(_ c: ConversionCase) throws {
        try c.check(try Database(inMemory: Configuration()))
    }

    static let foundationCases: [ConversionCase] = [
        ConversionCase("UUID is a 16-byte blob") { db in
            let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
            try roundTrip(uuid, storedAs: "blob", db)
            #expect(
                uuid.sqlValue
                    == .blob([
                        0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F,
                    ]))
            #expect(try decode("'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'", as: UUID.self, db) == uuid)
            #expect(try decode("'e621e1f8-c36c-495a-93fc-0c247a3e6e5f'", as: UUID.self, db) == uuid)
            #expect(try decode("x'E621E1F8C36C495A93FC0C247A3E6E5F'", as: UUID.self, db) == uuid)
            try expectMismatch("x'E621E1F8C36C495A93FC0C247A3E6E'", as: UUID.self, db)  // 15 bytes
            try expectMismatch("'E621E1F8C36C495A93FC0C247A3E6E5F'", as: UUID.self, db)  // no dashes
            try expectMismatch("'E621E1F8-C36C-495A-93FC-0C247A3E6EZZ'", as: UUID.self, db)
            try expectMismatch("42", as: UUID.self, db)
        },
        ConversionCase("URL is text") { db in
            try roundTrip(try #require(URL(string: "https://example.com/a?b=c#d")), storedAs: "text", db)
            try roundTrip(try #require(URL(string: "file:///tmp/x%20y")), storedAs: "text", db)
            try expectMismatch("''", as: URL.self, db)
            try expectMismatch("1", as: URL.self, db)
        },
        ConversionCase("Decimal is text") { db in
            try roundTrip(try #require(Decimal(string: "12.50")), storedAs: "text", db)
            try roundTrip(try #require(Decimal(string: "-0.000000000000000000000000001")), storedAs: "text", db)
            try roundTrip(try #require(Decimal(string: "123456789012345678901234567890")), storedAs: "text", db)
            #expect(try decode("'1e-4'", as: Decimal.self, db) == Decimal(string: "0.0001"))
            #expect(try decode("42", as: Decimal.self, db) == 42)
            #expect(try decode("0.1", as: Decimal.self, db) == Decimal(string: "0.1"))
            try expectMismatch("'12abc'", as: Decimal.self, db)
            try expectMismatch("'1,5'", as: Decimal.self, db)
            try expectMismatch("''", as: Decimal.self, db)
            try expectMismatch("'.'", as: Decimal.self, db)
            try expectMismatch("x'31'", as: Decimal.self, db)
        },
        ConversionCase("Data and [UInt8] are blobs") { db in
            try roundTrip(Data([0, 1, 255]), storedAs: "blob", db)
            try roundTrip([UInt8](), storedAs: "blob", db)
            try expectMismatch("'abc'", as: Data.self, db)
            try expectMismatch("'abc'", as: [UInt8].self, db)
        },
        ConversionCase("RawRepresentable enums convert through their raw value") { db in
            try roundTrip(Color.red, storedAs: "text", db)
            try roundTrip(Priority.high, storedAs: "integer", db)
            try expectMismatch("'purple'", as: Color.self, db)
            try expectMismatch("7", as: Priority.self, db)
            try expectMismatch("1", as: Color.self, db)
        },
        ConversionCase("DateComponents") { db in
            var time = DateComponents()
            (time.hour, time.minute) = (9, 30)
            try roundTrip(time, storedAs: "text", db)
            #expect(time.sqlValue == "09:30")
            var full = DateComponents()
            (full.year, full.month, full.day, full.hour, full.minute, full.second) = (2024, 2, 29, 23, 59, 58)
            full.nanosecond = 125_000_000
            try roundTrip(full, storedAs: "text", db)
            #expect(full.sqlValue == "2024-02-29 23:59:58.125")
            var day = DateComponents()
            (day.year, day.month, day.day) = (1999, 12, 31)
            day.timeZone = TimeZone(secondsFromGMT: -5 * 3600)
            #expect(day.sqlValue == "1999-12-31-05:00")
            #expect(try decode("'1999-12-31-05:00'", as: DateComponents.self, db) == day)
            let zoned = try decode("'2024-05-01T09:30Z'", as: DateComponents.self, db)
            #expect(zoned.hour == 9 && zoned.second == nil && zoned.timeZone?.secondsFromGMT() == 0)
            try expectMismatch("'25:00'", as: DateComponents.self, db)
            try expectMismatch("12", as: DateComponents.self, db)
            // No date, no time: no stored form (the NaN stand-in, which no write accepts).
            #expect(DateComponents().sqlValue.storageClass == "real")
            var february30 = DateComponents()
            (february30.year, february30.month, february30.day) = (2024, 2, 30)
            #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT ?", arguments: [february30]) }
        },
    ]

    @Test(arguments: foundationCases)
    func foundation(_ c: ConversionCase) throws {
        try c.check(try Database(inMemory: Configuration()))
    }

    @Test func uint64AboveInt64MaxIsAnEncodingErrorInRecords() throws {
        struct Counter: Encodable, PersistableRecord {
            var value: UInt64
        }
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE counter(value INTEGER)")
        let error = try #require(throws: EncodingError.self) { try Counter(value: .max).insert(db) }
        #expect("\(error)".contains("column \"value\""))
        #expect("\(error)".contains("18446744073709551615"))
        try Counter(value: UInt64(Int64.max)).insert(db)
        #expect(try db.fetchValue(UInt64.self, sql: "SELECT value FROM counter") == UInt64(Int64.max))
    }

    @Test func mismatchNamesColumnValueAndType() throws {
        let db = try Database(inMemory: Configuration())
        let row = try #require(try db.fetchOne(sql: "SELECT 300 AS level"))
        let error = #expect(throws: RowDecodingError.self) { _ = try row["level"] as Int8 }
        #expect(
            error?.description
                == "column \"level\" holds integer 300, which does not convert to Int8 - from `SELECT 300 AS level`")
    }
}

enum Color: String, SQLValueConvertible, Codable, Sendable {
    case red, green
}

enum Priority: Int, SQLValueConvertible, Codable, Sendable {
    case low = 1
    case high = 2
}
