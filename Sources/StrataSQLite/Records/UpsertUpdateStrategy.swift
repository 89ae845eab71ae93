/// Which columns an upsert overwrites when the row exists: GRDB's `UpsertUpdateStrategy`.
///
/// ```swift
/// // On conflict, only "visits" changes:
/// try note.upsert(db, onConflict: ["uuid"], updating: .noColumnUnlessSpecified) { _ in
///     [.set("visits", to: "visits + 1")]
/// }
/// ```
public struct UpsertUpdateStrategy: OptionSet, Sendable {
    /// The raw bits.
    public var rawValue: UInt8
    /// A strategy from its raw bits.
    ///
    /// ```swift
    /// UpsertUpdateStrategy(rawValue: 1)   // .allColumns
    /// ```
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Every column the record encodes is overwritten with the value it would have inserted,
    /// except the primary key, the conflict target and the columns the assignments name. The default.
    public static let allColumns = UpsertUpdateStrategy(rawValue: 1)
    /// Only the assignments are performed.
    public static let noColumnUnlessSpecified: UpsertUpdateStrategy = []
}

/// The row an upsert would have inserted, SQLite's `excluded` table: `excluded["title"]` is the
/// SQL `excluded."title"`. See <https://www.sqlite.org/lang_upsert.html>.
///
/// ```swift
/// try note.upsert(db, onConflict: ["uuid"]) { excluded in
///     [.set("title", to: "\(literal: excluded["title"]) || ' (merged)'")]
/// }
/// ```
public struct UpsertExcluded: Sendable {
    init() {}

    /// The value the insert would have written in `column`.
    ///
    /// ```swift
    /// excluded["title"]   // excluded."title"
    /// ```
    public subscript(column: String) -> SQLLiteral {
        SQLLiteral(sql: "excluded.\(SQLLiteral.quote(identifier: column))")
    }

    /// The value the insert would have written in `column`, as an expression.
    ///
    /// ```swift
    /// Column("visits").set(to: Column("visits") + excluded[Column("visits")])
    /// ```
    public subscript(column: Column) -> SQLExpression {
        SQLExpression(pieces: [.literal(self[column.name])], precedence: .primary)
    }
}
