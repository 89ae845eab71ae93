import Foundation

/// A date and/or time of day as SQLite's date and time functions write and read it:
/// `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS[.SSS]]` (a `T` may replace the space), `HH:MM[:SS[.SSS]]`,
/// each optionally followed by a time zone `Z` or `±HH:MM`. Parsed and formatted by hand: no
/// `DateFormatter` (slow, and locale-dependent) on the row-reading path.
///
/// Dates use the proleptic Gregorian calendar, as SQLite does.
/// See <https://www.sqlite.org/lang_datefunc.html#time_values>.
struct DateTimeText: Equatable {
    var year = 0, month = 0, day = 0
    var hour = 0, minute = 0, second = 0, nanosecond = 0
    var hasDate = false
    var hasTime = false
    var hasSeconds = false
    var hasFraction = false
    /// Seconds east of UTC, when the text names a zone.
    var zoneOffset: Int?

    // MARK: Parsing

    /// Parses `text`, or returns nil when it is not one of the forms above (trailing text,
    /// month 13, February 30 and 25:00 are all refused).
    init?(_ text: String) {
        var text = text
        guard let parsed = text.withUTF8({ DateTimeText(utf8: $0) }) else { return nil }
        self = parsed
    }

    private init?(utf8 s: UnsafeBufferPointer<UInt8>) {
        var i = 0
        let n = s.count
        func digits(_ count: Int) -> Int? {
            guard i + count <= n else { return nil }
            var value = 0
            for k in i..<(i + count) {
                let d = Int(s[k]) &- 48
                guard d >= 0, d <= 9 else { return nil }
                value = value * 10 + d
            }
            i += count
            return value
        }
        func take(_ byte: UInt8) -> Bool {
            if i < n, s[i] == byte {
                i += 1
                return true
            }
            return false
        }
        func skipSpaces() { while i < n, s[i] == 0x20 { i += 1 } }
        func parseTime() -> Bool {
            guard let h = digits(2), take(UInt8(ascii: ":")), let m = digits(2), h <= 23, m <= 59 else { return false }
            (hour, minute, hasTime) = (h, m, true)
            if take(UInt8(ascii: ":")) {
                guard let sec = digits(2), sec <= 59 else { return false }
                (second, hasSeconds) = (sec, true)
                if take(UInt8(ascii: ".")) {
                    var scale = 100_000_000
                    var count = 0
                    while i < n, s[i] >= 0x30, s[i] <= 0x39 {
                        // Digits past nanoseconds are read and dropped.
                        nanosecond += Int(s[i] - 0x30) * scale
                        scale /= 10
                        i += 1
                        count += 1
                    }
                    guard count > 0 else { return false }
                    hasFraction = true
                }
            }
            return true
        }

        skipSpaces()
        // A date starts with four digits and a dash; a time with two digits and a colon.
        if n - i >= 5, s[i + 4] == UInt8(ascii: "-") {
            guard let y = digits(4), take(UInt8(ascii: "-")), let m = digits(2), take(UInt8(ascii: "-")),
                let d = digits(2)
            else { return nil }
            guard (1...12).contains(m), d >= 1, d <= DateTimeText.daysInMonth(year: y, month: m) else { return nil }
            (year, month, day, hasDate) = (y, m, d, true)
            if i < n, s[i] == UInt8(ascii: "T") || s[i] == UInt8(ascii: "t") || s[i] == 0x20 {
                let mark = i
                i += 1
                skipSpaces()
                if i < n, s[i] >= 0x30, s[i] <= 0x39 {
                    guard parseTime() else { return nil }
                } else {
                    i = mark  // "2024-01-01 Z": a zone after the date alone
                }
            }
        } else {
            guard parseTime() else { return nil }
        }
        skipSpaces()
        if i < n {
            if s[i] == UInt8(ascii: "Z") || s[i] == UInt8(ascii: "z") {
                i += 1
                zoneOffset = 0
            } else if s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") {
                let sign = s[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let h = digits(2) else { return nil }
                _ = take(UInt8(ascii: ":"))
                guard let m = digits(2), h <= 23, m <= 59 else { return nil }
                zoneOffset = sign * (h * 3600 + m * 60)
            }
        }
        skipSpaces()
        guard i == n, hasDate || hasTime else { return nil }

    }

