import StrataSQLite

/// Checks on one statement of a desired schema that depend on the SQLite version it runs on.
enum SchemaStatementChecks {
    /// The features newer than Strata's floor that `statement` uses: generated columns and
    /// STRICT in CREATE TABLE (read by ``CreateTableStatement``), the JSON operators anywhere.
    /// `tokens` are the statement's significant tokens.
    static func features(of statement: String, tokens: [SQLToken]) -> [SQLiteFeature] {
        var found = [SQLiteFeature]()
        if tokens.contains(where: { $0.kind == .symbol && ($0.text == "->" || $0.text == "->>") }) {
            found.append(.jsonOperators)
        }
        // Parsed only when a keyword of either feature is there at all.
        guard CreateTableStatement.isCreateTable(tokens),
            tokens.contains(where: { $0.isKeyword("AS") || $0.isKeyword("GENERATED") || $0.isKeyword("STRICT") }),
            let table = try? ParseCache.createTable(statement)
        else { return found }
        if table.columns.contains(where: \.isGenerated) { found.append(.generatedColumns) }
        if table.isStrict { found.append(.strictTables) }
        return found
    }

    /// ``features(of:tokens:)`` of `statement`, tokenized here.
    static func features(of statement: String) -> [SQLiteFeature] {
        features(of: statement, tokens: SQLTokenizer.significantTokens(statement))
    }

    /// The first feature `statement` (its significant `tokens`) uses that `capabilities` lack,
    /// as the one-line reason.
    static func missingFeature(_ statement: String, _ tokens: [SQLToken], _ capabilities: SQLiteCapabilities) -> String?
    {
        features(of: statement, tokens: tokens).first { !capabilities.supports($0) }
            .map { $0.unavailableMessage(capabilities.version) }
    }

    // MARK: Double-quoted strings before SQLite 3.29

    /// Before 3.29 SQLite cannot be told to refuse double-quoted string literals
    /// (SQLITE_DBCONFIG_DQS_DDL), so `CHECK ("typo" > 0)` silently compares the string 'typo'. On
    /// such a runtime every double-quoted token in an expression of a CREATE TABLE (CHECK,
    /// DEFAULT (...), generated column) or of a CREATE INDEX (its key expressions and WHERE) must
    /// name a column of that table; the first that does not is returned, with where it was found.
    /// From 3.29 SQLite itself refuses them ("no such column"), so nothing is checked.
    ///
    /// - Parameter columnsOf: the columns of a table already in the schema (for CREATE INDEX).
    static func unresolvedDoubleQuotedName(
        _ statement: String, _ tokens: [SQLToken], runtime: SQLiteVersion, columnsOf: (String) throws -> [String]?
    ) rethrows -> String? {
        guard runtime < SQLiteVersion(3, 29), tokens.contains(where: { $0.text.hasPrefix("\"") }) else { return nil }
        if CreateTableStatement.isCreateTable(tokens) {
            // A statement the parser refuses is left to SQLite, which reports its error.
            guard let table = try? ParseCache.createTable(statement) else { return nil }
            let columns = Set(table.columns.map { $0.name.asciiLowercased() })
            for definition in table.columns.map(\.tokens) + table.constraintTokens {
                for expression in expressions(in: definition[...], after: ["CHECK", "DEFAULT", "AS"]) {
                    if let bad = firstUnknown(in: expression, columns: columns) { return bad }
                }
            }
            return nil
        }
        guard let index = CreateIndexStatement(tokens: tokens), let known = try columnsOf(index.table) else {
            return nil
        }
        let columns = Set(known.map { $0.asciiLowercased() })
        return firstUnknown(in: index.body, columns: columns, tableName: index.table)
    }

    /// ``unresolvedDoubleQuotedName(_:_:runtime:columnsOf:)`` of `statement`, tokenized here.
    static func unresolvedDoubleQuotedName(
        _ statement: String, runtime: SQLiteVersion, columnsOf: (String) throws -> [String]?
    ) rethrows -> String? {
        try unresolvedDoubleQuotedName(
            statement, SQLTokenizer.significantTokens(statement), runtime: runtime, columnsOf: columnsOf)
    }

    /// The parenthesised expressions that follow one of `keywords` in a column or constraint
    /// definition (`CHECK (...)`, `DEFAULT (...)`, `AS (...)`), each without its parentheses.
    private static func expressions(
        in definition: ArraySlice<SQLToken>, after keywords: [String]
    ) -> [ArraySlice<SQLToken>] {
        var result = [ArraySlice<SQLToken>]()
        var i = definition.startIndex
        while i < definition.endIndex {
            let token = definition[i]
            i += 1
            guard keywords.contains(where: { token.isKeyword($0) }), i < definition.endIndex,
                definition[i].kind == .symbol, definition[i].text == "("
            else { continue }
            var depth = 0
            let start = i + 1
            while i < definition.endIndex {
                if definition[i].kind == .symbol, definition[i].text == "(" { depth += 1 }
                if definition[i].kind == .symbol, definition[i].text == ")" {
                    depth -= 1
                    if depth == 0 { break }
                }
                i += 1
            }
            result.append(definition[start..<min(i, definition.endIndex)])
        }
        return result
    }

    /// The first double-quoted token of `tokens` that is not a column in `columns` — skipping
    /// collation names (after COLLATE), a `"table".` qualifier and function names (before `(`).
    private static func firstUnknown(
        in tokens: ArraySlice<SQLToken>, columns: Set<String>, tableName: String? = nil
    ) -> String? {
        var previous: SQLToken?
        for i in tokens.indices {
            let token = tokens[i]
            defer { previous = token }
            guard token.kind == .quotedIdentifier, token.text.hasPrefix("\""), let name = token.identifierValue else {
                continue
            }
            if previous?.isKeyword("COLLATE") == true { continue }
            let next = i + 1 < tokens.endIndex ? tokens[i + 1] : nil
            if next?.kind == .symbol, next?.text == "." || next?.text == "(" { continue }
            if !columns.contains(name.asciiLowercased()) {
                return "\"\(name)\" is not a column\(tableName.map { " of \($0)" } ?? ""): before SQLite 3.29 "
                    + "it would be taken as the string '\(name)'; write strings in single quotes"
            }
        }
        return nil
    }
}
