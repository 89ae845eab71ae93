import StrataSQLite

/// Options of `CREATE VIEW`.
///
/// ```swift
/// try db.create(view: "topPlayer", options: .ifNotExists, as: "SELECT * FROM player ORDER BY score DESC LIMIT 10")
/// ```
///
/// See <https://www.sqlite.org/lang_createview.html>.
public struct ViewOptions: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int
    /// Options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `CREATE TEMPORARY VIEW`: a view of the connection's temp schema, gone when it closes.
    public static let temporary = ViewOptions(rawValue: 1 << 0)
    /// `IF NOT EXISTS`: does nothing when a view with that name exists.
    public static let ifNotExists = ViewOptions(rawValue: 1 << 1)
}

/// `CREATE VIEW name [(columns)] AS select`: a view defined by a SELECT written in SQL.
///
/// ```swift
/// let view = ViewDefinition("activePlayer", columns: ["id", "name"],
///                           as: "SELECT id, name FROM player WHERE active")
/// view.sql // CREATE VIEW "activePlayer"("id", "name") AS SELECT id, name FROM player WHERE active
/// ```
///
/// See <https://www.sqlite.org/lang_createview.html>.
public struct ViewDefinition: Sendable, Hashable {
    /// The view name.
    public var name: String
    /// The options (temporary, if not exists).
    public var options: ViewOptions
    /// Names for the view's columns, or nil to take them from the SELECT.
    public var columns: [String]?
    /// The SELECT statement, as SQL.
    public var select: String

    /// A view named `name` showing the rows of `select`.
    public init(_ name: String, options: ViewOptions = [], columns: [String]? = nil, as select: String) {
        self.name = name
        self.options = options
        self.columns = columns
        self.select = select
    }

    /// The `CREATE VIEW` statement.
    public var sql: String {
        CreateViewDDL(
            name, columns: columns, as: select, isTemporary: options.contains(.temporary),
            ifNotExists: options.contains(.ifNotExists)
        ).sql
    }
}
