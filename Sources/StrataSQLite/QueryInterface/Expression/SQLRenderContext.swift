/// Writes expressions as SQL text: values become `?` placeholders collected in ``arguments``
/// (requests), or escaped literals when ``inlineValues`` is set (the schema DSL, whose statements
/// cannot have parameters).
package struct SQLRenderContext {
    /// Values as literals instead of placeholders.
    let inlineValues: Bool
    /// The values of the placeholders written so far, in order.
    package var arguments = StatementArguments()
    /// The SQLite versions the written SQL needs, with the feature that needs them.
    package var requirements: [(version: SQLiteVersion, feature: String)] = []
    /// The qualifier written before unqualified columns: nil in a request on one table.
    package var defaultQualifier: String?
    /// The name of each table alias of the request.
    package var aliasNames: [ObjectIdentifier: String] = [:]
    /// Aliases met that are not part of the request (an error when the request is prepared).
    package var unknownAliases: [TableAlias] = []
    /// The connection, for the foreign keys of association aggregates (nil in the schema DSL).
    package var db: Database?
    /// Errors met while writing (a foreign key not found), thrown when the request is prepared.
    package var errors: [any Error] = []

    package init(inlineValues: Bool = false) {
        self.inlineValues = inlineValues
    }

    /// The SQL of `expression`.
    package mutating func render(_ expression: SQLExpression) -> String {
        var sql = ""
        append(expression.pieces, to: &sql)
        return sql
    }

    /// Appends the SQL of `pieces`.
    package mutating func append(_ pieces: [SQLExpression.Piece], to sql: inout String) {
        for piece in pieces {
            switch piece {
            case .sql(let text):
                sql += text
            case .value(let value):
                if inlineValues {
                    sql += value.sqlLiteral
                } else {
                    sql += "?"
                    arguments.positional.append(value)
                }
            case .column(let name, let alias):
                if let qualifier = qualifier(alias) {
                    sql += SQLLiteral.quote(identifier: qualifier) + "."
                }
                sql += SQLLiteral.quote(identifier: name)
            case .literal(let literal):
                sql += literal.sql
                arguments = arguments + literal.arguments
            case .requires(let version, let feature):
                requirements.append((version, feature))
            case .associationAggregate(let association, let kind):
                appendAggregate(association, kind, to: &sql)
            }
        }
    }

    /// The qualifier of a column of `alias` (nil: the request's own table).
    package mutating func qualifier(_ alias: TableAlias?) -> String? {
        guard let alias else { return defaultQualifier }
        if let name = aliasNames[ObjectIdentifier(alias)] { return name }
        if !unknownAliases.contains(where: { $0 === alias }) { unknownAliases.append(alias) }
        return alias.name ?? "?"
    }

    /// `(SELECT COUNT(*) FROM "note" WHERE "note"."folderId" = "folder"."id" AND ...)`, or
    /// `NOT EXISTS (SELECT * FROM ...)`: the destination rows of the outer row.
    mutating func appendAggregate(_ association: SQLAssociation, _ kind: AssociationAggregateKind, to sql: inout String)
    {
        guard let db else {
            errors.append(SQLiteError(resultCode: .SQLITE_ERROR, message: "an association aggregate needs a request"))
            return
        }
        do {
            let outer = defaultQualifier ?? association.originTable
            let destination = association.destination
            var inner = destination.tableName
            if inner.lowercased() == outer.lowercased() { inner += "2" }
            let table = SQLLiteral.quote(identifier: destination.tableName)
            let from = inner == destination.tableName ? table : table + " " + SQLLiteral.quote(identifier: inner)
            switch kind {
            case .count: sql += "(SELECT COUNT(*) FROM \(from) WHERE "
            case .isEmpty: sql += "NOT EXISTS (SELECT * FROM \(from) WHERE "
            }
            for (i, pair) in try association.columnPairs(db).enumerated() {
                if i > 0 { sql += " AND " }
                sql +=
                    SQLLiteral.quote(identifier: inner) + "." + SQLLiteral.quote(identifier: pair.destination) + " = "
                    + SQLLiteral.quote(identifier: outer) + "." + SQLLiteral.quote(identifier: pair.origin)
            }
            let saved = defaultQualifier
            defaultQualifier = inner
            for filter in destination.filters {
                guard case .expression(let expression) = filter else {
                    throw SQLiteError(
                        resultCode: .SQLITE_ERROR,
                        message: "an aggregate of association \"\(association.key)\" takes expression filters only")
                }
                sql += " AND "
                append(expression.operand(atLeast: .and), to: &sql)
            }
            defaultQualifier = saved
            sql += ")"
        } catch {
            errors.append(error)
        }
    }
}
