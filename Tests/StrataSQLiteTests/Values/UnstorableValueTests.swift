import Foundation
import StrataSQLite
import Testing

/// Issue 24, items 3 to 6: values that were written and could never be read (or crashed the
/// process on the way), and text that was silently rewritten. Each write of a value with no
/// stored form must throw before anything is written, naming the parameter or the column.
@Suite("Unstorable values and malformed text")
struct UnstorableValueTests {
    /// Every row of `t`, each column as `typeof` and `hex`: the bytes, whatever the type.
    static func snapshot(_ db: Database, _ table: String = "t") throws -> [Row] {
        let columns = try db.fetchColumn(String.self, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
        let list = columns.map { "typeof(\"\($0)\"), hex(\"\($0)\")" }.joined(separator: ", ")
        return try db.fetchAll(sql: "SELECT rowid, \(list) FROM \"\(table)\" ORDER BY rowid")
    }

    /// `body` throws an ``SQLiteError`` SQLITE_MISMATCH whose message names `parameter`, and
    /// leaves `t` as it was.
    static func expectRefused(
        _ db: Database, parameter: String, mentioning words: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    ) throws {
        let before = try snapshot(db)
        let error = #expect(throws: SQLiteError.self, sourceLocation: sourceLocation) { try body() }
        #expect(error?.resultCode == .SQLITE_MISMATCH, "\(String(describing: error))", sourceLocation: sourceLocation)
        let message = error?.message ?? ""
        #expect(message.contains(parameter), "\(message)", sourceLocation: sourceLocation)
        for word in words { #expect(message.contains(word), "\(message)", sourceLocation: sourceLocation) }
        #expect(try snapshot(db) == before, "table changed", sourceLocation: sourceLocation)
    }

    static func database() throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v)")
        try db.execute(sql: "INSERT INTO t(v) VALUES ('kept')")
        return db
    }

    // MARK: Item 3: years 10000 and beyond crashed the process

    /// Seconds since 1970 (a `Date` argument would be printed by the test library, and
    /// `Date.description` traps for the farthest of them).
    @Test(
        arguments: [
            253_402_300_800,  // 10000-01-01 00:00:00 UTC
            253_402_300_799.9996,  // rounds to 10000-01-01 00:00:00.000
            1e15, -1e15, 1e300, .infinity, -.infinity, .nan,
        ] as [Double])
    func dateBeyondYear9999IsRefusedEverywhere(_ seconds: Double) throws {
        let date = Date(timeIntervalSince1970: seconds)
        let db = try Self.database()
        try Self.expectRefused(db, parameter: "parameter 1", mentioning: ["Date"]) {
            try db.execute(sql: "INSERT INTO t(v) VALUES (?)", arguments: [date])
        }
        try Self.expectRefused(db, parameter: "parameter 1", mentioning: ["Date", "0000-01-01...9999-12-31"]) {
            try db.makeStatement(sql: "UPDATE t SET v = ?").execute(date)
        }
        try Self.expectRefused(db, parameter: "parameter 1 (:when)") {
            try db.execute(sql: "UPDATE t SET v = :when", arguments: ["when": date])
        }
        try Self.expectRefused(db, parameter: "parameter 1") {
            try db.execute(literal: "INSERT INTO t(v) VALUES (\(date))")
        }
        try Self.expectRefused(db, parameter: "parameter 1") {
            let statement = try db.makeStatement(sql: "INSERT INTO t(v) VALUES (?)")
            try statement.bind(date, at: 1)
            _ = try statement.step()
        }
        #expect(date.sqlValue.storageClass == "real")  // the NaN no write accepts, not NULL
    }

    @Test func datesUpToYear9999RoundTrip() throws {
        let db = try Self.database()
        let last = Date(timeIntervalSince1970: 253_402_300_799.999)  // 9999-12-31 23:59:59.999
        for date in [Date.distantFuture, Date.distantPast, last, Date(timeIntervalSince1970: 0)] {
            try db.execute(sql: "DELETE FROM t")
            try db.execute(sql: "INSERT INTO t(v) VALUES (?)", arguments: [date])
            let back = try #require(try db.fetchValue(Date.self, sql: "SELECT v FROM t"))
            let millisecond = Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
            #expect(back == millisecond, "\(date) read back as \(back)")
            // SQLite's own date functions read what was written.
            #expect(try db.fetchValue(String.self, sql: "SELECT datetime(v, '+0 days') FROM t") != nil)
        }
        #expect(try db.fetchValue(String.self, sql: "SELECT v FROM t") == "1970-01-01 00:00:00.000")
    }

    // MARK: Item 4: years before 0 were written and could never be read

