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
    /// A foreign key as the statement declares it: its columns and parent table (unquoted), and
    /// whether it is `DEFERRABLE INITIALLY DEFERRED` (which `PRAGMA foreign_key_list` does not
    /// report).
    package struct ForeignKeyDeclaration: Sendable, Hashable {
        package let columns: [String]
        package let parentTable: String
        package let isDeferred: Bool
    }

    /// The full statement text.
    package let sql: String
    /// The table name (unquoted).
    package let name: String
    /// The `-- @renamed from=OLD` hint on the CREATE TABLE line.
    package let renamedFrom: String?
    package let columns: [ColumnDefinition]
    /// Table constraints as written (PRIMARY KEY (...), UNIQUE, CHECK, FOREIGN KEY, with an
    /// optional CONSTRAINT name).
    package let constraints: [String]
    /// Normalized table constraints.
    package let normalizedConstraints: [String]
    /// The significant tokens of each table constraint.
    package let constraintTokens: [[SQLToken]]
    package let isWithoutRowID: Bool
    package let isStrict: Bool
    /// The comments holding a `-- @renamed from=` hint that belongs to nothing: not on the CREATE
    /// TABLE line, nor after or inside a column's definition on its lines (a hint on its own line
    /// above a column, or after the closing parenthesis of a table of several lines).
    package let unattachedHints: [String]
    /// The byte range of the table name token in ``sql``, for a copy under another name
    /// (``CreateTableDDL/copy(of:named:)``).
    let nameRange: Range<Int>

    /// True when a column is declared `AUTOINCREMENT`.
    package var hasAutoincrement: Bool {
        columns.contains { $0.tokens.contains { $0.isKeyword("AUTOINCREMENT") } }
    }

    /// Parses `sql`, which must be a CREATE TABLE statement with a column list: the head up to
    /// the table name (``Head``), the column list split on its top-level commas
    /// (``elements(of:open:table:)``), each element a table constraint or a column with its
    /// rename hint (``columnHint(of:in:tokens:attached:)``), then the table options.
    package init(sql: String) throws {
        self.sql = sql
        let all = SQLTokenizer.tokenize(sql)
        let head = try Head(all, sql: sql)
        self.name = head.name
        self.nameRange = head.nameRange
        var attached = Set<Int>()  // the hint comments (token indexes) that belong to something
        var tableHint = Self.tableHint(in: all, at: 0..<head.open, attached: &attached)
        let (elements, close) = try Self.elements(of: all, open: head.open, table: head.name)

        var columns = [ColumnDefinition]()
        var constraints = [String]()
        var normalizedConstraints = [String]()
        var constraintTokens = [[SQLToken]]()
        for (e, element) in elements.enumerated() {
            let significant = element.filter { !all[$0].isTrivia }
            guard let firstIndex = significant.first, let lastIndex = significant.last else { continue }
            let text = Self.text(all, firstIndex, lastIndex)
            let tokens = significant.map { all[$0] }
            if Self.isTableConstraintStart(all[firstIndex]) {
                constraints.append(text)
                normalizedConstraints.append(SQLNormalizer.normalize(tokens: tokens))
                constraintTokens.append(tokens)
                continue
            }
            let hint = Self.columnHint(of: element, in: all, tokens: (firstIndex, lastIndex), attached: &attached)
            if e == 0, tableHint == nil {
                // A hint placed right after "(" on the CREATE line belongs to the table.
                let before = element.filter { $0 < firstIndex && all[$0].line == head.createLine }
                tableHint = Self.tableHint(in: all, at: before, attached: &attached)
            }
            columns.append(ColumnDefinition(tokens: tokens, text: text, renamedFrom: hint))
        }
        self.columns = columns
        self.constraints = constraints
        self.normalizedConstraints = normalizedConstraints
        self.constraintTokens = constraintTokens
        self.renamedFrom = tableHint
        self.unattachedHints = all.indices.filter { k in
            (all[k].kind == .lineComment || all[k].kind == .blockComment) && !attached.contains(k)
                && RenameHint.parse(all[k].text) != nil
        }.map { all[$0].text }

        // Table options after the closing parenthesis.
        let options = all[(close + 1)...].filter { !$0.isTrivia && $0.kind == .word }
        self.isWithoutRowID = options.contains { $0.isKeyword("ROWID") }
        self.isStrict = options.contains { $0.isKeyword("STRICT") }
    }

    static func text(_ all: [SQLToken], _ first: Int, _ last: Int) -> String {
        all[first...last].map(\.text).joined()
    }

    /// True for the first word of a table constraint (`CONSTRAINT`, `PRIMARY`, `UNIQUE`, `CHECK`,
    /// `FOREIGN`); a column with such a name is quoted.
    static func isTableConstraintStart(_ token: SQLToken) -> Bool {
        token.kind == .word && ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"].contains { token.isKeyword($0) }
    }

    /// The foreign keys the statement declares, column constraints (`REFERENCES` in a column
    /// definition) and table constraints (`FOREIGN KEY (...) REFERENCES ...`), in that order.
    ///
    /// ```swift
    /// let t = try CreateTableStatement(sql: "CREATE TABLE c(p REFERENCES p DEFERRABLE INITIALLY DEFERRED, q)")
    /// t.foreignKeys  // [ForeignKeyDeclaration(columns: ["p"], parentTable: "p", isDeferred: true)]
    /// ```
    /// See <https://www.sqlite.org/foreignkeys.html#fk_deferred>.
    package var foreignKeys: [ForeignKeyDeclaration] {
        var result = [ForeignKeyDeclaration]()
        func scan(_ tokens: ArraySlice<SQLToken>, columns: [String]) {
            guard let r = tokens.firstIndex(where: { $0.isKeyword("REFERENCES") }), r + 1 < tokens.endIndex,
                let parent = tokens[r + 1].nameValue
            else { return }
            let rest = tokens[(r + 2)...]
            var deferred = false
            for i in rest.indices where rest[i].isKeyword("DEFERRABLE") {
                let negated = i > rest.startIndex && rest[i - 1].isKeyword("NOT")
                let initiallyDeferred =
                    i + 2 < rest.endIndex && rest[i + 1].isKeyword("INITIALLY")
                    && rest[i + 2].isKeyword("DEFERRED")
                if !negated && initiallyDeferred { deferred = true }
            }
            result.append(ForeignKeyDeclaration(columns: columns, parentTable: parent, isDeferred: deferred))
        }
        for column in columns { scan(column.tokens[...], columns: [column.name]) }
        for tokens in constraintTokens {
            guard let f = tokens.firstIndex(where: { $0.isKeyword("FOREIGN") }),
                let open = tokens[f...].firstIndex(where: { $0.kind == .symbol && $0.text == "(" }),
                let close = tokens[open...].firstIndex(where: { $0.kind == .symbol && $0.text == ")" })
            else { continue }
            let columns = tokens[(open + 1)..<close].compactMap { $0.text == "," ? nil : $0.nameValue }
            scan(tokens[close...], columns: columns)
        }
        return result
    }

    /// The index of the token after the table name when `tokens` (significant tokens) start
    /// `CREATE [TEMP|TEMPORARY] TABLE [IF NOT EXISTS] [schema.]name`; nil for any other statement
    /// (`CREATE VIRTUAL TABLE` included).
    static func afterTableName(_ tokens: [SQLToken]) -> Int? {
        guard tokens.first?.isKeyword("CREATE") == true else { return nil }
        var i = 1
        if i < tokens.count, tokens[i].isKeyword("TEMP") || tokens[i].isKeyword("TEMPORARY") { i += 1 }
        guard i < tokens.count, tokens[i].isKeyword("TABLE") else { return nil }
        i += 1
        if i + 2 < tokens.count, tokens[i].isKeyword("IF"), tokens[i + 1].isKeyword("NOT"),
            tokens[i + 2].isKeyword("EXISTS")
        {
            i += 3
        }
        guard i < tokens.count, tokens[i].nameValue != nil else { return nil }
        i += 1  // the name
        if i + 1 < tokens.count, tokens[i].kind == .symbol, tokens[i].text == ".", tokens[i + 1].nameValue != nil {
            i += 2
        }
        return i
    }

    /// True when `tokens` (significant tokens) are a `CREATE TABLE` with a column list: what this
    /// parser reads.
    static func isCreateTable(_ tokens: [SQLToken]) -> Bool {
        guard let i = afterTableName(tokens), i < tokens.count else { return false }
        return tokens[i].kind == .symbol && tokens[i].text == "("
    }

    /// True for `CREATE [TEMP] TABLE [IF NOT EXISTS] [schema.]name AS ...`, from its significant tokens.
    static func isCreateTableAsSelect(_ tokens: [SQLToken]) -> Bool {
        guard let i = afterTableName(tokens), i < tokens.count else { return false }
        return tokens[i].isKeyword("AS")
    }
}

