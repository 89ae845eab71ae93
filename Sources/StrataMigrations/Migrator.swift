import StrataSQLite
import StrataSchema

/// Applies an app's migrations to a database, each one once, in registration order.
///
/// ```swift
/// var migrator = Migrator()
/// migrator.registerMigration("0001_create_player", sql: """
///     CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
///     """)
/// migrator.registerMigration("0002_add_score") { db in
///     try db.execute(sql: "ALTER TABLE player ADD COLUMN score INTEGER NOT NULL DEFAULT 0")
/// }
/// try migrator.migrate(db)   // at every launch: applies what is pending, nothing else
/// ```
///
/// Each migration runs in its own `BEGIN IMMEDIATE` transaction with foreign keys turned off
/// outside it (so table rebuilds are safe). Before `COMMIT`, `PRAGMA foreign_key_check` runs:
/// a violation that did not exist before the migration rolls it back and names the table,
/// the rowid and the parent table. The migration is recorded in the `strata_migrations` ledger in
/// the same transaction, so it is applied and recorded, or neither. (A connection opened with
/// foreign keys off gets no check: the app does not enforce them.)
///
/// A database that has applied migrations this migrator does not register (it was opened by a
/// newer version of the app) is refused before anything runs, unless ``newerDatabasePolicy``
/// opens it. See
/// <https://www.sqlite.org/lang_altertable.html#otheralter> for why foreign keys are off.
public struct Migrator: Sendable {
    /// Where the migrator records which migrations are applied.
    public enum Storage: Sendable, Hashable {
        /// The `strata_migrations(identifier, checksum, applied_at, duration_ms)` table: any
        /// identifiers, checksums of SQL migrations, applied times.
        case ledger
        /// `PRAGMA user_version`, for apps that want nothing else in their database. Every
        /// identifier must start with a number (`"1"`, `"0002_add_email"`), strictly increasing;
        /// `user_version` holds the number of the last applied migration. Checksums, applied
        /// times and durations are not stored, so edited migrations are not detected.
        /// See <https://www.sqlite.org/pragma.html#pragma_user_version>.
        case userVersion
    }

    /// How pending migrations are grouped into transactions.
    public enum TransactionMode: Sendable, Hashable {
        /// Each migration commits on its own: a failure rolls back that migration only and
        /// leaves the earlier ones applied (the default).
        case perMigration
        /// All pending migrations run in one transaction: all are applied, or none.
        case singleTransaction
    }

    /// What to do when an applied migration's SQL text changed.
    public enum ChecksumMismatchPolicy: Sendable, Hashable {
        /// Throw ``MigrationError/Code/checksumMismatch`` before anything runs (the default).
        case error
        /// Send ``MigrationEvent/checksumMismatch(identifier:recorded:current:)`` and go on.
        case warn
    }

    /// The registered migrations, in order.
    public internal(set) var migrations: [Migration] = []
    /// The identifiers of ``migrations``: registering stays O(1) with hundreds of migrations.
    var registered: Set<String> = []
    /// The baseline registered first, when there is one (``registerBaseline(_:covering:originals:oldestSupported:)``).
    var baseline: Baseline?
    /// Where applied migrations are recorded. Default: the `strata_migrations` ledger.
    public var storage: Storage
    /// One transaction per migration (default) or one for all.
    public var transactionMode: TransactionMode = .perMigration
    /// Error (default) or warning when an applied migration was edited.
    public var checksumMismatchPolicy: ChecksumMismatchPolicy = .error
    /// When true (the default), a database that applied migrations this migrator does not
    /// register is refused. Set it to false to run the known pending migrations anyway.
    public var refusesUnknownMigrations = true
    /// What to do with a database a newer version of the app migrated (its ledger holds
    /// migrations this migrator does not register): refuse it (the default,
    /// ``NewerDatabasePolicy/refuse``), or open it when its schema is compatible with this
    /// version (``NewerDatabasePolicy/openWhenCompatible``). See ``migrateReportingOutcome(_:)-(Database)``.
    public var newerDatabasePolicy: NewerDatabasePolicy = .refuse
    /// Development mode (never the default): when an applied migration was edited or removed,
    /// or the database schema differs from what the applied migrations produce, erase the
    /// database and migrate it from scratch. Each reason is reported through
    /// ``MigrationEvent/erasingDatabase(reasons:)`` before the erase. All data is lost.
    public var eraseDatabaseOnChange = false
    /// A legacy version marker to adopt when the database has no record of applied migrations
    /// yet (see ``LegacyVersion``).
    public var legacyVersion: LegacyVersion?
    /// The upgrade airbag (restore points, confirmation, crash-loop recovery): nil (the
    /// default) for none. With it, `migrate(db)` runs ``migrate(_:safety:)``.
    public var upgradeSafety: UpgradeSafety?
    /// Receives ``MigrationEvent``s: started, progress, finished, failed, warnings.
    public var eventHandler: (@Sendable (MigrationEvent) -> Void)?

    /// A migrator with no migrations.
    ///
    /// ```swift
    /// var migrator = Migrator(storage: .userVersion)
    /// migrator.registerMigration("1", sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
    /// ```
    public init(storage: Storage = .ledger) {
        self.storage = storage
    }

    /// The identifiers of the registered migrations, in order.
    public var identifiers: [String] { migrations.map(\.identifier) }

    /// This migrator without the migrations registered after `identifier`: the app as it shipped
    /// at that version (the older-version matrix of `strata verify`). Nil when `identifier` is not
    /// registered.
    package func prefix(through identifier: String) -> Migrator? {
        guard let last = migrations.firstIndex(where: { $0.identifier == identifier }) else { return nil }
        var older = self
        older.migrations = Array(migrations[...last])
        return older
    }

    // MARK: Registering

