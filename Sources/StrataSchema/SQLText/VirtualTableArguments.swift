import StrataSQLite

/// A `CREATE VIRTUAL TABLE name USING module[(arguments)]` statement: the table name, the
/// module, and the module arguments split at the commas outside parentheses, as SQLite hands
/// them to the module. The one reader of virtual table statements.
///
/// ```swift
/// let arguments = VirtualTableArguments(sql: "CREATE VIRTUAL TABLE f USING fts5(body, content=\"doc\")")
/// arguments?.module            // "fts5"
/// arguments?.option("content") // "doc"
/// ```
///
/// See <https://www.sqlite.org/lang_createvtab.html>.
struct VirtualTableArguments {
    /// The table name token, as written.
    let name: SQLToken
    /// The module name (unquoted).
    let module: String
    /// The significant tokens of each argument (none when the statement has no argument list).
    let arguments: [[SQLToken]]

    /// Nil when `sql` is not a `CREATE VIRTUAL TABLE ... USING module[(...)]` statement. A
    /// final semicolon is allowed; an argument list left open (which SQLite refuses) runs to the
    /// end of the text.
    init?(sql: String) {
        var tokens = SQLTokenizer.significantTokens(sql)
        while let last = tokens.last, last.kind == .symbol, last.text == ";" { tokens.removeLast() }
        guard tokens.count >= 5, tokens[0].isKeyword("CREATE"), tokens[1].isKeyword("VIRTUAL"),
            tokens[2].isKeyword("TABLE"),
            let using = tokens.firstIndex(where: { $0.isKeyword("USING") }), using > 3, using + 1 < tokens.count,
            let module = tokens[using + 1].nameValue
        else { return nil }
        var arguments: [[SQLToken]] = []
        if using + 2 < tokens.count {
            guard tokens[using + 2].kind == .symbol, tokens[using + 2].text == "(" else { return nil }
            arguments = [[]]
            var depth = 0
            for token in tokens[(using + 3)...] {
                if token.kind == .symbol {
                    if token.text == "(" {
                        depth += 1
                    } else if token.text == ")" {
                        if depth == 0 { break }  // the end of the list
                        depth -= 1
                    } else if token.text == ",", depth == 0 {
                        arguments.append([])
                        continue
                    }
                }
                arguments[arguments.count - 1].append(token)
            }
            if arguments == [[]] { arguments = [] }
        }
        self.name = tokens[using - 1]
        self.module = module
        self.arguments = arguments
    }

    /// True when `sql` starts `CREATE VIRTUAL` (reading only its first 64 characters).
    static func isVirtualTable(_ sql: String) -> Bool {
        let tokens = SQLTokenizer.significantTokens(String(sql.prefix(64)))
        return tokens.count >= 2 && tokens[0].isKeyword("CREATE") && tokens[1].isKeyword("VIRTUAL")
    }

    /// The value of the first `key=value` argument whose key is `key` (ASCII case-insensitive),
    /// dequoted as FTS3/4/5 do, or nil.
    func option(_ key: String) -> String? {
        for argument in arguments {
            if let (k, value) = Self.option(argument), k.asciiCaseInsensitiveEquals(key) { return value }
        }
        return nil
    }

    /// `(key, value)` for a `key = value` argument.
    static func option(_ argument: [SQLToken]) -> (String, String)? {
        guard argument.count >= 3, argument[1].text == "=" else { return nil }
        let value = argument.count == 3 ? dequote(argument[2]) : argument[2...].map(\.text).joined(separator: " ")
        return (dequote(argument[0]), value)
    }

    /// A word as FTS5 reads it: quotes (`'`, `"`, `` ` ``, `[...]`) removed, doubled quotes undone.
    static func dequote(_ token: SQLToken) -> String {
        token.nameValue ?? token.text
    }

