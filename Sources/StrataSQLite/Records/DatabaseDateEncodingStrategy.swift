import Foundation

/// How an `Encodable` record stores a `Date` property.
///
/// ```swift
/// struct Event: Encodable, PersistableRecord {
///     var time: Date
///     static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
///         .secondsSince1970
///     }
/// }
/// ```
///
/// `@unchecked Sendable` because of ``formatted(_:)``: a `DateFormatter` is safe to share once
/// configured, but is not declared `Sendable`.
public enum DatabaseDateEncodingStrategy: @unchecked Sendable {
    /// `Date`'s own conversion (the default): text `yyyy-MM-dd HH:mm:ss.SSS` in UTC.
    case deferredToDate
    /// REAL seconds since 2001-01-01 UTC.
    case timeIntervalSinceReferenceDate
    /// REAL seconds since 1970-01-01 UTC.
    case timeIntervalSince1970
    /// INTEGER seconds since 1970-01-01 UTC, rounded down (what `unixepoch()` returns).
    case secondsSince1970
    /// INTEGER milliseconds since 1970-01-01 UTC, rounded down.
    case millisecondsSince1970
    /// ISO-8601 text in UTC with milliseconds: `2024-05-01T09:30:00.000Z`.
    case iso8601
    /// Text written by the formatter.
    case formatted(DateFormatter)
    /// Your conversion; nil stores NULL.
    case custom(@Sendable (Date) -> (any SQLValueConvertible)?)

    /// The value stored for `date`.
    func encode(_ date: Date) -> SQLValue {
        switch self {
        case .deferredToDate:
            return date.sqlValue
        case .timeIntervalSinceReferenceDate:
            return .real(date.timeIntervalSinceReferenceDate)
        case .timeIntervalSince1970:
            return .real(date.timeIntervalSince1970)
        case .secondsSince1970:
            return Int64(exactly: date.timeIntervalSince1970.rounded(.down)).map(SQLValue.integer) ?? .null
        case .millisecondsSince1970:
            return Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded(.down)).map(SQLValue.integer) ?? .null
        case .iso8601:
            guard let text = DateTimeText.storageText(date) else { return .null }
            return .text(text.replacing(" ", with: "T") + "Z")
        case .formatted(let formatter):
            return .text(formatter.string(from: date))
        case .custom(let encode):
            return encode(date)?.sqlValue ?? .null
        }
    }
}
