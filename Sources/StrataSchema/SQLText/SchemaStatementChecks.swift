import StrataSQLite

/// Checks on one statement of a desired schema that depend on the SQLite version it runs on.
enum SchemaStatementChecks {
    /// The features newer than Strata's floor that `tokens` (a statement's significant tokens)
    /// use: generated columns and STRICT in CREATE TABLE, the JSON operators anywhere.
    static func features(of tokens: [SQLToken]) -> [SQLiteFeature] {
        var found = [SQLiteFeature]()
        if tokens.contains(where: { $0.kind == .symbol && ($0.text == "->" || $0.text == "->>") }) {
            found.append(.jsonOperators)
        }
        guard let table = createTableParts(tokens) else { return found }
        if table.definitions.contains(where: isGeneratedColumn) { found.append(.generatedColumns) }
        if table.options.contains(where: { $0.isKeyword("STRICT") }) { found.append(.strictTables) }
        return found
    }

    /// The first feature `tokens` use that `capabilities` lack, as the one-line reason.
    static func missingFeature(_ tokens: [SQLToken], _ capabilities: SQLiteCapabilities) -> String? {
        features(of: tokens).first { !capabilities.supports($0) }.map { $0.unavailableMessage(capabilities.version) }
    }

    /// A column definition (not a table constraint) with `GENERATED ALWAYS AS` or `AS (...)`
    /// outside parentheses: nothing else in a column definition uses the keyword AS there
    /// (`CAST(x AS TEXT)` in a CHECK or DEFAULT is inside parentheses).
    private static func isGeneratedColumn(_ definition: ArraySlice<SQLToken>) -> Bool {
        guard let first = definition.first, !isTableConstraintStart(first) else { return false }
        var depth = 0
        for token in definition.dropFirst() {
            if token.kind == .symbol, token.text == "(" { depth += 1 }
            if token.kind == .symbol, token.text == ")" { depth -= 1 }
            if depth == 0, token.isKeyword("AS") || token.isKeyword("GENERATED") { return true }
        }
        return false
    }

    private static func isTableConstraintStart(_ token: SQLToken) -> Bool {
        ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"].contains { token.isKeyword($0) }
    }

    /// A CREATE TABLE's column list split at its top-level commas, and the words after its
    /// closing parenthesis; nil for any other statement (CREATE TABLE ... AS SELECT included).
    private static func createTableParts(_ tokens: [SQLToken]) -> (definitions: [ArraySlice<SQLToken>], options: ArraySlice<SQLToken>)? {
        guard tokens.count > 3, tokens[0].isKeyword("CREATE"),
            let tableKeyword = tokens.prefix(3).firstIndex(where: { $0.isKeyword("TABLE") }),
            let open = tokens[tableKeyword...].firstIndex(where: { $0.kind == .symbol && $0.text == "(" })
        else { return nil }
        var definitions = [ArraySlice<SQLToken>]()
        var depth = 0
        var start = open + 1
        for i in (open + 1)..<tokens.count {
            let token = tokens[i]
            guard token.kind == .symbol else { continue }
            if token.text == "(" { depth += 1 }
            if token.text == ")" {
                if depth == 0 {
                    definitions.append(tokens[start..<i])
                    return (definitions, tokens[(i + 1)...])
                }
                depth -= 1
            }
            if token.text == ",", depth == 0 {
                definitions.append(tokens[start..<i])
                start = i + 1
            }
        }
        return nil
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
        _ tokens: [SQLToken], runtime: SQLiteVersion, columnsOf: (String) throws -> [String]?
    ) rethrows -> String? {
        guard runtime < SQLiteVersion(3, 29), tokens.contains(where: { $0.text.hasPrefix("\"") }) else { return nil }
        if let table = createTableParts(tokens) {
            var columns = Set<String>()
            for definition in table.definitions {
                if let first = definition.first, !isTableConstraintStart(first), let name = first.nameValue {
                    columns.insert(name.asciiLowercased())
                }
            }
            for definition in table.definitions {
                for expression in expressions(in: definition, after: ["CHECK", "DEFAULT", "AS"]) {
                    if let bad = firstUnknown(in: expression, columns: columns) { return bad }
                }
            }
            return nil
        }
        // CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table ( keys ) [WHERE expr]
        guard tokens.first?.isKeyword("CREATE") == true,
            let on = tokens.firstIndex(where: { $0.isKeyword("ON") }),
            tokens.prefix(upTo: on).contains(where: { $0.isKeyword("INDEX") }),
            on + 2 < tokens.count, let table = tokens[on + 1].nameValue,
            let known = try columnsOf(table)
        else { return nil }
        let columns = Set(known.map { $0.asciiLowercased() })
        if let bad = firstUnknown(in: tokens[(on + 2)...], columns: columns, tableName: table) { return bad }
        return nil
    }

    /// The parenthesised expressions that follow one of `keywords` in a column or constraint
    /// definition (`CHECK (...)`, `DEFAULT (...)`, `AS (...)`), each without its parentheses.
    private static func expressions(in definition: ArraySlice<SQLToken>, after keywords: [String]) -> [ArraySlice<SQLToken>] {
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
            guard token.kind == .quotedIdentifier, token.text.hasPrefix("\""), let name = token.identifierValue else { continue }
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
