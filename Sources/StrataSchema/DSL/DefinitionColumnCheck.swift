import StrataSQLite

/// The DSL's column-name checks: every column an index, a key, a foreign key or a CHECK
/// constraint names must be a column of the table it applies to. A wrong name is refused before
/// any SQL runs, naming the column and the nearest existing name, whatever
/// ``StrataSQLite/Configuration/acceptsDoubleQuotedStringLiterals`` says (with it on, SQLite
/// would take a misspelled `"name"` in an expression for the string `'name'`).
enum DefinitionColumnCheck {
    /// `"titel" is not a column of table "note" (nearest: "title"; columns: "id", "title")`.
    static func unknownColumn(
        _ name: String, in what: String, table: String, columns: [String]
    ) -> SchemaDefinitionError {
        let nearest = nearestName(to: name, in: columns).map { "nearest: \(SQL.quoteIdentifier($0)); " } ?? ""
        return SchemaDefinitionError(
            "table \(SQL.quoteIdentifier(table)): \(what) names column \(SQL.quoteIdentifier(name)), which is not a "
                + "column of the table (\(nearest)columns: \(SQL.quotedList(columns)))",
            culprit: table)
    }

    /// SQLite's `no such column: X` (a bare name in raw SQL, which SQLite resolves itself) as a
    /// ``SchemaDefinitionError`` naming the column and the nearest existing name; any other
    /// error as it is.
    static func naming(_ error: SQLiteError, table: String, columns: [String]) -> any Error {
        let prefix = "no such column: "
        guard let range = error.message.range(of: prefix) else { return error }
        let name = String(error.message[range.upperBound...].prefix { $0 != " " && $0 != "\n" })
        guard !name.isEmpty, !contains(columns, name) else { return error }
        return unknownColumn(name, in: "SQL", table: table, columns: columns)
    }

    /// Throws when `name` is not one of `columns` (ASCII letters compared without case, as SQLite does).
    static func require(_ name: String, in what: String, table: String, columns: [String]) throws {
        if !contains(columns, name) { throw unknownColumn(name, in: what, table: table, columns: columns) }
    }

    static func contains(_ columns: [String], _ name: String) -> Bool {
        let folded = name.asciiLowercased()
        return columns.contains { $0.asciiLowercased() == folded }
    }

    /// The column names an expression written in SQL refers to in double quotes (SQL identifiers
    /// for sure, unlike bare words, which SQLite itself resolves): not a collation name (after
    /// COLLATE), a `"table".` qualifier or a function name (before `(`).
    static func quotedColumnReferences(in sql: String) -> [String] {
        let tokens = SQLTokenizer.significantTokens(sql)
        var names = [String]()
        for (i, token) in tokens.enumerated() {
            guard token.kind == .quotedIdentifier, let name = token.identifierValue else { continue }
            if i > 0, tokens[i - 1].isKeyword("COLLATE") { continue }
            if i + 1 < tokens.count, tokens[i + 1].kind == .symbol,
                tokens[i + 1].text == "." || tokens[i + 1].text == "("
            {
                continue
            }
            if i > 0, tokens[i - 1].kind == .symbol, tokens[i - 1].text == "." { continue }  // "t"."c": qualified
            names.append(name)
        }
        return names
    }

    /// The name of `candidates` closest to `name` by edit distance (letters compared without
    /// case), when it is close enough to be a likely typo: at most a third of the longer name's
    /// length, and at least 1.
    static func nearestName(to name: String, in candidates: [String]) -> String? {
        let target = Array(name.asciiLowercased().unicodeScalars)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let other = Array(candidate.asciiLowercased().unicodeScalars)
            let distance = editDistance(target, other)
            if best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        guard let best, best.distance <= max(1, max(target.count, best.name.unicodeScalars.count) / 3) else {
            return nil
        }
        return best.name
    }

