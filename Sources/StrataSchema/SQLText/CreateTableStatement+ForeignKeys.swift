extension CreateTableStatement {
    /// The statement with every foreign key taken out (the `REFERENCES` clauses of its columns,
    /// with their `CONSTRAINT name`, and its `FOREIGN KEY` table constraints), the rest as written
    /// to the byte; nil when it declares none, or when one cannot be told apart (a constraint
    /// first in the list). The new table of an online rebuild is created so while the rows are
    /// copied (``OnlineRebuildDDL/stagingCreateSQL``).
    ///
    /// ```swift
    /// let t = try CreateTableStatement(sql: "CREATE TABLE c(id INTEGER PRIMARY KEY, p INT REFERENCES p ON DELETE SET NULL)")
    /// t.withoutForeignKeys  // "CREATE TABLE c(id INTEGER PRIMARY KEY, p INT )"
    /// ```
    /// See <https://www.sqlite.org/syntax/foreign-key-clause.html>.
    package var withoutForeignKeys: String? {
        guard !foreignKeys.isEmpty else { return nil }
        let all = SQLTokenizer.tokenize(sql)
        guard let head = try? Head(all, sql: sql),
            let (elements, _) = try? Self.elements(of: all, open: head.open, table: head.name)
        else { return nil }
        var cuts = [Range<Int>]()
        func end(_ index: Int) -> Int { all[index].offset + all[index].text.utf8.count }
        for (e, element) in elements.enumerated() {
            let significant = element.filter { !all[$0].isTrivia }
            guard let first = significant.first, let last = significant.last else { continue }
            if Self.isTableConstraintStart(all[first]) {
                let k = all[first].isKeyword("CONSTRAINT") ? 2 : 0
                guard k < significant.count, all[significant[k]].isKeyword("FOREIGN") else { continue }
                // The comma before it goes too; a constraint first in the list has none.
                guard e > 0, let comma = element.first.map({ $0 - 1 }), all[comma].text == "," else { return nil }
                cuts.append(all[comma].offset..<end(comma))
                cuts.append(all[first].offset..<end(last))
                continue
            }
            var i = 1  // after the column name
            var depth = 0
            while i < significant.count {
                let t = all[significant[i]]
                if t.kind == .symbol, t.text == "(" { depth += 1 }
                if t.kind == .symbol, t.text == ")" { depth -= 1 }
                guard depth == 0, t.isKeyword("REFERENCES") else {
                    i += 1
                    continue
                }
                let start = i >= 3 && all[significant[i - 2]].isKeyword("CONSTRAINT") ? i - 2 : i
                let clauseEnd = Self.foreignKeyClauseEnd(significant.map { all[$0] }, references: i)
                cuts.append(all[significant[start]].offset..<end(significant[clauseEnd]))
                i = clauseEnd + 1
            }
        }
        var bytes = Array(sql.utf8)
        for cut in cuts.sorted(by: { $0.lowerBound > $1.lowerBound }) { bytes.removeSubrange(cut) }
        let result = String(decoding: bytes, as: UTF8.self)
        // What is left must be the same table without any foreign key.
        guard let parsed = try? CreateTableStatement(sql: result), parsed.foreignKeys.isEmpty,
            parsed.columns.count == columns.count, parsed.name == name
        else { return nil }
        return result
    }

    /// The index of the last token of the foreign-key clause whose `REFERENCES` is at
    /// `references` in `tokens`: `REFERENCES name [(columns)]`, then any `ON DELETE|UPDATE
    /// action`, `MATCH name` and `[NOT] DEFERRABLE [INITIALLY DEFERRED|IMMEDIATE]`.
    static func foreignKeyClauseEnd(_ tokens: [SQLToken], references: Int) -> Int {
        var i = references + 1  // the parent table
        var last = min(i, tokens.count - 1)
        i += 1
        func keyword(_ k: Int, _ word: String) -> Bool { k < tokens.count && tokens[k].isKeyword(word) }
        if i < tokens.count, tokens[i].kind == .symbol, tokens[i].text == "(" {
            while i < tokens.count, !(tokens[i].kind == .symbol && tokens[i].text == ")") { i += 1 }
            last = min(i, tokens.count - 1)
            i += 1
        }
        while i < tokens.count {
            if keyword(i, "ON"), keyword(i + 1, "DELETE") || keyword(i + 1, "UPDATE") {
                // SET NULL, SET DEFAULT, NO ACTION: two words; CASCADE, RESTRICT: one.
                let two = keyword(i + 2, "SET") || keyword(i + 2, "NO")
                last = min(i + (two ? 3 : 2), tokens.count - 1)
            } else if keyword(i, "MATCH") {
                last = min(i + 1, tokens.count - 1)
            } else if keyword(i, "NOT"), keyword(i + 1, "DEFERRABLE") {
                last = i + 1
                if keyword(i + 2, "INITIALLY") { last = min(i + 3, tokens.count - 1) }
            } else if keyword(i, "DEFERRABLE") {
                last = i
                if keyword(i + 1, "INITIALLY") { last = min(i + 2, tokens.count - 1) }
            } else {
                break
            }
            i = last + 1
        }
        return last
    }
}
