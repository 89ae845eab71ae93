import StrataSQLite

/// Parse results keyed by SQL text. Parsing is a pure function of the text, and one plan reads
/// mostly identical statements several times (live schema, desired schema, the copy, the proof):
/// on a 300-table schema this cache removes most of the planner's Swift-side work.
/// Bounded: emptied when it grows past `limit` entries.
enum ParseCache {
    static let limit = 8192
    private static let tables = LockedValue([String: CreateTableStatement]())
    private static let normalized = LockedValue([String: String]())

    /// The parsed CREATE TABLE statement for `sql`.
    static func createTable(_ sql: String) throws -> CreateTableStatement {
        if let hit = tables.withLock({ $0[sql] }) { return hit }
        let parsed = try CreateTableStatement(sql: sql)
        tables.withLock { cache in
            if cache.count >= limit { cache.removeAll(keepingCapacity: true) }
            cache[sql] = parsed
        }
        return parsed
    }

    /// ``SQLNormalizer/normalize(_:)`` of `sql`.
    static func normalize(_ sql: String) -> String {
        if let hit = normalized.withLock({ $0[sql] }) { return hit }
        let result = SQLNormalizer.normalize(sql)
        normalized.withLock { cache in
            if cache.count >= limit { cache.removeAll(keepingCapacity: true) }
            cache[sql] = result
        }
        return result
    }
}
