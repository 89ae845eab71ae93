import Foundation

/// The `Encoder` of an `Encodable` ``EncodableRecord``: each key of its keyed container is a
/// column of the ``PersistenceContainer``.
final class RecordEncoder<Record: EncodableRecord>: Encoder {
    /// Appended to once per encoded key, by one encoding at a time (the encoder never escapes
    /// `encode(to:)`): no dynamic exclusivity check on each access.
    @exclusivity(unchecked) var container: PersistenceContainer
    let columnStrategy: DatabaseColumnEncodingStrategy
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { Record.databaseEncodingUserInfo }

    init(container: PersistenceContainer) {
        self.container = container
        self.columnStrategy = Record.databaseColumnEncodingStrategy
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RecordKeyedEncodingContainer<Record, Key>(encoder: self))
    }

    /// A record is a keyed container: the containers below throw when used.
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        FailingEncodingContainer<AnyCodingKey>(
            message: "\(Record.self): a record encodes as a keyed container, not an array")
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        FailingEncodingContainer<AnyCodingKey>(
            message: "\(Record.self): a record encodes as a keyed container, not a single value")
    }

    @inline(__always)
    func column(for key: some CodingKey) -> String {
        if case .useDefaultKeys = columnStrategy { return key.stringValue }
        return columnStrategy.column(forKey: key)
    }

    /// The value stored for `value` in `column`: a `Date` or `UUID` by the record's strategies,
    /// an ``SQLValueConvertible`` by its conversion, anything else through its `Encodable`
    /// conformance as a single value, or as JSON text when it wants a container. A value with
    /// no stored form (NaN: see `Unstorable`) throws, naming the column.
    func encodeValue<T: Encodable>(_ value: T, column: String) throws -> SQLValue {
        if T.self == Date.self {
            return try storable(Record.databaseDateEncodingStrategy(for: column).encode(value as! Date), value, column)
        }
        if T.self == UUID.self {
            return Record.databaseUUIDEncodingStrategy(for: column).encode(value as! UUID)
        }
        if let convertible = value as? any SQLValueConvertible {
            return try storable(convertible.sqlValue, value, column)
        }
        let single = ColumnEncoder<Record>(column: column, parent: self)
        do {
            try value.encode(to: single)
        } catch is JSONRequired {
            // The value asked for a container: encode it whole as JSON below.
        }
        if !single.needsJSON, let sqlValue = single.value { return sqlValue }
        if !single.needsJSON {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [], debugDescription: "\(Record.self): nothing encoded for column \"\(column)\""))
        }
        let data = try Record.databaseJSONEncoder(for: column).encode(value)
        return .text(String(decoding: data, as: UTF8.self))
    }

    func overflow(_ value: Any, column: String) -> EncodingError {
        EncodingError.invalidValue(
            value,
            EncodingError.Context(
                codingPath: [],
                debugDescription: "\(Record.self): column \"\(column)\": \(value) does not fit SQLite's 64-bit "
                    + "signed INTEGER"))
    }

    /// `sqlValue`, or an `EncodingError` naming the column when it is NaN: the stand-in of a value
    /// with no stored form (a NaN, a `Date` beyond 9999 by the record's date strategy,
    /// `Decimal.nan`...), which SQLite would store as NULL.
    @inline(__always)
    func storable(_ sqlValue: SQLValue, _ value: Any, _ column: String) throws -> SQLValue {
        if case .real(let d) = sqlValue, d.isNaN { throw unstorable(value, column: column) }
        return sqlValue
    }

    func unstorable(_ value: Any, column: String) -> EncodingError {
        // The value in words, not the value: printing the error must not call `Date.description`,
        // which traps for the very dates refused here.
        EncodingError.invalidValue(
            Unstorable.description(of: value),
            EncodingError.Context(
                codingPath: [],
                debugDescription: "\(Record.self): column \"\(column)\": "
                    + Unstorable.reason(value, showingValue: true) + "; nothing was written"))
    }
}

struct RecordKeyedEncodingContainer<Record: EncodableRecord, Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: RecordEncoder<Record>
    var codingPath: [any CodingKey] { [] }

    @inline(__always)
    private func store(_ value: SQLValue, _ key: Key) {
        encoder.container.appendUnchecked(encoder.column(for: key), value)
    }

    func encodeNil(forKey key: Key) throws { store(.null, key) }
    func encode(_ value: Bool, forKey key: Key) throws { store(.integer(value ? 1 : 0), key) }
    func encode(_ value: String, forKey key: Key) throws { store(.text(value), key) }
    func encode(_ value: Double, forKey key: Key) throws {
        if value.isNaN { throw encoder.unstorable(value, column: encoder.column(for: key)) }
        store(.real(value), key)
    }
    func encode(_ value: Float, forKey key: Key) throws {
        if value.isNaN { throw encoder.unstorable(value, column: encoder.column(for: key)) }
        store(.real(Double(value)), key)
    }
    func encode(_ value: Int, forKey key: Key) throws { store(.integer(Int64(value)), key) }
    func encode(_ value: Int8, forKey key: Key) throws { store(.integer(Int64(value)), key) }
    func encode(_ value: Int16, forKey key: Key) throws { store(.integer(Int64(value)), key) }
    func encode(_ value: Int32, forKey key: Key) throws { store(.integer(Int64(value)), key) }
    func encode(_ value: Int64, forKey key: Key) throws { store(.integer(value), key) }
    func encode(_ value: UInt, forKey key: Key) throws { try encode(UInt64(value), forKey: key) }
    func encode(_ value: UInt8, forKey key: Key) throws { store(.integer(Int64(value)), key) }
    func encode(_ value: UInt16, forKey key: Key) throws { store(.integer(Int64(value)), key) }
    func encode(_ value: UInt32, forKey key: Key) throws { store(.integer(Int64(value)), key) }
    func encode(_ value: UInt64, forKey key: Key) throws {
        guard let value = Int64(exactly: value) else { throw encoder.overflow(value, column: encoder.column(for: key)) }
        store(.integer(value), key)
    }

    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let column = encoder.column(for: key)
        encoder.container.appendUnchecked(column, try encoder.encodeValue(value, column: column))
    }

    // Optionals store NULL for nil (the default implementations would leave the column out, and
    // an update would then not clear it).
    func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeOptional(value, key) }
    func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeOptional(value, key) }
    func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeOptional(value, key) }
    func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeOptional(value, key) }
    func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeOptional(value, key) }
    func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeOptional(value, key) }
    func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeOptional(value, key) }
    func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeOptional(value, key) }
    func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeOptional(value, key) }
    func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeOptional(value, key) }
    func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeOptional(value, key) }
    func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeOptional(value, key) }
    func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeOptional(value, key) }
    func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeOptional(value, key) }
    func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try encodeOptional(value, key) }

    @inline(__always)
    private func encodeOptional<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value { try encode(value, forKey: key) } else { store(.null, key) }
    }

    /// Not supported: the containers below throw when used. Encode the property as an
    /// `Encodable` value instead, which stores JSON.
    func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(FailingEncodingContainer<NestedKey>(message: unsupported(key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        FailingEncodingContainer<Key>(message: unsupported(key))
    }

    func superEncoder() -> any Encoder { FailingEncoder(message: unsupported(nil)) }

    func superEncoder(forKey key: Key) -> any Encoder { FailingEncoder(message: unsupported(key)) }

    private func unsupported(_ key: Key?) -> String {
        "\(Record.self): nested containers and super encoders are not supported when encoding a record"
            + (key.map { " (key \"\($0.stringValue)\")" } ?? "")
            + "; encode the property as an Encodable value, which stores JSON"
    }
}