    @Test func dateBeforeYearZeroIsRefused() throws {
        let db = try Self.database()
        let before = Date(timeIntervalSince1970: -62_167_219_200.001)  // 0000-01-01 00:00:00 minus 1 ms
        let yearMinus1 = Date(timeIntervalSince1970: -62_170_000_000)  // -0001-11-28...
        for date in [before, yearMinus1, Date(timeIntervalSince1970: -1e13)] {
            try Self.expectRefused(db, parameter: "parameter 1", mentioning: ["Date"]) {
                try db.execute(sql: "INSERT INTO t(v) VALUES (?)", arguments: [date])
            }
        }
        // The first instant of year 0 is the first one stored.
        let first = Date(timeIntervalSince1970: -62_167_219_200)
        try db.execute(sql: "INSERT INTO t(v) VALUES (?)", arguments: [first])
        #expect(try db.fetchValue(String.self, sql: "SELECT v FROM t WHERE id = 2") == "0000-01-01 00:00:00.000")
        #expect(try db.fetchValue(Date.self, sql: "SELECT v FROM t WHERE id = 2") == first)
    }

    // MARK: Item 5: Decimal.nan was written as 'NaN'

    @Test func decimalNaNIsRefused() throws {
        let db = try Self.database()
        try Self.expectRefused(db, parameter: "parameter 1", mentioning: ["Decimal"]) {
            try db.makeStatement(sql: "INSERT INTO t(v) VALUES (?)").execute(Decimal.nan)
        }
        try Self.expectRefused(db, parameter: "parameter 1") {
            try db.execute(sql: "INSERT INTO t(v) VALUES (?)", arguments: [Decimal.nan])
        }
        for decimal in [Decimal.greatestFiniteMagnitude, .leastFiniteMagnitude, .leastNonzeroMagnitude, Decimal(-0.5)] {
            try db.execute(sql: "DELETE FROM t WHERE id > 1")
            try db.execute(sql: "INSERT INTO t(id, v) VALUES (2, ?)", arguments: [decimal])
            #expect(try db.fetchValue(Decimal.self, sql: "SELECT v FROM t WHERE id = 2") == decimal)
        }
    }

    // MARK: NaN and UInt64, the same class

