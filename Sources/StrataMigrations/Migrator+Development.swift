import StrataSQLite
import StrataSchema

extension Migrator {
    /// Why development mode would erase the database: one line per edited or removed
    /// migration and per schema object that differs from what the applied migrations produce.
    /// Empty when the database is consistent with the registered migrations.
    ///
    /// ```swift
    /// try migrator.changesRequiringErase(db)
    /// // ["migration 0002_add_score was edited after it was applied", "table player: ..."]
    /// ```
    public func changesRequiringErase(_ db: Database) throws -> [String] {
        let status = try self.status(db)
        var reasons = status.unknown.map { "migration \($0) was removed (applied, no longer registered)" }
        reasons += status.checksumMismatches.map { "migration \($0.identifier) was edited after it was applied" }
        if !reasons.isEmpty || status.applied.isEmpty { return reasons }

        // Closure migrations have no checksum: compare the schema with a scratch database
        // migrated through the same applied migrations.
        let scratch: Database
        do {
            scratch = try replayingAppliedMigrations(status, configuration: db.configuration)
        } catch {
            return ["the applied migrations fail on an empty database: \(error)"]
        }
        defer { scratch.close() }
        return try schemaDifferences(live: db, expected: scratch)
    }

    /// The differences between the database's schema and the schema its applied migrations
    /// produce, one line each (`"table player: column score is missing"`): empty when they match.
    ///
    /// The applied registered migrations are replayed, in registration order, on an empty
    /// in-memory database, and both schemas are compared as the declarative engine compares them
    /// (whitespace, comments, quoting and keyword case do not count). A difference means the
    /// database was changed outside the migrations (an out-of-band `ALTER TABLE`, `strata apply`),
    /// or a migration without checksum (a closure) now does something else than when it ran.
    /// Applied migrations this migrator does not register cannot be replayed: check
    /// ``MigrationStatus/unknown`` first. Throws the replay's ``MigrationError`` when the applied
    /// migrations fail on an empty database.
    ///
    /// ```swift
    /// for line in try migrator.schemaDrift(db) { print("drift:", line) }
    /// ```
    public func schemaDrift(_ db: Database) throws -> [String] {
        let scratch = try replayingAppliedMigrations(try status(db), configuration: db.configuration)
        defer { scratch.close() }
        return try schemaDifferences(live: db, expected: scratch)
    }

    /// A private in-memory database migrated through the registered migrations `status` lists as applied.
    private func replayingAppliedMigrations(_ status: MigrationStatus, configuration: Configuration) throws -> Database
    {
        let scratch = try Database(inMemory: configuration.forScratchDatabase)
        var replay = Migrator(storage: storage)
        let applied = Set(status.applied.map(\.identifier))
        for (position, migration) in migrations.enumerated() {
            if position == 0, let baseline, !applied.contains(migration.identifier),
                baseline.covered.allSatisfy(applied.contains)
            {
                // Migrated before the squash: the baseline creates what the covered migrations did.
                replay.register(migration)
            } else if applied.contains(migration.identifier) {
                replay.register(migration)
            }
        }
        do {
            try replay.migrate(scratch)
        } catch {
            scratch.close()
            throw error
        }
        return scratch
    }

    /// Development mode: erases the database when ``changesRequiringErase(_:)`` finds anything.
    func eraseIfChanged(_ db: Database) throws {
        let reasons = try changesRequiringErase(db)
        guard !reasons.isEmpty else { return }
        emit(.erasingDatabase(reasons: reasons))
        try Migrator.erase(db)
    }

    /// Drops every view, trigger and table (the ledger too) and resets `user_version`, in one
    /// transaction. Foreign keys must be off (the migrator turns them off first).
    static func erase(_ db: Database) throws {
        try db.transaction(.immediate) {
            let objects = try db.fetchAll(
                sql: """
                    SELECT type, name, sql LIKE 'CREATE VIRTUAL%' FROM sqlite_master
                    WHERE type IN ('view', 'trigger', 'table') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                    ORDER BY CASE type WHEN 'view' THEN 0 WHEN 'trigger' THEN 1 ELSE 2 END,
                             sql LIKE 'CREATE VIRTUAL%' DESC
                    """)
            for row in objects {
                let type: String = try row.decode(at: 0)
                let name: String = try row.decode(at: 1)
                // Dropping a virtual table drops its shadow tables: skip names already gone.
                let exists =
                    try db.fetchValue(
                        Bool.self, sql: "SELECT count(*) > 0 FROM sqlite_master WHERE type = ? AND name = ?",
                        arguments: [type, name]) ?? false
                guard exists else { continue }
                let drop: DropDDL =
                    switch type {
                    case "view": .view(name)
                    case "trigger": .trigger(name)
                    default: .table(name)
                    }
                try db.execute(sql: drop.sql)
            }
            try db.execute(sql: "PRAGMA user_version = 0")
        }
    }

    /// One line per schema object that differs between `live` and `expected` (the declarative
    /// engine's comparison: whitespace, comments, quoting and keyword case do not count).
    func schemaDifferences(live: Database, expected: Database) throws -> [String] {
        try DatabaseSchema.read(from: expected).differences(from: DatabaseSchema.read(from: live))
    }
}

extension Configuration {
    /// The same connection settings for a private in-memory database.
    var forScratchDatabase: Configuration {
        var configuration = self
        configuration.openMode = .readWriteCreate
        configuration.uriFilenames = false
        configuration.label = "strata.migrations.scratch"
        // An in-memory database cannot be keyed, and needs no key: nothing of it reaches a file.
        configuration.encryptionKey = nil
        return configuration
    }
}
