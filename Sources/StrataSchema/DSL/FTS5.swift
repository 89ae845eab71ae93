/// `USING fts5(...)`: SQLite's full-text search module, named in
/// `db.create(virtualTable:options:using:body:)` and
/// ``SchemaDefinition/virtualTable(_:options:using:body:)``, and the vocabulary of its options.
///
/// ```swift
/// // CREATE VIRTUAL TABLE "book_fts" USING fts5("title", "body", tokenize='porter unicode61')
/// try db.create(virtualTable: "book_fts", using: FTS5()) { t in
///     t.tokenizer = .porter(wrapping: .unicode61())
///     t.column("title")
///     t.column("body")
/// }
/// ```
///
/// See <https://www.sqlite.org/fts5.html>.
public struct FTS5: Sendable, Hashable {
    /// The FTS5 module.
    ///
    /// ```swift
    /// s.virtualTable("note_fts", using: FTS5()) { t in t.column("body") }
    /// ```
    public init() {}

    /// `remove_diacritics 0`, `1` or `2`: what the `unicode61` and `trigram` tokenizers do with
    /// diacritics ("é" and "e").
    ///
    /// ```swift
    /// t.tokenizer = .unicode61(diacritics: .remove) // tokenize='unicode61 remove_diacritics 2'
    /// ```
    ///
    /// See <https://www.sqlite.org/fts5.html#unicode61_tokenizer>.
    public enum Diacritics: Int, Sendable, Hashable {
        /// `remove_diacritics 0`: "é" and "e" are different characters.
        case keep = 0
        /// `remove_diacritics 1`, the default of `unicode61`: diacritics are removed, except from
        /// characters that hold several of them.
        case removeLegacy = 1
        /// `remove_diacritics 2` (SQLite 3.27+): diacritics are removed from every character.
        case remove = 2
    }

    /// `detail=full|column|none`: how much the index records about where each token appears.
    ///
    /// ```swift
    /// t.detail = .column // detail=column: smaller index, no phrase or NEAR queries
    /// ```
    ///
    /// See <https://www.sqlite.org/fts5.html#the_detail_option>.
    public enum Detail: String, Sendable, Hashable {
        /// `detail=full`, the default (never written): token positions, for phrase and NEAR queries.
        case full
        /// `detail=column`: only the columns holding each token.
        case column
        /// `detail=none`: only the rows holding each token.
        case none
    }
}
