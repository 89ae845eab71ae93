import StrataSQLite

/// `"name" TYPE constraints...`: one column of a `CREATE TABLE` or `ALTER TABLE ... ADD COLUMN`.
///
/// You usually get one from ``TableBuilder/column(_:_:)`` inside `db.create(table:)`; the value
/// renders its SQL without a database:
///
/// ```swift
/// let table = TableDefinition("player") { t in
///     t.column("name", .text).notNull().collate(.nocase)
/// }
/// table.columns[0].sql // "name" TEXT NOT NULL COLLATE NOCASE
/// ```
///
/// Constraints are written in the order they were declared.
/// See <https://www.sqlite.org/lang_createtable.html#tablecoldef>.
public struct ColumnDefinition: Sendable, Hashable {
    /// The column name.
    public var name: String
    /// The declared type, or nil for a column without a type.
    public var type: Database.ColumnType?
    /// The column constraints, in declaration order.
    public var constraints: [Constraint]
    /// True when ``TableBuilder/column(_:_:)`` asked for an index on this column with `indexed()`:
    /// the table's ``TableDefinition/indexes`` then include `CREATE INDEX "<table>_on_<column>"`.
    public var isIndexed: Bool
    /// The column's previous name, for the declarative engine: see ``ColumnBuilder/renamed(from:)``.
    public var renamedFrom: String?

    /// A column definition.
    ///
    /// ```swift
    /// ColumnDefinition("score", .integer, constraints: [.notNull(), .defaultValue(0)]).sql
    /// // "score" INTEGER NOT NULL DEFAULT 0
    /// ```
    public init(
        _ name: String, _ type: Database.ColumnType? = nil, constraints: [Constraint] = [], isIndexed: Bool = false
    ) {
        self.name = name
        self.type = type
        self.constraints = constraints
        self.isIndexed = isIndexed
        self.renamedFrom = nil
    }

    /// The column definition as SQL (without the rename hint, see ``TableDefinition/sql``).
    public var sql: String {
        var parts = [SQL.quoteIdentifier(name)]
        if let type { parts.append(type.sql) }
        parts += constraints.map(\.sql)
        return parts.joined(separator: " ")
    }

    /// True for a generated column (`GENERATED ALWAYS AS`, SQLite 3.31+).
    var isGenerated: Bool {
        constraints.contains { if case .generated = $0.kind { true } else { false } }
    }

    /// Whether a generated column is computed when read (`VIRTUAL`) or when written (`STORED`).
    /// See <https://www.sqlite.org/gencol.html>.
    public enum GeneratedStorage: String, Sendable, Hashable {
        /// `VIRTUAL`: computed when read; takes no space (SQLite's default). Can be added with ALTER TABLE.
        case virtual = "VIRTUAL"
        /// `STORED`: computed when the row is written and stored in the table.
        case stored = "STORED"
    }
}

extension ColumnDefinition {
    /// One column constraint: `PRIMARY KEY`, `NOT NULL`, `UNIQUE`, `CHECK`, `DEFAULT`, `COLLATE`,
    /// `REFERENCES` or `GENERATED ALWAYS AS`.
    ///
    /// ```swift
    /// ColumnDefinition.Constraint.unique(onConflict: .ignore).sql // UNIQUE ON CONFLICT IGNORE
    /// ```
    ///
    /// See <https://www.sqlite.org/syntax/column-constraint.html>.
    public struct Constraint: Sendable, Hashable {
        enum Kind: Sendable, Hashable {
            case primaryKey(Database.ConflictResolution?, autoincrement: Bool)
            case notNull(Database.ConflictResolution?)
            case unique(Database.ConflictResolution?)
            case check(String)
            case defaultValue(String)
            case collate(Database.Collation)
            case references(ForeignKeyClause)
            case generated(String, GeneratedStorage)
            case sql(String)
        }

        let kind: Kind

        /// `PRIMARY KEY [ON CONFLICT x] [AUTOINCREMENT]`.
        /// See <https://www.sqlite.org/lang_createtable.html#the_primary_key>.
        public static func primaryKey(
            onConflict: Database.ConflictResolution? = nil, autoincrement: Bool = false
        ) -> Constraint {
            Constraint(kind: .primaryKey(onConflict, autoincrement: autoincrement))
        }

