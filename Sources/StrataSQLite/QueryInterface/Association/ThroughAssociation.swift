// Associations through others: `hasMany(_:through:using:)` and `hasOne(_:through:using:)`.

/// The records reached through another association: a note's tags through its note-tag rows.
///
/// ```swift
/// extension Note {
///     static let noteTags = hasMany(NoteTag.self)
///     static let tags = hasMany(Tag.self, through: noteTags, using: NoteTag.tag)
/// }
/// ```
///
/// It joins each pivot (JOIN or LEFT JOIN, as the association is used), selects nothing of it,
/// and leads to the destination: filters, orders, aliases and includes given to it apply to the
/// destination. GRDB's `HasManyThroughAssociation`.
public struct HasManyThroughAssociation<Origin, Destination>: ToManyAssociation {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    /// The shared representation.
    public var sqlAssociation: SQLAssociation
    init(sqlAssociation: SQLAssociation) { self.sqlAssociation = sqlAssociation }
}

/// The one record reached through another to-one association: a book's country through its
/// library. GRDB's `HasOneThroughAssociation`.
///
/// ```swift
/// extension Book {
///     static let library = belongsTo(Library.self)
///     static let country = hasOne(Country.self, through: library, using: Library.country)
/// }
/// ```
public struct HasOneThroughAssociation<Origin, Destination>: ToOneAssociation {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    /// The shared representation.
    public var sqlAssociation: SQLAssociation
    init(sqlAssociation: SQLAssociation) { self.sqlAssociation = sqlAssociation }
}

extension SQLAssociation {
    /// The association from `pivot`'s origin to `target`'s destination, under `key`: the steps of
    /// both, the last one holding the others as its pivots.
    static func through(_ pivot: SQLAssociation, _ target: SQLAssociation, key: String) -> SQLAssociation {
        var steps = pivot.steps + target.steps
        let tables = steps.dropLast().map { "\"\($0.destination.tableName)\"" }.joined(separator: ", ")
        let description =
            "association \"\(key)\" of \"\(pivot.rootTable)\" through \(tables) to \"\(target.destination.tableName)\""
        for index in steps.indices { steps[index].throughDescription = description }
        var last = steps.removeLast()
        last.key = key
        last.isKeyFixed = false
        last.pivots = steps
        return last
    }
}

extension TableRecord {
    /// The records reached through `pivot`, then `target`: `pivot` leads from this type to the
    /// pivot records, `target` from them to the destination. Each may be a belongsTo, a hasMany,
    /// a hasOne, or itself a through association. The key is `key`, else the target's, plural
    /// (`tag` → `tags`) when the target leads to one record.
    ///
    /// ```swift
    /// static let tags = hasMany(Tag.self, through: noteTags, using: NoteTag.tag)
    /// let infos = try Note.including(all: Note.tags).asRequest(of: NoteInfo.self).fetchAll(db)
    /// let tags = try note.request(for: Note.tags).order(Column("name")).fetchAll(db)
    /// let counted = Note.annotated(with: Note.tags.count)
    /// ```
    public static func hasMany<Pivot: Association, Target: Association>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil
    ) -> HasManyThroughAssociation<Self, Target.RowDecoder>
    where Pivot.OriginRowDecoder == Self, Pivot.RowDecoder == Target.OriginRowDecoder {
        let core = target.sqlAssociation
        let pluralize = !(target is any ToManyAssociation) && !core.isKeyFixed
        return HasManyThroughAssociation(
            sqlAssociation: .through(pivot.sqlAssociation, core, key: key ?? (pluralize ? core.key + "s" : core.key)))
    }

    /// The one record reached through the to-one `pivot`, then the to-one `target`. The key is
    /// `key`, else the target's.
    ///
    /// ```swift
    /// static let country = hasOne(Country.self, through: library, using: Library.country)
    /// let infos = try Book.including(optional: Book.country).asRequest(of: BookInfo.self).fetchAll(db)
    /// ```
    public static func hasOne<Pivot: ToOneAssociation, Target: ToOneAssociation>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil
    ) -> HasOneThroughAssociation<Self, Target.RowDecoder>
    where Pivot.OriginRowDecoder == Self, Pivot.RowDecoder == Target.OriginRowDecoder {
        let core = target.sqlAssociation
        return HasOneThroughAssociation(sqlAssociation: .through(pivot.sqlAssociation, core, key: key ?? core.key))
    }
}
