// `including(required:)` and `including(optional:)`: the columns of to-one associations,
// selected with the base row's and split into scopes (`row.scopes["folder"]`).

/// The columns of one included association in a result row: how many, its key, and those of the
/// associations included under it (which follow its own columns).
package struct ScopeLayout: Sendable {
    package var key: String
    package var width: Int
    package var children: [ScopeLayout]

    /// The columns of this scope and of every scope under it.
    var totalWidth: Int { width + children.reduce(0) { $0 + $1.totalWidth } }
}

/// Splits the flat rows of an including request into a base row and its scopes. The column
/// names of each part are made once and shared by every row, so that records decode with one
/// plan per part.
struct RowSplitter {
    private struct Part {
        var key: String
        var range: Range<Int>
        var columns: ColumnNames
        var children: [Part]
    }

    private let baseRange: Range<Int>
    private let baseColumns: ColumnNames
    private let parts: [Part]

    /// `columns` are the names of the columns from `offset` on (the columns before `offset`
    /// are dropped).
    init(columns: [String], offset: Int = 0, layouts: [ScopeLayout], sql: String) throws {
        let scoped = layouts.reduce(0) { $0 + $1.totalWidth }
        guard scoped <= columns.count else {
            throw SQLiteError(
                resultCode: .SQLITE_ERROR,
                message: "the included associations select \(scoped) columns but the statement returns "
                    + "\(columns.count): \(sql)")
        }
        let baseCount = columns.count - scoped
        baseRange = offset..<(offset + baseCount)
        baseColumns = ColumnNames(Array(columns[0..<baseCount]))
        var start = baseCount
        func makeParts(_ layouts: [ScopeLayout]) -> [Part] {
            layouts.map { layout in
                let range = start..<(start + layout.width)
                start += layout.width
                return Part(
                    key: layout.key, range: (range.lowerBound + offset)..<(range.upperBound + offset),
                    columns: ColumnNames(Array(columns[range])),
                    children: makeParts(layout.children))
            }
        }
        parts = makeParts(layouts)
    }

    func split(_ row: Row) -> Row {
        func make(_ part: Part) -> Row {
            var scope = Row(columns: part.columns, values: Array(row.values[part.range]), sourceSQL: row.sourceSQL)
            for child in part.children { scope.scopes[child.key] = make(child) }
            return scope
        }
        var base = Row(columns: baseColumns, values: Array(row.values[baseRange]), sourceSQL: row.sourceSQL)
        for part in parts { base.scopes[part.key] = make(part) }
        return base
    }
}

extension SQLRelation {
    /// True when a join, at any depth, is included.
    var hasIncludes: Bool {
        joins.contains { $0.isIncluded || $0.association.destination.hasIncludes }
    }

    /// True when fetched rows need scopes or prefetched rows.
    var needsAssembly: Bool { !prefetches.isEmpty || hasIncludes }
}

/// Fetches the rows of requests with included associations: one statement for the base rows
/// and their to-one scopes, then one statement per to-many association and level (more only
/// when its keys exceed SQLite's limit on bound variables), grouped by key.
enum RowAssembler {
    /// The rows of `relation`, with their scopes and prefetched rows, and for each row the
    /// values of `keyColumns` (selected before the relation's own columns, then removed).
    static func fetch(
        _ db: Database, _ relation: SQLRelation, limit: Int? = nil, keyColumns: [String] = []
    ) throws -> (rows: [Row], keys: [[SQLValue]]) {
        var selected = relation
        selected.selection = keyColumns.map { Column($0).sqlSelection } + relation.selection
        var generator = SQLGenerator(db)
        let sql = try generator.select(selected, limit: limit)
        try generator.check()
        let statement = try db.cachedStatement(sql: sql)
        let flat = try statement.fetchAll(arguments: generator.context.arguments)
        let splitter = try RowSplitter(
            columns: Array(statement.columns.names.dropFirst(keyColumns.count)), offset: keyColumns.count,
            layouts: generator.scopes, sql: sql)
        var rows = flat.map(splitter.split)
        let keys = keyColumns.isEmpty ? [] : flat.map { Array($0.values.prefix(keyColumns.count)) }
        for association in relation.prefetches { try prefetch(db, association, into: &rows) }
        return (rows, keys)
    }

