extension QueryInterfaceRequest {
    /// The tables, columns and rowids the request reads, as the ``DatabaseRegion`` that
    /// observation tracks; the primary key is read from the database when the request filters
    /// by key.
    ///
    /// ```swift
    /// try Note.filter(Column("pinned")).select(Column("title")).databaseRegion(db).description
    /// // note(pinned, title)
    /// let region = try Note.filter(key: 42).select(Column("title")).databaseRegion(db)
    /// region.columns(of: "note")   // ["id", "title"]
    /// region.rowIDs(of: "note")    // [42]
    /// ```
    ///
    /// Columns are all of them when the request selects `*` or embeds SQL written by hand; rowids
    /// are known only for `filter(key:)`, `filter(keys:)` and `filter(id:)` on a table whose
    /// primary key is the rowid. Joined and aggregated tables count whole.
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion {
        var table: (columns: Set<String>?, rowIDs: Set<Int64>?) = (columns: [], rowIDs: nil)
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
            for pair in try association.steps[0].columnPairs(db) { table.columns?.insert(pair.origin.lowercased()) }
        }
        // The request's own columns in the ON clauses of its joins.
        for join in relation.joins {
            for pair in try join.association.columnPairs(db) { table.columns?.insert(pair.origin.lowercased()) }
        }
        var region = DatabaseRegion(table: relation.tableName, columns: table.columns, rowIDs: table.rowIDs)
        for association in aggregated {
            // Every table of the subquery (the origin's own table too when self-referencing).
            for step in association.steps { region.formUnion(DatabaseRegion(table: step.destination.tableName)) }
        }
        // Joined tables: every column (their ON clauses need the foreign key), any row.
        var joins = relation.joins
        while let join = joins.popLast() {
            region.formUnion(DatabaseRegion(table: join.association.destination.tableName))
            joins += join.association.destination.joins
        }
        return region
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
        guard relation.observesKeyRows(db), let tracked = state.readRegion else { return try body() }
        // Finding the key reads the schema (and may compile statements over the table): that is
        // not what the fetch reads, so it is left out of the observed region.
        state.readRegion = nil
        let rowIDs: Set<Int64>?
        do {
            rowIDs = try databaseRegion(db).rowIDs(of: relation.tableName)
            state.readRegion = tracked
        } catch {
            state.readRegion = tracked
            throw error
        }
        guard let rowIDs else { return try body() }
        return try db.observingRows(rowIDs, of: relation.tableName, body)
    }
}
