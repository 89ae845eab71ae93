import StrataSQLite

extension FTS5 {
    /// `tokenize='name arguments...'`: the tokenizer of an FTS5 table, which splits text into
    /// the tokens that are indexed and searched.
    ///
    /// ```swift
    /// FTS5.Tokenizer.porter(wrapping: .unicode61(diacritics: .remove)).sql
    /// // 'porter unicode61 remove_diacritics 2'
    /// FTS5.Tokenizer.unicode61(tokenCharacters: ["-", "_"]).sql
    /// // 'unicode61 tokenchars ''-_'''
    /// ```
    ///
    /// Each component is written as a bare word when it only holds ASCII letters, digits and
    /// `_`, and as a quoted string otherwise, inside the quoted option value: any character,
    /// quotes included, can be a token character or a separator.
    /// See <https://www.sqlite.org/fts5.html#tokenizers>.
    public struct Tokenizer: Sendable, Hashable {
        /// The tokenizer name followed by its arguments: `["porter", "unicode61", "remove_diacritics", "2"]`.
        public var components: [String]

        /// A tokenizer from its name and arguments, for tokenizers this type has no method for.
        ///
        /// ```swift
        /// FTS5.Tokenizer(components: ["unicode61", "categories", "L* N* Co Mn"]).sql
        /// // 'unicode61 categories ''L* N* Co Mn'''
        /// ```
        public init(components: [String]) {
            self.components = components
        }

        /// `unicode61`, the default tokenizer: Unicode 6.1 word boundaries, case folding, and
        /// diacritics removal.
        ///
        /// ```swift
        /// .unicode61()                                           // 'unicode61'
        /// .unicode61(diacritics: .keep)                          // 'unicode61 remove_diacritics 0'
        /// .unicode61(separators: ["."], tokenCharacters: ["#"])  // 'unicode61 separators ''.'' tokenchars ''#'''
        /// ```
        ///
        /// - Parameters:
        ///   - diacritics: `remove_diacritics`, written only when it is not the default.
        ///   - categories: `categories`, the Unicode categories of token characters (default
        ///     `"L* N* Co"`), or nil.
        ///   - separators: `separators`, extra characters that separate tokens.
        ///   - tokenCharacters: `tokenchars`, extra characters that belong to tokens.
        ///
        /// See <https://www.sqlite.org/fts5.html#unicode61_tokenizer>.
        public static func unicode61(
            diacritics: Diacritics = .removeLegacy, categories: String? = nil,
            separators: Set<Character> = [], tokenCharacters: Set<Character> = []
        ) -> Tokenizer {
            var components = ["unicode61"]
            if diacritics != .removeLegacy { components += ["remove_diacritics", String(diacritics.rawValue)] }
            if let categories { components += ["categories", categories] }
            components += characterArguments(separators: separators, tokenCharacters: tokenCharacters)
            return Tokenizer(components: components)
        }

        /// `ascii`: ASCII word boundaries and case folding; other characters are token characters.
        ///
        /// ```swift
        /// .ascii()                        // 'ascii'
        /// .ascii(tokenCharacters: ["."])  // 'ascii tokenchars ''.'''
        /// ```
        ///
        /// See <https://www.sqlite.org/fts5.html#ascii_tokenizer>.
        public static func ascii(separators: Set<Character> = [], tokenCharacters: Set<Character> = []) -> Tokenizer {
            Tokenizer(
                components: ["ascii"] + characterArguments(separators: separators, tokenCharacters: tokenCharacters))
        }

        /// `porter`: English stemming ("running" finds "run") over the tokens of another tokenizer
        /// (`unicode61` when nil).
        ///
        /// ```swift
        /// .porter()                                    // 'porter'
        /// .porter(wrapping: .unicode61(diacritics: .remove)) // 'porter unicode61 remove_diacritics 2'
        /// ```
        ///
        /// See <https://www.sqlite.org/fts5.html#porter_tokenizer>.
        public static func porter(wrapping base: Tokenizer? = nil) -> Tokenizer {
            Tokenizer(components: ["porter"] + (base?.components ?? []))
        }

        /// `trigram` (SQLite 3.34+): every sequence of three characters is a token, so MATCH, LIKE
        /// and GLOB find substrings.
        ///
        /// ```swift
        /// .trigram()                     // 'trigram'
        /// .trigram(caseSensitive: true)  // 'trigram case_sensitive 1'
        /// ```
        ///
        /// - Parameters:
        ///   - caseSensitive: `case_sensitive 1`: "A" and "a" differ.
        ///   - removeDiacritics: `remove_diacritics 1` (SQLite 3.45+): "é" matches "e".
        ///
        /// See <https://www.sqlite.org/fts5.html#the_trigram_tokenizer>.
        public static func trigram(caseSensitive: Bool = false, removeDiacritics: Bool = false) -> Tokenizer {
            var components = ["trigram"]
            if caseSensitive { components += ["case_sensitive", "1"] }
            if removeDiacritics { components += ["remove_diacritics", "1"] }
            return Tokenizer(components: components)
        }

        static func characterArguments(separators: Set<Character>, tokenCharacters: Set<Character>) -> [String] {
            var arguments: [String] = []
            if !separators.isEmpty { arguments += ["separators", String(separators.sorted())] }
            if !tokenCharacters.isEmpty { arguments += ["tokenchars", String(tokenCharacters.sorted())] }
            return arguments
        }

        /// The value of the `tokenize` option: the components, each a bare word or a quoted
        /// string, joined by spaces and written as one SQL string literal.
        ///
        /// ```swift
        /// FTS5.Tokenizer.ascii(tokenCharacters: ["'"]).sql // 'ascii tokenchars '''''''''
        /// ```
        public var sql: String {
            SQLValue.text(components.map(Self.component).joined(separator: " ")).sqlLiteral
        }

        /// A bare word FTS5 reads as is, or a string literal it dequotes.
        static func component(_ text: String) -> String {
            let isBareword =
                !text.isEmpty
                && text.utf8.allSatisfy { byte in
                    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                        || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
                }
            return isBareword ? text : SQLValue.text(text).sqlLiteral
        }
    }
}
