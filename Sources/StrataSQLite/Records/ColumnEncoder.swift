import Foundation

/// Encodes one property that is not ``SQLValueConvertible``: a single value (an enum's raw value,
/// a wrapper struct) is the column's value; asking for a keyed or unkeyed container sets
/// ``needsJSON`` and the caller stores the property as JSON.
final class ColumnEncoder<Record: EncodableRecord>: Encoder, SingleValueEncodingContainer {
    let column: String
    let parent: RecordEncoder<Record>
    var value: SQLValue?
    var needsJSON = false
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { Record.databaseEncodingUserInfo }

    init(column: String, parent: RecordEncoder<Record>) {
        self.column = column
        self.parent = parent
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        needsJSON = true
        return KeyedEncodingContainer(FailingEncodingContainer<Key>(error: JSONRequired()))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        needsJSON = true
        return FailingEncodingContainer<AnyCodingKey>(error: JSONRequired())
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { value = .null }
    func encode(_ value: Bool) throws { self.value = .integer(value ? 1 : 0) }
    func encode(_ value: String) throws { self.value = .text(value) }
    func encode(_ value: Double) throws {
        if value.isNaN { throw parent.unstorable(value, column: column) }
        self.value = .real(value)
    }
    func encode(_ value: Float) throws {
        if value.isNaN { throw parent.unstorable(value, column: column) }
        self.value = .real(Double(value))
    }
    func encode(_ value: Int) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int8) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int16) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int32) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int64) throws { self.value = .integer(value) }
    func encode(_ value: UInt) throws { try encode(UInt64(value)) }
    func encode(_ value: UInt8) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt16) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt32) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt64) throws {
        guard let value = Int64(exactly: value) else { throw parent.overflow(value, column: column) }
        self.value = .integer(value)
    }
    func encode<T: Encodable>(_ value: T) throws { self.value = try parent.encodeValue(value, column: column) }
}

/// A container that throws its error at the first value encoded into it.
struct FailingEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol, UnkeyedEncodingContainer,
    SingleValueEncodingContainer
{
    let error: any Error
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }

    init(error: any Error) { self.error = error }

    init(message: String) {
        error = EncodingError.invalidValue(
            (), EncodingError.Context(codingPath: [], debugDescription: message))
    }

    // Keyed
    func encodeNil(forKey key: Key) throws { throw error }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw error }
    func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(FailingEncodingContainer<NestedKey>(error: error))
    }
    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { self }
    func superEncoder() -> any Encoder { FailingEncoder(error: error) }
    func superEncoder(forKey key: Key) -> any Encoder { FailingEncoder(error: error) }

    // Unkeyed
    func encodeNil() throws { throw error }
    func encode<T: Encodable>(_ value: T) throws { throw error }
    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(FailingEncodingContainer<NestedKey>(error: error))
    }
    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
}

/// An encoder whose containers throw `error` when used.
struct FailingEncoder: Encoder {
    let error: any Error
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(error: any Error) { self.error = error }

    init(message: String) {
        error = EncodingError.invalidValue((), EncodingError.Context(codingPath: [], debugDescription: message))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(FailingEncodingContainer<Key>(error: error))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { FailingEncodingContainer<AnyCodingKey>(error: error) }
    func singleValueContainer() -> any SingleValueEncodingContainer {
        FailingEncodingContainer<AnyCodingKey>(error: error)
    }
}

/// A coding key made of any string or integer.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }
}
