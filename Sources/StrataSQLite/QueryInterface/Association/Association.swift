/// What every association holds: its kind, its key, and the relation of the table it leads to.
/// Opaque: build associations with `belongsTo`, `hasMany` and `hasOne`.
public struct SQLAssociation: Sendable {
    package enum Kind: Sendable { case belongsTo, hasOne, hasMany }
    package var kind: Kind
    /// The name of the association (`folder`, `notes`): the key of its columns in decoded rows.
    package var key: String
    /// The table of the record that declares the association.
    package var originTable: String
    /// The table it leads to, with the filters, orderings and joins given to the association.
    package var destination: SQLRelation
    package var foreignKey: ForeignKey?
    /// For an association through others (`hasMany(_:through:using:)`): the steps from the
    /// origin to the table before the destination, in order, each a direct association. This
    /// value is then the last step, from `pivots.last`'s table to the destination. Empty for a
    /// direct association.
    package var pivots: [SQLAssociation] = []
    /// True once `forKey(_:)` named the association: a through association to many does not
    /// pluralize it.
    package var isKeyFixed = false
    /// The through association a step belongs to, for error messages: `association "tags" of
    /// "note" through "noteTag"`.
    package var throughDescription: String?

    package init(kind: Kind, key: String, originTable: String, destination: SQLRelation, foreignKey: ForeignKey?) {
        self.kind = kind
        self.key = key
        self.originTable = originTable
        self.destination = destination
        self.foreignKey = foreignKey
    }

    /// The table of the record that declares the whole association (the first pivot's origin
    /// for a through association).
    package var rootTable: String { pivots.first?.originTable ?? originTable }

    /// The direct associations that lead from the origin to the destination: one for a direct
    /// association, the pivots then the last step for a through association.
    package var steps: [SQLAssociation] {
        guard !pivots.isEmpty else { return [self] }
        var last = self
        last.pivots = []
        return pivots + [last]
    }

    /// The table that holds the foreign key.
    package var childTable: String { kind == .belongsTo ? originTable : destination.tableName }
    /// The table the foreign key refers to.
    package var parentTable: String { kind == .belongsTo ? destination.tableName : originTable }

    /// The foreign key of this step, as (origin column, destination column) pairs. For a through
    /// association, the last step's; see ``steps``.
    package func columnPairs(_ db: Database) throws -> [(origin: String, destination: String)] {
        let key: ResolvedForeignKey
        do {
            key = try db.resolveForeignKey(from: childTable, to: parentTable, given: foreignKey)
        } catch let error as SQLiteError {
            guard let throughDescription else { throw error }
            throw db.associationError(error.message + " (in \(throughDescription))")
        }
        return key.pairs.map { kind == .belongsTo ? ($0.child, $0.parent) : ($0.parent, $0.child) }
    }

    /// The same step in the other direction: from the destination back to the origin, whose
    /// relation is `origin` (same foreign key).
    func reversed(to origin: SQLRelation) -> SQLAssociation {
        var step = SQLAssociation(
            kind: kind == .belongsTo ? .hasMany : .belongsTo, key: key, originTable: destination.tableName,
            destination: origin, foreignKey: foreignKey)
        step.throughDescription = throughDescription
        return step
    }

    /// The destination's relation, for requests that start from the destination table: a
    /// direct association's destination with `filter`; a through association's destination
    /// joined (JOIN, nothing selected) back through each pivot to the first one, which gets
    /// `filter` (its columns unqualified) and an alias, returned so that its columns can be
    /// selected.
    ///
    /// ```sql
    /// -- Note.tags = hasMany(Tag.self, through: Note.noteTags, using: NoteTag.tag), filtered on "noteId":
    /// SELECT "tag".* FROM "tag" JOIN "noteTag" ON "noteTag"."tagId" = "tag"."id" AND "noteTag"."noteId" = ?
    /// ```
    func reachingBack(filter: SQLFilter) -> (relation: SQLRelation, firstPivot: TableAlias?) {
        let steps = self.steps
        guard steps.count > 1 else {
            var relation = destination
            relation.filters.append(filter)
            return (relation, nil)
        }
        var first = steps[0].destination
        let alias = first.alias ?? TableAlias()
        first.alias = alias
        first.filters.append(filter)
        var back: SQLJoin?
        for index in 1..<steps.count {
            var origin = index == 1 ? first : steps[index - 1].destination
            origin.selection = []
            origin.prefetches = []
            if let back { origin.joins.append(back) }
            back = SQLJoin(isRequired: true, association: steps[index].reversed(to: origin))
        }
        var relation = destination
        if let back { relation.joins.append(back) }
        return (relation, alias)
    }
}

