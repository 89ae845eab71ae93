/// How a `Decodable` record finds the column of each coding key.
///
/// ```swift
/// struct Note: Decodable, FetchableRecord {
///     var createdAt: Date   // read from the created_at column
///     static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
/// }
/// ```
public enum DatabaseColumnDecodingStrategy: Sendable {
    /// The column named like the key (`CodingKeys` raw values are respected), compared without
    /// regard to case as SQLite does.
    case useDefaultKeys
    /// Column names are snake_case (`created_at`), keys camelCase (`createdAt`). A column matches
    /// a key when its camelCase form equals the key, or when it equals the key's snake_case form
    /// (so `user_id` also serves `userID`).
    case convertFromSnakeCase
    /// The key each column name stands for.
    case custom(@Sendable (String) -> any CodingKey)

    /// The key string a column name stands for.
    func key(forColumn column: String) -> String {
        switch self {
        case .useDefaultKeys: column
        case .convertFromSnakeCase: SnakeCase.camelCase(column)
        case .custom(let transform): transform(column).stringValue
        }
    }
}

/// The snake_case conversions of `JSONEncoder` and `JSONDecoder`, written for column names.
enum SnakeCase {
    /// `createdAt` → `created_at`, `userID` → `user_id`, `URLString` → `url_string`.
    static func snakeCase(_ key: String) -> String {
        let chars = Array(key)
        var result = ""
        result.reserveCapacity(key.utf8.count + 4)
        for (i, c) in chars.enumerated() {
            guard c.isUppercase else {
                result.append(c)
                continue
            }
            if i > 0 {
                let previous = chars[i - 1]
                let nextIsLowercase = i + 1 < chars.count && chars[i + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLowercase) {
                    result.append("_")
                }
            }
            result += c.lowercased()
        }
        return result
    }

    /// `created_at` → `createdAt`; leading and trailing underscores are kept.
    static func camelCase(_ column: String) -> String {
        guard column.contains("_") else { return column }
        let leading = column.prefix(while: { $0 == "_" })
        let trailing = column.reversed().prefix(while: { $0 == "_" })
        guard leading.count < column.count else { return column }
        let core = column.dropFirst(leading.count).dropLast(trailing.count)
        let words = core.split(separator: "_", omittingEmptySubsequences: true)
        guard let first = words.first else { return column }
        var result = String(leading) + first
        for word in words.dropFirst() {
            result += word.prefix(1).uppercased() + word.dropFirst().lowercased()
        }
        return result + String(trailing)
    }
}
