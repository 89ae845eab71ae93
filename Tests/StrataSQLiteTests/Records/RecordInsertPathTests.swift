import Foundation
import StrataSQLite
import Testing

/// The insert path of `Encodable` records: the encoder expects the columns of the table's last
/// insert and shares that array when the keys match it, and the cached INSERT is found from the
/// columns. Whatever keys a record encodes, in whatever order, spelling or number, each value
/// must land in its own column.
@Suite("Record insert path")
struct RecordInsertPathTests {
    /// A coding key made of any string.
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// One encoded entry: how it is encoded.
    enum Entry: Equatable {
        case integer(Int64)
        case optionalInteger(Int64?)
        case text(String)
        case optionalText(String?)
        case real(Double)
        case null

        var stored: SQLValue {
            switch self {
            case .integer(let i): .integer(i)
            case .optionalInteger(let i): i.map { .integer($0) } ?? .null
            case .text(let s): .text(s)
            case .optionalText(let s): s.map { .text($0) } ?? .null
            case .real(let d): .real(d)
            case .null: .null
            }
        }
    }

    /// A record that encodes exactly its entries, in their order (keys repeated, skipped, or
    /// spelled in another case as the entries say).
    struct Shape: Encodable, PersistableRecord {
        static let databaseTableName = "item"
        var entries: [(String, Entry)]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for (name, entry) in entries {
                let key = Key(name)
                switch entry {
                case .integer(let i): try container.encode(i, forKey: key)
                case .optionalInteger(let i): try container.encodeIfPresent(i, forKey: key)
                case .text(let s): try container.encode(s, forKey: key)
                case .optionalText(let s): try container.encodeIfPresent(s, forKey: key)
                case .real(let d): try container.encode(d, forKey: key)
                case .null: try container.encodeNil(forKey: key)
                }
            }
        }
    }

    static let createItem = """
        CREATE TABLE item(
            id INTEGER PRIMARY KEY, a TEXT, b INTEGER DEFAULT 42, c REAL, d TEXT DEFAULT 'dflt',
            "select" TEXT, "Mixed Case" INTEGER, "a rather long column name, with a comma" TEXT)
        """
    /// The columns in table order, and their values when a record leaves them out.
    static let columns = ["id", "a", "b", "c", "d", "select", "Mixed Case", "a rather long column name, with a comma"]
    static let defaults: [SQLValue] = [.null, .null, .integer(42), .null, .text("dflt"), .null, .null, .null]

    /// The row a record's entries must give: the last value of each column (names compared
    /// without regard to ASCII case), the default for the others.
    static func expectedRow(_ entries: [(String, Entry)]) -> [SQLValue] {
        var row = defaults
        for (name, entry) in entries {
            if let index = columns.firstIndex(where: { $0.lowercased() == name.lowercased() }) {
                row[index] = entry.stored
            }
        }
        return row
    }

    static func rows(_ db: Database) throws -> [[SQLValue]] {
        let list = columns.map { SQLLiteral.quote(identifier: $0) }.joined(separator: ", ")
        return try db.fetchAll(sql: "SELECT \(list) FROM item ORDER BY id").map(\.values)
    }

    /// A deterministic generator (the suite's SplitMix64): the same shapes on every run.
    typealias Generator = ValueRandom

    /// Entries for record `id`: the id somewhere, then a random subset of the other columns in a
    /// random order, some spelled in upper case, some encoded twice (the first value wrong),
    /// some nil (NULL, not the default).
    static func randomEntries(id: Int64, _ random: inout Generator) -> [(String, Entry)] {
        var entries: [(String, Entry)] = []
        for (index, column) in columns.enumerated().dropFirst() where random.below(4) != 0 {
            let name = random.below(5) == 0 ? column.uppercased() : column
            let entry: Entry
            switch index {
            case 1, 5, 7:
                entry = random.below(4) == 0 ? .optionalText(nil) : .text("\(column) of \(id)")
            case 2, 6:
                entry = random.below(4) == 0 ? .optionalInteger(nil) : .optionalInteger(id * 10 + Int64(index))
            case 3: entry = random.below(5) == 0 ? .null : .real(Double(id) + 0.5)
            default: entry = .optionalText(random.below(3) == 0 ? nil : "d\(id)")
            }
            if random.below(8) == 0 { entries.append((name, .text("overwritten"))) }
            entries.append((name, entry))
        }
        // Shuffle, then put the id at a random place.
        for i in entries.indices.reversed() where i > 0 { entries.swapAt(i, random.below(i + 1)) }
        entries.insert(("id", .integer(id)), at: random.below(entries.count + 1))
        return entries
    }

    @Test func keysInAnyOrderSubsetCaseAndNumberLandInTheirColumns() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: Self.createItem)
        var random = Generator(seed: 2026)
        var expected: [[SQLValue]] = []
        try db.transaction {
            for id in Int64(1)...400 {
                // Runs of the same shape (the hint serves), broken by other shapes.
                let entries = Self.randomEntries(id: id, &random)
                let repeats = random.below(3) + 1
                for copy in 0..<repeats {
                    let rowID = id * 10 + Int64(copy)
                    var shape = entries
                    for i in shape.indices where shape[i].0 == "id" { shape[i].1 = .integer(rowID) }
                    try Shape(entries: shape).insert(db)
                    expected.append(Self.expectedRow(shape))
                }
            }
        }
        #expect(try Self.rows(db) == expected)
    }

    @Test func prefixesAndExtensionsOfTheLastColumnList() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: Self.createItem)
        let shapes: [[(String, Entry)]] = [
            [("id", .integer(1)), ("a", .text("a1")), ("b", .integer(11)), ("c", .real(1.5))],
            [("id", .integer(2)), ("a", .text("a2")), ("b", .integer(12))],  // a prefix: c gets NULL
            [("id", .integer(3)), ("a", .text("a3")), ("b", .integer(13)), ("c", .real(3.5)), ("d", .text("d3"))],
            [("id", .integer(4)), ("a", .text("a4")), ("b", .integer(14)), ("c", .real(4.5))],
            [("id", .integer(5)), ("a", .text("a5")), ("c", .real(5.5))],  // b skipped in the middle
            [("id", .integer(6)), ("b", .integer(16)), ("a", .text("a6")), ("c", .real(6.5))],  // a and b swapped
            [("id", .integer(7))],
            [],  // DEFAULT VALUES: the id is the next rowid
            [("id", .integer(9)), ("a", .text("a9")), ("b", .integer(19)), ("c", .real(9.5))],
            [("id", .integer(10)), ("A", .text("a10")), ("b", .integer(20)), ("C", .real(10.5))],  // other case
            [("id", .integer(11)), ("a", .text("a11")), ("b", .integer(21)), ("c", .real(11.5)), ("a", .text("A11"))],
        ]
        var expected: [[SQLValue]] = []
        for (index, shape) in shapes.enumerated() {
            try Shape(entries: shape).insert(db)
            var row = Self.expectedRow(shape)
            if shape.isEmpty { row[0] = .integer(Int64(index + 1)) }
            expected.append(row)
        }
        #expect(try Self.rows(db) == expected)
    }

    /// One value whose encoding changes with each call: the keys come in another order, and
    /// every third call skips one.
    final class Calls: @unchecked Sendable {
        var count = 0
    }

    struct Rotating: Encodable, PersistableRecord {
        static let databaseTableName = "pair"
        let calls: Calls

        func encode(to encoder: any Encoder) throws {
            calls.count += 1
            var container = encoder.container(keyedBy: Key.self)
            switch calls.count % 3 {
            case 0:
                try container.encode("X\(calls.count)", forKey: Key("x"))
                try container.encode("Y\(calls.count)", forKey: Key("y"))
            case 1:
                try container.encode("Y\(calls.count)", forKey: Key("y"))
                try container.encode("X\(calls.count)", forKey: Key("x"))
            default:
                try container.encode("Y\(calls.count)", forKey: Key("y"))
            }
        }
    }

    @Test func aRecordWhoseKeysChangeFromCallToCall() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE pair(x TEXT DEFAULT 'none', y TEXT)")
        let record = Rotating(calls: Calls())
        for _ in 0..<30 { try record.insert(db) }
        let rows = try db.fetchAll(sql: "SELECT x, y FROM pair ORDER BY rowid").map(\.values)
        let expected: [[SQLValue]] = (1...30).map { call in
            [call % 3 == 2 ? "none" : .text("X\(call)"), .text("Y\(call)")]
        }
        #expect(rows == expected)
        #expect(record.calls.count == 30)
    }

    /// A record that inserts another record of its table while it encodes: the kept encoder is
    /// busy, so the inner record gets its own, and neither binds the other's values.
    struct Reentrant: Encodable, PersistableRecord {
        static let databaseTableName = "pair"
        let db: Database?
        var x: String
        var y: String

        enum CodingKeys: String, CodingKey { case x, y }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(x, forKey: .x)
            if let db { try Reentrant(db: nil, x: "inner \(x)", y: "inner \(y)").insert(db) }
            try container.encode(y, forKey: .y)
        }
    }

    @Test func aRecordInsertedWhileAnotherEncodes() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE pair(x TEXT DEFAULT 'none', y TEXT)")
        for i in 0..<3 {
            try Reentrant(db: nil, x: "plain x\(i)", y: "plain y\(i)").insert(db)
            try Reentrant(db: db, x: "x\(i)", y: "y\(i)").insert(db)
        }
        let rows = try db.fetchAll(sql: "SELECT x, y FROM pair ORDER BY rowid").map(\.values)
        let expected: [[SQLValue]] = (0..<3).flatMap { i -> [[SQLValue]] in
            [
                [.text("plain x\(i)"), .text("plain y\(i)")], [.text("inner x\(i)"), .text("inner y\(i)")],
                [.text("x\(i)"), .text("y\(i)")],
            ]
        }
        #expect(rows == expected)
    }

    /// Inserts through the hint report the same container as without it: the columns as
    /// encoded, the rowid written back.
    struct Counted: Encodable, MutablePersistableRecord {
        static let databaseTableName = "item"
        var id: Int64?
        var a: String
        var b: Int64?
        var reported: [PersistenceContainer] = []

        enum CodingKeys: String, CodingKey { case id, a, b }

        mutating func didInsert(_ inserted: InsertionSuccess) {
            id = inserted.rowID
            reported.append(inserted.persistenceContainer)
        }
    }

    @Test func didInsertSeesTheColumnsAndTheRowID() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: Self.createItem)
        var saved: [PersistenceContainer] = []
        for i in Int64(0)..<5 {
            var record = Counted(id: i == 3 ? 100 : nil, a: "a\(i)", b: i == 2 ? nil : i)
            try record.insert(db)
            #expect(record.id == (i == 3 ? 100 : (i > 3 ? 101 : i + 1)))
            let container = try #require(record.reported.first)
            #expect(container.columns == ["id", "a", "b"])
            #expect(container.values == [.integer(record.id ?? -1), .text("a\(i)"), i == 2 ? .null : .integer(i)])
            saved.append(container)
        }
        #expect(saved.count == 5)
        #expect(try Self.rows(db).map { Array($0.prefix(3)) } == saved.map(\.values))
    }

    /// A hand-written record, an `Encodable` record with other keys and one with the same keys
    /// in another order, into the same table, in turn.
    struct HandWritten: PersistableRecord {
        static let databaseTableName = "item"
        var id: Int64
        func encode(to container: inout PersistenceContainer) throws {
            container["c"] = Double(id)
            container["id"] = id
            container["a"] = "hand \(id)"
        }
    }

    struct Forward: Codable, PersistableRecord {
        static let databaseTableName = "item"
        var id: Int64
        var a: String
        var b: Int64
    }

    struct Backward: Codable, PersistableRecord {
        static let databaseTableName = "item"
        var b: Int64
        var a: String
        var id: Int64
    }

    @Test func recordTypesSharingATableInTurn() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: Self.createItem)
        var expected: [[SQLValue]] = []
        try db.transaction {
            for id in Int64(1)...60 {
                switch id % 3 {
                case 0:
                    try HandWritten(id: id).insert(db)
                    expected.append(
                        Self.expectedRow([("c", .real(Double(id))), ("id", .integer(id)), ("a", .text("hand \(id)"))]))
                case 1:
                    try Forward(id: id, a: "f\(id)", b: id).insert(db)
                    expected.append(
                        Self.expectedRow([("id", .integer(id)), ("a", .text("f\(id)")), ("b", .integer(id))]))
                default:
                    try Backward(b: -id, a: "b\(id)", id: id).insert(db)
                    expected.append(
                        Self.expectedRow([("id", .integer(id)), ("a", .text("b\(id)")), ("b", .integer(-id))]))
                }
            }
        }
        #expect(try Self.rows(db) == expected)
    }

    @Test func theTableChangesBetweenInserts() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, a TEXT, b INTEGER)")
        try Forward(id: 1, a: "one", b: 10).insert(db)
        try Forward(id: 2, a: "two", b: 20).insert(db)
        // The same name, the columns in another order and one more.
        try db.execute(
            sql: "DROP TABLE item; CREATE TABLE item(b INTEGER, extra TEXT DEFAULT 'x', a TEXT, id INTEGER PRIMARY KEY)"
        )
        try Forward(id: 3, a: "three", b: 30).insert(db)
        try Backward(b: 40, a: "four", id: 4).insert(db)
        try db.execute(sql: "ALTER TABLE item ADD COLUMN late TEXT DEFAULT 'late'")
        try Forward(id: 5, a: "five", b: 50).insert(db)
        let rows = try db.fetchAll(sql: "SELECT id, a, b, extra, late FROM item ORDER BY id").map(\.values)
        #expect(
            rows == [
                [3, "three", 30, "x", "late"], [4, "four", 40, "x", "late"], [5, "five", 50, "x", "late"],
            ])
    }

    /// Every optional the keyed container has its own method for: nil stores NULL, a value its
    /// own storage, as the plain value would.
    struct Optionals: Codable, PersistableRecord {
        static let databaseTableName = "optionals"
        var id: Int64
        var bool: Bool?
        var string: String?
        var double: Double?
        var float: Float?
        var int: Int?
        var int8: Int8?
        var int16: Int16?
        var int32: Int32?
        var int64: Int64?
        var uint: UInt?
        var uint8: UInt8?
        var uint16: UInt16?
        var uint32: UInt32?
        var uint64: UInt64?
    }

    static let optionalColumns = [
        "bool", "string", "double", "float", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
        "uint32", "uint64",
    ]

    @Test func everyOptionalScalarStoresNULLOrItsValue() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: "CREATE TABLE optionals(id INTEGER PRIMARY KEY, \(Self.optionalColumns.joined(separator: ", ")))")
        try Optionals(id: 1).insert(db)
        try Optionals(
            id: 2, bool: true, string: "s", double: -2.5, float: 0.25, int: .min, int8: .min, int16: .min,
            int32: .min, int64: .min, uint: UInt(Int64.max), uint8: .max, uint16: .max, uint32: .max,
            uint64: UInt64(Int64.max)
        ).insert(db)
        try Optionals(id: 3, bool: false, string: "", double: 0, int64: .max).insert(db)
        let list = Self.optionalColumns.map { "\($0), typeof(\($0))" }.joined(separator: ", ")
        let rows = try db.fetchAll(sql: "SELECT \(list) FROM optionals ORDER BY id").map(\.values)
        let nullPair: [SQLValue] = [.null, "null"]
        func nulls(_ count: Int) -> [SQLValue] { Array(repeating: nullPair, count: count).flatMap { $0 } }
        #expect(rows.first == nulls(14))
        let second: [SQLValue] = [
            1, "integer", "s", "text", -2.5, "real", 0.25, "real", .integer(.min), "integer", -128, "integer",
            -32768, "integer", .integer(Int64(Int32.min)), "integer", .integer(.min), "integer",
            .integer(.max), "integer", 255, "integer", 65535, "integer", .integer(Int64(UInt32.max)), "integer",
            .integer(.max), "integer",
        ]
        #expect(rows.dropFirst().first == second)
        let head: [SQLValue] = [0, "integer", "", "text", 0.0, "real"]
        let int64: [SQLValue] = [.integer(.max), "integer"]
        let third: [SQLValue] = head + nulls(5) + int64 + nulls(5)
        #expect(rows.last == third)
    }

    @Test func unstorableOptionalsNameTheColumnAndWriteNothing() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: "CREATE TABLE optionals(id INTEGER PRIMARY KEY, \(Self.optionalColumns.joined(separator: ", ")))")
        try Optionals(id: 1, string: "kept").insert(db)
        let bad: [(String, Optionals)] = [
            ("uint64", Optionals(id: 2, uint64: .max)),
            ("uint", Optionals(id: 2, uint: .max)),
            ("double", Optionals(id: 2, double: .nan)),
            ("float", Optionals(id: 2, float: .nan)),
        ]
        let before = try db.fetchAll(sql: "SELECT * FROM optionals").map(\.values)
        for (column, record) in bad {
            let error = #expect(throws: EncodingError.self) { try record.insert(db) }
            let text = String(describing: error)
            #expect(text.contains("column \"\(column)\""), "\(text)")
            #expect(text.contains("Optionals"), "\(text)")
            if column.hasPrefix("uint") {
                #expect(text.contains("does not fit SQLite's 64-bit signed INTEGER"), "\(text)")
            }
            #expect(try db.fetchAll(sql: "SELECT * FROM optionals").map(\.values) == before)
        }
    }
}

extension ValueRandom {
    /// A number in `0..<n`.
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
