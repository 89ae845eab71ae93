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
    public static func normalize(_ sql: String) -> String {
        normalize(tokens: SQLTokenizer.tokenize(sql))
    }

    public static func normalize(tokens: some Sequence<SQLToken>) -> String {
        var parts = [String]()
        for token in tokens where !token.isTrivia {
            parts.append(canonical(token))
        }
        return parts.joined(separator: " ")
    }

    /// The canonical form of one token.
    public static func canonical(_ token: SQLToken) -> String {
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

    /// Words SQLite reads as a value when bare and as a name or a string when quoted.
    static let literalWords: Set<String> = [
        "null", "true", "false", "current_time", "current_date", "current_timestamp",
    ]

    /// An identifier in canonical form: ASCII-lowercased, and quoted when it is not a plain word.
    public static func canonicalIdentifier(_ name: String) -> String {
        let lower = name.asciiLowercased()
        let plain =
            !lower.isEmpty && lower.utf8.allSatisfy { SQLTokenizer.isIdentifierByte($0) }
            && !SQLTokenizer.isDigit(lower.utf8.first!)
        return plain ? lower : SQL.quoteIdentifier(lower)
    }
}