/// A join of a request: an association, required (JOIN) or optional (LEFT JOIN).
package struct SQLJoin: Sendable {
    package var isRequired: Bool
    package var association: SQLAssociation
    /// True for `including(required:)`/`including(optional:)`: the joined table's columns are
    /// selected too, and decode under the association's key (``Row/scopes``).
    package var isIncluded = false
    /// True for the pivot of a through association: nothing of it is selected, and the scopes
    /// included under it belong to the row it is joined to.
    package var isPivot = false

    package init(isRequired: Bool, association: SQLAssociation, isIncluded: Bool = false, isPivot: Bool = false) {
        self.isRequired = isRequired
        self.association = association
        self.isIncluded = isIncluded
        self.isPivot = isPivot
    }

    /// The join of `association`. A through association becomes a chain: each pivot joined
    /// (same JOIN or LEFT JOIN, nothing selected), the destination joined under the last one,
    /// under the association's key.
    package static func of(_ association: SQLAssociation, isRequired: Bool, isIncluded: Bool = false) -> SQLJoin {
        let steps = association.steps
        var join = SQLJoin(isRequired: isRequired, association: steps[steps.count - 1], isIncluded: isIncluded)
        for var pivot in steps.dropLast().reversed() {
            pivot.destination.prefetches = []
            pivot.destination.joins.append(join)
            join = SQLJoin(isRequired: isRequired, association: pivot, isPivot: true)
        }
        return join
    }
}

/// An association between two record types; the methods of the concrete associations
/// (``BelongsToAssociation``, ``HasManyAssociation``, ``HasOneAssociation``) refine the table it
/// leads to.
public protocol Association: Sendable {
    /// The record type that declares the association.
    associatedtype OriginRowDecoder
    /// The record type it leads to.
    associatedtype RowDecoder
    /// The shared representation.
    var sqlAssociation: SQLAssociation { get set }
}

extension Association {
    private func with(_ change: (inout SQLRelation) -> Void) -> Self {
        var association = self
        change(&association.sqlAssociation.destination)
        return association
    }

    /// Only the associated rows where `predicate` is true (in the join's ON clause).
    ///
    /// ```swift
    /// Note.joining(required: Note.folder.filter(Column("name") == "Work"))
    /// ```
    public func filter(_ predicate: some SQLSpecificExpressible) -> Self {
        with { $0.filters.append(.expression(predicate.sqlExpression)) }
    }

    /// Orders by the associated table's columns, after the request's own orderings.
    public func order(_ orderings: any SQLOrderingTerm...) -> Self {
        with { $0.orderings = orderings.map(\.sqlOrdering) }
    }

    /// Names the associated table in the SQL, to use its columns elsewhere in the request.
    ///
    /// ```swift
    /// let folder = TableAlias(name: "f")
    /// Note.joining(required: Note.folder.aliased(folder)).filter(folder[Column("name")] == "Work")
    /// ```
    public func aliased(_ alias: TableAlias) -> Self {
        with { $0.alias = alias }
    }

    /// The same association under another key.
    public func forKey(_ key: String) -> Self {
        var association = self
        association.sqlAssociation.key = key
        association.sqlAssociation.isKeyFixed = true
        return association
    }

    /// Joins a further association of the destination, required.
    ///
    /// ```swift
    /// Tag.joining(required: Tag.notes.joining(required: Note.folder))
    /// ```
    public func joining<A: Association>(required association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        with { $0.joins.append(SQLJoin.of(association.sqlAssociation, isRequired: true)) }
    }

    /// Joins a further association of the destination, optional.
    public func joining<A: Association>(optional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        with { $0.joins.append(SQLJoin.of(association.sqlAssociation, isRequired: false)) }
    }
}

/// The record's parent, whose primary key the record holds: a note belongs to a folder.
///
/// ```swift
/// extension Note { static let folder = belongsTo(Folder.self) }   // note.folderId → folder.id
/// ```
public struct BelongsToAssociation<Origin, Destination>: Association {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    /// The shared representation.
    public var sqlAssociation: SQLAssociation
    init(sqlAssociation: SQLAssociation) { self.sqlAssociation = sqlAssociation }
}

/// The records whose foreign key refers to the record: a folder has many notes.
///
/// ```swift
/// extension Folder { static let notes = hasMany(Note.self) }      // note.folderId → folder.id
/// ```
public struct HasManyAssociation<Origin, Destination>: Association {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    /// The shared representation.
    public var sqlAssociation: SQLAssociation
    init(sqlAssociation: SQLAssociation) { self.sqlAssociation = sqlAssociation }
}

