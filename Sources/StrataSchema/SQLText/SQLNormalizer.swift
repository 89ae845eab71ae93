/// Canonical text for comparing SQL: comments and whitespace dropped, identifiers unquoted and
/// ASCII-lowercased whatever their quoting style, keywords lowercased, tokens joined by one space.
/// Literals, numbers and operators are kept exactly, so declared types, defaults, CHECK and
/// generated expressions still make a difference.
///
/// ```swift
/// SQLNormalizer.normalize("CREATE  TABLE \"T\" ( a INT ) -- v2")
///     == SQLNormalizer.normalize("create table t(a int)")   // true
/// ```
package enum SQLNormalizer {
    package static func normalize(_ sql: String) -> String {
        normalize(tokens: SQLTokenizer.tokenize(sql))
    }

    package static func normalize(tokens: some Sequence<SQLToken>) -> String {
        var parts = [String]()
        var afterDefault = false
        for token in tokens where !token.isTrivia {
            parts.append(afterDefault ? canonicalDefault(token) : canonical(token))
            afterDefault = token.kind == .word && token.isKeyword("DEFAULT")
        }
        return parts.joined(separator: " ")
    }

    /// The canonical form of one token.
    package static func canonical(_ token: SQLToken) -> String {
        switch token.kind {
        case .word:
            return canonicalIdentifier(token.text)
        case .quotedIdentifier:
            // A quoted word that is also a literal value stays quoted: `DEFAULT "null"` is the
            // string 'null', `DEFAULT NULL` no value (the same for TRUE, FALSE and CURRENT_*).
            let name = token.identifierValue ?? token.text
            let lower = name.asciiLowercased()
            return literalWords.contains(lower) ? SQL.quoteIdentifier(lower) : canonicalIdentifier(name)
        case .blob:
            return "X" + String(token.text.dropFirst()).uppercased()
        default:
            return token.text
        }
    }

    /// The canonical form of the token after DEFAULT: a name there is a string (`DEFAULT Active`
    /// and `DEFAULT "Active"` are `DEFAULT 'Active'`, its case kept), unless it is a bare NULL,
    /// TRUE, FALSE or CURRENT_* (`INSERT ... DEFAULT VALUES` in a trigger is kept too).
    /// See <https://www.sqlite.org/lang_createtable.html#the_default_clause>.
    static func canonicalDefault(_ token: SQLToken) -> String {
        guard let name = token.identifierValue,
            token.kind == .quotedIdentifier
                || !(literalWords.contains(name.asciiLowercased()) || token.isKeyword("VALUES"))
        else { return canonical(token) }
        return SQL.literal(name)
    }

    /// A column's DEFAULT (as `PRAGMA table_info` gives it) as an expression to use elsewhere (a
    /// rebuild's `coalesce(column, default)`): a bare or quoted name there is a string to SQLite,
    /// so it becomes a string literal instead of a reference to a column of that name.
    ///
    /// ```swift
    /// SQLNormalizer.defaultValueExpression("active")      // "'active'"
    /// SQLNormalizer.defaultValueExpression("\"Active\"")  // "'Active'"
    /// SQLNormalizer.defaultValueExpression("(1 + 2)")     // "(1 + 2)"
    /// ```
    static func defaultValueExpression(_ sql: String) -> String {
        let tokens = SQLTokenizer.tokenize(sql).filter { !$0.isTrivia }
        guard tokens.count == 1, let name = tokens[0].identifierValue, canonicalDefault(tokens[0]).hasPrefix("'") else {
            return sql
        }
        return SQL.literal(name)
    }

    /// Words SQLite reads as a value when bare and as a name or a string when quoted.
    static let literalWords: Set<String> = [
        "null", "true", "false", "current_time", "current_date", "current_timestamp",
    ]

    /// An identifier in canonical form: ASCII-lowercased, and quoted when it is not a plain word.
    package static func canonicalIdentifier(_ name: String) -> String {
        let lower = name.asciiLowercased()
        let plain =
            !lower.isEmpty && lower.utf8.allSatisfy { SQLTokenizer.isIdentifierByte($0) }
            && !SQLTokenizer.isDigit(lower.utf8.first!)
        return plain ? lower : SQL.quoteIdentifier(lower)
    }
}
