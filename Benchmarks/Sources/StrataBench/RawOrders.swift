import BenchSQLite
import Foundation

// Cases 7b and 8b with the C API: what a careful C programmer writes by hand. Text is read with
// `sqlite3_column_text` + `sqlite3_column_bytes` into a `String` (UTF-8 validated, as every
// `String` is), a nullable column is tested with `sqlite3_column_type` first.

/// SQLite copies the bytes before `sqlite3_bind_text` returns.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension RawCases {
    @inline(__always)
    static func text(_ statement: OpaquePointer, _ index: Int32) -> String {
        let bytes = Int(sqlite3_column_bytes(statement, index))
        guard let pointer = sqlite3_column_text(statement, index) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: pointer, count: bytes), as: UTF8.self)
    }

    @inline(__always)
    static func optionalText(_ statement: OpaquePointer, _ index: Int32) -> String? {
        sqlite3_column_type(statement, index) == SQLITE_NULL ? nil : text(statement, index)
    }

    @inline(__always)
    static func optionalDouble(_ statement: OpaquePointer, _ index: Int32) -> Double? {
        sqlite3_column_type(statement, index) == SQLITE_NULL ? nil : sqlite3_column_double(statement, index)
    }

    @inline(__always)
    static func optionalInt64(_ statement: OpaquePointer, _ index: Int32) -> Int64? {
        sqlite3_column_type(statement, index) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, index)
    }

    /// Case 7b: the hand-written loop into the struct.
    static func fetchOrders(_ db: RawConnection) throws -> [RawOrder] {
        let s = try db.prepare(Fixtures.selectOrdersSQL)
        defer { sqlite3_finalize(s) }
        var orders = [RawOrder]()
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw BenchError("fetch: \(String(cString: sqlite3_errmsg(db.handle)))") }
            orders.append(
                RawOrder(
                    id: sqlite3_column_int64(s, 0), customerID: sqlite3_column_int64(s, 1), status: text(s, 2),
                    placedAt: text(s, 3), shippedAt: optionalText(s, 4), subtotal: sqlite3_column_double(s, 5),
                    discount: optionalDouble(s, 6), tax: sqlite3_column_double(s, 7), currency: text(s, 8),
                    itemCount: sqlite3_column_int64(s, 9), note: optionalText(s, 10), couponCode: optionalText(s, 11),
                    weightKg: optionalDouble(s, 12), priority: optionalInt64(s, 13)))
        }
        return orders
    }

    @inline(__always)
    static func bind(_ s: OpaquePointer, _ index: Int32, _ value: String?) {
        guard var value else {
            sqlite3_bind_null(s, index)
            return
        }
        value.withUTF8 { buffer in
            _ = sqlite3_bind_text(s, index, buffer.baseAddress, Int32(buffer.count), sqliteTransient)
        }
    }

    @inline(__always)
    static func bind(_ s: OpaquePointer, _ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(s, index, value) } else { sqlite3_bind_null(s, index) }
    }

    @inline(__always)
    static func bind(_ s: OpaquePointer, _ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(s, index, value) } else { sqlite3_bind_null(s, index) }
    }

    /// Case 8b: one transaction, one prepared statement, 14 binds, step, reset.
    static func insertOrders(_ db: RawConnection, _ orders: [RawOrder]) throws {
        try db.exec("BEGIN IMMEDIATE")
        let s = try db.prepare(Fixtures.insertOrderSQL)
        for o in orders {
            sqlite3_bind_int64(s, 1, o.id)
            sqlite3_bind_int64(s, 2, o.customerID)
            bind(s, 3, o.status)
            bind(s, 4, o.placedAt)
            bind(s, 5, o.shippedAt)
            sqlite3_bind_double(s, 6, o.subtotal)
            bind(s, 7, o.discount)
            sqlite3_bind_double(s, 8, o.tax)
            bind(s, 9, o.currency)
            sqlite3_bind_int64(s, 10, o.itemCount)
            bind(s, 11, o.note)
            bind(s, 12, o.couponCode)
            bind(s, 13, o.weightKg)
            bind(s, 14, o.priority)
            guard sqlite3_step(s) == SQLITE_DONE else {
                throw BenchError("insert: \(String(cString: sqlite3_errmsg(db.handle)))")
            }
            sqlite3_reset(s)
        }
        sqlite3_finalize(s)
        try db.exec("COMMIT")
    }

    /// The digest every contender must reproduce (setup, untimed).
    static func expectedOrderDigest(_ context: JobContext) throws -> Int64 {
        let db = try open(context.path("orders.sqlite"))
        return orderDigest(try fetchOrders(db))
    }

    static let orderJobs: [String: @Sendable (JobContext) throws -> [Double]] = [
        "c7b.raw": { context in
            let db = try open(context.path("orders.sqlite"))
            let expected = try expectedOrderDigest(context)
            return try context.collect {
                var orders = [RawOrder]()
                let seconds = try timed { orders = try fetchOrders(db) }
                try checkOrders(orders, expected, "c7b.raw")
                return seconds
            }
        },
        "c8b.raw": { context in
            let orders = try fetchOrders(try open(context.path("orders.sqlite")))
            let expected = orderDigest(orders)
            return try context.collect {
                let path = context.path("c8b-raw.sqlite")
                removeDatabase(path)
                let db = try open(path)
                try db.exec(Fixtures.createOrderTable)
                let seconds = try timed { try insertOrders(db, orders) }
                try checkOrders(try fetchOrders(db), expected, "c8b.raw")
                return seconds
            }
        },
    ]
}

/// The count and digest of fetched (or re-read inserted) orders against the template's.
func checkOrders<S: Collection>(_ records: S, _ expected: Int64, _ key: String) throws where S.Element: OrderFields {
    guard records.count == Fixtures.orderRows else { throw BenchError("\(key): \(records.count) orders") }
    let digest = orderDigest(records)
    guard digest == expected else { throw BenchError("\(key): digest \(digest), expected \(expected)") }
}
