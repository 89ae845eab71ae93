import StrataSQLite

/// `DROP TRIGGER [IF EXISTS] name`: deletes a trigger.
///
/// ```sql
/// DROP TRIGGER IF EXISTS "old_trigger"
/// ```
///
/// See <https://www.sqlite.org/lang_droptrigger.html>.
package struct DropTriggerDDL: DDLStatement {
    package var name: String
    package var ifExists: Bool

    package init(_ name: String, ifExists: Bool = false) {
        self.name = name
        self.ifExists = ifExists
    }

    package var sql: String {
        "DROP TRIGGER " + (ifExists ? "IF EXISTS " : "") + SQL.quoteIdentifier(name)
    }
}
