import Foundation

/// Stored as text `yyyy-MM-dd HH:mm:ss.SSS` in UTC (GRDB's format, which SQLite's date and time
/// functions read), rounded to the millisecond.
///
/// ```swift
/// try db.execute(sql: "INSERT INTO event(time) VALUES (?)", arguments: [Date()])
/// let time: Date = try row["time"]
/// ```
///
/// Reading accepts every form a database may hold:
/// - text `YYYY-MM-DD`, `YYYY-MM-DD HH:MM`, `YYYY-MM-DD HH:MM:SS`, with any number of fraction
///   digits, a `T` instead of the space, and an optional zone (`Z`, `+02:00`, `-0500`); no zone
///   means UTC, as in SQLite;
/// - a REAL: a julian day number, as `julianday()` returns (0.0 to 5373484.5);
/// - an INTEGER: seconds since 1970-01-01 UTC, as `unixepoch()` returns.
///
/// Anything else (a time without a date, `2024-02-30`, a blob) does not convert.
///
/// A stored date reads back as the same millisecond: as
/// `Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)`, exactly.
/// Only dates from 0000-01-01 00:00:00.000 to 9999-12-31 23:59:59.999 UTC (after that rounding)
/// have the text form, which is also the range of SQLite's date functions: writing a date
/// outside it (`.distantFuture` is inside; year 10000, `Date(timeIntervalSince1970: 1e15)`, a
/// year before 0, an infinite date are not) throws before anything is written, naming the
/// parameter or the record's column. Its `sqlValue` is `.real(.nan)`, which no write accepts.
/// See <https://www.sqlite.org/lang_datefunc.html>.
extension Date: SQLValueConvertible {
    public var sqlValue: SQLValue { DateTimeText.storageText(self).map(SQLValue.text) ?? Unstorable.marker }

    public static func fromSQLValue(_ value: SQLValue) -> Date? {
        switch value {
        case .text(let text): DateTimeText(text)?.date
        case .integer(let seconds): Date(timeIntervalSince1970: Double(seconds))
        case .real(let julianDay): DateTimeText.date(julianDay: julianDay)
        case .null, .blob: nil
        }
    }
}

/// Stored as text in the forms SQLite's date and time functions use, built from the components
/// that are set: `YYYY-MM-DD` when year, month and day are; `HH:MM`, `HH:MM:SS` or
/// `HH:MM:SS.SSS` when hour and minute are; both, separated by a space, when all are; then
/// `Z` or `±HH:MM` when a time zone is set.
///
/// What is stored reads back: a year outside 0...9999, a month, day, hour, minute, second or
/// nanosecond out of range (February 30 included), or components that form neither a date nor a
/// time have no stored form, and writing them throws before anything is written (their
/// `sqlValue` is `.real(.nan)`, which no write accepts). Only these components are stored:
/// nanoseconds are cut to the millisecond, a zone to its offset in whole minutes, and the others
/// (era, weekday, calendar...) are left out.
///
/// ```swift
/// var dc = DateComponents(); dc.hour = 9; dc.minute = 30
/// dc.sqlValue   // '09:30'
/// let opening: DateComponents = try row["opening"]   // from '09:30', '2024-05-01' ...
/// ```
///
/// Reading fills exactly the components the text has (and `timeZone` for a zone); it accepts the
/// text forms `Date` accepts, and times alone.
/// See <https://www.sqlite.org/lang_datefunc.html#time_values>.
extension DateComponents: SQLValueConvertible {
    public var sqlValue: SQLValue {
        var out = [UInt8]()
        let hasDate = year != nil && month != nil && day != nil
        let hasTime = hour != nil && minute != nil
        if hasDate, let year, let month, let day {
            guard (0...9999).contains(year), (1...12).contains(month),
                (1...DateTimeText.daysInMonth(year: year, month: month)).contains(day)
            else { return Unstorable.marker }
            DateTimeText.appendYear(Int64(year), to: &out)
            out.append(UInt8(ascii: "-"))
            DateTimeText.append2(month, to: &out)
            out.append(UInt8(ascii: "-"))
            DateTimeText.append2(day, to: &out)
        }
        if hasTime, let hour, let minute {
            guard (0...23).contains(hour), (0...59).contains(minute) else { return Unstorable.marker }
            if hasDate { out.append(0x20) }
            DateTimeText.append2(hour, to: &out)
            out.append(UInt8(ascii: ":"))
            DateTimeText.append2(minute, to: &out)
            if let second {
                guard (0...59).contains(second) else { return Unstorable.marker }
                out.append(UInt8(ascii: ":"))
                DateTimeText.append2(second, to: &out)
                if let nanosecond {
                    guard (0..<1_000_000_000).contains(nanosecond) else { return Unstorable.marker }
                    let ms = nanosecond / 1_000_000
                    out.append(UInt8(ascii: "."))
                    out.append(UInt8(48 + ms / 100))
                    DateTimeText.append2(ms % 100, to: &out)
                }
            }
        }
        guard hasDate || hasTime else { return Unstorable.marker }
        if let timeZone {
            let offset = timeZone.secondsFromGMT()
            guard abs(offset) < 24 * 3600 else { return Unstorable.marker }
            if offset == 0 {
                out.append(UInt8(ascii: "Z"))
            } else {
                out.append(UInt8(ascii: offset < 0 ? "-" : "+"))
                DateTimeText.append2(abs(offset) / 3600, to: &out)
                out.append(UInt8(ascii: ":"))
                DateTimeText.append2(abs(offset) / 60 % 60, to: &out)
            }
        }
        return .text(String(decoding: out, as: UTF8.self))
    }

    public static func fromSQLValue(_ value: SQLValue) -> DateComponents? {
        guard case .text(let text) = value, let parsed = DateTimeText(text) else { return nil }
        var components = DateComponents()
        if parsed.hasDate {
            components.year = parsed.year
            components.month = parsed.month
            components.day = parsed.day
        }
        if parsed.hasTime {
            components.hour = parsed.hour
            components.minute = parsed.minute
            if parsed.hasSeconds { components.second = parsed.second }
            if parsed.hasFraction { components.nanosecond = parsed.nanosecond }
        }
        if let offset = parsed.zoneOffset { components.timeZone = TimeZone(secondsFromGMT: offset) }
        return components
    }
}
