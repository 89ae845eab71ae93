import StrataSQLite

extension DatabaseSchema {
    /// The desired schema declared by a ``SchemaDefinition``: its ``SchemaDefinition/sql`` run
    /// into a scratch database and read back, exactly as ``init(sql:)`` does, so a schema declared
    /// in Swift equals the same schema written in SQL.
    ///
    /// ```swift
    /// let desired = try DatabaseSchema(definition)
    /// let live = try DatabaseSchema.read(from: db)
    /// print(desired.differences(from: live))
    /// ```
    public init(_ definition: SchemaDefinition) throws {
        try definition.validate()
        try self.init(sql: definition.sql)
    }
}

extension SchemaDefinition {
    /// Renames whose old name cannot be written as a `-- @renamed` hint (it holds a line break):
    /// they are handed to the engine as options instead.
    var renamesNotWrittenAsHints: [SchemaRename] {
        tables.flatMap { table -> [SchemaRename] in
            var renames: [SchemaRename] = []
            if let old = table.renamedFrom, !CreateTableDDL.canWriteHint(for: old) {
                renames.append(.table(old, to: table.name))
            }
            for column in table.columns {
                if let old = column.renamedFrom, !CreateTableDDL.canWriteHint(for: old) {
                    renames.append(.column(old, to: column.name, inTable: table.name))
                }
            }
            return renames
        }
    }

    func engineOptions(_ options: SchemaChangeOptions) -> SchemaChangeOptions {
        var options = options
        options.renames += renamesNotWrittenAsHints
        return options
    }
}

extension Database {
    /// Plans the changes that bring this database to a schema declared in Swift; nothing is
    /// written. Same as ``planSchemaChange(to:options:)-(String,_)`` with the definition's SQL.
    ///
    /// ```swift
    /// let plan = try db.planSchemaChange(to: schema)
    /// print(plan.summary)
    /// ```
    ///
    /// Renames declared with ``ColumnBuilder/renamed(from:)`` and
    /// ``SchemaDefinition/table(_:options:renamedFrom:body:)`` are honored.
    public func planSchemaChange(
        to definition: SchemaDefinition, options: SchemaChangeOptions = SchemaChangeOptions()
    ) throws -> Plan {
        try definition.validate()
        return try planSchemaChange(to: desiredSchema(sql: definition.sql), options: definition.engineOptions(options))
    }

    /// Brings this database to a schema declared in Swift: plans the difference, proves it on a
    /// schema-only copy, and applies it in one transaction (native `ALTER TABLE` where it gives
    /// exactly the result, the safe rebuild where not).
    ///
    /// ```swift
    /// let schema = SchemaDefinition { s in
    ///     s.table("player") { t in
    ///         t.autoIncrementedPrimaryKey("id")
    ///         t.column("name", .text).notNull()
    ///         t.column("email", .text).unique()  // new UNIQUE column: rebuilds "player"
    ///     }
    /// }
    /// try db.migrateSchema(to: schema)
    /// ```
    ///
    /// Dropping tables or columns is refused unless `options.allowDestructive` is set.
    @discardableResult
    public func migrateSchema(
        to definition: SchemaDefinition, options: SchemaChangeOptions = SchemaChangeOptions()
    ) throws -> Plan {
        try definition.validate()
        // Through the SQL text, so that an unchanged database takes the launch fingerprint's fast
        // path (the DSL renders the same text for the same definition).
        return try migrateSchema(to: definition.sql, options: definition.engineOptions(options))
    }
}
