import Foundation
import GRDB

/// Cases 7b and 8b's record, as a GRDB user would declare it.
struct GRDBOrder: Codable, FetchableRecord, PersistableRecord, OrderFields {
    static let databaseTableName = "orders"
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

    enum CodingKeys: String, CodingKey {
        case id, status, subtotal, discount, tax, currency, note, priority
        case customerID = "customer_id"
        case placedAt = "placed_at"
        case shippedAt = "shipped_at"
        case itemCount = "item_count"
        case couponCode = "coupon_code"
        case weightKg = "weight_kg"
    }
}

/// The same record with a hand-written `init(row:)` reading each column by name (GRDB's
/// subscripts, the idiom of its documentation).
struct GRDBOrderByRow: FetchableRecord, OrderFields {
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

    init(row: Row) {
        id = row["id"]
        customerID = row["customer_id"]
        status = row["status"]
        placedAt = row["placed_at"]
        shippedAt = row["shipped_at"]
        subtotal = row["subtotal"]
        discount = row["discount"]
        tax = row["tax"]
        currency = row["currency"]
        itemCount = row["item_count"]
        note = row["note"]
        couponCode = row["coupon_code"]
        weightKg = row["weight_kg"]
        priority = row["priority"]
    }
}

extension GRDBCases {
    static let orderJobs: [String: @Sendable (JobContext) throws -> [Double]] = [
        "c7b.grdb.codable": { context in
            let queue = try openQueue(context.path("orders.sqlite"))
            let expected = try RawCases.expectedOrderDigest(context)
            return try context.collect {
                var orders = [GRDBOrder]()
                let seconds = try timed {
                    orders = try queue.read { db in try GRDBOrder.fetchAll(db, sql: Fixtures.selectOrdersSQL) }
                }
                try checkOrders(orders, expected, "c7b.grdb.codable")
                return seconds
            }
        },
        "c7b.grdb.row": { context in
            let queue = try openQueue(context.path("orders.sqlite"))
            let expected = try RawCases.expectedOrderDigest(context)
            return try context.collect {
                var orders = [GRDBOrderByRow]()
                let seconds = try timed {
                    orders = try queue.read { db in try GRDBOrderByRow.fetchAll(db, sql: Fixtures.selectOrdersSQL) }
                }
                try checkOrders(orders, expected, "c7b.grdb.row")
                return seconds
            }
        },
        "c8b.grdb": { context in
            let orders = try openQueue(context.path("orders.sqlite")).read { db in
                try GRDBOrder.fetchAll(db, sql: Fixtures.selectOrdersSQL)
            }
            let expected = orderDigest(orders)
            return try context.collect {
                let path = context.path("c8b-grdb.sqlite")
                removeDatabase(path)
                let queue = try openQueue(path)
                try queue.write { db in try db.execute(sql: Fixtures.createOrderTable) }
                let seconds = try timed {
                    try queue.write { db in
                        for order in orders { try order.insert(db) }
                    }
                }
                let count = try queue.read { db in try GRDBOrder.fetchAll(db, sql: Fixtures.selectOrdersSQL) }
                try checkOrders(count, expected, "c8b.grdb")
                return seconds
            }
        },
    ]
}
