/// A type tied to a database table: it knows the table's name, and what to select from it.
///
/// ```swift
/// struct Note: TableRecord {
///     // static let databaseTableName = "notes"   // default: "note"
/// }
/// let count = try Note.fetchCount(db)
/// try Note.deleteOne(db, key: 42)
/// ```
///
/// The same name and meaning as GRDB's `TableRecord`. The key-based methods
/// (``fetchCount(_:)``, ``exists(_:key:)-(_,SQLValueConvertible)``, ``deleteOne(_:key:)-(_,SQLValueConvertible)``...)
/// read the table's primary key from the database. See <https://www.sqlite.org/lang_createtable.html#the_primary_key>.
public protocol TableRecord {
    /// The name of the table. The default is the type name with a lowercase first letter:
    /// `Note` → `note`, `ReadingList` → `readingList`.
    ///
    /// ```swift
    /// static let databaseTableName = "notes"
    /// ```
    static var databaseTableName: String { get }

    /// What `fetchAll(db)`, `fetchOne(db, key:)` and the other table requests select: by default
    /// `*`, every column of the table (hidden and generated columns aside). Each element is an
    /// SQL result column.
    ///
    /// ```swift
    /// static var databaseSelection: [SQLLiteral] { ["*", "rowid"] }
    /// ```
    /// See <https://www.sqlite.org/syntax/result-column.html>.
    static var databaseSelection: [SQLLiteral] { get }

    /// The type's columns, for the closure forms of requests: `Note.filter { $0.pinned }` reads
    /// `Note.Columns.pinned`. None by default.
    ///
    /// ```swift
    /// enum Columns {
    ///     static let title = Column(CodingKeys.title)
    /// }
    /// ```
    associatedtype Columns = Never

    /// What the closures of requests receive: `Columns.self` by default.
    associatedtype DatabaseComponents = Columns.Type

    /// The value the closures of requests receive.
    static var databaseComponents: DatabaseComponents { get }
}

extension TableRecord {
    /// The type name with a lowercase first letter (`Note` → `note`), computed once per type.
    public static var databaseTableName: String { DefaultTableName.name(for: Self.self) }

    /// `*`: every column.
    public static var databaseSelection: [SQLLiteral] { ["*"] }
}

/// The default table names, cached: building one from the type name costs more than an insert.
enum DefaultTableName {
    private static let cache = LockedValue<[ObjectIdentifier: String]>([:])

    static func name(for type: Any.Type) -> String {
        let id = ObjectIdentifier(type)
        if let name = cache.withLock({ $0[id] }) { return name }
        // "Note", or "Box<Int>" for a generic type: keep the name before any generic arguments.
        var typeName = String(describing: type)
        if let cut = typeName.firstIndex(where: { $0 == "<" || $0 == "(" || $0 == " " }) {
            typeName = String(typeName[..<cut])
        }
        let name = typeName.prefix(1).lowercased() + typeName.dropFirst()
        cache.withLock { $0[id] = name }
        return name
    }
}
