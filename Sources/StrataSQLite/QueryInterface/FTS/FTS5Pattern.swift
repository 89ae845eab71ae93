/// A full-text search pattern for an FTS5 table's `MATCH`, that cannot be invalid: built from
/// the text of a search box, whatever it holds, or checked by SQLite when written by hand.
///
/// ```swift
/// let pattern = FTS5Pattern(matchingAllTokensIn: searchText)   // nil when there is no word
/// let results = try Document.matching(pattern).order(Column.rank).fetchAll(db)
/// // SELECT * FROM "document" WHERE "document" MATCH ? ORDER BY "rank"
/// ```
///
/// The initializers from text keep only its words (runs of letters and digits) and quote each
/// one, so `don't`, `C++`, `"quotes` or `panic AND` never make a syntax error: the operators
/// and punctuation of FTS5's query syntax are searched as text or dropped, never obeyed. Each
/// quoted word still goes through the table's tokenizer. GRDB's `FTS5Pattern`.
/// See <https://www.sqlite.org/fts5.html#full_text_query_syntax>.
public struct FTS5Pattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern in FTS5's query syntax.
    public let rawPattern: String

    private init(checked rawPattern: String) {
        self.rawPattern = rawPattern
    }

    /// Rows that contain every word of `text`, anywhere: `"ice" "cream"`. Nil when `text`
    /// has no word.
    ///
    /// ```swift
    /// FTS5Pattern(matchingAllTokensIn: "don't panic")?.rawPattern   // "don" "t" "panic"
    /// ```
    public init?(matchingAllTokensIn text: String) {
        let tokens = Self.tokens(text)
        guard !tokens.isEmpty else { return nil }
        self.init(checked: tokens.map(Self.quoted).joined(separator: " "))
    }

    /// Rows that contain at least one word of `text`: `"ice" OR "cream"`. Nil without a word.
    public init?(matchingAnyTokenIn text: String) {
        let tokens = Self.tokens(text)
        guard !tokens.isEmpty else { return nil }
        self.init(checked: tokens.map(Self.quoted).joined(separator: " OR "))
    }

    /// Rows that contain the words of `text` in order, next to each other: `"ice cream"`. Nil
    /// without a word.
    public init?(matchingPhrase text: String) {
        let tokens = Self.tokens(text)
        guard !tokens.isEmpty else { return nil }
        self.init(checked: Self.quoted(tokens.joined(separator: " ")))
    }

    /// Rows that contain, for every word of `text`, a word that starts with it: `"ice"* "cr"*`,
    /// for search as you type. Nil without a word.
    public init?(matchingAllPrefixesIn text: String) {
        let tokens = Self.tokens(text)
        guard !tokens.isEmpty else { return nil }
        self.init(checked: tokens.map { Self.quoted($0) + "*" }.joined(separator: " "))
    }

    /// A pattern written in FTS5's query syntax, checked by SQLite: an invalid one throws
    /// ``SQLiteError`` with SQLite's message (`fts5: syntax error near "AND"`). Column filters
    /// (`title: swift`) may name `columns`.
    ///
    /// ```swift
    /// let pattern = try FTS5Pattern(rawPattern: "sqlite NEAR(swift, 5)")
    /// try FTS5Pattern(rawPattern: "panic AND")   // throws
    /// ```
    public init(rawPattern: String, columns: [String] = []) throws {
        // An in-memory database with an FTS5 table of those columns runs the pattern once.
        let db = try Database(inMemory: Configuration())
        defer { db.close() }
        let names = (["strata_pattern_check"] + columns).map(SQLLiteral.quote(identifier:))
        try db.execute(sql: "CREATE VIRTUAL TABLE pattern_check USING fts5(\(names.joined(separator: ", ")))")
        _ = try db.fetchAll(sql: "SELECT * FROM pattern_check WHERE pattern_check MATCH ?", arguments: [rawPattern])
        self.init(checked: rawPattern)
    }

    /// The raw pattern.
    public var description: String { rawPattern }

    /// The words of `text`: runs of letters, digits and marks (what the `unicode61` tokenizer
    /// keeps; everything else separates words).
    static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        for scalar in text.unicodeScalars {
            let properties = scalar.properties
            if properties.isAlphabetic || properties.numericType != nil || properties.generalCategory == .nonspacingMark
            {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                tokens.append(current)
                current = ""
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    /// `"word"`, inner double quotes doubled: an FTS5 string, never an operator.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacing("\"", with: "\"\"") + "\""
    }
}

extension FTS5Pattern: SQLExpressible {
    /// The pattern, bound as a text argument.
    public var sqlExpression: SQLExpression { .value(SQLValue.text(rawPattern)) }
}

extension Column {
    /// FTS5's `rank` column, for ordering matches from the best: `.order(Column.rank)`.
    /// See <https://www.sqlite.org/fts5.html#sorting_by_auxiliary_function_results>.
    public static let rank = Column("rank")
}

extension QueryInterfaceRequest {
    /// The rows of the FTS5 table that match `pattern`; a nil pattern matches nothing.
    ///
    /// ```swift
    /// Document.all().matching(FTS5Pattern(matchingAllPrefixesIn: "sqli swi"))
    /// // SELECT * FROM "document" WHERE "document" MATCH ?
    /// ```
    /// See <https://www.sqlite.org/fts5.html#full_text_query_syntax>.
    public func matching(_ pattern: FTS5Pattern?) -> Self {
        guard let pattern else { return none() }
        let table = SQLExpression(pieces: [.column(relation.tableName, nil)], precedence: .primary)
        return filter(SQLExpression.binary(table, " MATCH ", pattern.sqlExpression, .equality))
    }
}

extension TableRecord {
    /// The rows of this FTS5 table that match `pattern`; a nil pattern matches nothing.
    ///
    /// ```swift
    /// let pattern = FTS5Pattern(matchingAllTokensIn: "swift sqlite")
    /// let documents = try Document.matching(pattern).order(Column.rank).fetchAll(db)
    /// ```
    public static func matching(_ pattern: FTS5Pattern?) -> QueryInterfaceRequest<Self> {
        all().matching(pattern)
    }
}
