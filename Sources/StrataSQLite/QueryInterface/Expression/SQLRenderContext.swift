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
        var sql = SQLTextBuffer()
        append(expression.pieces, to: &sql)
        return sql.string
    }

    /// Appends the SQL of `pieces`.
    package mutating func append(_ pieces: [SQLExpression.Piece], to sql: inout SQLTextBuffer) {
        for piece in pieces {
            switch piece {
            case .sql(let text):
                sql.append(text)
            case .value(let value):
                if inlineValues {
                    sql.append(value.sqlLiteral)
                } else {
                    sql.append("?")
                    arguments.positional.append(value)
                }
            case .column(let name, let alias):
                if let qualifier = qualifier(alias) {
                    sql.appendQuoted(identifier: qualifier)
                    sql.append(".")
                }
                sql.appendQuoted(identifier: name)
            case .literal(let literal):
                sql.append(literal.sql)
                arguments.positional.append(contentsOf: literal.arguments.positional)
                if !literal.arguments.named.isEmpty {
                    arguments.named.merge(literal.arguments.named) { _, new in new }
                }
            case .requires(let version, let feature):
                requirements.append((version, feature))
            case .associationAggregate(let association, let kind):
                appendAggregate(association, kind, to: &sql)
            }
        }
    }

    /// Appends the SQL of `ordering`: its expression and direction (what
    /// ``SQLOrdering/pieces`` holds, without building that array).
    package mutating func append(_ ordering: SQLOrdering, to sql: inout SQLTextBuffer) {
        append(ordering.expression.pieces, to: &sql)
        guard let direction = ordering.direction else { return }
        sql.append(direction.sql)
        if direction == .ascNullsLast || direction == .descNullsFirst {
            requirements.append((SQLiteVersion(3, 30), "NULLS FIRST/LAST in ORDER BY"))
        }
    }

    /// Appends `a AND b AND c`: the text of ``SQLGenerator/conjunction(_:)`` (operands
    /// parenthesized as `&&` does), without building the combined expression.
    package mutating func appendConjunction(_ conditions: [SQLExpression], to sql: inout SQLTextBuffer) {
        for (index, condition) in conditions.enumerated() {
            appendConjunct(condition, index: index, of: conditions.count, to: &sql)
        }
    }

    /// Appends the condition at `index` of a conjunction of `count` conditions, as
    /// ``appendConjunction(_:to:)`` writes it: one condition alone as is; the first operand
    /// parenthesized when it binds looser than AND, the others (after ` AND `) unless they bind
    /// tighter (the right operand of `&&` is parenthesized even at equal precedence).
    package mutating func appendConjunct(
        _ condition: SQLExpression, index: Int, of count: Int, to sql: inout SQLTextBuffer
    ) {
        if count == 1 {
            append(condition.pieces, to: &sql)
        } else if index == 0 {
            appendOperand(condition, parenthesizedBelow: .and, to: &sql)
        } else {
            sql.append(" AND ")
            if condition.precedence > .and {
                append(condition.pieces, to: &sql)
            } else {
                sql.append("(")
                append(condition.pieces, to: &sql)
                sql.append(")")
            }
        }
    }

    /// Appends ``SQLExpression/operand(atLeast:)``: parenthesized when it binds looser than `level`.
    private mutating func appendOperand(
        _ expression: SQLExpression, parenthesizedBelow level: SQLExpression.Precedence, to sql: inout SQLTextBuffer
    ) {
        if expression.precedence >= level {
            append(expression.pieces, to: &sql)
        } else {
            sql.append("(")
            append(expression.pieces, to: &sql)
            sql.append(")")
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
    /// `NOT EXISTS (SELECT * FROM ...)`: the destination rows of the outer row. A through
    /// association nests one `IN (SELECT ...)` per pivot, so that a destination row reached by
    /// several pivot rows counts once:
    ///
    /// ```sql
    /// (SELECT COUNT(*) FROM "tag" WHERE "tag"."id" IN
    ///   (SELECT "noteTag"."tagId" FROM "noteTag" WHERE "noteTag"."noteId" = "note"."id"))
    /// ```
    mutating func appendAggregate(
        _ association: SQLAssociation, _ kind: AssociationAggregateKind, to sql: inout SQLTextBuffer
    ) {
        guard let db else {
            errors.append(SQLiteError(resultCode: .SQLITE_ERROR, message: "an association aggregate needs a request"))
            return
        }
        do {
            let outer = defaultQualifier ?? association.rootTable
            let steps = association.steps
            // Each table of the subqueries takes its name, numbered when an enclosing one has it.
            var used: Set<String> = [outer.lowercased()]
            let names = steps.map { step -> String in
                let base = step.destination.tableName
                var name = base
                var number = 1
                while used.contains(name.lowercased()) {
                    number += 1
                    name = base + "\(number)"
                }
                used.insert(name.lowercased())
                return name
            }
            let pairs = try steps.map { try $0.columnPairs(db) }
            let saved = defaultQualifier
            defer { defaultQualifier = saved }
            switch kind {
            case .count: sql += "(SELECT COUNT(*) FROM "
            case .isEmpty: sql += "NOT EXISTS (SELECT * FROM "
            }
            try appendAggregateLevel(steps.count - 1, steps, names, pairs, outer: outer, to: &sql)
            sql += ")"
        } catch {
            errors.append(error)
        }
    }

    /// `"tag" WHERE <link> AND <filters>` for the table of `steps[level]`: linked to the outer row
    /// at level 0, else to the level below through `IN (SELECT ...)`.
    private mutating func appendAggregateLevel(
        _ level: Int, _ steps: [SQLAssociation], _ names: [String], _ pairs: [[(origin: String, destination: String)]],
        outer: String, to sql: inout SQLTextBuffer
    ) throws {
        let step = steps[level]
        let name = names[level]
        let table = SQLLiteral.quote(identifier: step.destination.tableName)
        sql +=
            (name == step.destination.tableName ? table : table + " " + SQLLiteral.quote(identifier: name)) + " WHERE "
        func column(_ table: String, _ column: String) -> String {
            SQLLiteral.quote(identifier: table) + "." + SQLLiteral.quote(identifier: column)
        }
        let links = pairs[level]
        if level == 0 {
            sql += links.map { column(name, $0.destination) + " = " + column(outer, $0.origin) }
                .joined(separator: " AND ")
        } else {
            let below = names[level - 1]
            let targets = links.map { column(name, $0.destination) }
            let sources = links.map { column(below, $0.origin) }
            sql += (targets.count == 1 ? targets[0] : "(" + targets.joined(separator: ", ") + ")") + " IN (SELECT "
            sql += sources.joined(separator: ", ") + " FROM "
            try appendAggregateLevel(level - 1, steps, names, pairs, outer: outer, to: &sql)
            sql += ")"
        }
        defaultQualifier = name
        for filter in step.destination.filters {
            guard case .expression(let expression) = filter else {
                throw SQLiteError(
                    resultCode: .SQLITE_ERROR,
                    message: "an aggregate of association \"\(step.key)\" takes expression filters only")
            }
            sql += " AND "
            append(expression.operand(atLeast: .and), to: &sql)
        }
    }
}