    /// Levenshtein distance, with a transposition of two neighbours counted as one edit.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}

extension TableDefinition {
    /// Checks every column name the table's keys, foreign keys, CHECK constraints, generated
    /// columns and `indexed()` indexes use against its columns; a foreign key's referenced
    /// columns are checked when it references this table, or a table `columnsOf` knows.
    func checkColumnNames(columnsOf: (String) throws -> [String]? = { _ in nil }) throws {
        let names = columns.map(\.name)
        func check(_ name: String, _ what: String) throws {
            try DefinitionColumnCheck.require(name, in: what, table: self.name, columns: names)
        }
        func checkExpression(_ sql: String, _ what: String) throws {
            for name in DefinitionColumnCheck.quotedColumnReferences(in: sql) { try check(name, what) }
        }
        func checkReference(_ clause: ForeignKeyClause) throws {
            let target: [String]?
            if clause.table.asciiLowercased() == self.name.asciiLowercased() {
                target = names
            } else {
                target = try columnsOf(clause.table)
            }
            guard let target else { return }  // not created yet: SQLite checks it when used
            for column in clause.columns {
                try DefinitionColumnCheck.require(
                    column, in: "a foreign key", table: clause.table, columns: target)
            }
        }
        for column in columns {
            for constraint in column.constraints {
                switch constraint.kind {
                case .check(let sql):
                    try checkExpression(sql, "the CHECK constraint of column \(SQL.quoteIdentifier(column.name))")
                case .generated(let sql, _):
                    try checkExpression(sql, "generated column \(SQL.quoteIdentifier(column.name))")
                case .references(let clause): try checkReference(clause)
                default: break
                }
            }
        }
        for constraint in constraints {
            switch constraint.kind {
            case .primaryKey(let columns, _): for name in columns { try check(name, "PRIMARY KEY") }
            case .unique(let columns, _): for name in columns { try check(name, "UNIQUE") }
            case .foreignKey(let columns, let clause):
                for name in columns { try check(name, "FOREIGN KEY") }
                try checkReference(clause)
            case .check(let sql): try checkExpression(sql, "a CHECK constraint")
            case .sql: break
            }
        }
    }
}

extension IndexDefinition {
    /// Checks the columns the index names (in its terms and its WHERE condition) against `columns`.
    func checkColumnNames(_ columns: [String]) throws {
        let what = "index \(SQL.quoteIdentifier(name))"
        for term in self.columns {
            for reference in DefinitionColumnCheck.quotedColumnReferences(in: term.expressionSQL) {
                try DefinitionColumnCheck.require(reference, in: what, table: table, columns: columns)
            }
        }
        if let condition {
            for reference in DefinitionColumnCheck.quotedColumnReferences(in: condition) {
                try DefinitionColumnCheck.require(
                    reference, in: "the WHERE clause of \(what)", table: table, columns: columns)
            }
        }
    }
}

extension Database {
    /// The columns of `table` in this database (`PRAGMA table_info`), or nil when there is no such table.
    func definitionColumns(of table: String) throws -> [String]? {
        let names = try fetchColumn(String.self, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
        return names.isEmpty ? nil : names
    }
}

extension SchemaDefinition {
    /// Checks the column names of every table and index against the tables of the schema
    /// (declared before them, or after: a schema is one declaration) and, for tables it does not
    /// declare, `columnsOf` (the database's).
    func checkColumnNames(columnsOf: (String) throws -> [String]?) throws {
        var declared = [String: [String]]()
        for case .table(let table) in items { declared[table.name.asciiLowercased()] = table.columns.map(\.name) }
        func columns(of table: String) throws -> [String]? {
            try declared[table.asciiLowercased()] ?? columnsOf(table)
        }
        for item in items {
            switch item {
            case .table(let table):
                try table.checkColumnNames(columnsOf: columns(of:))
                for index in table.indexes { try index.checkColumnNames(table.columns.map(\.name)) }
            case .index(let index):
                if let known = try columns(of: index.table) { try index.checkColumnNames(known) }
            default: break
            }
        }
    }
}
