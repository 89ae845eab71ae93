import Foundation
import StrataSQLite
import Testing

/// The per-type decoding plan of `Decodable` records (key → column index, keys checked by their
/// bits) and the name → index table of ``ColumnNames``: every shortcut must give the results and
/// the errors of a lookup by name.
@Suite("Record decoding plan and column name table")
struct RecordDecodingPlanTests {
    struct Order: Decodable, FetchableRecord, Equatable {
        var id: Int64
        var customerID: Int64
        var note: String?
        var total: Double
        var weight: Double?
        var tags: [String]?

        enum CodingKeys: String, CodingKey {
            case id, note, total, weight, tags
            case customerID = "customer_id"
        }
    }

    static func makeDatabase() throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id INTEGER, note TEXT, total REAL NOT NULL,
                    weight REAL, tags TEXT);
                INSERT INTO orders VALUES (1, 10, 'first', 1.5, NULL, '["a","b"]'), (2, 20, NULL, 2.5, 0.25, NULL),
                    (3, 30, 'third', 3.5, 1.0, '[]'), (4, 40, NULL, 4.5, NULL, '["c"]');
                """)
        return db
    }

    static let expected = [
        Order(id: 1, customerID: 10, note: "first", total: 1.5, weight: nil, tags: ["a", "b"]),
        Order(id: 2, customerID: 20, note: nil, total: 2.5, weight: 0.25, tags: nil),
        Order(id: 3, customerID: 30, note: "third", total: 3.5, weight: 1.0, tags: []),
        Order(id: 4, customerID: 40, note: nil, total: 4.5, weight: nil, tags: ["c"]),
    ]

    @Test func oneRecordTypeOverStatementsWithOtherColumnOrders() throws {
        let db = try Self.makeDatabase()
        let orders = [
            "SELECT * FROM orders",
            "SELECT tags, weight, total, note, customer_id, id FROM orders",
            "SELECT total, id, 'extra' AS extra, customer_id, weight, tags, note FROM orders",
            // Optional columns missing from the row decode as nil.
            "SELECT customer_id, total, id FROM orders",
        ]
        for sql in orders {
            // Twice each: the second fetch starts with the plan the first one left.
            for _ in 0..<2 {
                let fetched = try Order.fetchAll(db, sql: sql + " ORDER BY id")
                let missing = sql.hasPrefix("SELECT customer_id, total, id ")
                #expect(
                    fetched
                        == Self.expected.map {
                            missing ? Order(id: $0.id, customerID: $0.customerID, total: $0.total) : $0
                        }, "\(sql)")
                let cursor = try Order.fetchCursor(db, sql: sql + " ORDER BY id")
                #expect(try cursor.next()?.id == 1)
                #expect(try cursor.next()?.id == 2)
            }
        }
        // The rows one by one (copied rows, no statement): the same records.
        let rows = try db.fetchAll(sql: "SELECT tags, weight, total, note, customer_id, id FROM orders ORDER BY id")
        #expect(try rows.map(Order.init(row:)) == Self.expected)
    }

    @Test func aMismatchAfterTheFirstRowNamesTheColumnAndValue() throws {
        let db = try Self.makeDatabase()
        try db.execute(sql: "INSERT INTO orders VALUES (5, 50, 'fifth', 'lots', NULL, NULL)")
        let error = #expect(throws: RowDecodingError.self) {
            _ = try Order.fetchAll(db, sql: "SELECT * FROM orders ORDER BY id")
        }
        #expect(error?.column == #""total""#)
        #expect(error?.value == "lots")
        #expect(error?.recordType == "Order")
        try db.execute(sql: "UPDATE orders SET total = 5.5, customer_id = NULL WHERE id = 5")
        let null = #expect(throws: RowDecodingError.self) {
            _ = try Order.fetchAll(db, sql: "SELECT note, customer_id, total, id FROM orders ORDER BY id")
        }
        #expect(null?.column == #""customer_id""#)
        #expect(null?.description.contains("NULL") == true)
        // An optional column holding a value of another type is refused too.
        try db.execute(sql: "UPDATE orders SET customer_id = 50, weight = 'heavy' WHERE id = 5")
        let optional = #expect(throws: RowDecodingError.self) {
            _ = try Order.fetchAll(db, sql: "SELECT * FROM orders ORDER BY id")
        }
        #expect(optional?.column == #""weight""#)
        #expect(optional?.value == "heavy")
        // A JSON column that is not JSON names its column.
        try db.execute(sql: "UPDATE orders SET weight = NULL, tags = 'not json' WHERE id = 5")
        let json = #expect(throws: RowDecodingError.self) {
            _ = try Order.fetchAll(db, sql: "SELECT * FROM orders ORDER BY id")
        }
        #expect(json?.column == #""tags""#)
    }

    /// Keys asked for in another order from one row to the next: the plan of the first row does
    /// not match, and each key is then looked up by name.
    @Test func keysThatDependOnTheRow() throws {
        struct Shape: Decodable, FetchableRecord, Equatable {
            var kind: String
            var size: Double
            init(kind: String, size: Double) {
                self.kind = kind
                self.size = size
            }
            enum CodingKeys: String, CodingKey { case kind, radius, side }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                kind = try container.decode(String.self, forKey: .kind)
                size = try container.decode(Double.self, forKey: kind == "circle" ? .radius : .side)
            }
        }
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE shape(kind TEXT, side REAL, radius REAL);
                INSERT INTO shape VALUES ('circle', NULL, 1), ('square', 2, NULL), ('circle', NULL, 3), ('square', 4, NULL);
                """)
        #expect(
            try Shape.fetchAll(db, sql: "SELECT * FROM shape") == [
                Shape(kind: "circle", size: 1), Shape(kind: "square", size: 2), Shape(kind: "circle", size: 3),
                Shape(kind: "square", size: 4),
            ])
    }

    /// Keys that are not a one-byte enum: a two-byte plain struct (bits of two bytes) and a key
    /// holding a string (no bits: strings are compared).
    @Test func keysOfOtherShapes() throws {
        struct WideKey: CodingKey {
            var number: UInt16
            var stringValue: String { "c\(number)" }
            var intValue: Int? { nil }
            init(_ number: UInt16) { self.number = number }
            init?(stringValue: String) { nil }
            init?(intValue: Int) { nil }
        }
        struct NamedKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(_ name: String) { stringValue = name }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        struct Wide: Decodable, FetchableRecord, Equatable {
            var values: [Int64]
            init(values: [Int64]) { self.values = values }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: WideKey.self)
                values = try [300, 2, 513].map { try container.decode(Int64.self, forKey: WideKey($0)) }
            }
        }
        struct Named: Decodable, FetchableRecord, Equatable {
            var values: [Int64?]
            init(values: [Int64?]) { self.values = values }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: NamedKey.self)
                values = try ["c2", "c300", "absent"].map {
                    try container.decodeIfPresent(Int64.self, forKey: NamedKey($0))
                }
            }
        }
        let db = try Database(inMemory: Configuration())
        let sql =
            "SELECT value AS c513, value * 2 AS c2, value * 3 AS c300 FROM (SELECT 1 AS value UNION ALL SELECT 2 UNION ALL SELECT 3) ORDER BY value"
        #expect(try Wide.fetchAll(db, sql: sql) == [1, 2, 3].map { Wide(values: [$0 * 3, $0 * 2, $0]) })
        #expect(try Named.fetchAll(db, sql: sql) == [1, 2, 3].map { Named(values: [$0 * 2, $0 * 3, nil]) })
    }

    /// A nested `Decodable` property reads its column's JSON, row after row.
    @Test func nestedDecodableFromJSON() throws {
        struct Address: Codable, Equatable {
            var city: String
            var zip: String?
        }
        struct Customer: Decodable, FetchableRecord, Equatable {
            var id: Int
            var address: Address
            var previous: Address?
        }
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE customer(id INTEGER, address TEXT, previous TEXT);
                INSERT INTO customer VALUES (1, '{"city":"Paris","zip":"75001"}', NULL),
                    (2, '{"city":"Lyon"}', '{"city":"Nice","zip":"06000"}'), (3, '{"city":"Lille"}', NULL);
                """)
        #expect(
            try Customer.fetchAll(db, sql: "SELECT * FROM customer ORDER BY id") == [
                Customer(id: 1, address: Address(city: "Paris", zip: "75001"), previous: nil),
                Customer(id: 2, address: Address(city: "Lyon"), previous: Address(city: "Nice", zip: "06000")),
                Customer(id: 3, address: Address(city: "Lille"), previous: nil),
            ])
        try db.execute(sql: #"INSERT INTO customer VALUES (4, '{"zip":"1"}', NULL)"#)
        let error = #expect(throws: RowDecodingError.self) {
            _ = try Customer.fetchAll(db, sql: "SELECT * FROM customer ORDER BY id")
        }
        #expect(error?.column == #""address""#)
    }

    /// A hand-written `init(row:)` gets each row copied into one reused buffer: a record that
    /// keeps its row must keep that row's values, not see the next rows'.
    @Test func recordsThatKeepTheirRow() throws {
        struct Kept: FetchableRecord {
            var row: Row
            var id: Int64
            init(row: Row) throws {
                self.row = row
                id = try row["id"]
            }
        }
        struct Read: FetchableRecord, Equatable {
            var id: Int64
            var note: String?
            init(id: Int64, note: String?) {
                self.id = id
                self.note = note
            }
            init(row: Row) throws {
                id = try row["id"]
                note = try row["note"]
            }
        }
        let db = try Self.makeDatabase()
        let sql = "SELECT id, note, total FROM orders ORDER BY id"
        let kept = try Kept.fetchAll(db, sql: sql)
        #expect(kept.map(\.id) == [1, 2, 3, 4])
        #expect(try kept.map { try $0.row["total"] as Double } == [1.5, 2.5, 3.5, 4.5])
        #expect(kept.map { $0.row.value(named: "note") } == [.text("first"), .null, .text("third"), .null])
        let cursor = try Kept.fetchCursor(db, sql: sql)
        var fromCursor = [Kept]()
        while let record = try cursor.next() { fromCursor.append(record) }
        #expect(fromCursor.map { $0.row } == kept.map { $0.row })
        let expected = [
            Read(id: 1, note: "first"), Read(id: 2, note: nil), Read(id: 3, note: "third"), Read(id: 4, note: nil),
        ]
        #expect(try Read.fetchAll(db, sql: sql) == expected)
        #expect(try Read.fetchCursor(db, sql: sql).collect() == expected)
        // An error in a later row names its column, and the next fetch starts afresh.
        try db.execute(sql: "INSERT INTO orders VALUES (5, 50, x'FF', 5.5, NULL, NULL)")
        let error = #expect(throws: RowDecodingError.self) { _ = try Read.fetchAll(db, sql: sql) }
        #expect(error?.column == #""note""#)
        #expect(try Read.fetchAll(db, sql: sql + " LIMIT 4") == expected)
    }

    // MARK: Column names

    @Test func columnNameTableMatchesTheComparingLookup() throws {
        // Names built at run time (other storage than the literals below), duplicates, a name
        // longer than 15 bytes, non-ASCII names, and more than 16 columns.
        var names = (0..<40).map { "col\($0)" }
        names += ["Name", "name", "a_rather_long_column_name", "café", "ÉTÉ", "", "col3"]
        let columns = ColumnNames(names)
        #expect(columns.index(of: "col0") == 0)
        #expect(columns.index(of: "col39") == 39)
        #expect(columns.index(of: "col3") == 3)  // the leftmost of two
        #expect(columns.index(of: "Name") == 40)
        #expect(columns.index(of: "name") == 41)  // exact beats case-insensitive
        #expect(columns.index(of: "NAME") == 40)  // the leftmost case-insensitive match
        #expect(columns.index(of: "a_rather_long_column_name") == 42)
        #expect(columns.index(of: "A_RATHER_LONG_COLUMN_NAME") == 42)
        #expect(columns.index(of: "café") == 43)
        #expect(columns.index(of: "ÉTÉ") == 44)
        #expect(columns.index(of: "") == 45)
        #expect(columns.index(of: "col40") == nil)
        #expect(columns.index(of: "nam") == nil)
        for (i, name) in names.enumerated() {
            let expected = names.firstIndex(of: name)
            #expect(columns.index(of: String(name.reversed().reversed())) == expected, "\(name) at \(i)")
        }
        // A few columns (compared one by one) and no column at all.
        let few = ColumnNames(["id", "ID", "title"])
        #expect(few.index(of: "ID") == 1)
        #expect(few.index(of: "Title") == 2)
        #expect(ColumnNames([]).index(of: "id") == nil)
    }

    @Test func rowsReadByNameFromStatementsAndCopies() throws {
        let db = try Self.makeDatabase()
        let statement = try db.makeStatement(
            sql: "SELECT note, id AS \"ID\", total, customer_id FROM orders ORDER BY id")
        var seen = [String]()
        try statement.forEachRow { row in
            let id: Int64 = try row["id"]
            let customer: Int64 = try row["CUSTOMER_ID"]
            let note: String? = try row["note"]
            seen.append("\(id):\(customer):\(note ?? "-")")
            #expect(throws: RowDecodingError.self) { _ = try row["weight"] as Double? }
        }
        #expect(seen == ["1:10:first", "2:20:-", "3:30:third", "4:40:-"])
        let rows = try db.fetchAll(sql: "SELECT id, total FROM orders ORDER BY id")
        #expect(try rows.map { try $0["total"] as Double } == [1.5, 2.5, 3.5, 4.5])
        let error = #expect(throws: RowDecodingError.self) { _ = try rows[0]["total"] as String }
        #expect(error?.column == #""total""#)
    }
}
