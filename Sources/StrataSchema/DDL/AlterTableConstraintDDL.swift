import StrataSQLite

// SQLite 3.53's ALTER TABLE forms for constraints (gate them on
// `capabilities.supportsAlterConstraints`). Each checks the existing rows itself: ADD CHECK and
// SET NOT NULL fail on a row that breaks them. SQLite edits the stored CREATE TABLE text.

/// `ALTER TABLE table ADD [CONSTRAINT name] CHECK (condition)` (SQLite 3.53+).
///
/// ```sql
/// ALTER TABLE "player" ADD CONSTRAINT "positive" CHECK ("score" >= 0)
/// ```
///
/// See <https://www.sqlite.org/lang_altertable.html>.
package struct AddCheckConstraintDDL: DDLStatement {
    package var table: String
    /// The constraint as SQL: `[CONSTRAINT name] CHECK (condition)`.
    package var constraint: String

    /// The table CHECK constraint `constraint`, as written in a CREATE TABLE (its `--` comments
    /// are dropped: SQLite copies the text into the stored statement).
    package init(table: String, constraint: String) {
        self.table = table
        self.constraint = SQLComments.removingLineComments(constraint)
    }

    /// `[CONSTRAINT "name"] CHECK (condition)`, the name quoted.
    package init(table: String, name: String?, check condition: String) {
        self.table = table
        self.constraint =
            (name.map { "CONSTRAINT " + SQL.quoteIdentifier($0) + " " } ?? "") + "CHECK (" + condition + ")"
    }

    package var sql: String {
        "ALTER TABLE " + SQL.quoteIdentifier(table) + " ADD " + constraint
    }
}

/// `ALTER TABLE table DROP CONSTRAINT name` (SQLite 3.53+): removes a named CHECK or FOREIGN KEY
/// table constraint.
///
/// ```sql
/// ALTER TABLE "player" DROP CONSTRAINT "positive"
/// ```
///
/// See <https://www.sqlite.org/lang_altertable.html>.
package struct DropConstraintDDL: DDLStatement {
    package var table: String
    package var name: String

    package init(table: String, name: String) {
        self.table = table
        self.name = name
    }

    package var sql: String {
        "ALTER TABLE " + SQL.quoteIdentifier(table) + " DROP CONSTRAINT " + SQL.quoteIdentifier(name)
    }
}

/// `ALTER TABLE table ALTER COLUMN column {SET|DROP} NOT NULL` (SQLite 3.53+).
///
/// ```sql
/// ALTER TABLE "player" ALTER COLUMN "email" SET NOT NULL
/// ```
///
/// See <https://www.sqlite.org/lang_altertable.html>.
package struct AlterColumnNotNullDDL: DDLStatement {
    package var table: String
    package var column: String
    /// True for `SET NOT NULL`, false for `DROP NOT NULL`.
    package var isNotNull: Bool

    package init(table: String, column: String, isNotNull: Bool) {
        self.table = table
        self.column = column
        self.isNotNull = isNotNull
    }

    package var sql: String {
        "ALTER TABLE " + SQL.quoteIdentifier(table) + " ALTER COLUMN " + SQL.quoteIdentifier(column)
            + (isNotNull ? " SET NOT NULL" : " DROP NOT NULL")
    }
}
