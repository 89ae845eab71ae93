/// How an `Encodable` record names the column of each coding key.
///
/// ```swift
/// struct Note: Encodable, PersistableRecord {
///     var createdAt: Date   // written to the created_at column
///     static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
/// }
/// ```
public enum DatabaseColumnEncodingStrategy: Sendable {
    /// The key's string value (`CodingKeys` raw values are respected).
    case useDefaultKeys
    /// `createdAt` → `created_at`, `userID` → `user_id`, as `JSONEncoder` converts.
    case convertToSnakeCase
    /// The column name for each key.
    case custom(@Sendable (any CodingKey) -> String)

    func column(forKey key: some CodingKey) -> String {
        switch self {
        case .useDefaultKeys: key.stringValue
        case .convertToSnakeCase: SnakeCaseMemo.snakeCase(key.stringValue)
        case .custom(let transform): transform(key)
        }
    }
}

/// Converted key names, remembered: a record's keys are few and the same for every record,
/// and an insert loop would otherwise convert every key of every record.
enum SnakeCaseMemo {
    private static let memo = LockedValue<[String: String]>([:])

    static func snakeCase(_ key: String) -> String {
        if let column = memo.withLock({ $0[key] }) { return column }
        let column = SnakeCase.snakeCase(key)
        memo.withLock { memo in
            if memo.count < 4096 { memo[key] = column }
        }
        return column
    }
}
