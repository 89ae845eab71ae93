/// One column definition of a CREATE TABLE (`name type constraints...`): the one place where a
/// column definition's tokens are read, for the statement's parser and for `ALTER TABLE ... ADD
/// COLUMN`'s rule (``AddColumnDDL/refusals(for:)`` reads ``ColumnDefinition/constraintSummary(of:)``).
extension CreateTableStatement {
    package struct ColumnDefinition: Sendable, Hashable {
        /// The column name (unquoted).
        package let name: String
        /// The whole definition as written: name, type and constraints.
        package let text: String
        /// The definition without the name, normalized (see ``SQLNormalizer``).
        package let normalizedBody: String
        /// Significant tokens of the definition, the name first.
        package let tokens: [SQLToken]
        /// The `-- @renamed from=OLD` hint at the end of the column's line.
        package let renamedFrom: String?

        /// A definition of the column list, from its significant tokens (the name first) and its
        /// exact text.
        init(tokens: [SQLToken], text: String, renamedFrom: String?) {
            let head = tokens.first
            self.name = head.map { $0.nameValue ?? $0.text } ?? ""
            self.text = text
            self.normalizedBody = SQLNormalizer.normalize(tokens: tokens.dropFirst())
            self.tokens = tokens
            self.renamedFrom = renamedFrom
        }

        /// The collation named by `COLLATE name` (unquoted), or nil.
        package var collation: String? {
            guard let i = tokens.firstIndex(where: { $0.isKeyword("COLLATE") }), i + 1 < tokens.count else {
                return nil
            }
            return tokens[i + 1].nameValue ?? tokens[i + 1].text
        }

        /// True for `PRIMARY KEY DESC` (which makes an INTEGER column no rowid alias).
        package var isPrimaryKeyDescending: Bool {
            guard let i = tokens.firstIndex(where: { $0.isKeyword("PRIMARY") }) else { return false }
            return tokens[i...].dropFirst().prefix(2).contains { $0.isKeyword("DESC") }
        }

        /// True for a generated column: `GENERATED ALWAYS AS (...)` or `AS (...)` outside
        /// parentheses (nothing else in a column definition uses the keyword AS there; `CAST(x AS
        /// TEXT)` in a CHECK or DEFAULT is inside parentheses).
        package var isGenerated: Bool {
            var depth = 0
            for token in tokens.dropFirst() {
                if token.kind == .symbol, token.text == "(" { depth += 1 }
                if token.kind == .symbol, token.text == ")" { depth -= 1 }
                if depth == 0, token.isKeyword("AS") || token.isKeyword("GENERATED") { return true }
            }
            return false
        }
    }
}

extension CreateTableStatement.ColumnDefinition {
    /// The constraints of a column definition that ``AddColumnDDL/refusals(for:)`` looks at.
    package struct ConstraintSummary: Sendable, Hashable {
        package enum DefaultValue: Sendable, Hashable { case none, null, constant, nonConstant }

        package var isPrimaryKey = false
        package var isUnique = false
        package var isNotNull = false
        package var isGenerated = false
        package var isStoredGenerated = false
        package var hasReferences = false
        package var defaultValue = DefaultValue.none
    }

    /// The definition's constraints, read from its tokens outside parentheses, so that a
    /// `CHECK (x IS NOT NULL)` or an `ON DELETE SET DEFAULT` is not mistaken for a constraint.
    package var constraintSummary: ConstraintSummary { Self.constraintSummary(of: tokens) }

    /// The constraints of a definition on its own (`name type constraints...`, as `ALTER TABLE
    /// ... ADD COLUMN` takes it), from its significant tokens, the name first.
    package static func constraintSummary(of definition: String) -> ConstraintSummary {
        constraintSummary(of: SQLTokenizer.significantTokens(definition))
    }

    private static func constraintSummary(of tokens: [SQLToken]) -> ConstraintSummary {
        var summary = ConstraintSummary()
        var depth = 0
        var i = 1  // after the column name
        while i < tokens.count {
            let t = tokens[i]
            i += 1
            if t.kind == .symbol, t.text == "(" {
                depth += 1
                continue
            }
            if t.kind == .symbol, t.text == ")" {
                depth -= 1
                continue
            }
            guard depth == 0, t.kind == .word else { continue }
            let next = i < tokens.count ? tokens[i] : nil
            if t.isKeyword("CONSTRAINT") || t.isKeyword("COLLATE") {
                i += 1  // the constraint's or collation's name
            } else if t.isKeyword("PRIMARY") {
                summary.isPrimaryKey = true
            } else if t.isKeyword("UNIQUE") {
                summary.isUnique = true
            } else if t.isKeyword("NOT"), next?.isKeyword("NULL") == true {
                summary.isNotNull = true
                i += 1
            } else if t.isKeyword("AS") {
                summary.isGenerated = true
            } else if t.isKeyword("STORED"), summary.isGenerated {
                summary.isStoredGenerated = true
            } else if t.isKeyword("REFERENCES") {
                summary.hasReferences = true
            } else if t.isKeyword("DEFAULT"), i >= 2, !tokens[i - 2].isKeyword("SET"), let value = next {
                // `ON DELETE SET DEFAULT` (a foreign key action) is not a default value.
                if value.text == "("
                    || ["CURRENT_TIME", "CURRENT_DATE", "CURRENT_TIMESTAMP"].contains(where: value.isKeyword)
                {
                    summary.defaultValue = .nonConstant
                } else if value.isKeyword("NULL") {
                    summary.defaultValue = .null
                    i += 1
                } else {
                    summary.defaultValue = .constant
                    i += value.kind == .symbol ? 2 : 1  // a signed number: `-1`
                }
            }
        }
        return summary
    }
}
