/// One value as SQLite stores it: NULL, a 64-bit integer, a double, UTF-8 text or a blob.
///
/// ```swift
/// let v: SQLValue = .text("héllo")
/// try db.execute(sql: "INSERT INTO t(x) VALUES (?)", arguments: [v])
/// ```
///
/// NaN has no SQLite representation (SQLite would store NULL): no write accepts `.real(.nan)`,
/// binding it throws ``SQLiteError`` `SQLITE_MISMATCH` naming the parameter. It is also the
/// `sqlValue` of every value with no stored form (a `Date` outside the years 0000...9999,
/// `Decimal.nan`, a `UInt64` above `Int64.max`), so that such a value is refused rather than
/// stored as something else. Infinities round-trip. An empty blob stays a blob (not NULL), and
/// text may contain NUL characters.
///
/// A TEXT value that is not valid UTF-8 reads as ``blob(_:)`` of its bytes: a `String` cannot
/// hold it (decoding would replace the bytes with U+FFFD, and writing that back would change a
/// value the code never touched).
///
/// See <https://www.sqlite.org/datatype3.html>.
public enum SQLValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// A 64-bit IEEE floating point number; NaN is never written (see above).
    case real(Double)
    /// UTF-8 text (text that is not valid UTF-8 reads as a blob).
    case text(String)
    /// Bytes, possibly none.
    case blob([UInt8])

    /// The storage class name SQLite's `typeof()` would return.
    ///
    /// ```swift
    /// SQLValue.real(1.5).storageClass   // "real"
    /// ```
    public var storageClass: String {
        switch self {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text: "text"
        case .blob: "blob"
        }
    }

    /// True for ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as an SQL literal, safe to embed in SQL text: strings are single-quoted with
    /// quotes doubled, blobs become `X'..'`, non-finite doubles become expressions SQLite accepts.
    ///
    /// ```swift
    /// SQLValue.text("it's").sqlLiteral   // 'it''s'
    /// SQLValue.blob([0xCA, 0xFE]).sqlLiteral   // X'CAFE'
    /// ```
    /// See <https://www.sqlite.org/lang_expr.html#literal_values_constants_>.
    public var sqlLiteral: String {
        switch self {
        case .null:
            return "NULL"
        case .integer(let i):
            return String(i)
        case .real(let d):
            if d.isNaN { return "NULL" }  // SQLite stores NaN as NULL.
            if d == .infinity { return "9e999" }
            if d == -.infinity { return "-9e999" }
            let s = "\(d)"
            // Keep a real a real: "1.0" stays "1.0"; exponent forms are valid SQL as they are.
            return s
        case .text(let s):
            return SQLValue.quoteString(s)
        case .blob(let bytes):
            let hex = "0123456789ABCDEF".utf8.map { $0 }
            var out = [UInt8]()
            out.reserveCapacity(bytes.count * 2 + 3)
            out.append(UInt8(ascii: "X"))
            out.append(UInt8(ascii: "'"))
            for b in bytes {
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            }
            out.append(UInt8(ascii: "'"))
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// `d` as SQL text that every SQLite reads back as the same double, bit for bit.
    ///
    /// SQLite's text-to-real conversion is not exact: 3.50.4 reads `1e-300` as
    /// `9.999999999999999e-301` and about one random double in six as a neighbour; Debian's
    /// 3.40.1, which rounds twice through `long double`, reads `2.91e-11` one unit off. So a
    /// decimal is written only when it is the double's exact value (`0.5`, `-12.0`, `3.375`):
    /// any conversion, however it rounds, gets an exact value right. Any other double is
    /// `m × 2^e` written with integer literals, which SQLite reads exactly, and divisions or
    /// multiplications by powers of two, which IEEE arithmetic does exactly:
    /// `(CAST(5404319552844595 AS REAL) / 18014398509481984)` is `0.30000000000000004`.
    /// Infinities are `9e999` and `-9e999` (every SQLite reads an overflow as infinity); NaN,
    /// which SQLite stores as NULL, is `NULL`.
    ///
    /// ```swift
    /// SQLValue.exactRealLiteral(0.25)   // 0.25
    /// SQLValue.exactRealLiteral(0.1)    // (CAST(3602879701896397 AS REAL) / 36028797018963968)
    /// ```
    package static func exactRealLiteral(_ d: Double) -> String {
        if d.isNaN { return "NULL" }
        if d.isInfinite { return d < 0 ? "-9e999" : "9e999" }
        if d == 0 { return d.sign == .minus ? "-0.0" : "0.0" }
        // d = m × 2^e with m odd.
        var m = Int64(d.significandBitPattern | (d.isSubnormal ? 0 : 1 << 52))
        var e = d.isSubnormal ? -1074 : Int(d.exponent) - 52
        let shift = m.trailingZeroBitCount
        m >>= shift
        e += shift
        if d < 0 { m = -m }
        // A decimal whose digits, read as an integer, stay below 2^53 (so the conversion holds
        // them exactly) and whose value is the double's: exact whatever the conversion rounds.
        if e >= 0 && e < 53 && m.magnitude < UInt64(1) << (53 - e) {
            return String(m << e) + ".0"
        }
        if e < 0 && -e <= 17 {
            // m / 2^-e has exactly -e digits after the point (5^-e · m / 10^-e, m odd).
            let digits = -e
            var five: Int64 = 1
            for _ in 0..<digits { five *= 5 }
            let (scaled, overflow) = m.magnitude.multipliedReportingOverflow(by: UInt64(five))
            if !overflow, scaled < UInt64(1) << 53 {
                var text = String(scaled)
                if text.count <= digits { text = String(repeating: "0", count: digits - text.count + 1) + text }
                let point = text.index(text.endIndex, offsetBy: -digits)
                return (m < 0 ? "-" : "") + text[..<point] + "." + text[point...]
            }
        }
        var out = "(CAST(\(m) AS REAL)"
        var rest = e.magnitude
        while rest > 0 {
            let step = min(rest, 62)
            out += (e < 0 ? " / " : " * ") + String(Int64(1) << step)
            rest -= step
        }
        return out + ")"
    }

    /// Quotes `s` as an SQL string literal. A NUL character cannot appear inside an SQL literal,
    /// so text containing one is written as a concatenation with `char(0)`.
    static func quoteString(_ s: String) -> String {
        if s.utf8.contains(0) {
            let parts = s.split(separator: "\u{0}", omittingEmptySubsequences: false)
            return "(" + parts.map { quoteString(String($0)) }.joined(separator: " || char(0) || ") + ")"
        }
        return "'" + s.replacing("'", with: "''") + "'"
    }
}

extension SQLValue: CustomStringConvertible {
    /// The value as an SQL literal (see ``sqlLiteral``).
    public var description: String { sqlLiteral }
}

extension SQLValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    /// `nil` is ``null``.
    public init(nilLiteral: ()) { self = .null }
    /// `42` is `.integer(42)`.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// `1.5` is `.real(1.5)`.
    public init(floatLiteral value: Double) { self = .real(value) }
    /// `"x"` is `.text("x")`.
    public init(stringLiteral value: String) { self = .text(value) }
    /// `true` is `.integer(1)`, `false` is `.integer(0)`, as SQLite stores booleans.
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}
