import Foundation

// Cases 7b and 8b: a realistic table, 16,000 order rows of 14 mixed TEXT/REAL/INTEGER columns,
// six of them nullable (NULL in a third to four fifths of the rows), the dates stored as text
// ('YYYY-MM-DD HH:MM:SS'). Every contender reads them into a struct with the same fields (the
// dates stay `String`s, so that what is measured is the record layer, not date parsing) and
// checks the same digest of every field.

extension Fixtures {
    static let orderRows = 16_000

    static let orderColumns = [
        "id", "customer_id", "status", "placed_at", "shipped_at", "subtotal", "discount", "tax", "currency",
        "item_count", "note", "coupon_code", "weight_kg", "priority",
    ]

    static let createOrderTable = """
        CREATE TABLE orders(
            id INTEGER PRIMARY KEY,
            customer_id INTEGER NOT NULL,
            status TEXT NOT NULL,
            placed_at TEXT NOT NULL,
            shipped_at TEXT,
            subtotal REAL NOT NULL,
            discount REAL,
            tax REAL NOT NULL,
            currency TEXT NOT NULL,
            item_count INTEGER NOT NULL,
            note TEXT,
            coupon_code TEXT,
            weight_kg REAL,
            priority INTEGER)
        """

    static let selectOrdersSQL = "SELECT " + orderColumns.joined(separator: ", ") + " FROM orders"
    static let insertOrderSQL =
        "INSERT INTO orders(" + orderColumns.joined(separator: ", ") + ") VALUES ("
        + Array(repeating: "?", count: orderColumns.count).joined(separator: ", ") + ")"

    static func makeOrderTemplate(path: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        let db = try RawConnection(path: path)
        try db.exec(connectionSetup)
        try db.exec(createOrderTable)
        try db.exec(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(orderRows))
            INSERT INTO orders
            SELECT i, 1000 + i % 937,
                CASE i % 5 WHEN 0 THEN 'new' WHEN 1 THEN 'paid' WHEN 2 THEN 'shipped' WHEN 3 THEN 'delivered'
                    ELSE 'cancelled' END,
                datetime('2024-01-01 08:00:00', '+' || (i * 37) || ' minutes'),
                CASE WHEN i % 3 = 0 THEN NULL ELSE datetime('2024-01-02 09:30:00', '+' || (i * 37) || ' minutes') END,
                (i % 500) * 1.25 + 9.99,
                CASE WHEN i % 2 = 0 THEN NULL ELSE (i % 20) * 0.5 END,
                (i % 500) * 0.2,
                CASE i % 3 WHEN 0 THEN 'EUR' WHEN 1 THEN 'USD' ELSE 'GBP' END,
                1 + i % 12,
                CASE WHEN i % 5 = 0 THEN 'Leave the parcel at the door, order #' || i ELSE NULL END,
                CASE WHEN i % 3 = 1 THEN 'SPRING' || (i % 50) ELSE NULL END,
                CASE WHEN i % 5 = 4 THEN NULL ELSE (i % 70) * 0.125 END,
                CASE WHEN i % 2 = 0 THEN i % 4 ELSE NULL END
            FROM n
            """)
        try db.exec("PRAGMA wal_checkpoint(TRUNCATE)")
    }
}

/// The fields of an order, shared by each contender's struct, and the digest they must agree on.
protocol OrderFields {
    var id: Int64 { get }
    var customerID: Int64 { get }
    var status: String { get }
    var placedAt: String { get }
    var shippedAt: String? { get }
    var subtotal: Double { get }
    var discount: Double? { get }
    var tax: Double { get }
    var currency: String { get }
    var itemCount: Int64 { get }
    var note: String? { get }
    var couponCode: String? { get }
    var weightKg: Double? { get }
    var priority: Int64? { get }
}

extension OrderFields {
    /// Every field folded into one number (strings by length and first byte, NULLs counted).
    var digest: Int64 {
        func text(_ s: String?) -> Int64 {
            guard let s else { return 7 }
            return Int64(s.utf8.count) &* 31 &+ Int64(s.utf8.first ?? 0)
        }
        func real(_ d: Double?) -> Int64 { d.map { Int64($0 * 1000) } ?? 11 }
        var h = id &+ customerID &* 3 &+ itemCount &* 5 &+ (priority ?? 13)
        h = h &+ text(status) &+ text(placedAt) &* 2 &+ text(shippedAt) &* 3 &+ text(currency) &* 5
        h = h &+ text(note) &* 7 &+ text(couponCode) &* 11
        h = h &+ real(subtotal) &+ real(discount) &* 2 &+ real(tax) &* 3 &+ real(weightKg) &* 5
        return h
    }
}

/// The digest of all the rows of the template, computed from the template by the C API (so the
/// contenders are checked against SQLite's own values, not against one another).
func orderDigest<S: Sequence>(_ records: S) -> Int64 where S.Element: OrderFields {
    records.reduce(0) { $0 &+ $1.digest }
}

/// The raw C API's struct.
struct RawOrder: OrderFields {
    var id: Int64
    var customerID: Int64
    var status: String
    var placedAt: String
    var shippedAt: String?
    var subtotal: Double
    var discount: Double?
    var tax: Double
    var currency: String
    var itemCount: Int64
    var note: String?
    var couponCode: String?
    var weightKg: Double?
    var priority: Int64?
}
