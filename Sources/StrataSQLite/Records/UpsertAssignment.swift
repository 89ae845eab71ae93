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
}

/// One assignment of an upsert's `DO UPDATE SET` clause: a column and an SQL expression (a
/// ``SQLLiteral``: values interpolated in it are bound, never pasted), or a column to leave alone.
///
/// ```swift
/// try note.upsert(db, onConflict: ["uuid"]) { excluded in
///     [
///         .set("visits", to: "visits + 1"),            // the existing row's value, plus one
///         .set("title", to: excluded["title"]),         // the value the insert would have written
///         .set("editedBy", to: "\(userName)"),          // a bound value
///         .noOverwrite("createdAt"),                     // keep the existing value
///     ]
/// }
/// ```
///
/// A column name alone refers to the existing row (SQLite's rule). GRDB writes these
/// `Column("visits").set(to: Column("visits") + 1)` and `Column("createdAt").noOverwrite`.
public struct UpsertAssignment: Sendable {
    /// The column assigned, as spelled here.
    public let column: String
    /// The expression, or nil to leave the column alone.
    public let value: SQLLiteral?

    /// `column = expression`.
    ///
    /// ```swift
    /// UpsertAssignment.set("visits", to: "visits + 1")
    /// ```
    public static func set(_ column: String, to expression: SQLLiteral) -> UpsertAssignment {
        UpsertAssignment(column: column, value: expression)
    }

    /// Leaves `column` as it is in the existing row, even with ``UpsertUpdateStrategy/allColumns``.
    ///
    /// ```swift
    /// UpsertAssignment.noOverwrite("createdAt")
    /// ```
    public static func noOverwrite(_ column: String) -> UpsertAssignment {
        UpsertAssignment(column: column, value: nil)
    }
}
