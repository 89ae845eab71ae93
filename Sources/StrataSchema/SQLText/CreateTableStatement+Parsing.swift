/// The steps of ``CreateTableStatement/init(sql:)``, one function each.
extension CreateTableStatement {
    /// `CREATE [TEMP|TEMPORARY] TABLE [IF NOT EXISTS] [schema.]name (`: the name, where it is, and
    /// the opening parenthesis of the column list.
    struct Head {
        var name: String
        /// The byte range of the name token in the statement.
        var nameRange: Range<Int>
        /// The index of the `(` that opens the column list.
        var open: Int
        /// The line of `CREATE`.
        var createLine: Int

        init(_ all: [SQLToken], sql: String) throws {
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
            createLine = all[i - 1].line
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
                throw SchemaError(
                    code: .unsupported,
                    message: "table \(name): CREATE TABLE ... AS SELECT is not supported as a desired definition",
                    culprit: name)
            }
            self.open = i
        }
    }

    /// The last `-- @renamed from=` hint among the comments at `indexes` in `all`, marked as
    /// attached; nil if none.
    static func tableHint(in all: [SQLToken], at indexes: some Sequence<Int>, attached: inout Set<Int>) -> String? {
        var hint: String?
        for k in indexes where all[k].kind == .lineComment || all[k].kind == .blockComment {
            if let h = RenameHint.parse(all[k].text) {
                hint = h
                attached.insert(k)
            }
        }
        return hint
    }

    /// The elements of the column list opened at `open`, split on its top-level commas (indexes
    /// into `all`, trivia included), and the index of its closing parenthesis.
    static func elements(of all: [SQLToken], open: Int, table name: String) throws -> (elements: [[Int]], close: Int) {
        var elements = [[Int]]()
        var current = [Int]()
        var depth = 0
        var i = open + 1
        var close = all.count
        while i < all.count {
            let t = all[i]
            if t.kind == .symbol {
                if t.text == "(" {
                    depth += 1
                } else if t.text == ")" {
                    if depth == 0 {
                        close = i
                        break
                    }
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
            throw SchemaError(
                code: .unsupported, message: "table \(name): unbalanced parentheses in CREATE TABLE", culprit: name)
        }
        return (elements, close)
    }

    /// The rename hint of the column `element` (from its first to its last significant token):
    /// a comment inside the definition after its name (the end of the first line of a definition
    /// that continues on the next lines, its CHECK below it), or a line comment after the
    /// definition before the end of its line (it may sit after the separating comma, which
    /// belongs to no element); the last one found wins. Marks the hints it reads as attached.
    static func columnHint(
        of element: [Int], in all: [SQLToken], tokens: (first: Int, last: Int), attached: inout Set<Int>
    ) -> String? {
        var hint: String? = nil
        for k in element where k > tokens.first && all[k].kind != .whitespace && all[k].isTrivia {
            if let h = RenameHint.parse(all[k].text) {
                hint = h
                attached.insert(k)
            }
        }
        let lastLine = all[tokens.last].line
        var j = tokens.last + 1
        while j < all.count {
            let t = all[j]
            if t.isTrivia, t.kind != .whitespace, t.line == lastLine, let h = RenameHint.parse(t.text) {
                hint = h
                attached.insert(j)
            }
            if !t.isTrivia, ![",", ")", ";"].contains(t.text) { break }
            if t.kind == .whitespace, t.text.contains("\n") { break }
            j += 1
        }
        return hint
    }
}
