/// A script of SQL statements split into its statements: the one splitter for SQL text that
/// Strata reads statement by statement (a desired schema). Scripts that are only run (a
/// migration file, `Database.execute(sql:)`) are split by SQLite itself as it compiles them.
///
/// ```swift
/// let statements = SQLScript.statements(in: """
///     CREATE TABLE t(a); -- @renamed from=x
///     CREATE TRIGGER tr AFTER INSERT ON t BEGIN UPDATE t SET a = 1; END;;
///     """)
/// statements.map(\.text)
/// // ["CREATE TABLE t(a); -- @renamed from=x",
/// //  "CREATE TRIGGER tr AFTER INSERT ON t BEGIN UPDATE t SET a = 1; END;"]
/// ```
///
/// Statements end where SQLite's `sqlite3_complete` says they do (semicolons in strings,
/// comments and trigger bodies stay), empty statements (`;;`) are dropped, and a comment on the
/// same line after a statement's semicolon stays with that statement (it may hold a
/// `-- @renamed from=` hint). The text is tokenized once; each statement keeps its tokens.
/// See <https://www.sqlite.org/c3ref/complete.html>.
package enum SQLScript {
    /// `statement` ending in `;`, for a script of statements one after the other (a migration
    /// file, a plan's SQL, a schema dump). Statements as SQLite stores them end without one and
    /// never with a comment.
    package static func terminated(_ statement: String) -> String {
        statement.hasSuffix(";") ? statement : statement + ";"
    }

    /// One statement of a script.
    package struct Statement: Sendable, Hashable {
        /// The statement as written, with its semicolon and a comment after it on the same line;
        /// leading and trailing white space trimmed.
        package let text: String
        /// The statement's tokens, trivia included, as they are in the script.
        package let tokens: [SQLToken]

        /// The tokens that are not whitespace or comments (the semicolon included).
        package var significantTokens: [SQLToken] { tokens.filter { !$0.isTrivia } }

        /// True when one of the statement's comments is a rename hint (``RenameHint``).
        package var hasRenameHint: Bool {
            tokens.contains {
                ($0.kind == .lineComment || $0.kind == .blockComment) && RenameHint.parse($0.text) != nil
            }
        }
    }

    /// The statements of `sql`, in order (see ``SQLScript``).
    package static func statements(in sql: String) -> [Statement] {
        let tokens = SQLTokenizer.tokenize(sql)
        var statements = [Statement]()
        var start = 0  // first token of the statement being read
        // Whether the statement holds anything but trivia and semicolons: an empty statement
        // (`;;`) is nothing to run.
        var hasContent = false
        var state = StatementEnd.start
        var i = 0
        func finish(_ end: Int) {
            if hasContent {
                let slice = tokens[start..<end]
                let text = slice.map(\.text).joined().trimmedSQL(" \t\r\n")
                statements.append(Statement(text: text, tokens: Array(slice)))
            }
            start = end
            hasContent = false
        }
        while i < tokens.count {
            let t = tokens[i]
            i += 1
            state = state.next(t)
            let isSemicolon = t.kind == .symbol && t.text == ";"
            if !t.isTrivia, !isSemicolon { hasContent = true }
            if state == .start, isSemicolon {
                // Keep a trailing same-line comment with the statement.
                var j = i
                while j < tokens.count, tokens[j].kind == .whitespace, !tokens[j].text.contains("\n") { j += 1 }
                if j < tokens.count, tokens[j].kind == .lineComment { i = j + 1 }
                finish(i)
            }
        }
        finish(tokens.count)
        return statements
    }

    /// Where statements end: SQLite's `sqlite3_complete` state machine (complete.c), run once
    /// over the tokens instead of once per semicolon (which is quadratic in a trigger body of
    /// thousands of statements). A semicolon ends a statement when it leaves the machine in
    /// ``start``; inside `CREATE TRIGGER ... BEGIN ... END` it does not until `END;`.
    /// See <https://www.sqlite.org/c3ref/complete.html>.
    enum StatementEnd: Int {
        case invalid, start, normal, explain, create, trigger, semi, end

        /// complete.c's `trans[state][token]`, tokens in the order semicolon, whitespace, other,
        /// EXPLAIN, CREATE, TEMP, TRIGGER, END.
        private static let transitions: [[StatementEnd]] = [
            [.start, .invalid, .normal, .explain, .create, .normal, .normal, .normal],  // invalid
            [.start, .start, .normal, .explain, .create, .normal, .normal, .normal],  // start
            [.start, .normal, .normal, .normal, .normal, .normal, .normal, .normal],  // normal
            [.start, .explain, .explain, .normal, .create, .normal, .normal, .normal],  // explain
            [.start, .create, .normal, .normal, .normal, .create, .trigger, .normal],  // create
            [.semi, .trigger, .trigger, .trigger, .trigger, .trigger, .trigger, .trigger],  // trigger
            [.semi, .semi, .trigger, .trigger, .trigger, .trigger, .trigger, .end],  // semi
            [.start, .end, .trigger, .trigger, .trigger, .trigger, .trigger, .trigger],  // end
        ]

        func next(_ token: SQLToken) -> StatementEnd {
            let column: Int
            switch token.kind {
            case .whitespace, .lineComment, .blockComment: column = 1
            case .symbol where token.text == ";": column = 0
            case .word:
                if token.isKeyword("EXPLAIN") {
                    column = 3
                } else if token.isKeyword("CREATE") {
                    column = 4
                } else if token.isKeyword("TEMP") || token.isKeyword("TEMPORARY") {
                    column = 5
                } else if token.isKeyword("TRIGGER") {
                    column = 6
                } else if token.isKeyword("END") {
                    column = 7
                } else {
                    column = 2
                }
            default: column = 2
            }
            return Self.transitions[rawValue][column]
        }
    }
}

extension StringProtocol {
    /// The text without the characters of `set` at either end. Compared by Unicode scalar, so
    /// `" \t\r\n"` trims a lone `\n` as well as a `\r\n` pair (one `Character` in Swift).
    func trimmedSQL(_ set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        func isTrimmed(_ c: Character) -> Bool { c.unicodeScalars.allSatisfy(scalars.contains) }
        var s = Substring(self)
        while let f = s.first, isTrimmed(f) { s.removeFirst() }
        while let l = s.last, isTrimmed(l) { s.removeLast() }
        return String(s)
    }
}
