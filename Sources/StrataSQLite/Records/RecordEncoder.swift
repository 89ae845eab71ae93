import Foundation

/// What ``RecordEncodingSlot`` keeps of an encoder whatever its record type: whether it is in
/// use, and its cached keyed container (which refers back to the encoder: the slot breaks the
/// cycle when it lets the encoder go).
class ReusableRecordEncoder {
    /// True while a record encodes with it.
    @exclusivity(unchecked) final var inUse = false
    /// The keyed container of the last record (a `KeyedEncodingContainer`: one reference to its
    /// box), for the next, and its key type.
    @exclusivity(unchecked) final var cachedContainer: AnyObject?
    @exclusivity(unchecked) final var cachedContainerKey: ObjectIdentifier?
}

/// The `Encoder` of an `Encodable` ``EncodableRecord``: each key of its keyed container is a
/// column of the ``PersistenceContainer``. An encoder kept by a ``RecordEncodingSlot`` encodes
/// one record after another (``begin(expecting:)`` ... ``finish()``).
final class RecordEncoder<Record: EncodableRecord>: ReusableRecordEncoder, Encoder {
    // Appended to once per encoded key, by one encoding at a time (the encoder never escapes
    // `encode(to:)`): no dynamic exclusivity check on each access.
    /// The columns encoded so far, once they differ from ``expected`` (see ``matched``).
    @exclusivity(unchecked) var columns: [String] = []
    /// The values encoded so far, in column order.
    @exclusivity(unchecked) var values: [SQLValue] = []
    /// The columns of the last insert of this record type (``RecordEncodingSlot/expected``).
    /// While the keys encoded so far are its first ``matched`` elements, ``columns`` is not
    /// built: the result shares `expected` (or a prefix of it).
    @exclusivity(unchecked) var expected: [String] = []
    /// How many keys matched ``expected`` one by one; -1 once one did not (``columns`` holds
    /// every column then).
    @exclusivity(unchecked) var matched = -1
    @exclusivity(unchecked) var columnStrategy = DatabaseColumnEncodingStrategy.useDefaultKeys
    /// Whether the keyed container is kept for the next record (only by an encoder a slot keeps).
    let reusable: Bool
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { Record.databaseEncodingUserInfo }

    init(reusable: Bool) {
        self.reusable = reusable
    }

    /// Starts a record with the columns and values of `container`, appending to them.
    func begin(appendingTo container: PersistenceContainer) {
        columns = container.columns
        values = container.values
        expected = []
        matched = -1
        columnStrategy = Record.databaseColumnEncodingStrategy
    }

    /// Starts a record with no columns, expecting `expectedColumns` (possibly none).
    func begin(expecting expectedColumns: [String]) {
        columns = []
        values = []
        values.reserveCapacity(expectedColumns.isEmpty ? 16 : expectedColumns.count)
        expected = expectedColumns
        matched = 0
        columnStrategy = Record.databaseColumnEncodingStrategy
    }

    /// Appends one column and its value.
    @inline(__always)
    func append(_ column: String, _ value: SQLValue) {
        if matched >= 0 {
            if matched < expected.count, expected[matched] == column {
                matched += 1
                values.append(value)
                return
            }
            diverge()
        }
        columns.append(column)
        values.append(value)
    }

    /// A key that is not the next expected one: the columns so far become an array of their own.
    @inline(never)
    private func diverge() {
        columns.reserveCapacity(Swift.max(16, matched + 1))
        columns.append(contentsOf: expected[..<matched])
        matched = -1
    }

    /// The columns and values of the record, each column as the record gave it (the expected
    /// array itself when every key matched it, in order). The encoder keeps none of them.
    func finish() -> PersistenceContainer {
        let result: [String]
        if matched >= 0 {
            result = matched == expected.count ? expected : Array(expected[..<matched])
        } else {
            result = columns
        }
        let container = PersistenceContainer(columns: result, values: values)
        columns = []
        values = []
        expected = []
        return container
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        // A kept encoder keeps its container: making one costs an allocation and generic
        // metadata lookups, for every record. `KeyedEncodingContainer` is a single reference to
        // its box, so it is kept as an `AnyObject` (checked by size).
        if cachedContainerKey == ObjectIdentifier(Key.self), let cached = cachedContainer {
            return unsafeBitCast(cached, to: KeyedEncodingContainer<Key>.self)
        }
        return makeContainer(keyedBy: type)
    }

    @inline(never)
    private func makeContainer<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let container = KeyedEncodingContainer(RecordKeyedEncodingContainer<Record, Key>(encoder: self))
        if reusable, MemoryLayout<KeyedEncodingContainer<Key>>.size == MemoryLayout<AnyObject>.size {
            cachedContainer = unsafeBitCast(container, to: AnyObject.self)
            cachedContainerKey = ObjectIdentifier(Key.self)
        }
        return container
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
        encoder.append(encoder.column(for: key), value)
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
        encoder.append(column, try encoder.encodeValue(value, column: column))
    }

    // Optionals store NULL for nil (the default implementations would leave the column out, and
    // an update would then not clear it). Each wrapped type calls its own `encode` above: through
    // the generic one, a `String?` would pay a dynamic cast to `SQLValueConvertible` per value.
    func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { store(.null, key) }
    }
    func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { store(.null, key) }
    }
    func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { store(.null, key) }
    }
    func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { store(.null, key) }
    }
    func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { store(.null, key) }
    }
    func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { store(.null, key) }
    }
    func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { store(.null, key) }
    }
    func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { store(.null, key) }
    }
    func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { store(.null, key) }
    }
    func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        // As before: an optional too large for INTEGER is refused as unstorable (its own message).
        guard let value else { return store(.null, key) }
        let column = encoder.column(for: key)
        encoder.append(column, try encoder.storable(value.sqlValue, value, column))
    }
    func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { store(.null, key) }
    }
    func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { store(.null, key) }
    }
    func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { store(.null, key) }
    }
    func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        // As before: an optional too large for INTEGER is refused as unstorable (its own message).
        guard let value else { return store(.null, key) }
        let column = encoder.column(for: key)
        encoder.append(column, try encoder.storable(value.sqlValue, value, column))
    }
    func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
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
