import Foundation
import StrataSQLite
import Testing

/// Builds a UTC date from its parts (a test oracle independent of the parser).
/// A date the calendar cannot make records an issue (and gives `.distantPast`) instead of trapping.
func utc(
    _ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ s: Int = 0, ms: Int = 0,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
    guard let date = calendar.date(from: DateComponents(year: y, month: mo, day: d, hour: h, minute: mi, second: s))
    else {
        Issue.record("no such date: \(y)-\(mo)-\(d) \(h):\(mi):\(s)", sourceLocation: sourceLocation)
        return .distantPast
    }
    return Date(timeIntervalSince1970: date.timeIntervalSince1970 + Double(ms) / 1000)
}

@Suite("Date conversion")
struct DateConversionTests {
    @Test func storedAsUTCTextWithMilliseconds() throws {
        #expect(utc(2024, 5, 1, 9, 30, 5, ms: 250).sqlValue == "2024-05-01 09:30:05.250")
        #expect(utc(1970, 1, 1).sqlValue == "1970-01-01 00:00:00.000")
        #expect(utc(1969, 12, 31, 23, 59, 59, ms: 999).sqlValue == "1969-12-31 23:59:59.999")
        #expect(utc(2000, 2, 29, 12).sqlValue == "2000-02-29 12:00:00.000")
        // The proleptic Gregorian calendar, as SQLite's (Foundation's switches to Julian before 1582):
        // unixepoch('0001-01-01') is -62135596800.
        #expect(Date(timeIntervalSince1970: -62_135_596_800).sqlValue == "0001-01-01 00:00:00.000")
        // Rounded to the millisecond, carrying into the next second.
        #expect(Date(timeIntervalSince1970: 0.9996).sqlValue == "1970-01-01 00:00:01.000")
    }

    static let roundTripDates: [Date] = [
        utc(2024, 5, 1, 9, 30, 5, ms: 250), utc(1970, 1, 1), utc(1969, 7, 20, 20, 17, 40, ms: 1),
        utc(1600, 3, 1), utc(9999, 12, 31, 23, 59, 59, ms: 999), utc(2038, 1, 19, 3, 14, 8),
        Date(timeIntervalSinceReferenceDate: 700_000_000.123),
    ]

    @Test(arguments: roundTripDates)
    func roundTrips(_ date: Date) throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(d)")
        try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [date])
        let back = try #require(try db.fetchValue(Date.self, sql: "SELECT d FROM t"))
        #expect(abs(back.timeIntervalSince(date)) < 0.0005, "\(date) read back as \(back)")
        #expect(back.sqlValue == date.sqlValue)
        // SQLite's own date functions read the stored text.
        let sqliteText = try db.fetchValue(String.self, sql: "SELECT strftime('%Y-%m-%d %H:%M:%f', d) FROM t")
        #expect(sqliteText.map(SQLValue.text) == date.sqlValue)
    }

    static let textForms: [(String, Date)] = [
        ("2024-05-01", utc(2024, 5, 1)),
        ("2024-05-01 09:30", utc(2024, 5, 1, 9, 30)),
        ("2024-05-01 09:30:05", utc(2024, 5, 1, 9, 30, 5)),
        ("2024-05-01 09:30:05.250", utc(2024, 5, 1, 9, 30, 5, ms: 250)),
        ("2024-05-01 09:30:05.2", utc(2024, 5, 1, 9, 30, 5, ms: 200)),
        (
            "2024-05-01 09:30:05.123456789",
            Date(timeIntervalSince1970: utc(2024, 5, 1, 9, 30, 5).timeIntervalSince1970 + 0.123456789)
        ),
        ("2024-05-01T09:30:05", utc(2024, 5, 1, 9, 30, 5)),
        ("2024-05-01T09:30:05Z", utc(2024, 5, 1, 9, 30, 5)),
        ("2024-05-01T09:30:05.500Z", utc(2024, 5, 1, 9, 30, 5, ms: 500)),
        ("2024-05-01T11:30:05+02:00", utc(2024, 5, 1, 9, 30, 5)),
        ("2024-05-01 04:30:05 -0500", utc(2024, 5, 1, 9, 30, 5)),
        ("2024-05-01t09:30z", utc(2024, 5, 1, 9, 30)),
    ]

    @Test func decodesTextForms() throws {
        let db = try Database(inMemory: Configuration())
        for (text, expected) in DateConversionTests.textForms {
            let date = try decode(SQLValue.text(text).sqlLiteral, as: Date.self, db)
            #expect(abs(date.timeIntervalSince(expected)) < 1e-6, "\(text): \(date) != \(expected)")
        }
    }

    @Test func decodesJulianDayRealAndUnixEpochInteger() throws {
        let db = try Database(inMemory: Configuration())
        #expect(
            try decode("julianday('2024-05-01 09:30:05.250')", as: Date.self, db) == utc(2024, 5, 1, 9, 30, 5, ms: 250))
        #expect(try decode("2440587.5", as: Date.self, db) == utc(1970, 1, 1))
        // unixepoch() is SQLite 3.38; strftime('%s') gives the same seconds on every version.
        #expect(
            try decode("CAST(strftime('%s', '2024-05-01 09:30:05') AS INTEGER)", as: Date.self, db)
                == utc(2024, 5, 1, 9, 30, 5))
        #expect(try decode("0", as: Date.self, db) == utc(1970, 1, 1))
        #expect(try decode("-86400", as: Date.self, db) == utc(1969, 12, 31))
    }

    static let rejected = [
        "'2024-13-01'", "'2024-02-30'", "'2023-02-29'", "'2024-05-01 24:00'", "'2024-05-01 09:60'",
        "'2024-05-01 09:30:61'", "'2024-05-01 09:30:05.'", "'2024-05-01 09:30 junk'", "'2024-5-1'",
        "'09:30'", "''", "'yesterday'", "'2024-05-01T'", "'2024-05-01 09:30+25:00'",
        "1700000000.5",  // a unix timestamp stored as REAL is not a julian day
        "-1.0", "x'00'", "NULL",
    ]

    @Test(arguments: rejected)
    func rejectsWithAClearError(_ sql: String) throws {
        let db = try Database(inMemory: Configuration())
        try expectMismatch(sql, as: Date.self, db)
    }

    /// No stored form (issue 24): the NaN stand-in, which no write accepts (see UnstorableValueTests).
    @Test func hugeAndNonFiniteDatesHaveNoStoredForm() {
        for seconds in [Double.infinity, 1e300, 253_402_300_800, -62_167_219_200.001] {
            guard case .real(let d) = Date(timeIntervalSince1970: seconds).sqlValue else {
                Issue.record("\(seconds): \(Date(timeIntervalSince1970: 0).sqlValue)")
                continue
            }
            #expect(d.isNaN, "\(seconds)")
        }
    }

    @Test func parsingIsFastEnough() throws {
        // 100k parses well under a second even in debug builds: no DateFormatter per value.
        let start = Date()
        var count = 0
        for i in 0..<100_000 {
            if Date.fromSQLValue(.text("2024-05-01 09:30:\(i % 50 + 10).250")) != nil { count += 1 }
        }
        #expect(count == 100_000)
        #expect(Date().timeIntervalSince(start) < 5)
    }
}
