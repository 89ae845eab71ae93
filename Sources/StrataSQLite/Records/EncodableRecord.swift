import Foundation

/// A type that says which values it stores in which columns.
///
/// ```swift
/// struct Note: Encodable, EncodableRecord {
///     var id: Int64?
///     var title: String
/// }
/// ```
///
/// `Encodable` types get ``encode(to:)`` for free: each coding key is a column (see
/// ``databaseColumnEncodingStrategy``), values convert as ``SQLValueConvertible`` says (dates,
/// UUIDs as their strategies say), `nil` is NULL, and other `Encodable` values (arrays,
/// dictionaries, nested structs) are stored as JSON text. The same name and meaning as GRDB's
/// `EncodableRecord`; ``PersistableRecord`` builds on it.
public protocol EncodableRecord {
    /// Stores the record's values in `container`.
    ///
    /// ```swift
    /// func encode(to container: inout PersistenceContainer) throws {
    ///     container["id"] = id
    ///     container["title"] = title
    /// }
    /// ```
    func encode(to container: inout PersistenceContainer) throws

    /// The `userInfo` of the encoder that encodes `Encodable` records.
    static var databaseEncodingUserInfo: [CodingUserInfoKey: any Sendable] { get }

    /// The encoder of the values stored as JSON. By default: sorted keys, dates as milliseconds
    /// since 1970, data as base64, like GRDB.
    ///
    /// ```swift
    /// static func databaseJSONEncoder(for column: String) -> JSONEncoder { JSONEncoder() }
    /// ```
    static func databaseJSONEncoder(for column: String) -> JSONEncoder

    /// How `Date` properties are stored: ``DatabaseDateEncodingStrategy/deferredToDate`` by default.
    ///
    /// ```swift
    /// static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .secondsSince1970 }
    /// ```
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy

    /// How `UUID` properties are stored: ``DatabaseUUIDEncodingStrategy/deferredToUUID`` (16-byte blob) by default.
    ///
    /// ```swift
    /// static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .lowercaseString }
    /// ```
    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy

    /// How coding keys map to column names: ``DatabaseColumnEncodingStrategy/useDefaultKeys`` by default.
    ///
    /// ```swift
    /// static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    /// ```
    static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { get }
}

extension EncodableRecord {
    /// No user info.
    public static var databaseEncodingUserInfo: [CodingUserInfoKey: any Sendable] { [:] }

    /// A `JSONEncoder` with sorted keys (stable text, so equal values compare equal in SQL),
    /// dates as milliseconds since 1970, data as base64, and non-finite numbers refused.
    public static func databaseJSONEncoder(for column: String) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dataEncodingStrategy = .base64
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.nonConformingFloatEncodingStrategy = .throw
        encoder.userInfo = databaseEncodingUserInfo
        return encoder
    }

    /// `.deferredToDate`: text `yyyy-MM-dd HH:mm:ss.SSS` in UTC.
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .deferredToDate
    }

    /// `.deferredToUUID`: a 16-byte blob.
    public static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy {
        .deferredToUUID
    }

    /// `.useDefaultKeys`.
    public static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .useDefaultKeys }

    /// The columns and values the record stores.
    ///
    /// ```swift
    /// let container = try note.databaseContainer()
    /// #expect(container[value: "title"] == "Groceries")
    /// ```
    public func databaseContainer() throws -> PersistenceContainer {
        var container = PersistenceContainer()
        try encode(to: &container)
        container.removeDuplicateColumns()
        return container
    }
}

extension EncodableRecord where Self: Encodable {
    /// Encodes the record through its `Encodable` conformance.
    ///
    /// ```swift
    /// var container = PersistenceContainer()
    /// try note.encode(to: &container)
    /// ```
    public func encode(to container: inout PersistenceContainer) throws {
        let encoder: RecordEncoder<Self>
        if container.isEmpty, let slot = container.encodingSlot {
            // An insert: the encoder of the last record, expecting its columns.
            encoder = slot.encoder(for: Self.self)
            encoder.begin(expecting: slot.expected)
        } else {
            encoder = RecordEncoder(reusable: false)
            if container.isEmpty {
                encoder.begin(expecting: [])
            } else {
                encoder.begin(appendingTo: container)
                container = PersistenceContainer()  // the encoder holds the only copy: appends don't copy
            }
        }
        encoder.inUse = true
        defer { encoder.inUse = false }
        try encode(to: encoder)
        container = encoder.finish()
    }
}
