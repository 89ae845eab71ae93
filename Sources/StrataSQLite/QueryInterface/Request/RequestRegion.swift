/// What a request reads: its tables, for each the columns (nil: all of them) and the rowids
/// (nil: any row). Observation can skip a commit that touched none of it.
///
/// ```swift
/// let region = try Note.filter(key: 42).select(Column("title")).databaseRegion(db)
/// region.tables["note"]   // columns ["id", "title"], rowIDs [42]
/// ```
///
/// Table and column names are lowercased (SQLite compares them case-insensitively). Columns are
/// nil when the request selects `*` or embeds SQL written by hand; rowids are known only for
/// `filter(key:)`, `filter(keys:)` and `filter(id:)` on a table whose primary key is the rowid.
public struct RequestRegion: Sendable, Hashable, CustomStringConvertible {
    /// What is read from one table.
    public struct TableRegion: Sendable, Hashable {
        /// The columns read, lowercased; nil for every column.
        public var columns: Set<String>?
        /// The rows read, by rowid; nil for any row.
        public var rowIDs: Set<Int64>?
    }

    /// The tables read, by lowercased name.
    public var tables: [String: TableRegion]

    /// `note(id, title)[42]`, tables sorted; `*` for every column, no brackets for every row.
    public var description: String {
        tables.keys.sorted().map { name in
            let table = tables[name]!
            let columns = table.columns.map { "(" + $0.sorted().joined(separator: ", ") + ")" } ?? "(*)"
            let rows = table.rowIDs.map { "[" + $0.sorted().map(String.init).joined(separator: ", ") + "]" } ?? ""
            return name + columns + rows
        }.joined(separator: ", ")
    }
}

private let TableRegionAll = RequestRegion.TableRegion(columns: nil, rowIDs: nil)

extension QueryInterfaceRequest {
    /// The tables, columns and rowids the request reads (see ``RequestRegion``); the primary key
    /// is read from the database when the request filters by key.
    ///
    /// ```swift
    /// try Note.filter(Column("pinned")).select(Column("title")).databaseRegion(db).description
    /// // note(pinned, title)
    /// ```
    public func databaseRegion(_ db: Database) throws -> RequestRegion {
        var table = RequestRegion.TableRegion(columns: [], rowIDs: nil)
        var expressions: [SQLExpression] = relation.orderings.map(\.expression) + relation.groupBy + relation.having
        var keyColumn: String?
        for filter in relation.filters {
            switch filter {
            case .expression(let expression):
                expressions.append(expression)
            case .keys(let values):
                let generator = SQLGenerator(db)
                let column = try generator.singleKeyColumn(relation)
                keyColumn = column
                let record = try db.recordTable(relation.tableName, validate: true)
                if record.primaryKey.isRowID {
                    let ids = Set(
                        values.compactMap { value -> Int64? in
                            if case .integer(let i) = value { return i }
                            return nil
                        })
                    table.rowIDs = table.rowIDs.map { $0.intersection(ids) } ?? ids
                }
            case .keyDictionaries, .deferred:
                expressions.append(try SQLGenerator(db).resolve(filter, relation))
            }
        }
        if let keyColumn { table.columns?.insert(keyColumn.lowercased()) }
        for selection in relation.selection {
            switch selection.kind {
            case .allColumns: table.columns = nil
            case .expression(let expression, _): expressions.append(expression)
            }
        }
        var aggregated: [SQLAssociation] = []
        for expression in expressions {
            if expression.hasRawSQL { table.columns = nil }
            for (name, _) in expression.columns { table.columns?.insert(name.lowercased()) }
            for piece in expression.pieces {
                if case .associationAggregate(let association, _) = piece { aggregated.append(association) }
            }
        }
        // Association aggregates read the associated table, through the request's key columns.
        for association in aggregated {
            for pair in try association.columnPairs(db) { table.columns?.insert(pair.origin.lowercased()) }
        }
        // The request's own columns in the ON clauses of its joins.
        for join in relation.joins {
            for pair in try join.association.columnPairs(db) { table.columns?.insert(pair.origin.lowercased()) }
        }
        var tables = [relation.tableName.lowercased(): table]
        for association in aggregated {
            let name = association.destination.tableName.lowercased()
            // The origin's own table when self-referencing: every column then.
            tables[name] = TableRegionAll
        }
        // Joined tables: every column (their ON clauses need the foreign key), any row.
        var joins = relation.joins
        while let join = joins.popLast() {
            tables[join.association.destination.tableName.lowercased()] = TableRegionAll
            joins += join.association.destination.joins
        }
        return RequestRegion(tables: tables)
    }
}

extension QueryInterfaceRequest {
    /// Runs `body`, a fetch of this request. Inside the fetch of a ``ValueObservation``, a request
    /// by key (`filter(key:)`, `filter(keys:)`, `filter(id:)`, `filter(ids:)`) on a table whose
    /// primary key is the rowid declares the rows it reads (``Database/observingRows(_:of:_:)``),
    /// so that a commit that changed only other rows of the table does not refresh the
    /// observation. The whole fetch runs inside: SQLite reports a statement's reads when it
    /// compiles it, and a cached statement is compiled again at its first step. A cursor's rows
    /// are read after it returns, so cursors stay observed table by table.
    func observingKeyRows<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        let state = db.connection.authorizer
        guard let tracked = state.readRegion,
            relation.filters.contains(where: { if case .keys = $0 { return true } else { return false } })
        else { return try body() }
        // Finding the key reads the schema (and may compile statements over the table): that is
        // not what the fetch reads, so it is left out of the observed region.
        state.readRegion = nil
        let rowIDs: Set<Int64>?
        do {
            rowIDs = try databaseRegion(db).tables[relation.tableName.lowercased()]?.rowIDs
            state.readRegion = tracked
        } catch {
            state.readRegion = tracked
            throw error
        }
        guard let rowIDs else { return try body() }
        return try db.observingRows(rowIDs, of: relation.tableName, body)
    }
}
