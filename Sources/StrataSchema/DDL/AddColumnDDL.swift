import StrataSQLite

/// `ALTER TABLE table ADD COLUMN definition`, and the one rule for which columns SQLite's
/// `ADD COLUMN` refuses (``refusal(for:)``).
///
/// ```sql
/// ALTER TABLE "player" ADD COLUMN "email" TEXT NOT NULL DEFAULT ''
/// ```
///
/// The definition is SQL (name, type, constraints), written without its `--` comments.
/// See <https://www.sqlite.org/lang_altertable.html#alter_table_add_column>.
package struct AddColumnDDL: DDLStatement {
    package var table: String
    /// The column definition: quoted name, type and constraints.
    package var definition: String

    /// A column definition as written in a CREATE TABLE (its `--` comments are dropped, since
    /// SQLite copies the text into the stored CREATE TABLE).
    package init(table: String, definition: String) {
        self.table = table
        self.definition = SQLComments.removingLineComments(definition)
    }

    package var sql: String {
        "ALTER TABLE " + SQL.quoteIdentifier(table) + " ADD COLUMN " + definition
    }

    /// Why SQLite's `ADD COLUMN` refuses a column.
    package enum Refusal: Sendable, Hashable, CustomStringConvertible {
        /// `PRIMARY KEY`: refused on every table.
        case primaryKey
        /// `UNIQUE`: refused on every table.
        case unique
        /// `REFERENCES` with a non-NULL default while foreign keys are enforced.
        case referencesWithDefault
        /// `GENERATED ALWAYS AS (...) STORED`: refused on a table with rows.
        case storedGenerated
        /// `DEFAULT (expression)` or `DEFAULT CURRENT_TIME/DATE/TIMESTAMP`: refused on a table with
        /// rows (a parenthesized default counts even when it is constant: the rule stays on the safe side).
        case nonConstantDefault
        /// `NOT NULL` without a non-NULL default: refused on a table with rows.
        case notNullWithoutDefault

        package var description: String {
            switch self {
            case .primaryKey: "a PRIMARY KEY column"
            case .unique: "a UNIQUE column"
            case .referencesWithDefault: "a REFERENCES column with a non-NULL default while foreign keys are on"
            case .storedGenerated: "a STORED generated column"
            case .nonConstantDefault: "a column with a non-constant default"
            case .notNullWithoutDefault: "a NOT NULL column without a non-NULL default"
            }
        }
    }

    /// What `ADD COLUMN` refusals depend on besides the column.
    package struct TableState: Sendable, Hashable {
        /// False only for a table known to be empty (and to stay so until the statement runs) on
        /// an SQLite that looks at the rows (see ``init(isEmpty:foreignKeysEnforced:version:)``).
        /// Planners pass true: rows may arrive between planning and applying, and a migration
        /// file runs on databases its author never saw.
        package var mayHaveRows: Bool
        /// True when `PRAGMA foreign_keys` is on where the statement runs.
        package var foreignKeysEnforced: Bool

        package init(mayHaveRows: Bool = true, foreignKeysEnforced: Bool) {
            self.mayHaveRows = mayHaveRows
            self.foreignKeysEnforced = foreignKeysEnforced
        }

        /// The state of a table that is empty or not, on SQLite `version`. Before 3.37, SQLite
        /// refuses the row-dependent columns (NOT NULL without a default, a non-constant default,
        /// a STORED column) on an empty table too, so the table counts as one that may have rows
        /// (SQLite 3.28 refuses them on an empty table; 3.38.3, 3.40 and later accept them).
        package init(isEmpty: Bool, foreignKeysEnforced: Bool, version: SQLiteVersion) {
            self.init(
                mayHaveRows: !isEmpty || version < Self.emptyTablesAcceptedSince,
                foreignKeysEnforced: foreignKeysEnforced)
        }

        /// The release whose ADD COLUMN looks at the rows before refusing (`sqlite3ErrorIfNotEmpty`).
        static let emptyTablesAcceptedSince = SQLiteVersion(3, 37)
    }

    /// Why SQLite would refuse to add this column to a table in `state`, or nil when `ADD COLUMN`
    /// can add it (the column must then be added by rebuilding the table).
    ///
    /// ```swift
    /// AddColumnDDL(table: "t", definition: "c TEXT DEFAULT CURRENT_TIMESTAMP")
    ///     .refusal(for: .init(foreignKeysEnforced: false))   // .nonConstantDefault
    /// AddColumnDDL(table: "t", definition: "c TEXT NOT NULL DEFAULT ''")
    ///     .refusal(for: .init(foreignKeysEnforced: false))   // nil
    /// ```
    ///
    /// The rule reads the definition's tokens outside parentheses, so a `CHECK (x IS NOT NULL)`
    /// or an `ON DELETE SET DEFAULT` is not mistaken for a constraint.
    /// See <https://www.sqlite.org/lang_altertable.html#alter_table_add_column>.
    package func refusal(for state: TableState) -> Refusal? {
        refusals(for: state).first
    }

    /// Every reason SQLite would refuse to add this column to a table in `state` (the order of
    /// ``Refusal``), empty when `ADD COLUMN` can add it. A rebuild that adds the column instead
    /// still needs some of them: a NOT NULL column without a default needs an empty table.
    package func refusals(for state: TableState) -> [Refusal] {
        let column = CreateTableStatement.ColumnDefinition.constraintSummary(of: definition)
        let hasNonNullDefault = column.defaultValue == .constant || column.defaultValue == .nonConstant
        var refusals: [Refusal] = []
        if column.isPrimaryKey { refusals.append(.primaryKey) }
        if column.isUnique { refusals.append(.unique) }
        if column.hasReferences, hasNonNullDefault, state.foreignKeysEnforced {
            refusals.append(.referencesWithDefault)
        }
        guard state.mayHaveRows else { return refusals }
        if column.isStoredGenerated { refusals.append(.storedGenerated) }
        if column.defaultValue == .nonConstant { refusals.append(.nonConstantDefault) }
        if column.isNotNull, !column.isGenerated, !hasNonNullDefault { refusals.append(.notNullWithoutDefault) }
        return refusals
    }
}
