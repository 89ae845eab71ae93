import StrataSQLite

/// Schema-only copies of a database: every CREATE statement replayed into a private in-memory
/// database, no rows. Plans are tried and proven on such copies before they touch real data.
enum SchemaCopy {
    /// A copy of `db`'s schema; with `scope`, only the objects in it (see ``PlanScope``).
    static func make(of db: Database, scope: PlanScope? = nil) throws -> Database {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        if db.capabilities.version < SQLiteVersion.runtime {
            configuration.capabilityLimit = db.capabilities.version
        }
        let copy = try Database(inMemory: configuration)
        let reader = SchemaReader(db: db)
        let entries = try reader.entries().filter { !Schema.isInternalName($0.name) }
        let shadow = try reader.shadowTableNames(entries)
        let kept = entries.filter { entry in
            if entry.type == "table", shadow.contains(entry.name.asciiLowercased()) { return false }
            return scope?.contains(entry.type, entry.name) ?? true
        }
        // Tables first, then indexes, views and triggers, each in creation order.
        for type in ["table", "index", "view", "trigger"] {
            for entry in kept where entry.type == type {
                do {
                    try copy.execute(sql: entry.sql)
                } catch let error as SQLiteError {
                    throw SchemaError(
                        code: .unsupported,
                        message: "\(entry.type) \(entry.name): cannot be copied to a scratch database: "
                            + "\(error.message ?? "\(error)")",
                        underlying: error)
                }
            }
        }
        return copy
    }
}
