/// Writes the SQL of a relation for one connection: resolves key filters against the table's
/// primary key, names the table aliases, and collects the arguments.
///
/// The text is stable (same request, same SQL) and plain: `SELECT * FROM "note" WHERE "id" = ?`
/// for one table, columns qualified with their table (`"note"."title"`) only when the request
/// names an alias or joins tables.
package struct SQLGenerator {
    let db: Database
    package var context = SQLRenderContext()

    package init(_ db: Database) {
        self.db = db
        context.db = db
    }

    // MARK: Statements

    /// `SELECT ... FROM ... WHERE ... GROUP BY ... HAVING ... ORDER BY ... LIMIT ...`.
    /// `limit` replaces the relation's limit (fetchOne asks for 1).
    package mutating func select(_ relation: SQLRelation, limit: Int? = nil) throws -> String {
        var sql = SQLTextBuffer(capacity: 256)
        try appendSelect(relation, limit: limit, to: &sql)
        return sql.string
    }

    /// Writes ``select(_:limit:)``'s statement.
    private mutating func appendSelect(_ relation: SQLRelation, limit: Int?, to sql: inout SQLTextBuffer) throws {
        let root = try prepareRoot(relation)
        sql.append(relation.isDistinct ? "SELECT DISTINCT " : "SELECT ")
        try appendSelection(relation, to: &sql)
        var names = joinNames[...]
        scopes = try appendIncludedSelections(relation, names: &names, to: &sql)
        context.defaultQualifier = root.qualifier
        sql.append(" FROM ")
        Self.appendTableAndAlias(relation.tableName, root.name, to: &sql)
        try appendJoins(relation, to: &sql)
        context.defaultQualifier = root.qualifier
        try appendConditions(relation, to: &sql)
        try appendOrdering(relation, to: &sql)
        let limit = limit.map { Swift.min($0, relation.limit ?? $0) } ?? relation.limit
        if let limit {
            sql.append(" LIMIT ")
            sql.appendInteger(limit)
            if let offset = relation.offset {
                sql.append(" OFFSET ")
                sql.appendInteger(offset)
            }
        } else if let offset = relation.offset {
            sql.append(" LIMIT -1 OFFSET ")
            sql.appendInteger(offset)
        }
    }

    /// `SELECT COUNT(*) FROM "note" WHERE ...`, or a count of the rows of the whole SELECT when
    /// it is distinct, grouped or limited.
    package mutating func count(_ relation: SQLRelation) throws -> String {
        if relation.hasAggregateOrWindow {
            var inner = relation
            if inner.limit == nil, inner.offset == nil { inner.orderings = [] }
            return "SELECT COUNT(*) FROM (\(try select(inner)))"
        }
        let root = try prepareRoot(relation)
        var sql = SQLTextBuffer(capacity: 128)
        sql.append("SELECT COUNT(*) FROM ")
        Self.appendTableAndAlias(relation.tableName, root.name, to: &sql)
        try appendJoins(relation, to: &sql)
        context.defaultQualifier = root.qualifier
        try appendConditions(relation, to: &sql)
        return sql.string
    }

    /// `SELECT EXISTS (SELECT ...)`.
    package mutating func exists(_ relation: SQLRelation) throws -> String {
        "SELECT EXISTS (\(try select(relation)))"
    }

    /// `DELETE FROM "note" WHERE ...`; a request with an order, limit, group or DISTINCT deletes
    /// the rows whose primary key its SELECT returns.
    package mutating func delete(_ relation: SQLRelation) throws -> String {
        try "DELETE FROM \(SQLLiteral.quote(identifier: relation.tableName))" + whereOfWrite(relation)
    }

    /// `UPDATE "note" SET ... WHERE ...`, with the same rule as ``delete(_:)`` for complex requests.
    package mutating func update(_ relation: SQLRelation, _ assignments: [ColumnAssignment]) throws -> String {
        var sql = SQLTextBuffer(capacity: 128)
        sql.append("UPDATE ")
        sql.appendQuoted(identifier: relation.tableName)
        sql.append(" SET ")
        for (i, assignment) in assignments.enumerated() {
            if i > 0 { sql += ", " }
            sql.appendQuoted(identifier: assignment.column.name)
            sql.append(" = ")
            context.append(assignment.value?.pieces ?? [.sql("NULL")], to: &sql)
        }
        return try sql.string + whereOfWrite(relation)
    }

    /// Throws when the SQL uses what this SQLite lacks, or an alias the request does not have.
    package func check() throws {
        if let error = context.errors.first { throw error }
        let version = db.capabilities.version
        for (needed, feature) in context.requirements where version < needed {
            throw SQLiteError(
                resultCode: .SQLITE_ERROR,
                message: "\(feature) needs SQLite \(needed) or newer; this connection runs SQLite \(version)")
        }
        if let alias = context.unknownAliases.first {
            throw SQLiteError(
                resultCode: .SQLITE_ERROR,
                message: "the table alias \(alias.name.map { "\"\($0)\"" } ?? "(unnamed)") is used "
                    + "in a request that has no table of that alias")
        }
    }

    // MARK: Clauses

    private mutating func whereOfWrite(_ relation: SQLRelation) throws -> String {
        var direct = relation
        direct.selection = []
        let isDirect =
            !relation.hasAggregateOrWindow && relation.orderings.isEmpty && !relation.isReversed
            && relation.alias == nil && relation.joins.isEmpty
        if isDirect {
            var sql = SQLTextBuffer()
            try appendConditions(direct, to: &sql)
            return sql.string
        }
        let table = try db.recordTable(relation.tableName, validate: true)
        let key = table.primaryKey.columns.map { SQLLiteral.quote(identifier: $0) }.joined(separator: ", ")
        let columns = table.primaryKey.columns.map { Column($0).sqlSelection }
        var inner = relation
        if let alias = relation.alias {
            inner.selection = columns.map { $0.qualified(with: alias) }
        } else if !relation.joins.isEmpty {
            let alias = TableAlias()
            inner.alias = alias
            inner.selection = columns.map { $0.qualified(with: alias) }
        } else {
            inner.selection = columns
        }
        let target = table.primaryKey.columns.count == 1 ? key : "(\(key))"
        return " WHERE \(target) IN (\(try select(inner)))"
    }

    private struct Root {
        /// The name of the root table in the request: its alias's, else the table's.
        var name: String
        /// The qualifier of the root's unqualified columns.
        var qualifier: String?
    }

    /// Names the root table and the joined ones, and sets how columns are qualified: not at
    /// all for one table without a named alias, else with each table's name.
    private mutating func prepareRoot(_ relation: SQLRelation) throws -> Root {
        let name = relation.alias?.name ?? relation.tableName
        // The names taken matter only to name joined tables.
        usedNames = relation.joins.isEmpty ? [] : [name.lowercased()]
        if let alias = relation.alias { context.aliasNames[ObjectIdentifier(alias)] = name }
        let qualified = relation.alias?.name != nil || !relation.joins.isEmpty
        context.defaultQualifier = qualified ? name : nil
        joinNames = []
        try nameJoins(relation)
        return Root(name: name, qualifier: context.defaultQualifier)
    }

    /// `"folder"`, or `"folder" "f"`.
    private static func appendTableAndAlias(_ table: String, _ name: String, to sql: inout SQLTextBuffer) {
        sql.appendQuoted(identifier: table)
        if name != table {
            sql.append(" ")
            sql.appendQuoted(identifier: name)
        }
    }

    /// The names taken by the tables of the request, lowercased.
    private var usedNames: Set<String> = []
    /// The names of the joined tables, depth first, as ``nameJoins(_:)`` gave them.
    private var joinNames: [String] = []

    /// Names the joined tables, depth first: the alias's name, else the table's, numbered from 2
    /// when taken (`employee2` in a self-join).
    private mutating func nameJoins(_ relation: SQLRelation) throws {
        for join in relation.joins {
            let destination = join.association.destination
            var name = destination.alias?.name ?? destination.tableName
            if destination.alias?.name == nil {
                var number = 1
                let base = name
                while usedNames.contains(name.lowercased()) {
                    number += 1
                    name = base + "\(number)"
                }
            } else if usedNames.contains(name.lowercased()) {
                throw db.associationError("the table alias \"\(name)\" is used twice in the request")
            }
            usedNames.insert(name.lowercased())
            if let alias = destination.alias { context.aliasNames[ObjectIdentifier(alias)] = name }
            joinNames.append(name)
            try nameJoins(destination)
        }
    }

    /// ` JOIN "folder" ON "folder"."id" = "note"."folderId" AND ...`, for each join, depth first.
    private mutating func appendJoins(_ relation: SQLRelation, to sql: inout SQLTextBuffer) throws {
        let originName = context.defaultQualifier ?? relation.tableName
        for join in relation.joins {
            let association = join.association
            let destination = association.destination
            let name = joinNames.removeFirst()
            sql += join.isRequired ? " JOIN " : " LEFT JOIN "
            Self.appendTableAndAlias(destination.tableName, name, to: &sql)
            sql += " ON "
            let pairs = try association.columnPairs(db)
            var conditions = pairs.map { pair in
                SQLExpression(
                    pieces: [
                        .sql(Self.qualified(name, pair.destination) + " = " + Self.qualified(originName, pair.origin))
                    ], precedence: .equality)
            }
            conditions += try destination.filters.map { try resolve($0, destination) }
            context.defaultQualifier = name
            context.appendConjunction(conditions, to: &sql)
            joinedOrderings += destination.orderings.map { (name, $0) }
            try appendJoins(destination, to: &sql)
        }
    }

    /// The scopes of the included associations of the last ``select(_:limit:)``, in the order
    /// of their columns (after the base selection).
    package var scopes: [ScopeLayout] = []

    /// `, "folder".*` for each included association, depth first, and the layout of their
    /// columns. Joins only for filtering take a name but select nothing; an association
    /// included under one of them has no record to nest in, and throws.
    private mutating func appendIncludedSelections(
        _ relation: SQLRelation, names: inout ArraySlice<String>, under plainJoin: SQLJoin? = nil,
        to sql: inout SQLTextBuffer
    ) throws -> [ScopeLayout] {
        var layouts: [ScopeLayout] = []
        for join in relation.joins {
            let destination = join.association.destination
            guard let name = names.popFirst() else { break }
            if !destination.prefetches.isEmpty {
                throw db.associationError(
                    "including(all:) under association \"\(join.association.key)\" (a join) is not supported: "
                        + "include to-many associations from the request or from another including(all:)")
            }
            guard join.isIncluded else {
                // A pivot's included destination belongs to the row the pivot is joined to.
                let nested = try appendIncludedSelections(
                    destination, names: &names, under: join.isPivot ? plainJoin : join, to: &sql)
                if join.isPivot { layouts += nested }
                continue
            }
            if let plainJoin {
                throw db.associationError(
                    "association \"\(join.association.key)\" is included under association "
                        + "\"\(plainJoin.association.key)\", which is only joined: include \"\(plainJoin.association.key)\" "
                        + "too, or join both")
            }
            context.defaultQualifier = name
            var width = 0
            for selection in destination.selection {
                sql += ", "
                switch selection.kind {
                case .allColumns(let alias):
                    if let qualifier = context.qualifier(alias) {
                        sql.appendQuoted(identifier: qualifier)
                        sql.append(".")
                    }
                    sql.append("*")
                    width += try db.cachedStatement(
                        sql: "SELECT * FROM \(SQLLiteral.quote(identifier: destination.tableName))"
                    ).columnCount
                case .expression(let expression, let name):
                    context.append(expression.pieces, to: &sql)
                    if let name {
                        sql.append(" AS ")
                        sql.appendQuoted(identifier: name)
                    }
                    width += 1
                }
            }
            let children = try appendIncludedSelections(destination, names: &names, to: &sql)
            layouts.append(ScopeLayout(key: join.association.key, width: width, children: children))
        }
        return layouts
    }

    /// The orderings of the joined tables, with their qualifiers, in join order.
    private var joinedOrderings: [(qualifier: String, ordering: SQLOrdering)] = []

    private static func qualified(_ table: String, _ column: String) -> String {
        var sql = SQLTextBuffer()
        sql.appendQuoted(identifier: table)
        sql.append(".")
        sql.appendQuoted(identifier: column)
        return sql.string
    }

    private mutating func appendSelection(_ relation: SQLRelation, to sql: inout SQLTextBuffer) throws {
        for (i, selection) in relation.selection.enumerated() {
            if i > 0 { sql += ", " }
            switch selection.kind {
            case .allColumns(let alias):
                if let qualifier = context.qualifier(alias) {
                    sql.appendQuoted(identifier: qualifier)
                    sql.append(".")
                }
                sql.append("*")
            case .expression(let expression, let name):
                context.append(expression.pieces, to: &sql)
                if let name {
                    sql.append(" AS ")
                    sql.appendQuoted(identifier: name)
                }
            }
        }
    }

    private mutating func appendConditions(_ relation: SQLRelation, to sql: inout SQLTextBuffer) throws {
        // A condition on an association aggregate is a per-row subquery: it goes in WHERE.
        let (perRow, having) =
            relation.having.isEmpty
            ? ([], [])
            : (
                relation.having.filter(\.hasAssociationAggregate),
                relation.having.filter { !$0.hasAssociationAggregate }
            )
        // Each condition is written as it is resolved, without collecting them in an array.
        let count = relation.filters.count + perRow.count
        if count > 0 {
            sql.append(" WHERE ")
            var index = 0
            for filter in relation.filters {
                context.appendConjunct(try resolve(filter, relation), index: index, of: count, to: &sql)
                index += 1
            }
            for condition in perRow {
                context.appendConjunct(condition, index: index, of: count, to: &sql)
                index += 1
            }
        }
        if !relation.groupBy.isEmpty {
            sql += " GROUP BY "
            for (i, expression) in relation.groupBy.enumerated() {
                if i > 0 { sql += ", " }
                context.append(expression.pieces, to: &sql)
            }
        }
        if !having.isEmpty {
            sql.append(" HAVING ")
            context.appendConjunction(having, to: &sql)
        }
    }

    private mutating func appendOrdering(_ relation: SQLRelation, to sql: inout SQLTextBuffer) throws {
        var orderings = relation.orderings
        if relation.isReversed {
            if orderings.isEmpty {
                let table = try db.recordTable(relation.tableName, validate: true)
                orderings = table.primaryKey.columns.map { Column($0).asc }
            }
            orderings = orderings.map(\.reversed)
        }
        guard !orderings.isEmpty || !joinedOrderings.isEmpty else { return }
        sql += " ORDER BY "
        for (i, ordering) in orderings.enumerated() {
            if i > 0 { sql.append(", ") }
            context.append(ordering, to: &sql)
        }
        let own = context.defaultQualifier
        for (i, joined) in joinedOrderings.enumerated() {
            if i > 0 || !orderings.isEmpty { sql += ", " }
            context.defaultQualifier = joined.qualifier
            context.append(joined.ordering, to: &sql)
        }
        context.defaultQualifier = own
        joinedOrderings = []
    }

    /// `a AND b AND c`, or nil for no condition.
    package static func conjunction(_ conditions: [SQLExpression]) -> SQLExpression? {
        guard var result = conditions.first else { return nil }
        for condition in conditions.dropFirst() { result = result && condition }
        return result
    }

    // MARK: Keys

    /// The condition of a filter, keys turned into `"id" IN (?, ?)` with the table's primary key.
    package func resolve(_ filter: SQLFilter, _ relation: SQLRelation) throws -> SQLExpression {
        switch filter {
        case .expression(let expression):
            return expression
        case .deferred(let condition):
            return try condition(db)
        case .keys(let values):
            let column = try singleKeyColumn(relation)
            let values = values.filter { !$0.isNull }  // NULL never equals a key
            let expression: SQLExpression =
                values.count == 1 ? Column(column) == values[0] : Column(column).in(values)
            return relation.alias.map { expression.qualified(with: $0) } ?? expression
        case .keyDictionaries(let dictionaries):
            let table = try db.recordTable(relation.tableName, validate: true)
            var conditions: [SQLExpression] = []
            for key in dictionaries {
                let columns = key.keys.sorted()
                guard try db.uniqueKeys(of: table).contains(columns.map { $0.lowercased() }.sorted()) else {
                    throw RecordError(
                        code: .invalidKey, recordType: relation.recordTypeName, tableName: relation.tableName,
                        key: key,
                        message: "columns (\(columns.joined(separator: ", "))) are neither the primary key nor a "
                            + "unique index of table \"\(relation.tableName)\" "
                            + "(primary key: \(table.primaryKey.columns.joined(separator: ", ")))")
                }
                if key.values.contains(.null) { continue }  // never matches
                let parts = columns.map { Column($0) == key[$0] ?? .null }
                guard let condition = Self.conjunction(parts) else { continue }
                conditions.append(condition)
            }
            guard var result = conditions.first else { return SQLExpression("0", precedence: .primary) }
            for condition in conditions.dropFirst() { result = result || condition }
            return relation.alias.map { result.qualified(with: $0) } ?? result
        }
    }

    /// The one column of the primary key; a composite key throws `invalidKey`.
    package func singleKeyColumn(_ relation: SQLRelation) throws -> String {
        let table = try db.recordTable(relation.tableName, validate: true)
        let columns = table.primaryKey.columns
        guard columns.count == 1 else {
            throw RecordError(
                code: .invalidKey, recordType: relation.recordTypeName, tableName: relation.tableName,
                message: "table \"\(relation.tableName)\" has a primary key of \(columns.count) columns "
                    + "(\(columns.joined(separator: ", "))): give a key such as "
                    + "[\(columns.map { "\"\($0)\": ..." }.joined(separator: ", "))]")
        }
        return columns[0]
    }
}