/// `-- @renamed from=OLD`: the hint that a table or column was renamed rather than replaced.
package enum RenameHint {
    /// The old name in a comment's text (`-- @renamed from=OLD` or `/* @renamed from=OLD */`,
    /// keywords in any case), or nil when the comment is not a hint. `OLD` may be a bare name or a
    /// double-quoted identifier.
    package static func parse(_ comment: String) -> String? {
        var body = Substring(comment)
        if body.hasPrefix("/*") {
            body = body.dropFirst(2)
            if body.hasSuffix("*/") { body = body.dropLast(2) }
        } else if body.hasPrefix("--") {
            body = body.dropFirst(2)
        }
        // "@renamed", then "from", "=" and the name, blanks allowed between; letters in any case.
        guard let at = body.utf8.firstIndex(of: UInt8(ascii: "@")) else { return nil }
        var rest = body[at...]
        while true {
            if rest.utf8.count >= 8, String(rest.prefix(8)).asciiCaseInsensitiveEquals("@renamed") { break }
            guard let next = rest.dropFirst().utf8.firstIndex(of: UInt8(ascii: "@")) else { return nil }
            rest = body[next...]
        }
        rest = rest.dropFirst(8).drop { $0 == " " || $0 == "\t" }
        guard String(rest.prefix(4)).asciiCaseInsensitiveEquals("from") else { return nil }
        rest = rest.dropFirst(4).drop { $0 == " " || $0 == "\t" }
        guard rest.hasPrefix("=") else { return nil }
        rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
        // A quoted name in any of SQLite's forms ("x", [x], `x`, 'x'), read as SQLite reads it.
        if let first = rest.first, first == "\"" || first == "[" || first == "`" || first == "'" {
            guard let token = SQLTokenizer.tokenize(String(rest)).first, let name = token.nameValue else { return nil }
            return name.isEmpty ? nil : name
        }
        let name = rest.prefix { !$0.isWhitespace }
        return name.isEmpty ? nil : String(name)
    }
}
