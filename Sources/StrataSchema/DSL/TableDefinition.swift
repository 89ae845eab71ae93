import StrataSQLite

/// Options of `CREATE TABLE`.
///
/// ```swift
/// try db.create(table: "event", options: [.ifNotExists, .strict, .withoutRowID]) { t in ... }
/// ```
///
/// See <https://www.sqlite.org/lang_createtable.html>.
public struct TableOptions: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int
    /// Options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `CREATE TEMPORARY TABLE`: a table of the connection's temp schema, gone when it closes.
    public static let temporary = TableOptions(rawValue: 1 << 0)
    /// `IF NOT EXISTS`: does nothing when a table with that name exists.
    public static let ifNotExists = TableOptions(rawValue: 1 << 1)
    /// `WITHOUT ROWID`: the table is stored by its primary key, which it must declare.
    /// See <https://www.sqlite.org/withoutrowid.html>.
    public static let withoutRowID = TableOptions(rawValue: 1 << 2)
    /// `STRICT`: values must match the declared column types (SQLite 3.37+).
    /// See <https://www.sqlite.org/stricttables.html>.
    public static let strict = TableOptions(rawValue: 1 << 3)
}

/// `CREATE TABLE name (columns, constraints) [WITHOUT ROWID] [STRICT]`: a table definition that
/// renders its SQL without a database.
///
/// ```swift
/// let player = TableDefinition("player") { t in
///     t.autoIncrementedPrimaryKey("id")
///     t.column("name", .text).notNull()
/// }
/// player.sql
/// // CREATE TABLE "player" (
/// //   "id" INTEGER PRIMARY KEY AUTOINCREMENT,
/// //   "name" TEXT NOT NULL
/// // )
/// try db.create(player)
/// ```
///
/// Each column and table constraint goes on its own line, so the stored SQL stays readable and
/// rename hints (`-- @renamed from="old"`, see ``ColumnBuilder/renamed(from:)``) can end a line.
/// See <https://www.sqlite.org/lang_createtable.html>.
public struct TableDefinition: Sendable, Hashable {
    /// The table name.
    public var name: String
    /// The options (temporary, if not exists, without rowid, strict).
    public var options: TableOptions
    /// The columns, in order.
    public var columns: [ColumnDefinition]
    /// The table constraints, written after the columns.
    public var constraints: [Constraint]
    /// The table's previous name, for the declarative engine: see
    /// ``SchemaDefinition/table(_:options:renamedFrom:body:)``.
    public var renamedFrom: String?

    /// A table from its parts.
    public init(_ name: String, options: TableOptions = [], columns: [ColumnDefinition], constraints: [Constraint] = [])
    {
        self.name = name
        self.options = options
        self.columns = columns
        self.constraints = constraints
        self.renamedFrom = nil
    }

    /// A table declared with the same builder as `db.create(table:options:body:)`.
    ///
    /// ```swift
    /// let team = TableDefinition("team", options: .strict) { t in
    ///     t.column("id", .integer).primaryKey()
    ///     t.column("name", .text).notNull().unique()
    /// }
    /// ```
    public init(_ name: String, options: TableOptions = [], body: (TableBuilder) throws -> Void) rethrows {
        let builder = TableBuilder(name: name)
        try body(builder)
        self.init(name, options: options, columns: builder.columns.map(\.definition), constraints: builder.constraints)
    }

    /// The `CREATE TABLE` statement (without the indexes of ``indexes``, see ``statements``).
    public var sql: String { ddl.sql }

    /// The statement as a value: each column on its own line with its rename hint.
    var ddl: CreateTableDDL {
        CreateTableDDL(
            name,
            elements: columns.map { CreateTableDDL.Element($0.sql, renamedFrom: $0.renamedFrom) }
                + constraints.map { CreateTableDDL.Element($0.sql) },
            isTemporary: options.contains(.temporary), ifNotExists: options.contains(.ifNotExists),
            isWithoutRowID: options.contains(.withoutRowID), isStrict: options.contains(.strict),
            renamedFrom: renamedFrom)
    }

    /// The indexes asked for with `indexed()` on columns: `CREATE INDEX "<table>_on_<column>"`.
    ///
    /// An index on a temporary table goes to the temp schema by itself, so the name needs no prefix.
    public var indexes: [IndexDefinition] {
        columns.filter(\.isIndexed).map { Self.columnIndex(table: name, column: $0.name) }
    }

    /// The `CREATE TABLE` statement followed by the `CREATE INDEX` statements of ``indexes``.
    public var statements: [String] {
        [sql] + indexes.map(\.sql)
    }

    /// The index `indexed()` asks for on `column`.
    static func columnIndex(table: String, column: String) -> IndexDefinition {
        IndexDefinition("\(table)_on_\(column)", on: table, columns: [.column(column)])
    }

