/// A column of a table, by name: the building block of request filters, orderings and
/// selections.
///
/// ```swift
/// struct Note: Codable, FetchableRecord, PersistableRecord {
///     var id: Int64?
///     var title: String
///     enum Columns {
///         static let title = Column(CodingKeys.title)
///     }
/// }
/// let notes = try Note.filter(Note.Columns.title.like("A%")).order(Note.Columns.title).fetchAll(db)
/// ```
///
/// The name is quoted in the SQL (`"title"`), so keywords, spaces and quotes are safe. In a
/// request that joins tables, a column is qualified with the table of the request it was given
/// to (`"note"."title"`). GRDB's `Column`. See <https://www.sqlite.org/lang_expr.html>.
public struct Column: SQLSpecificExpressible, Sendable, CustomStringConvertible {
    /// The column name, unquoted.
    public let name: String

    /// The column named `name`.
    ///
    /// ```swift
    /// let title = Column("title")
    /// ```
    public init(_ name: String) {
        self.name = name
    }

    /// The column named after a coding key: `Column(CodingKeys.title)`.
    ///
    /// ```swift
    /// enum Columns { static let title = Column(CodingKeys.title) }
    /// ```
    public init(_ codingKey: some CodingKey) {
        self.name = codingKey.stringValue
    }

    /// The hidden `rowid` column. See <https://www.sqlite.org/lang_createtable.html#rowid>.
    public static let rowID = Column("rowid")

    /// The column as an expression: `"title"`.
    public var sqlExpression: SQLExpression {
        SQLExpression(pieces: [.column(name, nil)], precedence: .primary)
    }

    /// The quoted name: `"title"`.
    public var description: String { SQLLiteral.quote(identifier: name) }
}
