extension Database {
    /// A collating sequence, used by `COLLATE` in column definitions and index columns.
    ///
    /// ```swift
    /// try db.create(table: "player") { t in
    ///     t.column("name", .text).collate(.nocase)      // "name" TEXT COLLATE NOCASE
    ///     t.column("title", .text).collate("localized") // "title" TEXT COLLATE "localized"
    /// }
    /// ```
    ///
    /// The built-in collations `BINARY`, `NOCASE` and `RTRIM` are written bare; any other name is
    /// written as a quoted identifier (a custom collation must be registered on every connection
    /// that reads the table). See <https://www.sqlite.org/datatype3.html#collating_sequences>.
    public struct Collation: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral {
        /// The collation name.
        public var rawValue: String

        /// The collation named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The collation named by a string literal: `.collate("localized")`.
        public init(stringLiteral value: String) { self.rawValue = value }

        /// `BINARY`: compares bytes with memcmp() (SQLite's default).
        public static let binary = Collation(rawValue: "BINARY")
        /// `NOCASE`: like BINARY, but ASCII upper-case letters fold to lower case.
        public static let nocase = Collation(rawValue: "NOCASE")
        /// `RTRIM`: like BINARY, but trailing spaces are ignored.
        public static let rtrim = Collation(rawValue: "RTRIM")

        /// The name as written after `COLLATE`: `NOCASE`, or `"localized"` quoted.
        package var sql: String {
            switch rawValue.uppercased() {
            case "BINARY", "NOCASE", "RTRIM": rawValue.uppercased()
            default: SQLLiteral.quote(identifier: rawValue)
            }
        }
    }
}
