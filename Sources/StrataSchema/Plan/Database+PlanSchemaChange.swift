import StrataSQLite

extension Database {
    /// Plans the changes that turn this database into the schema described by `desiredSQL`.
    /// The plan is proven on a schema-only copy before it is returned; nothing is written.
    ///
    /// ```swift
    /// let plan = try db.planSchemaChange(to: """
    ///     CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER DEFAULT 0);
    ///     """)
    /// print(plan.summary)
    /// ```
    ///
    /// Throws ``SchemaError``: invalid desired SQL, destructive changes not allowed (listing each),
    /// a failed preflight, an unresolved rename hint.
    public func planSchemaChange(
        to desiredSQL: String, options: SchemaChangeOptions = SchemaChangeOptions()
    ) throws -> Plan {
        try planSchemaChange(to: desiredSchema(sql: desiredSQL), options: options)
    }

    /// The desired schema `sql` declares, parsed with this connection's Swift functions and
    /// collations registered (an index may use them).
    func desiredSchema(sql: String) throws -> DatabaseSchema {
        try DatabaseSchema(sql: sql, functions: registeredFunctions, collations: registeredCollations)
    }

    /// Plans the changes that turn this database into `desired`.
    public func planSchemaChange(
        to desired: DatabaseSchema, options: SchemaChangeOptions = SchemaChangeOptions()
    ) throws -> Plan {
        // The live schema may rely on double-quoted string literals, which SQLite accepted when
        // it was created: what the planner runs on this connection (data checks, views read)
        // accepts them too, whatever the connection's strict default.
        try acceptingDoubleQuotedStringLiterals {
            let live = try DatabaseSchema.read(from: self)
            // The planner proves the plan: it runs every statement on a schema-only copy and
            // checks the result equals `desired` (see Planner.plan()).
            return try Planner(db: self, live: live, desired: desired, options: options).plan()
        }
    }
}
