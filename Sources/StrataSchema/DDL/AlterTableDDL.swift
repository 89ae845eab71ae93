import StrataSQLite

// The `ALTER TABLE` forms that rename or drop (ADD COLUMN, with its rule, is in AddColumnDDL.swift;
// SQLite 3.53's constraint forms are in AlterTableConstraintDDL.swift).

/// `ALTER TABLE old RENAME TO new`: renames a table; its indexes and triggers follow, and (since
/// SQLite 3.26 with `legacy_alter_table` off) so do views, triggers and foreign keys that name it.
///
/// ```sql
/// ALTER TABLE "player" RENAME TO "athlete"
/// ```
///
/// See <https://www.sqlite.org/lang_altertable.html#alter_table_rename>.
package struct RenameTableDDL: DDLStatement {
    package var table: String
    package var newName: String

    package init(_ table: String, to newName: String) {
        self.table = table
        self.newName = newName
    }

    package var sql: String {
        "ALTER TABLE " + SQL.quoteIdentifier(table) + " RENAME TO " + SQL.quoteIdentifier(newName)
    }
}

/// `ALTER TABLE table RENAME COLUMN old TO new` (SQLite 3.25+): indexes, triggers, views and
/// foreign keys that use the column follow the new name.
///
/// ```sql
/// ALTER TABLE "player" RENAME COLUMN "name" TO "fullName"
/// ```
///
/// See <https://www.sqlite.org/lang_altertable.html#alter_table_rename_column>.
package struct RenameColumnDDL: DDLStatement {
    package var table: String
    package var column: String
    package var newName: String

    package init(table: String, from column: String, to newName: String) {
        self.table = table
        self.column = column
        self.newName = newName
    }

    package var sql: String {
        "ALTER TABLE " + SQL.quoteIdentifier(table) + " RENAME COLUMN " + SQL.quoteIdentifier(column) + " TO "
            + SQL.quoteIdentifier(newName)
    }
}

/// `ALTER TABLE table DROP COLUMN name` (SQLite 3.35+): removes the column and its data. SQLite
/// refuses it for a column that is a key, indexed, or used by a view, trigger or CHECK.
///
/// ```sql
/// ALTER TABLE "player" DROP COLUMN "legacy"
/// ```
///
/// See <https://www.sqlite.org/lang_altertable.html#alter_table_drop_column>.
package struct DropColumnDDL: DDLStatement {
    package var table: String
    package var column: String

    package init(table: String, column: String) {
        self.table = table
        self.column = column
    }

    package var sql: String {
        "ALTER TABLE " + SQL.quoteIdentifier(table) + " DROP COLUMN " + SQL.quoteIdentifier(column)
    }
}
