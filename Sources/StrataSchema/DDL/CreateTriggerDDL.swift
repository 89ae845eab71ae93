import StrataSQLite

/// `CREATE TRIGGER [IF NOT EXISTS] name {BEFORE|AFTER|INSTEAD OF} {INSERT|DELETE|UPDATE [OF columns]}
/// ON table BEGIN statements; END`.
///
/// ```sql
/// CREATE TRIGGER "book_fts_ai" AFTER INSERT ON "book" BEGIN
///   INSERT INTO "book_fts"(rowid, "title") VALUES (new."id", new."title");
/// END
/// ```
///
/// The body statements are SQL, each written on its own line and ended with `;`.
/// See <https://www.sqlite.org/lang_createtrigger.html>.
package struct CreateTriggerDDL: DDLStatement {
    /// When the trigger fires, relative to the change.
    package enum Timing: String, Sendable, Hashable {
        case before = "BEFORE"
        case after = "AFTER"
        case insteadOf = "INSTEAD OF"
    }

    /// The change that fires the trigger.
    package enum Event: Sendable, Hashable {
        case insert
        case delete
        /// `UPDATE`, or `UPDATE OF columns` when `columns` is not empty.
        case update(of: [String])

        var sql: String {
            switch self {
            case .insert: "INSERT"
            case .delete: "DELETE"
            case .update(let columns): columns.isEmpty ? "UPDATE" : "UPDATE OF " + SQL.quotedList(columns)
            }
        }
    }

    package var name: String
    package var timing: Timing
    package var event: Event
    package var table: String
    /// The statements of the body, as SQL without their `;`.
    package var body: [String]
    package var ifNotExists: Bool

    package init(
        _ name: String, _ timing: Timing, _ event: Event, on table: String, body: [String], ifNotExists: Bool = false
    ) {
        self.name = name
        self.timing = timing
        self.event = event
        self.table = table
        self.body = body
        self.ifNotExists = ifNotExists
    }

    package var sql: String {
        "CREATE TRIGGER " + (ifNotExists ? "IF NOT EXISTS " : "") + SQL.quoteIdentifier(name) + " "
            + timing.rawValue + " " + event.sql + " ON " + SQL.quoteIdentifier(table) + " BEGIN\n"
            + body.map { "  " + $0 + ";\n" }.joined() + "END"
    }
}