    /// Sets `prefetchedRows[association.key]` of each row: the associated rows whose foreign
    /// key matches the row's key (`WHERE "folderId" IN (...)`), in the association's order.
    static func prefetch(_ db: Database, _ association: SQLAssociation, into rows: inout [Row]) throws {
        let destination = association.destination
        if destination.limit != nil || destination.offset != nil {
            throw db.associationError(
                "including(all:) of association \"\(association.key)\" (table \"\(destination.tableName)\") "
                    + "cannot apply a limit or offset: it would apply to the rows of every \"\(association.originTable)\" together"
            )
        }
        let pairs = try association.columnPairs(db)
        let originColumns = pairs.map(\.origin)
        let destinationColumns = pairs.map(\.destination)
        var rowKeys: [[SQLValue]?] = []
        var keys: [[SQLValue]] = []
        var seen: Set<[SQLValue]> = []
        for row in rows {
            var key: [SQLValue] = []
            for column in originColumns {
                guard let value = row.value(named: column) else {
                    throw db.associationError(
                        "including(all:) of association \"\(association.key)\" needs column \"\(column)\" of "
                            + "\"\(association.originTable)\" in the selected columns (available: "
                            + row.columnNames.joined(separator: ", ") + ")")
                }
                key.append(value)
            }
            if key.contains(where: \.isNull) {  // NULL matches no foreign key
                rowKeys.append(nil)
                continue
            }
            rowKeys.append(key)
            if seen.insert(key).inserted { keys.append(key) }
        }
        // Each key takes one variable per column; leave room for the association's own filters.
        let variables = db.limit(.variableNumber)
        let chunkSize = Swift.max(1, (variables > 200 ? variables - 100 : variables / 2) / originColumns.count)
        var groups: [[SQLValue]: [Row]] = [:]
        var start = 0
        while start < keys.count {
            let chunk = keys[start..<Swift.min(start + chunkSize, keys.count)]
            start += chunkSize
            var relation = destination
            let condition: SQLExpression
            if destinationColumns.count == 1 {
                let values = chunk.map { $0[0] }
                condition =
                    values.count == 1
                    ? Column(destinationColumns[0]) == values[0] : Column(destinationColumns[0]).in(values)
            } else {
                let alternatives = chunk.map { key in
                    SQLGenerator.conjunction(zip(destinationColumns, key).map { Column($0) == $1 })
                }.compactMap { $0 }
                var result = alternatives[0]
                for alternative in alternatives.dropFirst() { result = result || alternative }
                condition = result
            }
            relation.filters.append(.expression(condition))
            let (children, childKeys) = try fetch(db, relation, keyColumns: destinationColumns)
            for (key, child) in zip(childKeys, children) { groups[key, default: []].append(child) }
        }
        for index in rows.indices {
            rows[index].prefetchedRows[association.key] = rowKeys[index].flatMap { groups[$0] } ?? []
        }
    }
}

extension QueryInterfaceRequest {
    /// The rows of a request with included associations, each with its scopes and prefetched rows.
    func fetchScopedRows(_ db: Database, limit: Int? = nil) throws -> [Row] {
        try RowAssembler.fetch(db, relation, limit: limit).rows
    }

    /// Includes a to-many association: after the base rows, one more statement fetches the
    /// associated rows of all of them (`WHERE "folderId" IN (...)`), grouped under the
    /// association's key (``Row/prefetchedRows``); a row without associated rows gets an empty
    /// array.
    ///
    /// ```swift
    /// struct FolderInfo: FetchableRecord, Decodable { var folder: Folder; var notes: [Note] }
    /// let infos = try Folder.including(all: Folder.notes).asRequest(of: FolderInfo.self).fetchAll(db)
    /// // SELECT * FROM "folder"
    /// // SELECT "folderId", * FROM "note" WHERE "folderId" IN (?, ?, ?)
    /// ```
    public func including<A: ToManyAssociation>(all association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        var request = self
        request.relation.prefetches.append(association.sqlAssociation)
        return request
    }

