/// What an aggregate of an association computes.
package enum AssociationAggregateKind: Sendable {
    case count, isEmpty
}

/// A value computed from the associated rows of each row: `Folder.notes.count`,
/// `Folder.notes.isEmpty`. Select it with `annotated(with:)`, filter with `having(_:)` or
/// `filter(_:)`, compare it like any expression.
///
/// ```swift
/// let folders = try Folder.annotated(with: Folder.notes.count).asRequest(of: Row.self).fetchAll(db)
/// // SELECT *, (SELECT COUNT(*) FROM "note" WHERE "note"."folderId" = "folder"."id") AS "notesCount" FROM "folder"
/// let empty = try Folder.having(Folder.notes.isEmpty).fetchAll(db)
/// let busy = try Folder.having(Folder.notes.count >= 10).fetchAll(db)
/// ```
///
/// Strata writes each aggregate as a correlated subquery (GRDB joins and groups), so a `having`
/// condition on one goes in the WHERE clause; the results are the same. The associated table's filters apply: `Folder.notes.filter(...).count`.
public struct AssociationAggregate<Origin>: SQLSpecificExpressible, Sendable {
    /// The expression.
    public let sqlExpression: SQLExpression
    /// The name the value is selected as: `notesCount`, `hasNoNotes`.
    public let name: String

    /// The same aggregate selected under `name`.
    public func forKey(_ name: String) -> AssociationAggregate {
        AssociationAggregate(sqlExpression: sqlExpression, name: name)
    }
}

extension HasManyAssociation {
    /// The number of associated rows: `Folder.notes.count`, selected as `notesCount`.
    public var count: AssociationAggregate<Origin> {
        AssociationAggregate(
            sqlExpression: SQLExpression(pieces: [.associationAggregate(sqlAssociation, .count)], precedence: .primary),
            name: sqlAssociation.key + "Count")
    }

    /// True when there is no associated row: `Folder.notes.isEmpty` (`NOT EXISTS (...)`).
    public var isEmpty: AssociationAggregate<Origin> {
        let key = sqlAssociation.key
        return AssociationAggregate(
            sqlExpression: SQLExpression(pieces: [.associationAggregate(sqlAssociation, .isEmpty)], precedence: .not),
            name: "hasNo" + key.prefix(1).uppercased() + key.dropFirst())
    }
}

extension QueryInterfaceRequest {
    /// Selects the aggregates beside the current selection, each under its name.
    ///
    /// ```swift
    /// Folder.annotated(with: Folder.notes.count)   // SELECT *, (...) AS "notesCount"
    /// ```
    public func annotated(with aggregates: AssociationAggregate<RowDecoder>...) -> Self {
        var request = self
        request.relation.selection += aggregates.map { $0.forKey($0.name).sqlSelection }
        return request
    }
}

extension AssociationAggregate {
    /// The selection `aggregate AS "name"`.
    public var sqlSelection: SQLSelection { SQLSelection(kind: .expression(sqlExpression, name: name)) }
}

extension TableRecord {
    /// Every row, with the aggregates selected: `Folder.annotated(with: Folder.notes.count)`.
    public static func annotated(with aggregates: AssociationAggregate<Self>...) -> QueryInterfaceRequest<Self> {
        var request = all()
        request.relation.selection += aggregates.map(\.sqlSelection)
        return request
    }

    /// The rows for which the condition is true: `Folder.having(Folder.notes.isEmpty)`,
    /// `Folder.having(Folder.notes.count > 3)`.
    public static func having(_ predicate: some SQLSpecificExpressible) -> QueryInterfaceRequest<Self> {
        all().having(predicate)
    }
}
