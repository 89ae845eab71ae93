/// The head of a `CREATE [UNIQUE] INDEX [IF NOT EXISTS] [schema.]name ON table (...)` statement:
/// the index and table names (unquoted, in any of SQLite's quoting forms) and the tokens after
/// the table name (key list and `WHERE` clause).
///
/// ```swift
/// let index = CreateIndexStatement(sql: #"CREATE UNIQUE INDEX IF NOT EXISTS "by email" ON [user](email)"#)
/// index?.name   // "by email"
/// index?.table  // "user"
/// ```
/// See <https://www.sqlite.org/lang_createindex.html>.
package struct CreateIndexStatement: Sendable, Hashable {
    /// The index name.
    package let name: String
    /// The table the index is on.
    package let table: String
    package let isUnique: Bool
    /// The significant tokens after the table name: `( keys ) [WHERE expr]`.
    package let body: ArraySlice<SQLToken>

    /// Nil when `tokens` (significant tokens) are not a CREATE INDEX statement.
    package init?(tokens: [SQLToken]) {
        guard tokens.count > 4, tokens[0].isKeyword("CREATE") else { return nil }
        var i = 1
        let isUnique = tokens[i].isKeyword("UNIQUE")
        if isUnique { i += 1 }
        guard i < tokens.count, tokens[i].isKeyword("INDEX") else { return nil }
        i += 1
        if i + 2 < tokens.count, tokens[i].isKeyword("IF"), tokens[i + 1].isKeyword("NOT"),
            tokens[i + 2].isKeyword("EXISTS")
        {
            i += 3
        }
        // [schema.]name
        if i + 2 < tokens.count, tokens[i + 1].kind == .symbol, tokens[i + 1].text == "." { i += 2 }
        guard i + 2 < tokens.count, let name = tokens[i].nameValue, tokens[i + 1].isKeyword("ON"),
            let table = tokens[i + 2].nameValue
        else { return nil }
        self.name = name
        self.table = table
        self.isUnique = isUnique
        self.body = tokens[(i + 3)...]
    }

    /// Nil when `sql` is not a CREATE INDEX statement.
    package init?(sql: String) {
        self.init(tokens: SQLTokenizer.significantTokens(sql))
    }
}
