import Foundation

/// How a `Decodable` record reads a `Date` property from its column.
///
/// ```swift
/// struct Event: Decodable, FetchableRecord {
///     var time: Date
///     static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
///         .timeIntervalSince1970
///     }
/// }
/// ```
///
/// `@unchecked Sendable` because of ``formatted(_:)``: a `DateFormatter` is safe to share once
/// configured, but is not declared `Sendable`.
public enum DatabaseDateDecodingStrategy: @unchecked Sendable {
    /// `Date`'s own conversion (the default): text in the forms SQLite's date functions use, a
    /// julian day REAL, or unix-epoch INTEGER seconds. See `Date`.
    case deferredToDate
    /// A number of seconds since 2001-01-01 UTC (INTEGER or REAL).
    case timeIntervalSinceReferenceDate
    /// A number of seconds since 1970-01-01 UTC (INTEGER or REAL).
    case timeIntervalSince1970
    /// A number of milliseconds since 1970-01-01 UTC (INTEGER or REAL).
    case millisecondsSince1970
    /// ISO-8601 text: `2024-05-01T09:30:00Z`, `2024-05-01 09:30:00.250+02:00`; no zone means UTC.
    case iso8601
    /// Text read by the formatter.
    case formatted(DateFormatter)
    /// Your conversion; nil means the value does not convert.
    case custom(@Sendable (SQLValue) -> Date?)

    /// The date `value` holds, or nil.
    func decode(_ value: SQLValue) -> Date? {
        switch self {
        case .deferredToDate:
            return Date.fromSQLValue(value)
        case .timeIntervalSinceReferenceDate:
            return Double.fromSQLValue(value).map(Date.init(timeIntervalSinceReferenceDate:))
        case .timeIntervalSince1970:
            return Double.fromSQLValue(value).map(Date.init(timeIntervalSince1970:))
        case .millisecondsSince1970:
            return Double.fromSQLValue(value).map { Date(timeIntervalSince1970: $0 / 1000) }
        case .iso8601:
            guard case .text(let text) = value else { return nil }
            return DateTimeText(text)?.date
        case .formatted(let formatter):
            guard case .text(let text) = value else { return nil }
            return formatter.date(from: text)
        case .custom(let decode):
            return decode(value)
        }
    }
}
