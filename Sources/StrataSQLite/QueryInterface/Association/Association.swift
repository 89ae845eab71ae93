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

    package init(kind: Kind, key: String, originTable: String, destination: SQLRelation, foreignKey: ForeignKey?) {
        self.kind = kind
        self.key = key
        self.originTable = originTable
        self.destination = destination
        self.foreignKey = foreignKey
    }

    /// The table that holds the foreign key.
    package var childTable: String { kind == .belongsTo ? originTable : destination.tableName }
    /// The table the foreign key refers to.
    package var parentTable: String { kind == .belongsTo ? destination.tableName : originTable }

    /// The foreign key, as (origin column, destination column) pairs.
    package func columnPairs(_ db: Database) throws -> [(origin: String, destination: String)] {
        let key = try db.resolveForeignKey(from: childTable, to: parentTable, given: foreignKey)
        return key.pairs.map { kind == .belongsTo ? ($0.child, $0.parent) : ($0.parent, $0.child) }
    }
}

/// A join of a request: an association, required (JOIN) or optional (LEFT JOIN).
package struct SQLJoin: Sendable {
    package var isRequired: Bool
    package var association: SQLAssociation
    /// True for `including(required:)`/`including(optional:)`: the joined table's columns are
    /// selected too, and decode under the association's key (``Row/scopes``).
    package var isIncluded = false
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
        return association
    }

    /// Joins a further association of the destination, required.
    ///
    /// ```swift
    /// Tag.joining(required: Tag.notes.joining(required: Note.folder))
    /// ```
    public func joining<A: Association>(required association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        with { $0.joins.append(SQLJoin(isRequired: true, association: association.sqlAssociation)) }
    }

    /// Joins a further association of the destination, optional.
    public func joining<A: Association>(optional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        with { $0.joins.append(SQLJoin(isRequired: false, association: association.sqlAssociation)) }
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
        request.relation.joins.append(SQLJoin(isRequired: true, association: association.sqlAssociation))
        return request
    }

    /// Joins the associated table (LEFT JOIN): rows without a match are kept.
    public func joining<A: Association>(optional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        var request = self
        request.relation.joins.append(SQLJoin(isRequired: false, association: association.sqlAssociation))
        return request
    }
}

extension EncodableRecord where Self: TableRecord {
    /// The records associated with this one: a folder's notes, a note's folder.
    ///
    /// ```swift
    /// let notes = try folder.request(for: Folder.notes).order(Column("title")).fetchAll(db)
    /// // SELECT * FROM "note" WHERE "folderId" = ? ORDER BY "title"
    /// ```
    /// The foreign key is resolved, and the record's key values read, when the request is prepared.
    public func request<A: Association>(for association: A) -> QueryInterfaceRequest<A.RowDecoder>
    where A.OriginRowDecoder == Self {
        let core = association.sqlAssociation
        let container = Result { try databaseContainer() }
        var relation = core.destination
        relation.filters.append(
            .deferred { db in
                let values = try container.get()
                let pairs = try core.columnPairs(db)
                let conditions = try pairs.map { pair -> SQLExpression in
                    guard let value = values[value: pair.origin] else {
                        throw db.associationError(
                            "\(Self.self) does not encode column \"\(pair.origin)\" of the foreign key between "
                                + "\"\(core.childTable)\" and \"\(core.parentTable)\"")
                    }
                    return Column(pair.destination) == value
                }
                return SQLGenerator.conjunction(conditions) ?? SQLExpression("1", precedence: .primary)
            })
        return QueryInterfaceRequest(relation: relation)
    }
}