    /// Problems SQLite would report less clearly: no columns, empty key lists, foreign keys whose
    /// column counts differ.
    func validate() throws {
        guard !columns.isEmpty else { throw SchemaDefinitionError("table \(SQL.quoteIdentifier(name)) has no columns") }
        for constraint in constraints { try constraint.validate(table: name) }
    }

    /// The SQLite features newer than Strata's floor the table uses: STRICT, generated columns.
    var features: [SQLiteFeature] {
        (columns.contains(where: \.isGenerated) ? [.generatedColumns] : [])
            + (options.contains(.strict) ? [.strictTables] : [])
    }

    /// Refuses, naming the table, a feature `capabilities` lack (instead of SQLite's
    /// `near "AS": syntax error`).
    func checkSupported(by capabilities: SQLiteCapabilities) throws {
        if let missing = features.first(where: { !capabilities.supports($0) }) {
            throw SchemaDefinitionError(
                "table \(SQL.quoteIdentifier(name)): \(missing.unavailableMessage(capabilities.version))")
        }
    }
}

extension TableDefinition {
    /// One table constraint: composite `PRIMARY KEY`, `UNIQUE`, `FOREIGN KEY`, `CHECK`, or raw SQL.
    ///
    /// ```swift
    /// TableDefinition.Constraint.uniqueKey(["a", "b"], onConflict: .replace).sql
    /// // UNIQUE ("a", "b") ON CONFLICT REPLACE
    /// ```
    ///
    /// See <https://www.sqlite.org/syntax/table-constraint.html>.
    public struct Constraint: Sendable, Hashable {
        enum Kind: Sendable, Hashable {
            case primaryKey([String], Database.ConflictResolution?)
            case unique([String], Database.ConflictResolution?)
            case foreignKey([String], ForeignKeyClause)
            case check(String)
            case sql(String)
        }

        let kind: Kind

        /// `PRIMARY KEY (a, b) [ON CONFLICT x]`. See <https://www.sqlite.org/lang_createtable.html#the_primary_key>.
        public static func primaryKey(_ columns: [String], onConflict: Database.ConflictResolution? = nil) -> Constraint
        {
            Constraint(kind: .primaryKey(columns, onConflict))
        }

        /// `UNIQUE (a, b) [ON CONFLICT x]`. See <https://www.sqlite.org/lang_createtable.html#unique_constraints>.
        public static func uniqueKey(_ columns: [String], onConflict: Database.ConflictResolution? = nil) -> Constraint
        {
            Constraint(kind: .unique(columns, onConflict))
        }

        /// `FOREIGN KEY (a, b) REFERENCES parent(x, y) ...`. See <https://www.sqlite.org/foreignkeys.html#fk_composite>.
        public static func foreignKey(_ columns: [String], references clause: ForeignKeyClause) -> Constraint {
            Constraint(kind: .foreignKey(columns, clause))
        }

        /// `CHECK (expression)`. See <https://www.sqlite.org/lang_createtable.html#check_constraints>.
        public static func check(_ expression: SQLExpression) -> Constraint {
            Constraint(kind: .check(expression.sql))
        }

        /// `CHECK (sql)`, with the condition written in SQL.
        public static func check(sql: String) -> Constraint {
            Constraint(kind: .check(sql))
        }

        /// A table constraint written in SQL, used as is.
        public static func sql(_ sql: String) -> Constraint {
            Constraint(kind: .sql(sql))
        }

        /// The constraint as SQL.
        public var sql: String {
            switch kind {
            case .primaryKey(let columns, let conflict):
                "PRIMARY KEY (\(SQL.quotedList(columns)))" + Database.ConflictResolution.clause(conflict)
            case .unique(let columns, let conflict):
                "UNIQUE (\(SQL.quotedList(columns)))" + Database.ConflictResolution.clause(conflict)
            case .foreignKey(let columns, let clause):
                "FOREIGN KEY (\(SQL.quotedList(columns))) \(clause.sql)"
            case .check(let sql): "CHECK (\(sql))"
            case .sql(let sql): sql
            }
        }

        func validate(table: String) throws {
            let quoted = SQL.quoteIdentifier(table)
            switch kind {
            case .primaryKey(let columns, _) where columns.isEmpty:
                throw SchemaDefinitionError("table \(quoted): PRIMARY KEY needs at least one column")
            case .unique(let columns, _) where columns.isEmpty:
                throw SchemaDefinitionError("table \(quoted): UNIQUE needs at least one column")
            case .foreignKey(let columns, let clause):
                if columns.isEmpty {
                    throw SchemaDefinitionError("table \(quoted): FOREIGN KEY needs at least one column")
                }
                if !clause.columns.isEmpty && clause.columns.count != columns.count {
                    throw SchemaDefinitionError(
                        "table \(quoted): FOREIGN KEY (\(SQL.quotedList(columns))) has \(columns.count) column(s) "
                            + "but references \(clause.columns.count) in \(SQL.quoteIdentifier(clause.table))")
                }
            default: break
            }
        }
    }
}
