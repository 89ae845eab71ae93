import Foundation

/// A 16-byte BLOB (GRDB's default). Reading also accepts the 36-character text form
/// (`E621E1F8-C36C-495A-93FC-0C247A3E6E5F`, either case).
///
/// ```swift
/// try db.execute(sql: "INSERT INTO device(uuid) VALUES (?)", arguments: [UUID()])
/// let uuid: UUID = try row["uuid"]
/// ```
/// See <https://www.sqlite.org/datatype3.html>.
extension UUID: SQLValueConvertible {
    public var sqlValue: SQLValue {
        withUnsafeBytes(of: uuid) { .blob([UInt8]($0)) }
    }

    public static func fromSQLValue(_ value: SQLValue) -> UUID? {
        switch value {
        case .blob(let bytes) where bytes.count == 16:
            var tuple: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &tuple) { $0.copyBytes(from: bytes) }
            return UUID(uuid: tuple)
        case .text(let text) where text.utf8.count == 36:
            return UUID(uuidString: text)
        default:
            return nil
        }
    }
}

/// TEXT: the URL's `absoluteString`. Text that is not a URL does not convert.
///
/// ```swift
/// let homepage: URL = try row["homepage"]
/// ```
extension URL: SQLValueConvertible {
    public var sqlValue: SQLValue { .text(absoluteString) }

    public static func fromSQLValue(_ value: SQLValue) -> URL? {
        guard case .text(let text) = value, !text.isEmpty else { return nil }
        return URL(string: text)
    }
}

/// TEXT, such as `'12.50'`, so that no digit is lost to binary floating point. Reading also
/// accepts an INTEGER (exact) and a REAL (its shortest decimal form: `0.1` reads as 0.1); text
/// must be a whole decimal number (`12.5`, `-3`, `1e-4`), not `12abc`.
///
/// Every finite `Decimal` reads back equal (its text has all its digits), when the column does
/// not convert text to numbers (a TEXT column, or no type: NUMERIC and REAL columns would turn
/// `'12.50'` into a REAL). `Decimal.nan` has no stored form: writing it throws before anything
/// is written (its `sqlValue` is `.real(.nan)`, which no write accepts).
///
/// ```swift
/// try db.execute(sql: "INSERT INTO invoice(total) VALUES (?)", arguments: [Decimal(string: "12.50")!])
/// let total: Decimal = try row["total"]
/// ```
extension Decimal: SQLValueConvertible {
    public var sqlValue: SQLValue { isNaN ? Unstorable.marker : .text(description) }

    public static func fromSQLValue(_ value: SQLValue) -> Decimal? {
        switch value {
        case .integer(let i): return Decimal(i)
        case .real(let d): return d.isFinite ? Decimal.exactText("\(d)") : nil
        case .text(let text): return Decimal.exactText(text)
        case .null, .blob: return nil
        }
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// `text` as a Decimal when all of it is a decimal number: `Decimal(string:)` alone stops at
    /// the first character it does not understand (`"12abc"` gives 12).
    static func exactText(_ text: String) -> Decimal? {
        var utf8 = text.utf8[...]
        if utf8.first == UInt8(ascii: "-") || utf8.first == UInt8(ascii: "+") { utf8 = utf8.dropFirst() }
        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        let integer = utf8.prefix(while: isDigit)
        utf8 = utf8.dropFirst(integer.count)
        var fraction = 0
        if utf8.first == UInt8(ascii: ".") {
            utf8 = utf8.dropFirst()
            fraction = utf8.prefix(while: isDigit).count
            utf8 = utf8.dropFirst(fraction)
        }
        guard integer.count + fraction > 0 else { return nil }
        if utf8.first == UInt8(ascii: "e") || utf8.first == UInt8(ascii: "E") {
            utf8 = utf8.dropFirst()
            if utf8.first == UInt8(ascii: "-") || utf8.first == UInt8(ascii: "+") { utf8 = utf8.dropFirst() }
            let exponent = utf8.prefix(while: isDigit).count
            guard exponent > 0 else { return nil }
            utf8 = utf8.dropFirst(exponent)
        }
        guard utf8.isEmpty else { return nil }
        return Decimal(string: text, locale: posix)
    }
}

/// An enum (or any `RawRepresentable`) whose raw value converts gets its conversion by declaring
/// the conformance: it is stored as its raw value, and a raw value with no case does not convert.
///
/// ```swift
/// enum Status: String, SQLValueConvertible { case draft, published }
/// let status: Status = try row["status"]   // 'archived' throws RowDecodingError
/// ```
extension SQLValueConvertible where Self: RawRepresentable, RawValue: SQLValueConvertible {
    public var sqlValue: SQLValue { rawValue.sqlValue }

    public static func fromSQLValue(_ value: SQLValue) -> Self? {
        RawValue.fromSQLValue(value).flatMap(Self.init(rawValue:))
    }
}
