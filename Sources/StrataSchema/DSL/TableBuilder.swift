import StrataSQLite

/// Declares the columns and constraints of a table in `db.create(table:)` or
/// ``TableDefinition/init(_:options:body:)``.
///
/// ```swift
/// try db.create(table: "membership") { t in
///     t.column("playerId", .integer).notNull().references("player", onDelete: .cascade)
///     t.column("teamId", .integer).notNull().references("team", onDelete: .cascade)
///     t.column("role", .text).notNull().defaults(to: "member")
///     t.primaryKey(["playerId", "teamId"])
///     t.check(sql: "role IN ('member', 'captain')")
/// }
/// ```
///
/// See <https://www.sqlite.org/lang_createtable.html>.
public final class TableBuilder {
    /// The name of the table being declared.
    public let name: String
    var columns: [ColumnBuilder] = []
    var constraints: [TableDefinition.Constraint] = []

    init(name: String) {
        self.name = name
    }

    /// `"name" [TYPE]`: appends a column and returns a builder to add its constraints.
    ///
    /// ```swift
    /// t.column("name", .text).notNull() // "name" TEXT NOT NULL
    /// t.column("misc")                  // "misc"
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createtable.html#tablecoldef>.
    @discardableResult
    public func column(_ name: String, _ type: Database.ColumnType? = nil) -> ColumnBuilder {
        let column = ColumnBuilder(ColumnDefinition(name, type))
        columns.append(column)
        return column
    }

    /// `"name" INTEGER PRIMARY KEY AUTOINCREMENT`: appends an alias of the rowid whose values are
    /// never reused.
    ///
    /// ```swift
    /// t.autoIncrementedPrimaryKey("id") // "id" INTEGER PRIMARY KEY AUTOINCREMENT
    /// ```
    ///
    /// See <https://www.sqlite.org/autoinc.html>.
    @discardableResult
    public func autoIncrementedPrimaryKey(
        _ name: String, onConflict: Database.ConflictResolution? = nil
    ) -> ColumnBuilder {
        column(name, .integer).primaryKey(onConflict: onConflict, autoincrement: true)
    }

    /// `"name" TYPE PRIMARY KEY NOT NULL`: appends a primary key column.
    ///
    /// ```swift
    /// t.primaryKey("isoCode", .text) // "isoCode" TEXT PRIMARY KEY NOT NULL
    /// ```
    ///
    /// NOT NULL is added because SQLite, for historical reasons, accepts NULL in a primary key
    /// that is not an INTEGER PRIMARY KEY of a rowid table.
    /// See <https://www.sqlite.org/lang_createtable.html#the_primary_key>.
    @discardableResult
    public func primaryKey(
        _ name: String, _ type: Database.ColumnType, onConflict: Database.ConflictResolution? = nil
    ) -> ColumnBuilder {
        let column = column(name, type).primaryKey(onConflict: onConflict)
        return type == .integer ? column : column.notNull()
    }

    /// `PRIMARY KEY (a, b) [ON CONFLICT x]`: appends a composite primary key.
    ///
    /// ```swift
    /// t.primaryKey(["citizenId", "countryCode"]) // PRIMARY KEY ("citizenId", "countryCode")
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createtable.html#the_primary_key>.
    public func primaryKey(_ columns: [String], onConflict: Database.ConflictResolution? = nil) {
        constraints.append(.primaryKey(columns, onConflict: onConflict))
    }

    /// `UNIQUE (a, b) [ON CONFLICT x]`: appends a unique key on several columns.
    ///
    /// ```swift
    /// t.uniqueKey(["teamId", "shirtNumber"], onConflict: .fail) // UNIQUE ("teamId", "shirtNumber") ON CONFLICT FAIL
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createtable.html#unique_constraints>.
    public func uniqueKey(_ columns: [String], onConflict: Database.ConflictResolution? = nil) {
        constraints.append(.uniqueKey(columns, onConflict: onConflict))
    }

    /// `FOREIGN KEY (a, b) REFERENCES parent(x, y) ...`: appends a (composite) foreign key.
    ///
    /// ```swift
    /// t.foreignKey(["countryCode", "citizenId"], references: "citizen", columns: ["countryCode", "id"],
    ///              onDelete: .cascade)
    /// // FOREIGN KEY ("countryCode", "citizenId") REFERENCES "citizen"("countryCode", "id") ON DELETE CASCADE
    /// ```
    ///
    /// With `columns` empty, the parent's primary key is referenced.
    /// See <https://www.sqlite.org/foreignkeys.html#fk_composite>.
    public func foreignKey(
        _ columns: [String], references table: String, columns parentColumns: [String] = [],
        onDelete: Database.ForeignKeyAction? = nil, onUpdate: Database.ForeignKeyAction? = nil, deferred: Bool = false
    ) {
        let clause = ForeignKeyClause(
            table, columns: parentColumns, onDelete: onDelete, onUpdate: onUpdate, deferred: deferred)
        constraints.append(.foreignKey(columns, references: clause))
    }

    /// `CHECK (expression)`: appends a table CHECK constraint built in Swift.
    ///
    /// ```swift
    /// t.check(SQLExpression.column("start") <= .column("end")) // CHECK ("start" <= "end")
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createtable.html#check_constraints>.
    public func check(_ expression: SQLExpression) {
        constraints.append(.check(expression))
    }

    /// `CHECK (sql)`: appends a table CHECK constraint written in SQL.
    ///
    /// ```swift
    /// t.check(sql: "start <= \"end\"") // CHECK (start <= "end")
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createtable.html#check_constraints>.
    public func check(sql: String) {
        constraints.append(.check(sql: sql))
    }

    /// `sql`: appends a table constraint written in SQL, used as is.
    ///
    /// ```swift
    /// t.constraint(sql: "CONSTRAINT ordered CHECK (low <= high)")
    /// ```
    ///
    /// See <https://www.sqlite.org/syntax/table-constraint.html>.
    public func constraint(sql: String) {
        constraints.append(.sql(sql))
    }
}
