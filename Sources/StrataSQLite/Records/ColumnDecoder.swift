import Foundation

/// Decodes one column's value for a `Decodable` type that is not ``SQLValueConvertible``: single
/// values (an enum's raw value, a wrapper struct) read the column; a keyed or unkeyed container
/// means the column holds JSON, and throws ``JSONRequired`` so that the caller decodes JSON.
struct ColumnDecoder<Record: FetchableRecord>: Decoder, SingleValueDecodingContainer {
    let context: RowDecodingContext<Record>
    let index: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { Record.databaseDecodingUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw JSONRequired()
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw JSONRequired() }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { context.value(at: index).isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try context.scalar(type, at: index) }
    func decode(_ type: String.Type) throws -> String { try context.scalar(type, at: index) }
    func decode(_ type: Double.Type) throws -> Double { try context.scalar(type, at: index) }
    func decode(_ type: Float.Type) throws -> Float { try context.scalar(type, at: index) }
    func decode(_ type: Int.Type) throws -> Int { try context.scalar(type, at: index) }
    func decode(_ type: Int8.Type) throws -> Int8 { try context.scalar(type, at: index) }
    func decode(_ type: Int16.Type) throws -> Int16 { try context.scalar(type, at: index) }
    func decode(_ type: Int32.Type) throws -> Int32 { try context.scalar(type, at: index) }
    func decode(_ type: Int64.Type) throws -> Int64 { try context.scalar(type, at: index) }
    func decode(_ type: UInt.Type) throws -> UInt { try context.scalar(type, at: index) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try context.scalar(type, at: index) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try context.scalar(type, at: index) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try context.scalar(type, at: index) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try context.scalar(type, at: index) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try context.decodeColumn(T.self, at: index) }
}
