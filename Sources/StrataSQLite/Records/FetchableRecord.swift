import Foundation

/// A type that can be built from a database row: fetch it straight from SQL.
///
/// ```swift
/// struct Note: Decodable, FetchableRecord {
///     var id: Int64
///     var title: String
/// }
/// let notes = try Note.fetchAll(db, sql: "SELECT * FROM note ORDER BY title")
/// let note = try Note.fetchOne(db, literal: "SELECT * FROM note WHERE id = \(id)")
/// ```
///
/// `Decodable` types get ``init(row:)`` for free: each coding key reads the column of the same
/// name (see ``databaseColumnDecodingStrategy``); values convert as ``SQLValueConvertible``
/// says (a `Date` as ``databaseDateDecodingStrategy(for:)`` says); other `Decodable`
/// values (arrays, dictionaries, nested structs) are read from JSON text. A missing column, a NULL
/// for a non-optional property, or a value that does not convert throws ``RowDecodingError``
/// naming the record type, the column and the value (GRDB 7 throws its `RowDecodingError` for a
/// `Decodable` record too). The same name and meaning as GRDB's `FetchableRecord`.
public protocol FetchableRecord {
    /// Creates a record from a row.
    ///
    /// ```swift
    /// init(row: Row) throws {
    ///     id = try row["id"]
    ///     title = try row["title"]
    /// }
    /// ```
    init(row: Row) throws

    /// The `userInfo` of the decoder that decodes `Decodable` records.
    static var databaseDecodingUserInfo: [CodingUserInfoKey: any Sendable] { get }

    /// The decoder of the columns read as JSON. By default: dates as milliseconds since 1970
    /// and data as base64, like GRDB.
    ///
    /// ```swift
    /// static func databaseJSONDecoder(for column: String) -> JSONDecoder {
    ///     let decoder = JSONDecoder(); decoder.keyDecodingStrategy = .convertFromSnakeCase; return decoder
    /// }
    /// ```
    static func databaseJSONDecoder(for column: String) -> JSONDecoder

    /// How `Date` properties are read from column `column`: ``DatabaseDateDecodingStrategy/deferredToDate`` by default.
    ///
    /// ```swift
    /// static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSince1970 }
    /// ```
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy

    /// How coding keys map to column names: ``DatabaseColumnDecodingStrategy/useDefaultKeys`` by default.
    ///
    /// ```swift
    /// static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    /// ```
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { get }
}

extension FetchableRecord {
    /// No user info.
    public static var databaseDecodingUserInfo: [CodingUserInfoKey: any Sendable] { [:] }

    /// A `JSONDecoder` reading dates as milliseconds since 1970 and data as base64.
    public static func databaseJSONDecoder(for column: String) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .base64
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.nonConformingFloatDecodingStrategy = .throw
        decoder.userInfo = databaseDecodingUserInfo
        return decoder
    }

    /// `.deferredToDate`: `Date`'s own conversion.
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .deferredToDate
    }

    /// `.useDefaultKeys`.
    public static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .useDefaultKeys }
}

extension FetchableRecord where Self: Decodable {
    /// Decodes the record from `row` through its `Decodable` conformance.
    ///
    /// ```swift
    /// let note = try Note(row: row)
    /// ```
    ///
    /// Rows of one query share their column names, and the keys of a record are decoded in the
    /// same order for every row: the column of each key is looked up for the first row only.
    public init(row: Row) throws {
        let context = RowDecodingContext<Self>(row: row)
        self = try Self(from: RowDecoder(context: context))
        context.finish()
    }
}
