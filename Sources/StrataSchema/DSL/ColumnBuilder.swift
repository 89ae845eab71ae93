import StrataSQLite

/// Refines a column declared in `db.create(table:)` or `db.alter(table:)`: each method adds a
/// column constraint and returns the builder, so calls chain.
///
/// ```swift
/// try db.create(table: "player") { t in
///     t.autoIncrementedPrimaryKey("id")
///     t.column("name", .text).notNull().unique(onConflict: .replace).collate(.nocase)
///     t.column("score", .integer).notNull().defaults(to: 0).check { $0 >= 0 }
///     t.column("teamId", .integer).references("team", onDelete: .cascade).indexed()
/// }
/// ```
///
/// The result is a ``ColumnDefinition`` value. See <https://www.sqlite.org/lang_createtable.html#tablecoldef>.
public final class ColumnBuilder {
    /// The column as declared so far.
    public private(set) var definition: ColumnDefinition

    init(_ definition: ColumnDefinition) {
        self.definition = definition
    }

    private func adding(_ constraint: ColumnDefinition.Constraint) -> Self {
        if constraint.replacesSameKind,
            let i = definition.constraints.firstIndex(where: { $0.isSameKind(as: constraint) })
        {
            definition.constraints[i] = constraint
        } else {
            definition.constraints.append(constraint)
        }
        return self
    }

    /// `PRIMARY KEY [ON CONFLICT x] [AUTOINCREMENT]`: makes this column the primary key.
    ///
    /// ```swift
    /// t.column("id", .integer).primaryKey(autoincrement: true) // "id" INTEGER PRIMARY KEY AUTOINCREMENT
    /// ```
    ///
    /// An `INTEGER PRIMARY KEY` is an alias of the rowid; `AUTOINCREMENT` (only allowed there)
    /// also prevents the reuse of deleted ids.
    /// See <https://www.sqlite.org/lang_createtable.html#rowid> and <https://www.sqlite.org/autoinc.html>.
    @discardableResult
    public func primaryKey(onConflict: Database.ConflictResolution? = nil, autoincrement: Bool = false) -> Self {
        adding(.primaryKey(onConflict: onConflict, autoincrement: autoincrement))
    }

    /// `NOT NULL [ON CONFLICT x]`: refuses NULL values.
    ///
    /// ```swift
    /// t.column("name", .text).notNull() // "name" TEXT NOT NULL
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createtable.html#not_null_constraints>.
    @discardableResult
    public func notNull(onConflict: Database.ConflictResolution? = nil) -> Self {
        adding(.notNull(onConflict: onConflict))
    }

    /// `UNIQUE [ON CONFLICT x]`: refuses duplicate values (NULLs excepted).
    ///
    /// ```swift
    /// t.column("email", .text).unique(onConflict: .replace) // "email" TEXT UNIQUE ON CONFLICT REPLACE
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createtable.html#unique_constraints>.
    @discardableResult
    public func unique(onConflict: Database.ConflictResolution? = nil) -> Self {
        adding(.unique(onConflict: onConflict))
    }

    /// `CHECK (condition)`, with the condition built from the column.
    ///
    /// ```swift
    /// t.column("name", .text).check { $0.length > 0 } // "name" TEXT CHECK (length("name") > 0)
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createtable.html#check_constraints>.
    @discardableResult
    public func check(_ condition: (SQLExpression) throws -> SQLExpression) rethrows -> Self {
        adding(.check(try condition(.column(definition.name))))
    }

    /// `CHECK (sql)`, with the condition written in SQL.
    ///
    /// ```swift
    /// t.column("payload", .json).check(sql: "json_valid(payload)") // ... CHECK (json_valid(payload))
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createtable.html#check_constraints>.
    @discardableResult
    public func check(sql: String) -> Self {
        adding(.check(sql: sql))
    }

    /// `DEFAULT literal`: the value used when an INSERT does not provide one, escaped as a literal.
    ///
    /// ```swift
    /// t.column("name", .text).defaults(to: "Anonymous") // "name" TEXT DEFAULT 'Anonymous'
    /// t.column("score", .integer).defaults(to: 0)       // "score" INTEGER DEFAULT 0
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createtable.html#the_default_clause>.
    @discardableResult
    public func defaults(to value: some SQLValueConvertible) -> Self {
        adding(.defaultValue(value))
    }

    /// `DEFAULT sql`: a default written in SQL (parenthesized when it is an expression).
    ///
    /// ```swift
    /// t.column("createdAt", .datetime).defaults(sql: "CURRENT_TIMESTAMP") // ... DEFAULT CURRENT_TIMESTAMP
    /// t.column("day", .date).defaults(sql: "date('now')")                 // ... DEFAULT (date('now'))
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createtable.html#the_default_clause>.
    @discardableResult
    public func defaults(sql: String) -> Self {
        adding(.defaultSQL(sql))
    }

