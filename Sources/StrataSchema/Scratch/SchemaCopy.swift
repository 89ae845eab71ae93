import StrataSQLite

/// Schema-only copies of a database: every CREATE statement replayed into a private in-memory
/// database, no rows. Plans are tried and proven on such copies before they touch real data.
enum SchemaCopy {
    /// A copy of `db`'s schema; with `including`, only the objects (type and name as in
    /// `sqlite_schema`) for which it returns true (the planner passes its `PlanScope`'s).
    static func make(
        of db: Database, including: ((_ type: String, _ name: String) -> Bool)? = nil
    ) throws -> Database {
        // Hardened like the desired schema's scratch database (see ScratchDatabase): the live
        // schema is input too, and plans run here before they touch real data.
        var configuration = ScratchDatabase.configuration(
            capabilityLimit: db.capabilities.version < SQLiteVersion.runtime ? db.capabilities.version : nil)
        configuration.foreignKeysEnabled = false
        // The copy replays the schema as SQLite stored it, which may rely on double-quoted string
        // literals (accepted when the live objects were created); the desired schema's scratch
        // database stays strict.
        configuration.acceptsDoubleQuotedStringLiterals = true
        // The live schema may use the connection's Swift functions and collations (in indexes,
        // CHECK constraints, views): the copy needs them to be created at all.
        configuration.functions = db.registeredFunctions
        configuration.collations = db.registeredCollations
        // ALTER TABLE RENAME rewrites the views and triggers that stay in place only while
        // `legacy_alter_table` is off (<https://www.sqlite.org/pragma.html#pragma_legacy_alter_table>):
        // the copy renames the way the live connection will when the plan is applied.
        if try db.fetchValue(Int.self, sql: "PRAGMA legacy_alter_table") == 1 {
            configuration.setupSQL.append("PRAGMA legacy_alter_table = ON")
        }
        let (copy, guardian) = try ScratchDatabase.open(configuration)
        let reader = SchemaReader(db: db)
        let all = try reader.entries()
        let entries = all.filter { !DatabaseSchema.isInternalName($0.name) }
        // Only a virtual table has shadow tables (PRAGMA table_list is not run without one).
        let hasVirtualTable = all.contains { $0.type == "table" && SchemaReader.mayBeVirtualTable($0.sql) }
        let shadow = hasVirtualTable ? try reader.shadowTableNames(entries) : []
        let kept = entries.filter { entry in
            if entry.type == "table", shadow.contains(entry.name.asciiLowercased()) { return false }
            return including?(entry.type, entry.name) ?? true
        }
        // One transaction for the whole copy: in autocommit mode every CREATE is a transaction of
        // its own (journal, schema cookie, commit), most of the cost on large schemas.
        try copy.execute(sql: "BEGIN")
        defer { if copy.isInTransaction { try? copy.execute(sql: "COMMIT") } }
        // Tables first, then indexes, views and triggers, each in creation order.
        for type in ["table", "index", "view", "trigger"] {
            for entry in kept where entry.type == type {
                do {
                    try guardian.create(entry.sql, in: copy)
                } catch let error as SQLiteError {
                    copy.close()
                    throw SchemaError(
                        code: .unsupported,
                        message: "\(entry.type) \(entry.name): cannot be copied to a scratch database: "
                            + "\(guardian.refusal ?? error.message)",
                        culprit: entry.name, underlying: error)
                }
            }
        }
        return copy
    }
}