        /// `NOT NULL [ON CONFLICT x]`. See <https://www.sqlite.org/lang_createtable.html#not_null_constraints>.
        public static func notNull(onConflict: Database.ConflictResolution? = nil) -> Constraint {
            Constraint(kind: .notNull(onConflict))
        }

        /// `UNIQUE [ON CONFLICT x]`. See <https://www.sqlite.org/lang_createtable.html#unique_constraints>.
        public static func unique(onConflict: Database.ConflictResolution? = nil) -> Constraint {
            Constraint(kind: .unique(onConflict))
        }

        /// `CHECK (expression)`. See <https://www.sqlite.org/lang_createtable.html#check_constraints>.
        public static func check(_ expression: SQLExpression) -> Constraint {
            Constraint(kind: .check(expression.sql))
        }

        /// `CHECK (sql)`, with the condition written in SQL.
        public static func check(sql: String) -> Constraint {
            Constraint(kind: .check(sql))
        }

        /// `DEFAULT literal`, the value escaped: `.defaultValue("it's")` is `DEFAULT 'it''s'`.
        /// See <https://www.sqlite.org/lang_createtable.html#the_default_clause>.
        public static func defaultValue(_ value: some SQLValueConvertible) -> Constraint {
            let literal = value.sqlValue.sqlLiteral
            return Constraint(kind: .defaultValue(literal))
        }

        /// `DEFAULT sql`: `CURRENT_TIMESTAMP`, `NULL`, `TRUE`, `FALSE` and plain numbers are
        /// written bare, anything else in parentheses, as SQLite requires for an expression.
        public static func defaultSQL(_ sql: String) -> Constraint {
            Constraint(kind: .defaultValue(isBareDefault(sql) ? sql : "(\(sql))"))
        }

        /// `COLLATE name`. See <https://www.sqlite.org/datatype3.html#collating_sequences>.
        public static func collate(_ collation: Database.Collation) -> Constraint {
            Constraint(kind: .collate(collation))
        }

        /// `REFERENCES table(column) ...`. See <https://www.sqlite.org/foreignkeys.html>.
        public static func references(_ clause: ForeignKeyClause) -> Constraint {
            Constraint(kind: .references(clause))
        }

        /// `GENERATED ALWAYS AS (sql) VIRTUAL|STORED`. See <https://www.sqlite.org/gencol.html>.
        public static func generated(sql: String, _ storage: GeneratedStorage = .virtual) -> Constraint {
            Constraint(kind: .generated(sql, storage))
        }

        /// A constraint written in SQL, used as is: `.sql("CONSTRAINT positive CHECK (x > 0)")`.
        public static func sql(_ sql: String) -> Constraint {
            Constraint(kind: .sql(sql))
        }

        /// The constraint as SQL.
        public var sql: String {
            switch kind {
            case .primaryKey(let conflict, let autoincrement):
                "PRIMARY KEY" + Database.ConflictResolution.clause(conflict) + (autoincrement ? " AUTOINCREMENT" : "")
            case .notNull(let conflict): "NOT NULL" + Database.ConflictResolution.clause(conflict)
            case .unique(let conflict): "UNIQUE" + Database.ConflictResolution.clause(conflict)
            case .check(let sql): "CHECK (\(sql))"
            case .defaultValue(let sql): "DEFAULT \(sql)"
            case .collate(let collation): "COLLATE \(collation.sql)"
            case .references(let clause): clause.sql
            case .generated(let sql, let storage): "GENERATED ALWAYS AS (\(sql)) \(storage.rawValue)"
            case .sql(let sql): sql
            }
        }

        /// Constraints of the same kind replace each other when declared twice; CHECK and raw
        /// constraints add up.
        var replacesSameKind: Bool {
            switch kind {
            case .check, .sql: false
            default: true
            }
        }

        func isSameKind(as other: Constraint) -> Bool {
            switch (kind, other.kind) {
            case (.primaryKey, .primaryKey), (.notNull, .notNull), (.unique, .unique), (.defaultValue, .defaultValue),
                (.collate, .collate), (.references, .references), (.generated, .generated):
                true
            default: false
            }
        }

        static func isBareDefault(_ sql: String) -> Bool {
            switch sql.uppercased() {
            case "CURRENT_TIME", "CURRENT_DATE", "CURRENT_TIMESTAMP", "NULL", "TRUE", "FALSE": return true
            default:
                var digits = Substring(sql)
                if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
                let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
                return (1...2).contains(parts.count)
                    && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
            }
        }
    }
}