    /// `COLLATE name`: the collation used to compare, sort and index the column's text.
    ///
    /// ```swift
    /// t.column("name", .text).collate(.nocase)      // "name" TEXT COLLATE NOCASE
    /// t.column("title", .text).collate("localized") // "title" TEXT COLLATE "localized"
    /// ```
    ///
    /// See <https://www.sqlite.org/datatype3.html#collating_sequences>.
    @discardableResult
    public func collate(_ collation: Database.Collation) -> Self {
        adding(.collate(collation))
    }

    /// `REFERENCES table[(column)] [ON DELETE x] [ON UPDATE y] [DEFERRABLE INITIALLY DEFERRED]`:
    /// a foreign key to `column` of `table` (its primary key when `column` is nil).
    ///
    /// ```swift
    /// t.column("teamId", .integer).references("team", onDelete: .cascade)
    /// // "teamId" INTEGER REFERENCES "team" ON DELETE CASCADE
    /// ```
    ///
    /// See <https://www.sqlite.org/foreignkeys.html>.
    @discardableResult
    public func references(
        _ table: String, column: String? = nil, onDelete: Database.ForeignKeyAction? = nil,
        onUpdate: Database.ForeignKeyAction? = nil, deferred: Bool = false
    ) -> Self {
        let clause = ForeignKeyClause(
            table, columns: column.map { [$0] } ?? [], onDelete: onDelete, onUpdate: onUpdate, deferred: deferred)
        return adding(.references(clause))
    }

    /// `CREATE INDEX "<table>_on_<column>" ON "<table>"("<column>")`: asks for an index on this
    /// column, created right after the table (or the added column).
    ///
    /// ```swift
    /// t.column("teamId", .integer).references("team").indexed()
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_createindex.html>.
    @discardableResult
    public func indexed() -> Self {
        definition.isIndexed = true
        return self
    }

    /// `GENERATED ALWAYS AS (sql) VIRTUAL|STORED`: a column computed from the others.
    ///
    /// ```swift
    /// t.column("total", .integer).generatedAs(sql: "price * quantity", .stored)
    /// // "total" INTEGER GENERATED ALWAYS AS (price * quantity) STORED
    /// ```
    ///
    /// See <https://www.sqlite.org/gencol.html>.
    @discardableResult
    public func generatedAs(sql: String, _ storage: ColumnDefinition.GeneratedStorage = .virtual) -> Self {
        adding(.generated(sql: sql, storage))
    }

    /// `GENERATED ALWAYS AS (expression) VIRTUAL|STORED`, with the expression built in Swift.
    ///
    /// ```swift
    /// t.column("total", .integer).generatedAs(.column("price") * .column("quantity"))
    /// // "total" INTEGER GENERATED ALWAYS AS ("price" * "quantity") VIRTUAL
    /// ```
    ///
    /// See <https://www.sqlite.org/gencol.html>.
    @discardableResult
    public func generatedAs(
        _ expression: SQLExpression, _ storage: ColumnDefinition.GeneratedStorage = .virtual
    ) -> Self {
        adding(.generated(sql: expression.sql, storage))
    }

    /// `sql`: appends a column constraint written in SQL, used as is.
    ///
    /// ```swift
    /// t.column("age", .integer).constraint(sql: "CONSTRAINT adult CHECK (age >= 18)")
    /// ```
    ///
    /// See <https://www.sqlite.org/syntax/column-constraint.html>.
    @discardableResult
    public func constraint(sql: String) -> Self {
        adding(.sql(sql))
    }

    /// `-- @renamed from="oldName"`: tells the declarative engine that this column was called
    /// `oldName`, so that bringing a database to the schema renames the column (keeping its data)
    /// instead of dropping it and adding a new one. The hint ends the column's line in
    /// ``TableDefinition/sql``.
    ///
    /// ```swift
    /// let schema = SchemaDefinition { s in
    ///     s.table("player") { t in
    ///         t.column("fullName", .text).renamed(from: "name") // "fullName" TEXT -- @renamed from="name"
    ///     }
    /// }
    /// try db.migrateSchema(to: schema) // ALTER TABLE "player" RENAME COLUMN "name" TO "fullName"
    /// ```
    ///
    /// Plain `db.create(table:)` ignores the hint. See <https://www.sqlite.org/lang_altertable.html#alter_table_rename_column>.
    @discardableResult
    public func renamed(from oldName: String) -> Self {
        definition.renamedFrom = oldName
        return self
    }
}
