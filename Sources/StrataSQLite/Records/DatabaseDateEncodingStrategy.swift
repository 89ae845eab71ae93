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
/// A date reads back equal to what the strategy keeps of it (with the matching
/// ``DatabaseDateDecodingStrategy``): `deferredToDate` and `iso8601` keep the millisecond
/// (`(t * 1000).rounded() / 1000` seconds since 1970) of dates in 0000-01-01...9999-12-31;
/// `timeIntervalSinceReferenceDate` keeps the date exactly, `timeIntervalSince1970` its
/// `timeIntervalSince1970`, `secondsSince1970` and `millisecondsSince1970` the whole second or
/// millisecond below it. A date a strategy cannot keep (outside the years of the text forms,
/// beyond an INTEGER's range, not a number) fails to encode with an `EncodingError` naming the
/// column, before anything is written. `formatted` and `custom` keep what your code keeps.
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

    /// The value stored for `date`; `.real(.nan)` (which the encoder refuses) when the strategy
    /// cannot keep it.
    func encode(_ date: Date) -> SQLValue {
        switch self {
        case .deferredToDate:
            return date.sqlValue
        case .timeIntervalSinceReferenceDate:
            return .real(date.timeIntervalSinceReferenceDate)
        case .timeIntervalSince1970:
            return .real(date.timeIntervalSince1970)
        case .secondsSince1970:
            return Int64(exactly: date.timeIntervalSince1970.rounded(.down)).map(SQLValue.integer) ?? Unstorable.marker
        case .millisecondsSince1970:
            let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
            return Int64(exactly: milliseconds).map(SQLValue.integer) ?? Unstorable.marker
        case .iso8601:
            guard let text = DateTimeText.storageText(date) else { return Unstorable.marker }
            return .text(text.replacing(" ", with: "T") + "Z")
        case .formatted(let formatter):
            return .text(formatter.string(from: date))
        case .custom(let encode):
            return encode(date)?.sqlValue ?? .null
        }
    }
}