    /// What FTS5 makes of the table, in a canonical form: equal for two statements that FTS5
    /// reads the same (columns in order, options in any order and quoting, prefix lengths in
    /// any order, default options written or not), so that a table declared with the DSL and
    /// the same table written by hand or by another tool compare equal. Nil when the module is
    /// not FTS5 or an argument is not one FTS5 accepts.
    ///
    /// ```swift
    /// // Both: virtual f using fts5(body; content=doc, tokenize='porter' 'unicode61')
    /// VirtualTableArguments(sql: "CREATE VIRTUAL TABLE f USING fts5(body, content=doc, tokenize='porter unicode61')")?.fts5Signature
    /// VirtualTableArguments(sql: "CREATE VIRTUAL TABLE \"F\" USING FTS5(\"Body\", tokenize = \"'porter' 'unicode61'\", content='doc')")?.fts5Signature
    /// ```
    var fts5Signature: String? {
        guard module.asciiCaseInsensitiveEquals("fts5") else { return nil }
        var columns: [String] = []
        var options: [String] = []
        var prefixes = Set<Int>()
        for argument in arguments {
            guard let first = argument.first else { return nil }
            if let (rawKey, value) = Self.option(argument) {
                let key = rawKey.asciiLowercased()
                switch key {
                case "content":
                    options.append("content=" + (value.isEmpty ? "''" : SQLNormalizer.canonicalIdentifier(value)))
                case "content_rowid":
                    if !value.asciiCaseInsensitiveEquals("rowid") {
                        options.append("content_rowid=" + SQLNormalizer.canonicalIdentifier(value))
                    }
                case "prefix":
                    for part in value.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
                        guard let length = Int(part) else { return nil }
                        prefixes.insert(length)
                    }
                case "tokenize":
                    guard let components = Self.tokenizerComponents(value) else { return nil }
                    if components.count == 1, components[0].asciiCaseInsensitiveEquals("unicode61") { continue }
                    options.append("tokenize=" + components.map { SQLValue.text($0).sqlLiteral }.joined(separator: " "))
                case "detail":
                    if !value.asciiCaseInsensitiveEquals("full") { options.append("detail=" + value.asciiLowercased()) }
                case "columnsize" where value == "1": continue
                default:
                    options.append(key + "=" + SQLValue.text(value).sqlLiteral)
                }
            } else {
                // "name" or "name UNINDEXED".
                guard argument.count <= 2, argument.dropFirst().allSatisfy({ $0.isKeyword("UNINDEXED") }) else {
                    return nil
                }
                columns.append(
                    SQLNormalizer.canonicalIdentifier(Self.dequote(first)) + (argument.count == 2 ? " unindexed" : ""))
            }
        }
        if !prefixes.isEmpty { options.append("prefix=" + prefixes.sorted().map(String.init).joined(separator: " ")) }
        return "virtual \(SQLNormalizer.canonical(name)) using fts5(\(columns.joined(separator: ", "))"
            + "; \(options.sorted().joined(separator: ", ")))"
    }

    /// The words of a `tokenize` value as FTS5 splits them: bare words (ASCII letters, digits,
    /// `_`, non-ASCII characters) and `'quoted strings'`, separated by white space. Nil when
    /// FTS5 would report a parse error.
    static func tokenizerComponents(_ value: String) -> [String]? {
        var components: [String] = []
        var bytes = Array(value.utf8)[...]
        func isBareword(_ b: UInt8) -> Bool {
            b >= 0x80 || (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z"))
                || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
                || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "_")
        }
        while true {
            while let b = bytes.first, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { bytes.removeFirst() }
            guard let first = bytes.first else { return components }
            var word: [UInt8] = []
            if first == UInt8(ascii: "'") {
                bytes.removeFirst()
                while true {
                    guard let b = bytes.popFirst() else { return nil }
                    if b == UInt8(ascii: "'") {
                        if bytes.first == UInt8(ascii: "'") { bytes.removeFirst() } else { break }
                    }
                    word.append(b)
                }
            } else {
                while let b = bytes.first, isBareword(b) { word.append(bytes.removeFirst()) }
                guard !word.isEmpty else { return nil }
            }
            components.append(String(decoding: word, as: UTF8.self))
        }
    }
}
