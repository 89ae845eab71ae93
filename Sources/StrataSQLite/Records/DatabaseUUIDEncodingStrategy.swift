import Foundation

/// How an `Encodable` record stores a `UUID` property. Reading accepts every form.
///
/// ```swift
/// static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy {
///     .lowercaseString
/// }
/// ```
public enum DatabaseUUIDEncodingStrategy: Sendable {
    /// `UUID`'s own conversion (the default): a 16-byte BLOB.
    case deferredToUUID
    /// 36-character text in upper case: `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    case uppercaseString
    /// 36-character text in lower case: `e621e1f8-c36c-495a-93fc-0c247a3e6e5f`.
    case lowercaseString

    /// The value stored for `uuid`.
    func encode(_ uuid: UUID) -> SQLValue {
        switch self {
        case .deferredToUUID: uuid.sqlValue
        case .uppercaseString: .text(uuid.uuidString)
        case .lowercaseString: .text(uuid.uuidString.lowercased())
        }
    }
}