    /// Appends a migration.
    ///
    /// Registering an identifier twice is a programming error: it stops the program with a
    /// message naming the identifier (like an out-of-bounds index), because a migration list
    /// with a duplicate can never be applied consistently.
    public mutating func register(_ migration: Migration) {
        if let baseline, baseline.coveredSet.contains(migration.identifier) {
            let name = migrations.first?.identifier ?? "?"
            preconditionFailure(
                "Migrator: migration \"\(migration.identifier)\" is covered by the baseline \"\(name)\"; pass it as one of its originals instead"
            )
        }
        if registered.contains(migration.identifier),
            let index = migrations.firstIndex(where: { $0.identifier == migration.identifier })
        {
            preconditionFailure(
                "Migrator: migration \"\(migration.identifier)\" is already registered (position \(index + 1)); identifiers must be unique"
            )
        }
        migrations.append(migration)
        registered.insert(migration.identifier)
    }

    /// Appends a migration that runs SQL text.
    ///
    /// ```swift
    /// migrator.registerMigration("0001_create_player", sql: "CREATE TABLE player(id INTEGER PRIMARY KEY)")
    /// ```
    public mutating func registerMigration(_ identifier: String, sql: String) {
        register(Migration(identifier, sql: sql))
    }

    /// Appends a migration that runs a closure.
    ///
    /// ```swift
    /// migrator.registerMigration("0002_seed") { db in
    ///     try db.execute(sql: "INSERT INTO team(name) VALUES ('red'), ('blue')")
    /// }
    /// ```
    public mutating func registerMigration(_ identifier: String, migrate: @escaping @Sendable (Database) throws -> Void)
    {
        register(Migration(identifier, migrate: migrate))
    }

    /// Appends a migration that brings the database to a desired schema through the
    /// declarative engine (see `Migration(_:schema:options:)`).
    ///
    /// ```swift
    /// migrator.registerMigration("0003_v2", schema: try String(contentsOfFile: "schema-v2.sql", encoding: .utf8))
    /// ```
    public mutating func registerMigration(
        _ identifier: String, schema: String, options: SchemaChangeOptions = SchemaChangeOptions()
    ) {
        register(Migration(identifier, schema: schema, options: options))
    }

    /// Appends a declarative migration with a data step: the expanding part of the change to
    /// `schema` (new tables and columns, relaxed constraints, new non-unique indexes), then
    /// `data`, then the contracting part (drops, tightened constraints), in the migration's one
    /// transaction; any failure rolls all of it back. See `ExpandContractPlan`.
    ///
    /// ```swift
    /// migrator.registerMigration("0003_split_tags", to: schemaV3) { db in
    ///     try db.execute(sql: "INSERT INTO note_tag(note_id, tag) SELECT note.id, value FROM note, json_each(note.tags)")
    /// }
    /// ```
    public mutating func registerMigration(
        _ identifier: String, to schema: String, options: SchemaChangeOptions = SchemaChangeOptions(),
        data: @escaping @Sendable (Database) throws -> Void
    ) {
        register(Migration(identifier, schema: schema, options: options, data: data))
    }

    /// Appends a declarative migration with a data step written in SQL (see
    /// `registerMigration(_:to:options:data:)`).
    ///
    /// ```swift
    /// migrator.registerMigration("0003_split_tags", to: schemaV3, dataSQL: "INSERT INTO note_tag ...")
    /// ```
    public mutating func registerMigration(
        _ identifier: String, to schema: String, options: SchemaChangeOptions = SchemaChangeOptions(), dataSQL: String
    ) {
        register(Migration(identifier, schema: schema, options: options, dataSQL: dataSQL))
    }

    /// Appends a declarative migration to a schema declared with the DSL, with a data step.
    ///
    /// ```swift
    /// migrator.registerMigration("0003_split_tags", to: definition) { db in try db.execute(sql: "...") }
    /// ```
    public mutating func registerMigration(
        _ identifier: String, to schema: SchemaDefinition, options: SchemaChangeOptions = SchemaChangeOptions(),
        data: @escaping @Sendable (Database) throws -> Void
    ) {
        register(Migration(identifier, schema: schema.sql, options: options, data: data))
    }

    /// Appends a declarative migration to a schema value (its `DatabaseSchema.sql`), with a data step.
    ///
    /// ```swift
    /// migrator.registerMigration("0003_split_tags", to: try DatabaseSchema(sql: text)) { db in try db.execute(sql: "...") }
    /// ```
    public mutating func registerMigration(
        _ identifier: String, to schema: DatabaseSchema, options: SchemaChangeOptions = SchemaChangeOptions(),
        data: @escaping @Sendable (Database) throws -> Void
    ) {
        register(Migration(identifier, schema: schema.sql, options: options, data: data))
    }

    /// Appends every migration of a loaded migration folder, in numeric order.
    ///
    /// ```swift
    /// var migrator = Migrator()
    /// migrator.registerMigrations(from: try MigrationDirectory(path: "Migrations"))
    /// ```
    ///
    /// A baseline file (written by `strata squash`, see ``MigrationBaselineHeader``) is registered
    /// with ``registerBaseline(_:covering:originals:oldestSupported:)``, the files of its archive
    /// folder as its originals.
    public mutating func registerMigrations(from directory: MigrationDirectory) {
        for file in directory.files {
            if let header = file.baseline {
                registerBaseline(
                    file.migration, covering: header.covers, originals: directory.archivedOriginals.map(\.migration),
                    oldestSupported: header.oldestSupported)
            } else {
                register(file.migration)
            }
        }
    }

    func emit(_ event: MigrationEvent) { eventHandler?(event) }

    func index(of identifier: String) -> Int? {
        migrations.firstIndex(where: { $0.identifier == identifier })
    }
}