    static func isLeapYear(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // MARK: Calendar arithmetic (Howard Hinnant's days-from-civil, proleptic Gregorian)

    /// Days since 1970-01-01 of a civil date.
    static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count since 1970-01-01.
    static func civil(days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    // MARK: Dates

    /// The instant the text names, with no zone meaning UTC; nil without a date part.
    ///
    /// A fraction of at most three digits gives exactly `Date(timeIntervalSince1970: ms / 1000)`
    /// for the millisecond count `ms`: the date ``storageText(_:)`` wrote for it.
    var date: Date? {
        guard hasDate else { return nil }
        var seconds = DateTimeText.days(year: year, month: month, day: day) * 86_400
        seconds += Int64(hour * 3600 + minute * 60 + second)
        seconds -= Int64(zoneOffset ?? 0)
        if nanosecond % 1_000_000 == 0 {
            return Date(timeIntervalSince1970: Double(seconds * 1000 + Int64(nanosecond / 1_000_000)) / 1000)
        }
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanosecond) / 1e9)
    }

    /// Milliseconds since 1970 of 0000-01-01 00:00:00.000 and of 10000-01-01 00:00:00.000: the
    /// range of the four-digit years of the text form, the years SQLite's date functions read.
    static let storableRange: Range<Int64> =
        days(year: 0, month: 1, day: 1) * 86_400_000..<days(year: 10000, month: 1, day: 1) * 86_400_000

    /// The millisecond `storageText(_:)` writes for `date` (its time since 1970 rounded to the
    /// nearest millisecond), or nil when that lies outside ``storableRange`` or the date
    /// is not finite.
    static func storableMilliseconds(_ date: Date) -> Int64? {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard let total = Int64(exactly: milliseconds), storableRange.contains(total) else { return nil }
        return total
    }

    /// `yyyy-MM-dd HH:mm:ss.SSS` in UTC, rounded to the millisecond; nil for a date outside the
    /// years 0000...9999 (see ``storableRange``) or not finite: it has no such text.
    static func storageText(_ date: Date) -> String? {
        guard let total = storableMilliseconds(date) else { return nil }
        var days = total / 86_400_000
        var rest = total % 86_400_000
        if rest < 0 {
            days -= 1
            rest += 86_400_000
        }
        let (year, month, day) = civil(days: days)
        let ms = Int(rest)
        var out = [UInt8]()
        out.reserveCapacity(24)
        appendYear(year, to: &out)
        out.append(UInt8(ascii: "-"))
        append2(month, to: &out)
        out.append(UInt8(ascii: "-"))
        append2(day, to: &out)
        out.append(0x20)
        append2(ms / 3_600_000, to: &out)
        out.append(UInt8(ascii: ":"))
        append2(ms / 60_000 % 60, to: &out)
        out.append(UInt8(ascii: ":"))
        append2(ms / 1000 % 60, to: &out)
        out.append(UInt8(ascii: "."))
        let fraction = ms % 1000
        out.append(UInt8(48 + fraction / 100))
        append2(fraction % 100, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func append2(_ value: Int, to out: inout [UInt8]) {
        out.append(UInt8(48 + value / 10))
        out.append(UInt8(48 + value % 10))
    }

    /// Four digits at least; a minus sign before the year for years before 0. Callers write only
    /// years 0...9999 (the only ones the text forms read back), but no year traps.
    static func appendYear(_ year: Int64, to out: inout [UInt8]) {
        if year < 0 { out.append(UInt8(ascii: "-")) }
        let digits = String(year.magnitude).utf8
        if digits.count < 4 { out.append(contentsOf: repeatElement(48, count: 4 - digits.count)) }
        out.append(contentsOf: digits)
    }

    /// SQLite's julian day number (`julianday()`) as a date: the same arithmetic as SQLite's
    /// date.c, in milliseconds. Nil outside 0.0...5373484.5 (years 4713 BC to 9999), the range
    /// SQLite's date functions accept, so that a Unix timestamp stored as REAL is refused rather
    /// than read as a date millions of years away.
    static func date(julianDay: Double) -> Date? {
        guard julianDay >= 0, julianDay < 5_373_484.5 else { return nil }
        let milliseconds = Int64((julianDay * 86_400_000).rounded())
        return Date(timeIntervalSince1970: Double(milliseconds - 210_866_760_000_000) / 1000)
    }
}
