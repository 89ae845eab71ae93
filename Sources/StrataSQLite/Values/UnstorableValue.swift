import Foundation

/// Values that have no stored form which reads back equal: a `Double` or `Float` NaN (SQLite
/// stores NaN as NULL), a `Date` outside the years 0000...9999 of its text form, `Decimal.nan`,
/// a `UInt64` or `UInt` above `Int64.max`, `DateComponents` that form no date or time text.
///
/// Their ``SQLValueConvertible/sqlValue`` is `.real(.nan)`, the one ``SQLValue`` no write
/// accepts: binding it throws (`SQLITE_MISMATCH`, naming the parameter and the statement) and a
/// record encoding it throws an `EncodingError` naming the column, before anything is written.
/// So a value can never be stored as something else, even through a conformance that forwards
/// another type's `sqlValue`.
enum Unstorable {
    /// The stand-in value of an unstorable value.
    static let marker = SQLValue.real(.nan)

    /// True for `.real(.nan)`.
    static func isMarker(_ value: SQLValue) -> Bool {
        if case .real(let d) = value { return d.isNaN }
        return false
    }

    /// `value` in words that never trap: Foundation's `Date.description` traps for a date too
    /// far away to have calendar fields (`Date(timeIntervalSince1970: 1e300)`), so a date is
    /// shown as its time since 1970.
    static func description(of value: Any) -> String {
        if let date = value as? Date { return "(\(date.timeIntervalSince1970) s since 1970-01-01 UTC)" }
        return String(describing: value)
    }

    /// Why `value` (the Swift value whose ``SQLValueConvertible/sqlValue`` is NaN) cannot be
    /// stored; names the value itself only when `showingValue`.
    static func reason(_ value: Any?, showingValue: Bool) -> String {
        func shown(_ text: String) -> String { showingValue ? " " + text : "" }
        var value = value
        // An Optional's payload (error path only: reflection is fine here).
        while let some = value, Mirror(reflecting: some).displayStyle == .optional {
            value = Mirror(reflecting: some).children.first?.value
        }
        switch value {
        case let date as Date:
            return "Date" + shown(description(of: date)) + " is outside 0000-01-01...9999-12-31, the range of "
                + "its text form 'yyyy-MM-dd HH:mm:ss.SSS' (the years SQLite's date functions read)"
        case is Decimal:
            return "Decimal NaN has no stored form"
        case let number as UInt64:
            return "UInt64" + shown(String(number)) + " does not fit SQLite's 64-bit signed INTEGER (above Int64.max)"
        case let number as UInt:
            return "UInt" + shown(String(number)) + " does not fit SQLite's 64-bit signed INTEGER (above Int64.max)"
        case is DateComponents:
            return "DateComponents" + (showingValue ? " \(value!)" : "")
                + " form no date (year 0000...9999, month, day) or time (hour, minute, second, nanosecond in range) "
                + "that reads back"
        case is Double, is Float:
            return "NaN has no SQLite form (SQLite would store NULL)"
        case is SQLValue, nil:
            // Only the SQLValue is known (arguments converted beforehand): say what makes one.
            return "the value is NaN, which SQLite cannot store (it would store NULL): a Double or Float NaN, or "
                + "the stand-in of a value with no stored form (a Date outside 0000-01-01...9999-12-31, "
                + "Decimal.nan, a UInt64 above Int64.max, DateComponents that form no date or time)"
        case let other?:
            return "\(type(of: other)) converts to NaN, which has no SQLite form (SQLite would store NULL)"
        }
    }
}
