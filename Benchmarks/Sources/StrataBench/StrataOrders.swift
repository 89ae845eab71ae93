import Foundation
import Strata

/// Cases 7b and 8b's record, as a Strata user would declare it: `Codable`, the columns named by
/// `CodingKeys`.
struct StrataOrder: Codable, FetchableRecord, PersistableRecord, OrderFields {
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

/// The same record with a hand-written `init(row:)` reading each column by name. The initializer
/// is generic over `RowReader`: `fetchAll` calls it with a `Row` (it satisfies `FetchableRecord`'s
/// `init(row: Row)`), and the in-place contender with the `StatementRow` of `forEachRow`.
struct StrataOrderByRow: FetchableRecord, OrderFields {
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

    init(row: some RowReader) throws {
        id = try row["id"]
        customerID = try row["customer_id"]
        status = try row["status"]
        placedAt = try row["placed_at"]
        shippedAt = try row["shipped_at"]
        subtotal = try row["subtotal"]
        discount = try row["discount"]
        tax = try row["tax"]
        currency = try row["currency"]
        itemCount = try row["item_count"]
        note = try row["note"]
        couponCode = try row["coupon_code"]
        weightKg = try row["weight_kg"]
        priority = try row["priority"]
    }
}

extension StrataCases {
    static let orderJobs: [String: @Sendable (JobContext) throws -> [Double]] = [
        "c7b.strata.codable": { context in
            let db = try open(context.path("orders.sqlite"))
            let expected = try RawCases.expectedOrderDigest(context)
            return try context.collect {
                var orders = [StrataOrder]()
                let seconds = try timed { orders = try StrataOrder.fetchAll(db, sql: Fixtures.selectOrdersSQL) }
                try checkOrders(orders, expected, "c7b.strata.codable")
                return seconds
            }
        },
        "c7b.strata.inplace": { context in
            let db = try open(context.path("orders.sqlite"))
            let expected = try RawCases.expectedOrderDigest(context)
            return try context.collect {
                var orders = [StrataOrderByRow]()
                let seconds = try timed {
                    orders = []
                    try db.makeStatement(sql: Fixtures.selectOrdersSQL).forEachRow { row in
                        orders.append(try StrataOrderByRow(row: row))
                    }
                }
                try checkOrders(orders, expected, "c7b.strata.inplace")
                return seconds
            }
        },
        "c7b.strata.row": { context in
            let db = try open(context.path("orders.sqlite"))
            let expected = try RawCases.expectedOrderDigest(context)
            return try context.collect {
                var orders = [StrataOrderByRow]()
                let seconds = try timed { orders = try StrataOrderByRow.fetchAll(db, sql: Fixtures.selectOrdersSQL) }
                try checkOrders(orders, expected, "c7b.strata.row")
                return seconds
            }
        },
        "c8b.strata": { context in
            let source = try open(context.path("orders.sqlite"))
            let orders = try StrataOrder.fetchAll(source, sql: Fixtures.selectOrdersSQL)
            let expected = orderDigest(orders)
            return try context.collect {
                let path = context.path("c8b-strata.sqlite")
                removeDatabase(path)
                let db = try open(path)
                try db.execute(sql: Fixtures.createOrderTable)
                let seconds = try timed {
                    try db.transaction(.immediate) {
                        for order in orders { try order.insert(db) }
                    }
                }
                try checkOrders(try StrataOrder.fetchAll(db, sql: Fixtures.selectOrdersSQL), expected, "c8b.strata")
                return seconds
            }
        },
    ]
}
