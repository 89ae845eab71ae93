import Foundation

/// A Swift type that converts to and from an ``SQLValue``: used for bound parameters and for
/// typed access to row columns.
///
/// ```swift
/// let count: Int = try row[0]
/// let name: String? = try row["name"]
/// ```
///
/// Conversions are strict: a text column never silently becomes an integer. A real converts to an
/// integer only when it holds an exact integral value in range. See <https://www.sqlite.org/datatype3.html>.
public protocol SQLValueConvertible: SQLExpressible {
    /// The value to store.
    var sqlValue: SQLValue { get }
    /// The Swift value for `value`, or nil when `value` cannot represent one exactly.
    static func fromSQLValue(_ value: SQLValue) -> Self?
}

/// The raw value, unconverted: reads NULL as `.null`.
extension SQLValue: SQLValueConvertible {
    @inlinable public var sqlValue: SQLValue { self }
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> SQLValue? { value }
}

/// INTEGER; a REAL converts only when it holds an exact integer in range.
extension Int64: SQLValueConvertible {
    @inlinable public var sqlValue: SQLValue { .integer(self) }
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> Int64? {
        switch value {
        case .integer(let i): return i
        case .real(let d): return Int64(exactly: d)
        default: return nil
        }
    }
}

/// INTEGER; a REAL converts only when it holds an exact integer in range.
extension Int: SQLValueConvertible {
    @inlinable public var sqlValue: SQLValue { .integer(Int64(self)) }
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> Int? {
        Int64.fromSQLValue(value).flatMap { Int(exactly: $0) }
    }
}

/// INTEGER within Int32's range; a REAL converts only when it holds an exact integer in range.
extension Int32: SQLValueConvertible {
    @inlinable public var sqlValue: SQLValue { .integer(Int64(self)) }
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> Int32? {
        Int64.fromSQLValue(value).flatMap { Int32(exactly: $0) }
    }
}

/// REAL, or INTEGER converted. Every value but NaN reads back `==` (±infinity and subnormals
/// exactly; -0.0 may read back as 0.0, which SQLite stores as an integer in a REAL column).
/// SQLite has no NaN (it would store NULL): writing NaN throws before anything is written.
extension Double: SQLValueConvertible {
    @inlinable public var sqlValue: SQLValue { .real(self) }
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> Double? {
        switch value {
        case .integer(let i): return Double(i)
        case .real(let d): return d
        default: return nil
        }
    }
}

/// Stored as INTEGER 1 or 0; any non-zero number reads as true. Text does not convert.
extension Bool: SQLValueConvertible {
    @inlinable public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> Bool? {
        switch value {
        case .integer(let i): return i != 0
        case .real(let d): return d != 0
        default: return nil
        }
    }
}

/// TEXT only: numbers and blobs do not convert.
extension String: SQLValueConvertible {
    @inlinable public var sqlValue: SQLValue { .text(self) }
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> String? {
        if case .text(let s) = value { return s }
        return nil
    }
}

/// `[UInt8]` is a BLOB (an empty array stays an empty blob, not NULL).
extension Array: SQLValueConvertible where Element == UInt8 {
    @inlinable public var sqlValue: SQLValue { .blob(self) }
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> [UInt8]? {
        if case .blob(let b) = value { return b }
        return nil
    }
}

/// A BLOB (empty `Data` stays an empty blob, not NULL).
extension Data: SQLValueConvertible {
    public var sqlValue: SQLValue { .blob([UInt8](self)) }
    public static func fromSQLValue(_ value: SQLValue) -> Data? {
        if case .blob(let b) = value { return Data(b) }
        return nil
    }
}

/// NULL ⇄ nil; any other value must convert to `Wrapped`.
extension Optional: SQLValueConvertible where Wrapped: SQLValueConvertible {
    @inlinable public var sqlValue: SQLValue { self?.sqlValue ?? .null }
    /// NULL becomes `.some(nil)`; any other value must convert to `Wrapped`.
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        return Wrapped.fromSQLValue(value).map { .some($0) }
    }
}
