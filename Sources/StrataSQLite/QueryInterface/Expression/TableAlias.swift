/// A name for one table of a request, to refer to its columns from elsewhere in the request:
/// self-joins, and conditions that involve two tables.
///
/// ```swift
/// let manager = TableAlias(name: "manager")
/// let request = Employee
///     .joining(required: Employee.manager.aliased(manager))
///     .filter(Column("salary") > manager[Column("salary")])
/// // SELECT "employee".* FROM "employee"
/// // JOIN "employee" "manager" ON "manager"."id" = "employee"."managerId"
/// // WHERE "employee"."salary" > "manager"."salary"
/// ```
///
/// An alias without a name takes its table's name (with a number when the table appears twice).
/// Like GRDB's `TableAlias`, one alias stands for one table of one request: it is compared by
/// identity. See <https://www.sqlite.org/syntax/table-or-subquery.html>.
public final class TableAlias: Sendable {
    /// The name given, or nil to use the table's name.
    public let name: String?

    /// An alias, named `name` in the SQL, or after its table when nil.
    ///
    /// ```swift
    /// let parent = TableAlias(name: "parent")
    /// ```
    public init(name: String? = nil) {
        self.name = name
    }

    /// The column `column` of this table: `manager[Column("salary")]` is `"manager"."salary"`.
    public subscript(_ column: Column) -> SQLExpression {
        SQLExpression(pieces: [.column(column.name, self)], precedence: .primary)
    }

    /// The column named `name` of this table: `manager["salary"]`.
    public subscript(_ name: String) -> SQLExpression {
        self[Column(name)]
    }

    /// `alias.*`: every column of this table, for `select`.
    public var allColumns: SQLSelection { SQLSelection(kind: .allColumns(self)) }
}
