import StrataSQLite

/// `CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table(terms) [WHERE condition]`.
///
/// ```sql
/// CREATE UNIQUE INDEX "player_on_email" ON "player"("email" COLLATE NOCASE, lower("name") DESC) WHERE "email" IS NOT NULL
/// ```
///
/// The terms and the condition are SQL (a quoted column name or an expression, with its
/// `COLLATE` and `ASC`/`DESC`). See <https://www.sqlite.org/lang_createindex.html>.
package struct CreateIndexDDL: DDLStatement {
    package var name: String
    package var table: String
    /// The indexed columns and expressions, as SQL.
    package var terms: [String]
    package var isUnique: Bool
    package var ifNotExists: Bool
    /// The `WHERE` condition of a partial index, as SQL.
    package var condition: String?

    package init(
        _ name: String, on table: String, terms: [String], isUnique: Bool = false, ifNotExists: Bool = false,
        condition: String? = nil
    ) {
        self.name = name
        self.table = table
        self.terms = terms
        self.isUnique = isUnique
        self.ifNotExists = ifNotExists
        self.condition = condition
    }

    package var sql: String {
        var sql = "CREATE " + (isUnique ? "UNIQUE " : "") + "INDEX " + (ifNotExists ? "IF NOT EXISTS " : "")
        sql +=
            SQL.quoteIdentifier(name) + " ON " + SQL.quoteIdentifier(table) + "(" + terms.joined(separator: ", ") + ")"
        if let condition { sql += " WHERE " + condition }
        return sql
    }
}