/// The one record whose foreign key refers to the record: a country has one profile.
public struct HasOneAssociation<Origin, Destination>: Association {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    /// The shared representation.
    public var sqlAssociation: SQLAssociation
    init(sqlAssociation: SQLAssociation) { self.sqlAssociation = sqlAssociation }
}

extension TableRecord {
    private static func association<D: TableRecord>(
        _ kind: SQLAssociation.Kind, _ destination: D.Type, key: String?, plural: Bool, using foreignKey: ForeignKey?
    ) -> SQLAssociation {
        let name = D.databaseTableName
        return SQLAssociation(
            kind: kind, key: key ?? (plural ? name + "s" : name), originTable: databaseTableName,
            destination: D.relation, foreignKey: foreignKey)
    }

    /// The parent record: `static let folder = belongsTo(Folder.self)`. The foreign key is read
    /// from the schema when the request is prepared, or given with `using:`.
    ///
    /// ```swift
    /// static let folder = belongsTo(Folder.self)
    /// static let author = belongsTo(Person.self, key: "author", using: ForeignKey(["authorId"]))
    /// ```
    public static func belongsTo<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> BelongsToAssociation<Self, Destination> {
        BelongsToAssociation(
            sqlAssociation: association(.belongsTo, destination, key: key, plural: false, using: foreignKey))
    }

    /// The child records: `static let notes = hasMany(Note.self)` (key `notes`).
    public static func hasMany<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasManyAssociation<Self, Destination> {
        HasManyAssociation(
            sqlAssociation: association(.hasMany, destination, key: key, plural: true, using: foreignKey))
    }

    /// The one child record: `static let profile = hasOne(Profile.self)`.
    public static func hasOne<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasOneAssociation<Self, Destination> {
        HasOneAssociation(sqlAssociation: association(.hasOne, destination, key: key, plural: false, using: foreignKey))
    }

    /// Every row, joined with the associated table (JOIN): rows without a match are left out.
    ///
    /// ```swift
    /// Note.joining(required: Note.folder.filter(Column("name") == "Work"))
    /// // SELECT "note".* FROM "note" JOIN "folder" ON "folder"."id" = "note"."folderId" AND "folder"."name" = ?
    /// ```
    public static func joining<A: Association>(required association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self {
        all().joining(required: association)
    }

    /// Every row, joined with the associated table (LEFT JOIN): rows without a match are kept.
    public static func joining<A: Association>(optional association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self {
        all().joining(optional: association)
    }
}

extension QueryInterfaceRequest {
    /// Joins the associated table (JOIN): rows without a match are left out.
    public func joining<A: Association>(required association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        var request = self
        request.relation.joins.append(SQLJoin.of(association.sqlAssociation, isRequired: true))
        return request
    }

    /// Joins the associated table (LEFT JOIN): rows without a match are kept.
    public func joining<A: Association>(optional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        var request = self
        request.relation.joins.append(SQLJoin.of(association.sqlAssociation, isRequired: false))
        return request
    }
}

extension EncodableRecord where Self: TableRecord {
    /// The records associated with this one: a folder's notes, a note's folder, a note's tags
    /// through its note-tag rows.
    ///
    /// ```swift
    /// let notes = try folder.request(for: Folder.notes).order(Column("title")).fetchAll(db)
    /// // SELECT * FROM "note" WHERE "folderId" = ? ORDER BY "title"
    /// let tags = try note.request(for: Note.tags).fetchAll(db)
    /// // SELECT "tag".* FROM "tag" JOIN "noteTag" ON "noteTag"."tagId" = "tag"."id" AND "noteTag"."noteId" = ?
    /// ```
    /// The foreign key is resolved, and the record's key values read, when the request is prepared.
    public func request<A: Association>(for association: A) -> QueryInterfaceRequest<A.RowDecoder>
    where A.OriginRowDecoder == Self {
        let core = association.sqlAssociation
        let first = core.steps[0]
        let container = Result { try databaseContainer() }
        let filter = SQLFilter.deferred { db in
            let values = try container.get()
            let pairs = try first.columnPairs(db)
            let conditions = try pairs.map { pair -> SQLExpression in
                guard let value = values[value: pair.origin] else {
                    throw db.associationError(
                        "\(Self.self) does not encode column \"\(pair.origin)\" of the foreign key between "
                            + "\"\(first.childTable)\" and \"\(first.parentTable)\"")
                }
                return Column(pair.destination) == value
            }
            return SQLGenerator.conjunction(conditions) ?? SQLExpression("1", precedence: .primary)
        }
        return QueryInterfaceRequest(relation: core.reachingBack(filter: filter).relation)
    }
}
