// Fixed-width integers and Float. `Int`, `Int32`, `Int64`, `Double` and `Bool` are in
// SQLValueConvertible.swift.
//
// SQLite stores integers as 64-bit signed values (https://www.sqlite.org/datatype3.html): an
// INTEGER that does not fit the Swift type does not convert (reading it throws
// `RowDecodingError`), and a REAL converts only when it holds an exact integer in range.

/// INTEGER within Int8's range.
///
/// ```swift
/// let level: Int8 = try row["level"]   // 300 in the database throws RowDecodingError
/// ```
extension Int8: SQLValueConvertible {
    @inlinable public var sqlValue: SQLValue { .integer(Int64(self)) }
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> Int8? {
        Int64.fromSQLValue(value).flatMap { Int8(exactly: $0) }
    }
}

/// INTEGER within Int16's range.
///
/// ```swift
/// let year: Int16 = try row["year"]
/// ```
extension Int16: SQLValueConvertible {
    @inlinable public var sqlValue: SQLValue { .integer(Int64(self)) }
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> Int16? {
        Int64.fromSQLValue(value).flatMap { Int16(exactly: $0) }
    }
}

/// INTEGER within 0...255.
///
/// ```swift
/// let flags: UInt8 = try row["flags"]   // -1 in the database throws RowDecodingError
/// ```
extension UInt8: SQLValueConvertible {
    @inlinable public var sqlValue: SQLValue { .integer(Int64(self)) }
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> UInt8? {
        Int64.fromSQLValue(value).flatMap { UInt8(exactly: $0) }
    }
}

/// INTEGER within 0...65535.
///
/// ```swift
/// let port: UInt16 = try row["port"]
/// ```
extension UInt16: SQLValueConvertible {
    @inlinable public var sqlValue: SQLValue { .integer(Int64(self)) }
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> UInt16? {
        Int64.fromSQLValue(value).flatMap { UInt16(exactly: $0) }
    }
}

/// INTEGER within UInt32's range.
///
/// ```swift
/// let crc: UInt32 = try row["crc"]
/// ```
extension UInt32: SQLValueConvertible {
    @inlinable public var sqlValue: SQLValue { .integer(Int64(self)) }
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> UInt32? {
        Int64.fromSQLValue(value).flatMap { UInt32(exactly: $0) }
    }
}

/// A non-negative INTEGER. SQLite integers are signed 64-bit, so values above `Int64.max` cannot
/// be stored: binding one throws (`SQLITE_MISMATCH`, naming the parameter), and a record holding
/// one fails to encode with an `EncodingError` naming the column, before anything is written
/// (their `sqlValue` is `.real(.nan)`, which no write accepts).
///
/// ```swift
/// let size: UInt64 = try row["size"]   // -1 in the database throws RowDecodingError
/// ```
extension UInt64: SQLValueConvertible {
    @inlinable public var sqlValue: SQLValue {
        guard let value = Int64(exactly: self) else { return .real(.nan) }
        return .integer(value)
    }
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> UInt64? {
        Int64.fromSQLValue(value).flatMap { UInt64(exactly: $0) }
    }
}

/// A non-negative INTEGER; like `UInt64`, values above `Int64.max` cannot be stored.
///
/// ```swift
/// let count: UInt = try row["count"]
/// ```
extension UInt: SQLValueConvertible {
    @inlinable public var sqlValue: SQLValue {
        guard let value = Int64(exactly: self) else { return .real(.nan) }
        return .integer(value)
    }
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> UInt? {
        Int64.fromSQLValue(value).flatMap { UInt(exactly: $0) }
    }
}

/// REAL (stored as a Double, exactly). Reading rounds a REAL or INTEGER to the nearest `Float`;
/// a finite value beyond `Float`'s range does not convert (it would become infinity). NaN has no
/// stored form: writing it throws, as for `Double`.
///
/// ```swift
/// let ratio: Float = try row["ratio"]
/// ```
extension Float: SQLValueConvertible {
    @inlinable public var sqlValue: SQLValue { .real(Double(self)) }
    @inlinable public static func fromSQLValue(_ value: SQLValue) -> Float? {
        guard let double = Double.fromSQLValue(value) else { return nil }
        let float = Float(double)
        if float.isInfinite && double.isFinite { return nil }  // overflow
        return float
    }
}
