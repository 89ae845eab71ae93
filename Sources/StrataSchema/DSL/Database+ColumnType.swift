import StrataSQLite

extension Database {
    /// The declared type of a column, as written after its name in `CREATE TABLE`.
    ///
    /// ```swift
    /// try db.create(table: "player") { t in
    ///     t.column("name", .text)            // "name" TEXT
    ///     t.column("score", .integer)        // "score" INTEGER
    ///     t.column("rating", "DECIMAL(5,2)") // "rating" DECIMAL(5,2)
    ///     t.column("anything")               // "anything" (no type)
    /// }
    /// ```
    ///
    /// The type decides the column's affinity (how SQLite converts stored values); in a `STRICT`
    /// table only `INT`, `INTEGER`, `REAL`, `TEXT`, `BLOB` and `ANY` are accepted.
    /// See <https://www.sqlite.org/datatype3.html#determination_of_column_affinity> and
    /// <https://www.sqlite.org/stricttables.html>.
    public struct ColumnType: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral {
        /// The type name as written in SQL.
        public var rawValue: String

        /// A column type named `rawValue`, such as `"VARCHAR(255)"`.
        ///
        /// A name made of letters, digits, spaces, underscores, parentheses, commas, signs and
        /// dots is written as is; any other name is written as a quoted identifier, so a type
        /// name can never break out of its column definition.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A column type from a string literal: `t.column("price", "DECIMAL(10,2)")`.
        public init(stringLiteral value: String) { self.rawValue = value }

        /// `TEXT`: text affinity.
        public static let text = ColumnType(rawValue: "TEXT")
        /// `INTEGER`: integer affinity; `INTEGER PRIMARY KEY` makes the column an alias of the rowid.
        public static let integer = ColumnType(rawValue: "INTEGER")
        /// `DOUBLE`: real affinity.
        public static let double = ColumnType(rawValue: "DOUBLE")
        /// `REAL`: real affinity (the name STRICT tables accept).
        public static let real = ColumnType(rawValue: "REAL")
        /// `NUMERIC`: numeric affinity.
        public static let numeric = ColumnType(rawValue: "NUMERIC")
        /// `BOOLEAN`: numeric affinity; SQLite stores booleans as 0 and 1.
        public static let boolean = ColumnType(rawValue: "BOOLEAN")
        /// `BLOB`: blob (no) affinity.
        public static let blob = ColumnType(rawValue: "BLOB")
        /// `DATE`: numeric affinity; dates are usually stored as ISO-8601 text.
        public static let date = ColumnType(rawValue: "DATE")
        /// `DATETIME`: numeric affinity; date-times are usually stored as ISO-8601 text.
        public static let datetime = ColumnType(rawValue: "DATETIME")
        /// `ANY`: in a STRICT table, a column that accepts any value unchanged.
        public static let any = ColumnType(rawValue: "ANY")
        /// `JSON TEXT`: JSON stored as text.
        ///
        /// The name contains `TEXT` so the column has text affinity: with a bare `JSON` type
        /// (numeric affinity) the JSON document `'1'` would be stored as the integer `1`.
        /// Not accepted by STRICT tables: use ``text`` there.
        public static let json = ColumnType(rawValue: "JSON TEXT")

        /// The type as written in SQL: the raw value when it has the shape of a type name
        /// (words, then an optional `(number)` or `(number, number)`), else a quoted identifier.
        var sql: String { Self.isPlainTypeName(rawValue) ? rawValue : SQL.quoteIdentifier(rawValue) }

        /// True for `NAME [NAME...] [(signed-number [, signed-number])]` in ASCII: text that cannot
        /// end the column definition, start a comment or hold a string.
        static func isPlainTypeName(_ name: String) -> Bool {
            guard let first = name.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII else {
                return false
            }
            var inParens = false
            var closed = false
            for s in name.unicodeScalars {
                guard s.isASCII, !closed || s == " " else { return false }
                switch s {
                case "(": if inParens { return false } else { inParens = true }
                case ")":
                    if inParens {
                        inParens = false
                        closed = true
                    } else {
                        return false
                    }
                case "0"..."9", " ": continue
                case "+", "-", ".", ",": if !inParens { return false }
                case "_", "A"..."Z", "a"..."z": if inParens { return false }
                default: return false
                }
            }
            return !inParens && !name.contains("--")
        }
    }
}
