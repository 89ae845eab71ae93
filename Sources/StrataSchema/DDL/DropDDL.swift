import StrataSQLite

/// `DROP {TABLE | INDEX | VIEW | TRIGGER} [IF EXISTS] name`: deletes a schema object.
///
/// ```sql
/// DROP TABLE IF EXISTS "obsolete"
/// DROP INDEX "player_name"
/// ```
///
/// A table (ordinary or virtual) goes with its rows, indexes and triggers; an index, a view or a
/// trigger leaves its table and rows alone. See <https://www.sqlite.org/lang_droptable.html>,
/// <https://www.sqlite.org/lang_dropindex.html>, <https://www.sqlite.org/lang_dropview.html> and
/// <https://www.sqlite.org/lang_droptrigger.html>.
package struct DropDDL: DDLStatement {
    /// What is dropped.
    package enum Kind: String, Sendable {
        case table = "TABLE"
        case index = "INDEX"
        case view = "VIEW"
        case trigger = "TRIGGER"
    }

    package var kind: Kind
    package var name: String
    package var ifExists: Bool

    package init(_ kind: Kind, _ name: String, ifExists: Bool = false) {
        self.kind = kind
        self.name = name
        self.ifExists = ifExists
    }

    /// `DROP TABLE [IF EXISTS] name`.
    package static func table(_ name: String, ifExists: Bool = false) -> DropDDL {
        DropDDL(.table, name, ifExists: ifExists)
    }
    /// `DROP INDEX [IF EXISTS] name`.
    package static func index(_ name: String, ifExists: Bool = false) -> DropDDL {
        DropDDL(.index, name, ifExists: ifExists)
    }
    /// `DROP VIEW [IF EXISTS] name`.
    package static func view(_ name: String, ifExists: Bool = false) -> DropDDL {
        DropDDL(.view, name, ifExists: ifExists)
    }
    /// `DROP TRIGGER [IF EXISTS] name`.
    package static func trigger(_ name: String, ifExists: Bool = false) -> DropDDL {
        DropDDL(.trigger, name, ifExists: ifExists)
    }

    package var sql: String {
        "DROP \(kind.rawValue) " + (ifExists ? "IF EXISTS " : "") + SQL.quoteIdentifier(name)
    }
}
