/// What a request reads from one table: the one value that requests build and the SQL generator
/// reads (``SQLGenerator``). Immutable in use: each request method returns a changed copy.
package struct SQLRelation: Sendable {
    /// The table.
    package var tableName: String
    /// The Swift type the request was built from, for error messages (``recordTypeName``).
    package var recordType: RecordTypeReference
    /// The name of ``recordType`` (`Note`), read when an error needs it: a request is built on
    /// every fetch, its errors are rare.
    package var recordTypeName: String { RecordTypeName.name(of: recordType.type) }
    /// The alias given with `aliased(_:)`, if any.
    package var alias: TableAlias?
    /// The result columns; empty means the record type's `databaseSelection`.
    package var selection: [SQLSelection]
    package var filters: [SQLFilter] = []
    package var orderings: [SQLOrdering] = []
    /// Set by `reversed()`: the orderings are reversed when SQL is written (the primary key,
    /// descending, when there are none).
    package var isReversed = false
    package var isDistinct = false
    package var groupBy: [SQLExpression] = []
    package var having: [SQLExpression] = []
    package var limit: Int?
    package var offset: Int?
    /// The associations joined, in order.
    package var joins: [SQLJoin] = []
    /// The to-many associations of `including(all:)`, each fetched in a statement of its own.
    package var prefetches: [SQLAssociation] = []

    package init(tableName: String, recordType: Any.Type, selection: [SQLSelection]) {
        self.tableName = tableName
        self.recordType = RecordTypeReference(type: recordType)
        self.selection = selection
    }

    /// True when the SQL needs more than `SELECT ... FROM table WHERE ...`: what DELETE and
    /// UPDATE cannot say directly, and what a COUNT(*) must wrap.
    package var hasAggregateOrWindow: Bool {
        isDistinct || !groupBy.isEmpty || !having.isEmpty || limit != nil || offset != nil
    }
}

/// A WHERE condition: an expression, or keys that need the table's primary key, read from the
/// database when the request is prepared.
package enum SQLFilter: Sendable {
    case expression(SQLExpression)
    /// Values of the primary key (one column), as given to `filter(key:)`/`filter(keys:)`/`filter(id:)`.
    case keys([SQLValue])
    /// Column-value dictionaries, each the primary key or a unique index.
    case keyDictionaries([[String: SQLValue]])
    /// A condition that needs the database (the foreign key of `request(for:)`).
    case deferred(@Sendable (Database) throws -> SQLExpression)
}

extension TableRecord {
    /// The selection of `databaseSelection`: `"*"` is ``AllColumns``, any other element SQL.
    static var defaultSelection: [SQLSelection] {
        let selection = databaseSelection
        if selection.count == 1, selection[0].sql == "*", selection[0].arguments.isEmpty {
            return SQLSelection.allColumnsOnly  // the default: shared, not built per request
        }
        return selection.map { literal in
            if literal.sql == "*", literal.arguments.isEmpty { return AllColumns().sqlSelection }
            return SQLSelection(kind: .expression(SQLExpression(literal: literal), name: nil))
        }
    }

    /// A relation on this type's table.
    static var relation: SQLRelation {
        SQLRelation(
            tableName: databaseTableName, recordType: Self.self,
            selection: defaultSelection)
    }
}

/// A record type, kept by a request for its error messages. Metatypes are immutable values.
package struct RecordTypeReference: @unchecked Sendable {
    package let type: Any.Type
}

extension SQLSelection {
    /// `[*]`, the selection of most requests.
    static let allColumnsOnly = [AllColumns().sqlSelection]
}

/// The names of record types, for error messages (`Note`), cached: `String(describing:)` of a
/// type reads its metadata every time, which costs more than writing a request's SQL.
enum RecordTypeName {
    private static let cache = LockedValue<[ObjectIdentifier: String]>([:])

    static func name(of type: Any.Type) -> String {
        let id = ObjectIdentifier(type)
        if let name = cache.withLock({ $0[id] }) { return name }
        let name = String(describing: type)
        cache.withLock { $0[id] = name }
        return name
    }
}
