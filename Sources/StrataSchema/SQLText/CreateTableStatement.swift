/// A `CREATE TABLE` statement split into its parts, keeping the exact text of each, plus the
/// `-- @renamed from=OLD` hints found in its comments.
///
/// ```swift
/// let t = try CreateTableStatement(sql: """
///     CREATE TABLE users ( -- @renamed from=user
///       id INTEGER PRIMARY KEY,
///       full_name TEXT NOT NULL -- @renamed from=name
///     )
///     """)
/// t.name              // "users"
/// t.renamedFrom       // "user"
/// t.columns[1].renamedFrom  // "name"
/// ```
/// See <https://www.sqlite.org/lang_createtable.html>.
package struct CreateTableStatement: Sendable, Hashable {
    public struct ColumnDefinition: Sendable, Hashable {
        /// The column name (unquoted).
        public let name: String
        /// The whole definition as written: name, type and constraints.
        public let text: String
        /// The definition without the name, normalized (see ``SQLNormalizer``).
        public let normalizedBody: String
        /// Significant tokens of the definition, the name first.
        public let tokens: [SQLToken]
        /// The `-- @renamed from=OLD` hint at the end of the column's line.
        public let renamedFrom: String?
    }

    /// The full statement text.
    public let sql: String
    /// The table name (unquoted).
    public let name: String
    /// The `-- @renamed from=OLD` hint on the CREATE TABLE line.
    public let renamedFrom: String?
    public let columns: [ColumnDefinition]
    /// Table constraints as written (PRIMARY KEY (...), UNIQUE, CHECK, FOREIGN KEY, with an
    /// optional CONSTRAINT name).
    public let constraints: [String]
    /// Normalized table constraints.
    public let normalizedConstraints: [String]
    public let isWithoutRowID: Bool
    public let isStrict: Bool
    /// The byte range of the table name token in ``sql``, for a copy under another name
    /// (``CreateTableDDL/copy(of:named:)``).
    let nameRange: Range<Int>

    /// True when a column is declared `AUTOINCREMENT`.
    public var hasAutoincrement: Bool {
        columns.contains { $0.tokens.contains { $0.isKeyword("AUTOINCREMENT") } }
    }

    /// Parses `sql`, which must be a CREATE TABLE statement with a column list.
    public init(sql: String) throws {
        self.sql = sql
        let all = SQLTokenizer.tokenize(sql)
        var i = 0
        func skipTrivia() { while i < all.count, all[i].isTrivia { i += 1 } }
        func expectWord(_ w: String) throws {
            skipTrivia()
            guard i < all.count, all[i].isKeyword(w) else {
                throw SchemaError.unsupported("expected \(w) in `\(sql.prefix(80))`")
            }
            i += 1
        }
        try expectWord("CREATE")
        let createLine = all[i - 1].line
        skipTrivia()
        if i < all.count, all[i].isKeyword("TEMP") || all[i].isKeyword("TEMPORARY") { i += 1 }
        try expectWord("TABLE")
        skipTrivia()
        if i < all.count, all[i].isKeyword("IF") {
            i += 1
            try expectWord("NOT")
            try expectWord("EXISTS")
        }
        skipTrivia()
        guard i < all.count, let first = all[i].nameValue else {
            throw SchemaError.unsupported("no table name in `\(sql.prefix(80))`")
        }
        var nameToken = all[i]
        var name = first
        i += 1
        skipTrivia()
        if i < all.count, all[i].text == "." {  // schema.name
            i += 1
            skipTrivia()
            guard i < all.count, let n = all[i].nameValue else {
                throw SchemaError.unsupported("no table name in `\(sql.prefix(80))`")
            }
            nameToken = all[i]
            name = n
            i += 1
            skipTrivia()
        }
        self.name = name
        self.nameRange = nameToken.offset..<(nameToken.offset + nameToken.text.utf8.count)
        guard i < all.count, all[i].text == "(" else {
            throw SchemaError.unsupported("table \(name): CREATE TABLE ... AS SELECT is not supported as a desired definition")
        }
        let open = i
        var tableHint: String? = nil
        for t in all[..<open] where t.kind == .lineComment || t.kind == .blockComment {
            if let h = RenameHint.parse(t.text) { tableHint = h }
        }

        // Split the column list on top-level commas.
        var elements = [[Int]]()  // indexes into `all`, trivia included
        var current = [Int]()
        var depth = 0
        i = open + 1
        var close = all.count
        while i < all.count {
            let t = all[i]
            if t.kind == .symbol {
                if t.text == "(" {
                    depth += 1
                } else if t.text == ")" {
                    if depth == 0 { close = i; break }
                    depth -= 1
                } else if t.text == ",", depth == 0 {
                    elements.append(current)
                    current = []
                    i += 1
                    continue
                }
            }
            current.append(i)
            i += 1
        }
        elements.append(current)
        guard close < all.count else {
            throw SchemaError.unsupported("table \(name): unbalanced parentheses in CREATE TABLE")
        }

        var columns = [ColumnDefinition]()
        var constraints = [String]()
        var normalizedConstraints = [String]()
        let constraintStarts = ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"]
        for (e, element) in elements.enumerated() {
            let significant = element.filter { !all[$0].isTrivia }
            guard let firstIndex = significant.first, let lastIndex = significant.last else { continue }
            let text = Self.text(all, firstIndex, lastIndex)
            let head = all[firstIndex]
            if head.kind == .word, constraintStarts.contains(where: { head.isKeyword($0) }) {
                constraints.append(text)
                normalizedConstraints.append(SQLNormalizer.normalize(tokens: significant.map { all[$0] }))
                continue
            }
            // Hint: a line comment after the definition, before the end of its line (it may sit
            // after the separating comma, which belongs to no element).
            var hint: String? = nil
            let lastLine = all[lastIndex].line
            var j = lastIndex + 1
            // Or a comment inside the definition, after its name: the end of the first line of a
            // definition that continues on the next lines (its CHECK below it).
            for k in element where k > firstIndex && all[k].kind != .whitespace && all[k].isTrivia {
                if let h = RenameHint.parse(all[k].text) { hint = h }
            }
            while j < all.count {
                let t = all[j]
                if t.isTrivia, t.kind != .whitespace, t.line == lastLine, let h = RenameHint.parse(t.text) { hint = h }
                if !t.isTrivia, ![",", ")", ";"].contains(t.text) { break }
                if t.kind == .whitespace, t.text.contains("\n") { break }
                j += 1
            }
            if e == 0, tableHint == nil {
                // A hint placed right after "(" on the CREATE line belongs to the table.
                for k in element where all[k].isTrivia && all[k].kind != .whitespace && k < firstIndex && all[k].line == createLine {
                    tableHint = RenameHint.parse(all[k].text) ?? tableHint
                }
            }
            let tokens = significant.map { all[$0] }
            columns.append(
                ColumnDefinition(
                    name: head.nameValue ?? head.text, text: text,
                    normalizedBody: SQLNormalizer.normalize(tokens: tokens.dropFirst()),
                    tokens: tokens, renamedFrom: hint))
        }
        self.columns = columns
        self.constraints = constraints
        self.normalizedConstraints = normalizedConstraints
        self.renamedFrom = tableHint

        // Table options after the closing parenthesis.
        let options = all[(close + 1)...].filter { !$0.isTrivia && $0.kind == .word }
        self.isWithoutRowID = options.contains { $0.isKeyword("ROWID") }
        self.isStrict = options.contains { $0.isKeyword("STRICT") }
    }

    private static func text(_ all: [SQLToken], _ first: Int, _ last: Int) -> String {
        all[first...last].map(\.text).joined()
    }
}