    @Test func nanAndOversizedUnsignedAreRefused() throws {
        let db = try Self.database()
        try Self.expectRefused(db, parameter: "parameter 1", mentioning: ["NaN"]) {
            try db.execute(sql: "INSERT INTO t(v) VALUES (?)", arguments: [Double.nan])
        }
        try Self.expectRefused(db, parameter: "parameter 2") {
            try db.makeStatement(sql: "INSERT INTO t(id, v) VALUES (?, ?)").execute(5, Float.nan)
        }
        try Self.expectRefused(db, parameter: "parameter 1") {
            try db.makeStatement(sql: "INSERT INTO t(v) VALUES (?)").execute(Double.signalingNaN)
        }
        try Self.expectRefused(db, parameter: "parameter 1", mentioning: ["UInt64", "Int64.max"]) {
            try db.makeStatement(sql: "INSERT INTO t(v) VALUES (?)").execute(UInt64.max)
        }
        try Self.expectRefused(db, parameter: "parameter 1") {
            try db.execute(sql: "INSERT INTO t(v) VALUES (?)", arguments: [UInt(Int64.max) + 1])
        }
        try Self.expectRefused(db, parameter: "parameter 1") {
            try db.execute(sql: "INSERT INTO t(v) VALUES (?)", arguments: [SQLValue.real(.nan)])
        }
        // The value is named only when arguments are public.
        var configuration = Configuration()
        configuration.publicStatementArguments = true
        let open = try Database(inMemory: configuration)
        let error = #expect(throws: SQLiteError.self) {
            try open.makeStatement(sql: "SELECT ?").execute(UInt64.max)
        }
        #expect(error?.message.contains("18446744073709551615") == true, "\(String(describing: error))")
        // The largest that fits is stored.
        try db.makeStatement(sql: "INSERT INTO t(id, v) VALUES (9, ?)").execute(UInt64(Int64.max))
        #expect(try db.fetchValue(UInt64.self, sql: "SELECT v FROM t WHERE id = 9") == UInt64(Int64.max))
    }

    // MARK: Records

    struct Event: Codable, Equatable, FetchableRecord, PersistableRecord {
        var id: Int64
        var time: Date
        var amount: Decimal
        var ratio: Double
        var size: UInt64
        var stamp: Date?
        static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
            column == "stamp" ? .secondsSince1970 : .deferredToDate
        }
        static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
            column == "stamp" ? .timeIntervalSince1970 : .deferredToDate
        }
    }

    @Test func recordsRefuseUnstorableValuesNamingTheColumn() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: "CREATE TABLE event(id INTEGER PRIMARY KEY, time TEXT, amount TEXT, ratio REAL, size INTEGER, stamp)")
        let good = Event(
            id: 1, time: Date(timeIntervalSince1970: 1_700_000_000.125), amount: 12.5, ratio: -0.25, size: 7, stamp: nil
        )
        try good.insert(db)
        let bad: [(String, Event)] = [
            ("time", Event(id: 2, time: Date(timeIntervalSince1970: 1e15), amount: 1, ratio: 1, size: 1)),
            ("time", Event(id: 2, time: Date(timeIntervalSince1970: -62_170_000_000), amount: 1, ratio: 1, size: 1)),
            ("amount", Event(id: 2, time: good.time, amount: .nan, ratio: 1, size: 1)),
            ("ratio", Event(id: 2, time: good.time, amount: 1, ratio: .nan, size: 1)),
            ("size", Event(id: 2, time: good.time, amount: 1, ratio: 1, size: .max)),
            (
                "stamp",
                Event(id: 2, time: good.time, amount: 1, ratio: 1, size: 1, stamp: Date(timeIntervalSince1970: 1e19))
            ),
        ]
        let before = try Self.snapshot(db, "event")
        for (column, event) in bad {
            for write in [
                { try event.insert(db) },
                {
                    var e = event
                    e.id = 1
                    try e.update(db)
                }, { try event.save(db) },
            ] {
                let error = #expect(throws: EncodingError.self) { try write() }
                let text = "\(String(describing: error))"
                #expect(text.contains("column \"\(column)\""), "\(text)")
                #expect(text.contains("Event"), "\(text)")
            }
            #expect(try Self.snapshot(db, "event") == before)
        }
        #expect(try Event.fetchOne(db, key: 1) == good)
    }

    // MARK: Item 6: malformed text was silently replaced, then written back

    struct Person: Codable, FetchableRecord, PersistableRecord {
        var id: Int64
        var name: String
        var nick: String
    }

    struct PersonBytes: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "person"
        var id: Int64
        var name: Data
        var nick: String
    }

    struct PersonNick: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "person"
        var id: Int64
        var nick: String
    }

    static func malformedTextDatabase() throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, nick TEXT)")
        try db.execute(sql: "INSERT INTO person VALUES (1, CAST(X'61FF62' AS TEXT), 'ok'), (2, 'Bob', 'b')")
        return db
    }

    @Test func malformedTextDoesNotReadAsString() throws {
        let db = try Self.malformedTextDatabase()
        #expect(try db.fetchValue(String.self, sql: "SELECT typeof(name) FROM person WHERE id = 1") == "text")
        let row = try #require(try db.fetchOne(sql: "SELECT name FROM person WHERE id = 1"))
        #expect(row.values == [.blob([0x61, 0xFF, 0x62])])
        #expect(try row["name"] as Data == Data([0x61, 0xFF, 0x62]))
        let error = #expect(throws: RowDecodingError.self) { _ = try row["name"] as String }
        #expect(error?.code == .typeMismatch)
        #expect(error?.column == "\"name\"")
        #expect(error?.description.contains("not valid UTF-8") == true, "\(String(describing: error))")
        // Every other way to turn the column into a String throws too.
        #expect(throws: RowDecodingError.self) {
            _ = try db.fetchValue(String.self, sql: "SELECT name FROM person WHERE id = 1")
        }
        #expect(throws: RowDecodingError.self) {
            _ = try db.fetchColumn(String.self, sql: "SELECT name FROM person ORDER BY id DESC")
        }
        #expect(throws: RowDecodingError.self) {
            try db.makeStatement(sql: "SELECT name FROM person WHERE id = 1").forEachRow { _ = try $0[0] as String? }
        }
        #expect(throws: RowDecodingError.self) {
            let cursor = try db.fetchCursor(sql: "SELECT name FROM person")
            while let row = try cursor.next() { _ = try row["name"] as String }
        }
        // Records: one row, and the fast path of many (the bad row last, after a plan is made).
        let recordError = #expect(throws: RowDecodingError.self) { _ = try Person.fetchOne(db, key: 1) }
        #expect(recordError?.column == "\"name\"")
        #expect(recordError?.recordType == "Person")
        #expect(throws: RowDecodingError.self) {
            _ = try Person.fetchAll(db, sql: "SELECT * FROM person ORDER BY id DESC")
        }
        #expect(try PersonBytes.fetchOne(db, key: 1)?.name == Data([0x61, 0xFF, 0x62]))
        #expect(try Person.fetchOne(db, key: 2)?.name == "Bob")
    }

    @Test func noWriteChangesBytesTheCodeDidNotChange() throws {
        let db = try Self.malformedTextDatabase()
        func nameBytes() throws -> String? {
            try db.fetchValue(String.self, sql: "SELECT hex(name) FROM person WHERE id = 1")
        }
        // A record without the column updates only its own columns.
        var nick = try #require(try PersonNick.fetchOne(db, key: 1))
        nick.nick = "changed"
        try nick.update(db)
        #expect(try nameBytes() == "61FF62")
        // A record reading the column as bytes writes the same bytes back.
        var bytes = try #require(try PersonBytes.fetchOne(db, key: 1))
        bytes.nick = "again"
        try bytes.update(db)
        #expect(try nameBytes() == "61FF62")
        // A row copied and written back through SQLValue keeps the bytes as well.
        let value = try #require(try db.fetchOne(sql: "SELECT name FROM person WHERE id = 1")).values[0]
        try db.execute(sql: "UPDATE person SET name = ? WHERE id = 1", arguments: [value])
        #expect(try nameBytes() == "61FF62")
        #expect(try db.fetchValue(String.self, sql: "SELECT nick FROM person WHERE id = 1") == "again")
    }
}
