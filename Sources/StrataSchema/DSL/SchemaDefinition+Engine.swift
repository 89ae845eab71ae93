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
