import StrataSQLite

extension Schema {
    /// The desired schema described by `sql`: CREATE TABLE / INDEX / VIEW / TRIGGER /
    /// VIRTUAL TABLE statements, executed into a scratch in-memory database (SQLite is the
    /// parser) and read back with the same code as a live database.
    ///
    /// `-- @renamed from=OLD` hints are kept on the tables and columns they belong to.
    /// Invalid SQL throws ``SchemaError`` with code ``SchemaError/Code/invalidSQL`` quoting the
    /// statement and SQLite's message; so do a FOREIGN KEY naming a missing table and a view
    /// that does not compile.
    ///
    /// ```swift
    /// let desired = try Schema(sql: String(contentsOfFile: "schema.sql"))
    /// ```
    public init(sql: String) throws {
        let statements = DesiredSchemaText.split(sql)
        // Strict parsing: a mistyped column name in "double quotes" is an error, not a string.
        var configuration = Configuration()
        configuration.acceptsDoubleQuotedStringLiterals = false
        let scratch = try Database(inMemory: configuration)
        defer { scratch.close() }
        for (number, statement) in statements.enumerated() {
            let tokens = SQLTokenizer.significantTokens(statement)
            guard let first = tokens.first else { continue }
            guard first.isKeyword("CREATE") else {
                throw SchemaError(
                    code: .invalidSQL,
                    message: "statement \(number + 1) `\(DesiredSchemaText.excerpt(statement))`: "
                        + "a desired schema holds only CREATE statements")
            }
            let objects = "SELECT (SELECT count(*) FROM sqlite_master), (SELECT count(*) FROM sqlite_temp_master)"
            let before = try scratch.fetchAll(sql: objects).first?.values
            do {
                try scratch.execute(sql: statement)
            } catch let error as SQLiteError {
                throw SchemaError(
                    code: .invalidSQL,
                    message: "statement \(number + 1) `\(DesiredSchemaText.excerpt(statement))`: "
                        + (error.message ?? error.description),
                    underlying: error)
            }
            // A statement that created nothing in the main schema would be silently ignored.
            let after = try scratch.fetchAll(sql: objects).first?.values
            if after?.first == before?.first {
                let temporary = after?.last != before?.last
                throw SchemaError(
                    code: .invalidSQL,
                    message: "statement \(number + 1) `\(DesiredSchemaText.excerpt(statement))`: "
                        + (temporary
                            ? "creates a temporary object, which is not part of a database schema"
                            : "creates nothing: an object of that name already exists (IF NOT EXISTS hides a second definition)"))
            }
        }
        var schema = try Schema.read(from: scratch)
        try schema.validateDesired(in: scratch)
        try schema.attachHints(from: statements)
        self = schema
    }

    /// Checks what SQLite accepts at CREATE time but a desired schema must not hold: a FOREIGN
    /// KEY to a missing table or column, a view that does not compile.
    func validateDesired(in db: Database) throws {
        for table in tables {
            for fk in table.foreignKeys {
                guard let parent = self.table(named: fk.parentTable) else {
                    throw SchemaError(
                        code: .invalidSQL,
                        message: "table \(table.name): FOREIGN KEY (\(fk.columns.joined(separator: ", "))) "
                            + "references missing table \(fk.parentTable)")
                }
                for case let column? in fk.parentColumns where parent.column(named: column) == nil && !parent.isVirtual {
                    throw SchemaError(
                        code: .invalidSQL,
                        message: "table \(table.name): FOREIGN KEY references missing column "
                            + "\(parent.name).\(column)")
                }
            }
        }
        for view in views {
            do {
                _ = try db.makeStatement(sql: "SELECT * FROM \(SQL.quoteIdentifier(view.name)) LIMIT 0")
            } catch let error as SQLiteError {
                throw SchemaError(
                    code: .invalidSQL,
                    message: "view \(view.name) `\(DesiredSchemaText.excerpt(view.sql))`: \(error.message ?? "\(error)")",
                    underlying: error)
            }
        }
    }

    /// Copies `-- @renamed from=` hints from the raw statements onto the tables and columns.
    mutating func attachHints(from statements: [String]) throws {
        for statement in statements where statement.contains("@renamed") {
            let tokens = SQLTokenizer.significantTokens(statement)
            guard tokens.count > 2, tokens[0].isKeyword("CREATE"),
                tokens.prefix(4).contains(where: { $0.isKeyword("TABLE") }),
                !tokens[1].isKeyword("VIRTUAL"),
                statement.contains("@renamed")
            else { continue }
            let parsed = try CreateTableStatement(sql: statement)
            guard let index = tables.firstIndex(where: { $0.key == parsed.name.asciiLowercased() }) else { continue }
            tables[index].renamedFrom = parsed.renamedFrom
            for definition in parsed.columns where definition.renamedFrom != nil {
                if let c = tables[index].columns.firstIndex(where: {
                    $0.name.asciiCaseInsensitiveEquals(definition.name)
                }) {
                    tables[index].columns[c].renamedFrom = definition.renamedFrom
                }
            }
        }
    }
}

/// Splitting of a schema script into statements.
enum DesiredSchemaText {
    /// Splits `sql` at the semicolons that end statements (SQLite's `sqlite3_complete` decides,
    /// so semicolons in strings, comments and trigger bodies stay). A comment on the same line
    /// after a statement's semicolon stays with that statement.
    static func split(_ sql: String) -> [String] {
        let tokens = SQLTokenizer.tokenize(sql)
        var statements = [String]()
        var current = ""
        var i = 0
        while i < tokens.count {
            let t = tokens[i]
            current += t.text
            i += 1
            if t.kind == .symbol, t.text == ";", SQLiteText.isComplete(current) {
                // Keep a trailing same-line comment with the statement.
                var j = i
                var tail = ""
                while j < tokens.count, tokens[j].kind == .whitespace, !tokens[j].text.contains("\n") {
                    tail += tokens[j].text
                    j += 1
                }
                if j < tokens.count, tokens[j].kind == .lineComment {
                    current += tail + tokens[j].text
                    i = j + 1
                }
                statements.append(current)
                current = ""
            }
        }
        if !SQLTokenizer.significantTokens(current).isEmpty { statements.append(current) }
        return statements.map { $0.trimmedSQL(" \t\r\n") }
    }

    /// The statement shortened for messages: one line, at most 120 characters.
    static func excerpt(_ sql: String) -> String {
        let oneLine = sql.split(whereSeparator: \.isNewline).map { $0.trimmedSQL(" \t") }
            .joined(separator: " ")
        return oneLine.count > 120 ? String(oneLine.prefix(117)) + "..." : oneLine
    }
}

extension StringProtocol {
    func trimmedSQL(_ set: String) -> String {
        let chars = Set(set)
        var s = Substring(self)
        while let f = s.first, chars.contains(f) { s.removeFirst() }
        while let l = s.last, chars.contains(l) { s.removeLast() }
        return String(s)
    }
}
