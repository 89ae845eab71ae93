import Foundation

/// The `Decoder` of a `Decodable` ``FetchableRecord``: a keyed container whose keys are the
/// columns of the row.
struct RowDecoder<Record: FetchableRecord>: Decoder {
    let context: RowDecodingContext<Record>
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { Record.databaseDecodingUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        // A context reused from row to row keeps its container: building one costs an allocation
        // and several generic metadata lookups, for every row. `KeyedDecodingContainer` is a
        // single reference to its box, so it is kept as an `AnyObject` (checked by size).
        if context.cachedContainerKey == ObjectIdentifier(Key.self), let cached = context.cachedContainer {
            return unsafeBitCast(cached, to: KeyedDecodingContainer<Key>.self)
        }
        return makeContainer(keyedBy: type)
    }

    @inline(never)
    private func makeContainer<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        let container = KeyedDecodingContainer(RowKeyedDecodingContainer<Record, Key>(context: context))
        if context.isReused, MemoryLayout<KeyedDecodingContainer<Key>>.size == MemoryLayout<AnyObject>.size {
            context.cachedContainer = unsafeBitCast(container, to: AnyObject.self)
            context.cachedContainerKey = ObjectIdentifier(Key.self)
        }
        return container
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self,
            DecodingError.Context(
                codingPath: [], debugDescription: "\(Record.self): a row decodes as a keyed container, not an array"))
    }

    /// A record that decodes from a single value reads the first column.
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        guard !context.columns.names.isEmpty else {
            throw context.columnNotFound(forKey: "#0", Any.self)
        }
        return ColumnDecoder(context: context, index: 0)
    }
}

/// Reads each key from its column. Missing columns throw ``RowDecodingError`` for `decode` and
/// give nil for `decodeIfPresent` (as for any absent key); a NULL gives nil for
/// `decodeIfPresent` and throws for `decode`.
struct RowKeyedDecodingContainer<Record: FetchableRecord, Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// Unretained: the decoder holds the context for as long as decoding lasts, and a container
    /// is only used while its record decodes. Each decoded property copies the container out of
    /// its box, and calls the context: without reference counting, both are free.
    private let unmanagedContext: Unmanaged<RowDecodingContext<Record>>
    /// The width of the keys' bits (``CodingKeyBits``), worked out once per container.
    private let keyWidth: Int
    var codingPath: [any CodingKey] { [] }

    init(context: RowDecodingContext<Record>) {
        unmanagedContext = Unmanaged.passUnretained(context)
        keyWidth = CodingKeyBits.width(Key.self)
    }

    /// The column of `key` in the row, through the plan.
    @inline(__always)
    private func columnIndex(_ context: RowDecodingContext<Record>, _ key: Key) -> Int? {
        context.columnIndex(for: key, bits: CodingKeyBits.bits(key, width: keyWidth))
    }

    @inline(__always)
    private func withContext<T>(_ body: (RowDecodingContext<Record>) throws -> T) rethrows -> T {
        try unmanagedContext._withUnsafeGuaranteedRef(body)
    }

    private var context: RowDecodingContext<Record> { unmanagedContext.takeUnretainedValue() }

    var allKeys: [Key] {
        let strategy = Record.databaseColumnDecodingStrategy
        return context.columns.names.compactMap { Key(stringValue: strategy.key(forColumn: $0)) }
    }

    func contains(_ key: Key) -> Bool {
        if context.baseRow != nil,
            context.scopes[key.stringValue] != nil || context.prefetchedRows[key.stringValue] != nil
        {
            return true
        }
        return columnIndex(context, key) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if context.baseRow != nil, let scope = context.scopes[key.stringValue] { return !scope.containsNonNullValue }
        if context.baseRow != nil, context.prefetchedRows[key.stringValue] != nil { return false }
        guard let index = columnIndex(context, key) else { return true }
        return context.value(at: index).isNull
    }

    @inline(__always)
    private func scalar<T: SQLValueConvertible>(_ type: T.Type, _ key: Key) throws -> T {
        try withContext { context in
            guard let index = columnIndex(context, key) else {
                throw context.columnNotFound(forKey: key.stringValue, T.self)
            }
            return try context.scalar(T.self, at: index)
        }
    }

    @inline(__always)
    private func scalarIfPresent<T: SQLValueConvertible>(_ type: T.Type, _ key: Key) throws -> T? {
        try withContext { context in
            guard let index = columnIndex(context, key) else { return nil }
            return try context.scalarIfPresent(T.self, at: index)
        }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try scalar(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try withContext { context in
            if context.baseRow != nil, let value = try context.decodeAssociated(T.self, forKey: key.stringValue) {
                return value
            }
            guard let index = columnIndex(context, key) else {
                if let value = try context.decodeFromBaseRow(T.self) { return value }
                throw context.columnNotFound(forKey: key.stringValue, T.self)
            }
            return try context.decodeColumn(T.self, at: index)
        }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try scalarIfPresent(type, key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try withContext { context in
            if context.baseRow != nil {
                if let scope = context.scopes[key.stringValue], !scope.containsNonNullValue { return nil }
                if let value = try context.decodeAssociated(T.self, forKey: key.stringValue) { return value }
            }
            guard let index = columnIndex(context, key) else { return nil }
            if context.isNull(at: index) { return nil }
            return try context.decodeColumn(T.self, at: index)
        }
    }

    /// Not supported: decode the property as a `Decodable` type instead, which reads the
    /// column's JSON.
    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw unsupported("nested containers", key)
    }

    /// Not supported: decode the property as a `Decodable` type instead.
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw unsupported("nested containers", key)
    }

    /// Not supported: a row has no superclass part.
    func superDecoder() throws -> any Decoder { throw unsupported("super decoders", nil) }

    /// Not supported: a row has no superclass part.
    func superDecoder(forKey key: Key) throws -> any Decoder { throw unsupported("super decoders", key) }

    private func unsupported(_ what: String, _ key: Key?) -> DecodingError {
        DecodingError.typeMismatch(
            Any.self,
            DecodingError.Context(
                codingPath: key.map { [$0] } ?? [],
                debugDescription: "\(Record.self): \(what) are not supported when decoding a row; "
                    + "decode the property as a Decodable type, which reads the column's JSON"))
    }
}

extension RowDecodingContext {
    /// A record from the scope of `key` (`var folder: Folder`), or an array of records from its
    /// prefetched rows (`var notes: [Note]`); nil when the row has neither under `key`.
    func decodeAssociated<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        if let scope = scopes[key], let recordType = T.self as? any FetchableRecord.Type {
            return try recordType.init(row: scope) as? T
        }
        if let rows = prefetchedRows[key], let arrayType = T.self as? any PrefetchedRowsDecodable.Type {
            return try arrayType.decode(prefetchedRows: rows) as? T
        }
        return nil
    }

    /// A record from the base columns of a row with scopes (`var note: Note` in a `NoteInfo`),
    /// for a key that names no column; nil for a row without scopes, or a type that is not a
    /// record.
    func decodeFromBaseRow<T: Decodable>(_ type: T.Type) throws -> T? {
        guard let baseRow, let recordType = T.self as? any FetchableRecord.Type else { return nil }
        return try recordType.init(row: baseRow) as? T
    }
}
