import StrataSQLite

extension Database {
    /// The desired schema `sql` declares, parsed with this connection's Swift functions and
    /// collations registered (an index may use them).
    func desiredSchema(sql: String) throws -> DatabaseSchema {
        try DatabaseSchema(sql: sql, functions: registeredFunctions, collations: registeredCollations)
    }

    /// Plans the changes that turn this database into `desired` (behind every
    /// `planSchemaChange(to:options:)`, `Database+SchemaEngine.swift`).
    func makePlan(to desired: DatabaseSchema, options: SchemaChangeOptions) throws -> Plan {
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