/// `-- @renamed from=OLD`: the hint that a table or column was renamed rather than replaced.
package enum RenameHint {
    /// The old name in a comment's text (`-- @renamed from=OLD` or `/* @renamed from=OLD */`,
    /// keywords in any case), or nil when the comment is not a hint. `OLD` may be a bare name or a
    /// double-quoted identifier.
    public static func parse(_ comment: String) -> String? {
        var comment = Substring(comment)
        if comment.hasPrefix("/*") { comment = comment.dropFirst(2) }
        if comment.hasSuffix("*/") { comment = comment.dropLast(2) }
        let lowered = String(comment).asciiLowercased()
        guard let r = lowered.range(of: "@renamed") else { return nil }
        let offset = lowered.distance(from: lowered.startIndex, to: r.upperBound)
        var rest = comment.dropFirst(offset).drop { $0 == " " || $0 == "\t" }
        guard String(rest.prefix(4)).asciiLowercased() == "from" else { return nil }
        rest = rest.dropFirst(4).drop { $0 == " " || $0 == "\t" }
        guard rest.hasPrefix("=") else { return nil }
        rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
        if rest.hasPrefix("\"") {
            var name = ""
            var it = rest.dropFirst()
            while let c = it.first {
                it = it.dropFirst()
                if c == "\"" {
                    if it.first == "\"" { name.append("\""); it = it.dropFirst(); continue }
                    return name
                }
                name.append(c)
            }
            return name.isEmpty ? nil : name
        }
        let name = rest.prefix { !$0.isWhitespace }
        return name.isEmpty ? nil : String(name)
    }
}
