/// The names SQL text mentions.
package enum SQLMentions {
    /// Every name `sql` may mention, ASCII-lowercased: its bare words (keywords among them),
    /// quoted identifiers in every form (`"x"`, `[x]`, `` `x` ``) and single-quoted strings, which
    /// SQLite also takes as names where a name is expected (`CREATE VIEW v AS SELECT * FROM 't'`).
    /// A superset of the tables, views and columns the statement uses: what a view or trigger
    /// depends on is among them.
    ///
    /// ```swift
    /// SQLMentions.names(in: "CREATE VIEW v AS SELECT \"Full Name\" FROM [People] -- x")
    /// // ["create", "view", "v", "as", "select", "full name", "from", "people"]
    /// ```
    package static func names(in sql: String) -> Set<String> {
        var names = Set<String>()
        for token in SQLTokenizer.tokenize(sql) {
            guard token.kind == .word || token.kind == .quotedIdentifier || token.kind == .string,
                let name = token.nameValue
            else { continue }
            names.insert(name.asciiLowercased())
        }
        return names
    }
}
