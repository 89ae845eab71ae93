/// A table constraint as written in a CREATE TABLE (`[CONSTRAINT name] PRIMARY KEY (...)`,
/// `UNIQUE (...)`, `CHECK (...)`, `FOREIGN KEY (...) REFERENCES ...`): its name and kind.
///
/// ```swift
/// let c = TableConstraint(sql: #"CONSTRAINT "positive" CHECK (amount > 0)"#)
/// c?.name  // "positive"
/// c?.kind  // .check
/// ```
/// See <https://www.sqlite.org/syntax/table-constraint.html>.
package struct TableConstraint: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        case primaryKey, unique, check, foreignKey
    }

    /// The name given with `CONSTRAINT name` (unquoted), or nil.
    package let name: String?
    package let kind: Kind

    /// Nil when `tokens` (significant tokens) do not start a table constraint.
    package init?(tokens: some RandomAccessCollection<SQLToken>) {
        var rest = tokens[...]
        var name: String? = nil
        if rest.first?.isKeyword("CONSTRAINT") == true {
            rest = rest.dropFirst()
            guard let n = rest.first?.nameValue else { return nil }
            name = n
            rest = rest.dropFirst()
        }
        guard let head = rest.first else { return nil }
        if head.isKeyword("PRIMARY") {
            kind = .primaryKey
        } else if head.isKeyword("UNIQUE") {
            kind = .unique
        } else if head.isKeyword("CHECK") {
            kind = .check
        } else if head.isKeyword("FOREIGN") {
            kind = .foreignKey
        } else {
            return nil
        }
        self.name = name
    }

    /// Nil when `sql` is not a table constraint.
    package init?(sql: String) {
        self.init(tokens: SQLTokenizer.significantTokens(sql))
    }
}

/// Readers for the shapes of the statements Strata writes itself and reads back: a rebuild's
/// copy and its final rename, and the kind of a statement by its first word.
package enum StatementShape {
    /// `(from, to)` for each `ALTER TABLE from RENAME TO to` in `sql` (one statement or a whole
    /// script), names unquoted.
    ///
    /// ```swift
    /// StatementShape.tableRenames(in: #"ALTER TABLE "strata_tmp_1f" RENAME TO "task";"#)  // [("strata_tmp_1f", "task")]
    /// ```
    package static func tableRenames(in sql: String) -> [(from: String, to: String)] {
        let t = SQLTokenizer.significantTokens(sql)
        var result = [(from: String, to: String)]()
        var i = 0
        while i + 5 < t.count {
            defer { i += 1 }
            guard t[i].isKeyword("ALTER"), t[i + 1].isKeyword("TABLE"), let from = t[i + 2].nameValue,
                t[i + 3].isKeyword("RENAME"), t[i + 4].isKeyword("TO"), let to = t[i + 5].nameValue
            else { continue }
            result.append((from, to))
        }
        return result
    }

    /// True when the first word of `sql` (after comments) is `keyword` (ASCII case-insensitive).
    package static func begins(_ sql: String, with keyword: String) -> Bool {
        for token in SQLTokenizer.tokenize(sql) where !token.isTrivia { return token.isKeyword(keyword) }
        return false
    }
}
