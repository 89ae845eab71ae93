import StrataSQLite

/// `ALTER TABLE` changes to one table: add, rename and drop columns, in order.
///
/// ```swift
/// let alteration = TableAlteration("player") { t in
///     t.add(column: "email", .text).defaults(to: "")
///     t.rename(column: "name", to: "fullName")
///     t.drop(column: "legacy")
/// }
/// alteration.statements
/// // ALTER TABLE "player" ADD COLUMN "email" TEXT DEFAULT ''
/// // ALTER TABLE "player" RENAME COLUMN "name" TO "fullName"
/// // ALTER TABLE "player" DROP COLUMN "legacy"
/// ```
///
/// ``statements`` are SQLite's native forms; `db.alter(table:body:)` decides how to apply each
/// step. See <https://www.sqlite.org/lang_altertable.html>.
public struct TableAlteration: Sendable, Hashable {
    /// The altered table.
    public var table: String
    /// The changes, in order.
    public var steps: [Step]

    /// One change of an alteration.
    public enum Step: Sendable, Hashable {
        /// `ADD COLUMN definition` (and its index when the column is `indexed()`).
        case addColumn(ColumnDefinition)
        /// `RENAME COLUMN old TO new`.
        case renameColumn(from: String, to: String)
        /// `DROP COLUMN name`.
        case dropColumn(String)
    }

    /// An alteration from its steps.
    public init(_ table: String, steps: [Step]) {
        self.table = table
        self.steps = steps
    }

    /// An alteration declared with the same builder as `db.alter(table:body:)`.
    public init(_ table: String, body: (TableAlterationBuilder) throws -> Void) rethrows {
        let builder = TableAlterationBuilder(table: table)
        try body(builder)
        self.init(table, steps: builder.steps.map(\.step))
    }

    /// The native SQL statements of `step`: `ALTER TABLE ...`, plus `CREATE INDEX` for an added
    /// `indexed()` column.
    public func statements(for step: Step) -> [String] {
        switch step {
        case .addColumn(let column):
            var statements = [AddColumnDDL(table: table, definition: column.sql).sql]
            if column.isIndexed {
                statements.append(TableDefinition.columnIndex(table: table, column: column.name).sql)
            }
            return statements
        case .renameColumn(let old, let new):
            return [RenameColumnDDL(table: table, from: old, to: new).sql]
        case .dropColumn(let name):
            return [DropColumnDDL(table: table, column: name).sql]
        }
    }

    /// The native SQL statements of all steps, in order.
    public var statements: [String] { steps.flatMap(statements(for:)) }
}

/// Declares the changes of `db.alter(table:body:)`.
///
/// ```swift
/// try db.alter(table: "player") { t in
///     t.add(column: "email", .text).notNull().defaults(to: "")
///     t.rename(column: "name", to: "fullName")
///     t.drop(column: "legacy")
/// }
/// ```
///
/// See <https://www.sqlite.org/lang_altertable.html>.
public final class TableAlterationBuilder {
    /// The name of the altered table.
    public let table: String

    enum PendingStep {
        case add(ColumnBuilder)
        case other(TableAlteration.Step)

        var step: TableAlteration.Step {
            switch self {
            case .add(let column): .addColumn(column.definition)
            case .other(let step): step
            }
        }
    }

    var steps: [PendingStep] = []

    init(table: String) {
        self.table = table
    }

    /// `ALTER TABLE table ADD COLUMN "name" [TYPE]`: adds a column; the returned builder adds its
    /// constraints.
    ///
    /// ```swift
    /// t.add(column: "email", .text).defaults(to: "") // ALTER TABLE "player" ADD COLUMN "email" TEXT DEFAULT ''
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_altertable.html#alter_table_add_column>.
    @discardableResult
    public func add(column name: String, _ type: Database.ColumnType? = nil) -> ColumnBuilder {
        let column = ColumnBuilder(ColumnDefinition(name, type))
        steps.append(.add(column))
        return column
    }

    /// `ALTER TABLE table RENAME COLUMN "old" TO "new"` (SQLite 3.25+); indexes, triggers, views
    /// and foreign keys that use the column follow the new name.
    ///
    /// ```swift
    /// t.rename(column: "name", to: "fullName")
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_altertable.html#alter_table_rename_column>.
    public func rename(column name: String, to newName: String) {
        steps.append(.other(.renameColumn(from: name, to: newName)))
    }

    /// `ALTER TABLE table DROP COLUMN "name"`: removes the column and its data.
    ///
    /// ```swift
    /// t.drop(column: "legacy")
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_altertable.html#alter_table_drop_column>.
    public func drop(column name: String) {
        steps.append(.other(.dropColumn(name)))
    }
}