    /// Includes a to-one association (JOIN): its columns are selected, under the association's
    /// key; rows without a match are left out.
    ///
    /// ```swift
    /// struct NoteInfo: FetchableRecord, Decodable { var note: Note; var folder: Folder }
    /// let infos = try Note.including(required: Note.folder).asRequest(of: NoteInfo.self).fetchAll(db)
    /// // SELECT "note".*, "folder".* FROM "note" JOIN "folder" ON "folder"."id" = "note"."folderId"
    /// ```
    public func including<A: ToOneAssociation>(required association: A) -> Self
    where A.OriginRowDecoder == RowDecoder {
        var request = self
        request.relation.joins.append(
            SQLJoin(isRequired: true, association: association.sqlAssociation, isIncluded: true))
        return request
    }

    /// Includes a to-one association (LEFT JOIN): its columns are selected, under the
    /// association's key, all NULL (and decoded as nil) for rows without a match.
    public func including<A: ToOneAssociation>(optional association: A) -> Self
    where A.OriginRowDecoder == RowDecoder {
        var request = self
        request.relation.joins.append(
            SQLJoin(isRequired: false, association: association.sqlAssociation, isIncluded: true))
        return request
    }
}

/// An association that leads to at most one record: ``BelongsToAssociation``,
/// ``HasOneAssociation``. Only these can be included in the same row as their origin.
public protocol ToOneAssociation: Association {}
extension BelongsToAssociation: ToOneAssociation {}
extension HasOneAssociation: ToOneAssociation {}

extension Association {
    /// Includes a further to-one association of the destination, required (JOIN).
    ///
    /// ```swift
    /// Note.including(required: Note.folder.including(optional: Folder.owner))
    /// ```
    public func including<A: ToOneAssociation>(required association: A) -> Self
    where A.OriginRowDecoder == RowDecoder {
        var copy = self
        copy.sqlAssociation.destination.joins.append(
            SQLJoin(isRequired: true, association: association.sqlAssociation, isIncluded: true))
        return copy
    }

    /// Includes a further to-one association of the destination, optional (LEFT JOIN).
    public func including<A: ToOneAssociation>(optional association: A) -> Self
    where A.OriginRowDecoder == RowDecoder {
        var copy = self
        copy.sqlAssociation.destination.joins.append(
            SQLJoin(isRequired: false, association: association.sqlAssociation, isIncluded: true))
        return copy
    }
}

/// An association that leads to any number of records: ``HasManyAssociation``. It is
/// included with `including(all:)`, in a statement of its own.
public protocol ToManyAssociation: Association {}
extension HasManyAssociation: ToManyAssociation {}

extension Association {
    /// Includes a to-many association of the destination, fetched in one more statement.
    ///
    /// ```swift
    /// Folder.including(all: Folder.notes.including(all: Note.tags))
    /// ```
    public func including<A: ToManyAssociation>(all association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        var copy = self
        copy.sqlAssociation.destination.prefetches.append(association.sqlAssociation)
        return copy
    }
}

extension TableRecord {
    /// Every row with the records of a to-many association: see
    /// ``QueryInterfaceRequest/including(all:)``.
    public static func including<A: ToManyAssociation>(all association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self {
        all().including(all: association)
    }

    /// Every row with its to-one association (JOIN): see
    /// ``QueryInterfaceRequest/including(required:)``.
    public static func including<A: ToOneAssociation>(required association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self {
        all().including(required: association)
    }

    /// Every row with its to-one association, or nil (LEFT JOIN): see
    /// ``QueryInterfaceRequest/including(optional:)``.
    public static func including<A: ToOneAssociation>(optional association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self {
        all().including(optional: association)
    }
}

/// An array of records decoded from the prefetched rows of a to-many association.
protocol PrefetchedRowsDecodable {
    static func decode(prefetchedRows rows: [Row]) throws -> Self
}

extension Array: PrefetchedRowsDecodable where Element: FetchableRecord {
    static func decode(prefetchedRows rows: [Row]) throws -> [Element] { try rows.map(Element.init(row:)) }
}
