import StrataSQLite
import StrataSchema

extension Migrator {
    /// Applies every pending migration, in registration order, and returns their identifiers.
    ///
    /// ```swift
    /// let db = try Database(path: "app.sqlite")
    /// try migrator.migrate(db)
    /// ```
    ///
    /// Call it outside any transaction. Before anything runs, the database is refused when it
    /// applied migrations this migrator does not know, or (by default) when an applied
    /// migration was edited. Another process migrating the same database at the same time is
    /// fine: each transaction checks the ledger again under the write lock and skips what the
    /// other process applied (it is not in the returned identifiers). A failing migration is rolled back and the error names it; the
    /// migrations applied before it stay applied (unless ``transactionMode`` is
    /// ``TransactionMode/singleTransaction``).
    @discardableResult
    public func migrate(_ db: Database) throws -> [String] {
        if let upgradeSafety { return try migrate(db, safety: upgradeSafety).applied }
        return try run(db, upTo: migrations.count - 1)
    }

    /// Applies the pending migrations up to and including `target`, and returns their
    /// identifiers. Useful in tests that check a migration against data from the previous one.
    ///
    /// ```swift
    /// try migrator.migrate(db, upTo: "0002_add_score")
    /// ```
    ///
    /// Throws ``MigrationError/Code/invalidRequest`` when `target` is not registered, or when a
    /// migration registered after it is already applied.
    @discardableResult
    public func migrate(_ db: Database, upTo target: String) throws -> [String] {
        if let baseline, let position = baseline.covered.firstIndex(of: target) {
            return try migrateOriginals(db, through: position, of: baseline)
        }
        guard let targetIndex = index(of: target) else {
            throw MigrationError(
                .invalidRequest, "migration \(target): not registered (cannot migrate up to it)", migrations: [target])
        }
        return try run(db, upTo: targetIndex)
    }

    /// `migrate(_:upTo:)` a migration a baseline covers: runs the originals up to it (a database
    /// at a historical version, as the test kit builds), when each of them is available.
    private func migrateOriginals(_ db: Database, through position: Int, of baseline: Baseline) throws -> [String] {
        let target = baseline.covered[position]
        if let recorded = try appliedRecords(db).first(where: { $0.identifier == migrations.first?.identifier }) {
            throw MigrationError(
                .invalidRequest,
                "migration \(target): the database applied the baseline \(recorded.identifier), so it is beyond \(target)",
                migrations: [target, recorded.identifier])
        }
        var replay = self
        replay.baseline = nil
        replay.migrations = []
        replay.registered = []
        for identifier in baseline.covered[...position] {
            guard let original = baseline.originals[identifier] else {
                throw MigrationError(
                    .invalidRequest,
                    "migration \(target): covered by the baseline \(migrations.first?.identifier ?? ""), and the original \(identifier) is not available (pass it in originals:)",
                    migrations: [target, identifier])
            }
            replay.register(original)
        }
        replay.refusesUnknownMigrations = false
        return try replay.migrate(db)
    }

    func run(_ db: Database, upTo targetIndex: Int) throws -> [String] {
        guard !db.isInTransaction else {
            throw MigrationError(.invalidRequest, "\(db.path): migrations must run outside a transaction (one is open)")
        }
        try validateConfiguration()
        guard targetIndex >= 0 else { return [] }
        // The usual start-up: everything applied, nothing unknown, nothing edited — decided by
        // one query before anything else is read.
        if isLedgerExactly(migrations[...targetIndex], in: db) { return [] }

        let applied = try db.withForeignKeysOff { checkForeignKeys in
            if eraseDatabaseOnChange {
                try eraseIfChanged(db)
            }
            if legacyVersion != nil {
                try adoptLegacyVersion(db)
            }
            let status = try self.status(db)
            try refuseUnsafeState(status, acceptingNewer: true)
            // --- A database a newer app version migrated, opened as `newerDatabasePolicy` says
            // (normally, read-only, or refused): Migrator+NewerDatabase.swift. Nothing is migrated.
            if opensAsNewerDatabase(status) {
                try openNewerDatabase(db, status: status, through: targetIndex)
                return [String]()
            }
            // ---

            let appliedSet = Set(status.applied.map(\.identifier))
            if let beyond = migrations[(targetIndex + 1)...].first(where: { appliedSet.contains($0.identifier) }) {
                let target = migrations[targetIndex].identifier
                throw MigrationError(
                    .invalidRequest,
                    "migration \(beyond.identifier): already applied, so the database is beyond \(target)",
                    migrations: [beyond.identifier, target])
            }
            let pending = pendingMigrations(status, upTo: targetIndex)
            // Another process (a second app instance, a second `strata migrate`) may apply some of
            // them between the read above and the write lock: each transaction looks again once
            // BEGIN IMMEDIATE holds the lock, and skips what was applied meanwhile.
            var applied: [String] = []
            switch transactionMode {
            case .perMigration:
                var ledgerRows = status.applied.count + status.unknown.count
                for migration in pending {
                    try inImmediateTransaction(db, failing: migration, rolledBack: "rolled back") {
                        if try appliedMeanwhile(migration, in: db, ledgerRows: &ledgerRows) { return }
                        try apply(migration, to: db, checkForeignKeys: checkForeignKeys)
                        ledgerRows += 1
                        applied.append(migration.identifier)
                    }
                }
            case .singleTransaction where !pending.isEmpty:
                var current: Migration?
                do {
                    try db.transaction(.immediate) {
                        let now = try self.status(db)
                        try refuseUnsafeState(now, emittingWarnings: false)
                        let appliedNow = Set(now.applied.map(\.identifier))
                        for migration in pending where !appliedNow.contains(migration.identifier) {
                            current = migration
                            try apply(migration, to: db, checkForeignKeys: checkForeignKeys)
                            applied.append(migration.identifier)
                        }
                    }
                } catch {
                    applied = []
                    let migration = current ?? pending.first
                    let wrapped = wrap(
                        error, migration: migration, outcome: "all \(pending.count) pending migrations rolled back")
                    if let migration { emit(.failed(identifier: migration.identifier, error: wrapped)) }
                    throw wrapped
                }
            case .singleTransaction:
                break
            }
            return applied
        }
        // The next start-up compares one digest instead of every checksum.
        if !applied.isEmpty { recordStartupDigest(migrations[...targetIndex], in: db) }
        return applied
    }

    /// Whether another connection applied `migration` after the ledger was read, asked inside the
    /// migration's `BEGIN IMMEDIATE` transaction (no other connection can write until it ends).
    /// `ledgerRows` is the number of ledger rows this run expects; when the ledger differs, the
    /// whole state is read and checked again (unknown and edited migrations are refused, as
    /// before anything runs) and `ledgerRows` updated. Cheap in the usual case: one query.
    private func appliedMeanwhile(_ migration: Migration, in db: Database, ledgerRows: inout Int) throws -> Bool {
        switch storage {
        case .ledger:
            // A run that expects ledger rows knows the table exists: no need to ask.
            if ledgerRows == 0, try !tableExists(Migrator.ledgerTableName, in: db) { return false }
            let row = try db.fetchOne(
                sql: "SELECT count(*), count(CASE WHEN identifier = ? THEN 1 END) FROM strata_migrations",
                arguments: [migration.identifier])
            let rows = try row?.decode(Int.self, at: 0) ?? 0
            let recorded = try row?.decode(Int.self, at: 1) ?? 0
            if rows == ledgerRows, recorded == 0 { return false }
        case .userVersion:
            // Applied in order: the migration was applied meanwhile when user_version reached it.
            if try userVersion(db) < migration.number ?? Int.max { return false }
        }
        let status = try self.status(db)
        try refuseUnsafeState(status, emittingWarnings: false)
        ledgerRows = status.applied.count + status.unknown.count
        return status.applied.contains { $0.identifier == migration.identifier }
    }

    /// Throws for unknown applied migrations and (by policy) edited ones; emits warnings unless
    /// told not to (a second look at the same state). `acceptingNewer`: unknown migrations are
    /// left to ``openNewerDatabase(_:status:through:)`` when ``newerDatabasePolicy`` opens them.
    func refuseUnsafeState(
        _ status: MigrationStatus, emittingWarnings: Bool = true, acceptingNewer: Bool = false
    ) throws {
        if let unsupported = status.unsupportedHistory { throw unsupported }
        if refusesUnknownMigrations, !status.unknown.isEmpty, !(acceptingNewer && opensAsNewerDatabase(status)) {
            throw MigrationError(
                .unknownMigrations,
                "\(status.unknown.joined(separator: ", ")): applied to the database but unknown to this app (migrated by a newer version?); nothing was migrated",
                migrations: status.unknown)
        }
        guard !status.checksumMismatches.isEmpty else { return }
        switch checksumMismatchPolicy {
        case .error:
            throw MigrationError(
                .checksumMismatch,
                "\(status.checksumMismatches.map(\.description).joined(separator: "; ")); nothing was migrated",
                migrations: status.checksumMismatches.map(\.identifier))
        case .warn:
            guard emittingWarnings else { return }
            for mismatch in status.checksumMismatches {
                emit(
                    .checksumMismatch(
                        identifier: mismatch.identifier, recorded: mismatch.recorded, current: mismatch.current))
            }
        }
    }

    /// Runs one migration's body, checks foreign keys and records it, inside the open transaction.
    private func apply(_ migration: Migration, to db: Database, checkForeignKeys wholeDatabase: Bool) throws {
        // A declarative migration checks the foreign keys of the tables its plan touches itself
        // (Database+ApplySchemaChange.swift): never the whole database, so a large file is not
        // read through and a violation that already exists in a table it leaves alone never
        // blocks it. Other migrations can write anywhere: the whole database, before and after.
        var checkForeignKeys = wholeDatabase
        if case .schema = migration.body { checkForeignKeys = false }
        emit(.started(identifier: migration.identifier))
        let clock = ContinuousClock()
        let start = clock.now
        let before = checkForeignKeys ? try foreignKeyViolations(db) : []
        try runBody(of: migration, in: db)
        if db.isInTransaction == false {
            throw MigrationError(
                .migrationFailed,
                "migration \(migration.identifier): it ended the migration's transaction (COMMIT or ROLLBACK in its body)",
                migrations: [migration.identifier])
        }
        if checkForeignKeys {
            let introduced = try foreignKeyViolations(db).subtracting(before)
            if !introduced.isEmpty {
                let sorted = introduced.sorted {
                    ($0.table, $0.rowid ?? 0, $0.parent, $0.description) < (
                        $1.table, $1.rowid ?? 0, $1.parent, $1.description
                    )
                }
                let shown = sorted.prefix(5).map(\.description).joined(separator: "; ")
                let more = sorted.count > 5 ? " (and \(sorted.count - 5) more)" : ""
                throw MigrationError(
                    .foreignKeyViolation, "migration \(migration.identifier): foreign key violation: \(shown)\(more)",
                    migrations: [migration.identifier], foreignKeyViolations: sorted)
            }
        }
        let duration = clock.now - start
        try record(migration, durationMilliseconds: duration.milliseconds, in: db)
        emit(.finished(identifier: migration.identifier, duration: duration))
    }

    /// Runs the migration's body with SQLite vetting every transaction control statement it
    /// compiles (see ``MigrationTransactionGuard``): a refused one fails the migration, naming it,
    /// even when a closure caught the error. SQL text runs one statement at a time, as SQLite
    /// splits it, so nothing after a refused statement runs either.
    private func runBody(of migration: Migration, in db: Database) throws {
        let transactionGuard = MigrationTransactionGuard()
        do {
            try db.checkingTransactionControl(transactionGuard.allows) {
                switch migration.body {
                case .sql(let sql):
                    try db.execute(sql: sql)
                case .closure(let body):
                    try body(db, MigrationProgress(identifier: migration.identifier, handler: eventHandler))
                case .schema(let sql, let options):
                    try db.migrateSchema(to: sql, options: options)
                case .schemaWithData(let sql, let options, let step):
                    try db.expandAndContract(
                        to: sql, options: options,
                        dataStep: { db in
                            switch step {
                            case .sql(let text): try db.execute(sql: text)
                            case .closure(let body): try body(db)
                            }
                        })
                }
            }
        } catch {
            guard let refused = transactionGuard.refused else { throw error }
            let denied = (error as? SQLiteError).flatMap { $0.resultCode == .SQLITE_AUTH ? $0.sql : nil }
            throw transactionGuard.error(for: migration, refused, statement: denied)
        }
        if let refused = transactionGuard.refused {
            throw transactionGuard.error(for: migration, refused, statement: nil)
        }
    }

    /// The violations now, or none when no table declares a foreign key (the cheap common case).
    private func foreignKeyViolations(_ db: Database) throws -> Set<ForeignKeyViolation> {
        let declaresForeignKeys =
            try db.fetchValue(
                Bool.self,
                sql: "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND sql LIKE '%REFERENCES%'") ?? false
        return declaresForeignKeys ? Set(try db.foreignKeyViolations()) : []
    }

    /// `BEGIN IMMEDIATE`, `body`, `COMMIT`; rolls back, emits `failed` and wraps the error on failure.
    private func inImmediateTransaction(
        _ db: Database, failing migration: Migration, rolledBack: String, _ body: () throws -> Void
    ) throws {
        do {
            try db.transaction(.immediate, body)
        } catch {
            var outcome = rolledBack
            if db.hasHotJournal() {
                // The disk filled up (or an I/O error struck) and SQLite could not finish the
                // rollback, even when retried: say so rather than claim the database is as it was.
                outcome =
                    "the rollback could not finish (disk full or I/O error): the database file may hold pages of "
                    + "the failed migration until the hot journal \((db.fileName ?? db.path) + "-journal") is played back, "
                    + "which the next connection that opens the database does; keep that file, and no committed row is lost"
            }
            let wrapped = wrap(error, migration: migration, outcome: outcome)
            emit(.failed(identifier: migration.identifier, error: wrapped))
            throw wrapped
        }
    }

    /// A ``MigrationError`` naming the migration, the cause, and what was rolled back.
    func wrap(_ error: any Error, migration: Migration?, outcome: String) -> MigrationError {
        let name = migration?.identifier ?? "migrations"
        if let error = error as? MigrationError {
            if error.code == .foreignKeyViolation || error.code == .migrationFailed {
                return MigrationError(
                    error.code, "\(error.message); \(outcome)", migrations: error.migrations,
                    underlyingError: error.underlyingError, foreignKeyViolations: error.foreignKeyViolations)
            }
            return error
        }
        // One line, whatever the error: a closure's or the engine's message may span several.
        let shown: String
        if let error = error as? SQLiteError {
            // A rebuild written by `strata new` copies rows into a temporary table, and SQLite's
            // message names that table: name the user's table instead.
            var statements = [String]()
            if case .sql(let sql) = migration?.body { statements = [sql] }
            let userFacing = { (text: String) in TemporaryNames.userFacing(text, statements: statements) }
            // The failing "statement" can be the rest of the file (an unterminated string runs
            // to its end), and SQLite's message quotes such a token whole: quote both short.
            shown =
                SQLiteError(
                    resultCode: error.extendedResultCode, message: MigrationError.excerpt(userFacing(error.message)),
                    sql: error.sql.map { MigrationError.excerpt(userFacing($0)) }, arguments: error.arguments,
                    publicStatementArguments: error.publicStatementArguments
                ).description
        } else {
            shown = MigrationError.excerpt("\(error)", limit: 1000)
        }
        return MigrationError(
            .migrationFailed, "migration \(name) failed: \(shown); \(outcome)",
            migrations: migration.map { [$0.identifier] } ?? [], underlyingError: error)
    }

    /// Checks what registration cannot: `user_version` storage needs numbered identifiers.
    func validateConfiguration() throws {
        if let baseline, let first = migrations.first {
            if storage == .userVersion {
                throw MigrationError(
                    .invalidRequest,
                    "baseline \(first.identifier): user_version storage cannot record which migrations a baseline covers; use the ledger",
                    migrations: [first.identifier])
            }
            // A byte scan: `String.contains(String)` is a Unicode-aware search, costly over
            // thousands of covered identifiers at every start-up.
            if let bad = baseline.covered.first(where: { $0.utf8.contains(0x0A) || $0.utf8.contains(0x0D) }) {
                throw MigrationError(
                    .invalidRequest,
                    "baseline \(first.identifier): covered identifier \(bad.debugDescription) holds a line break, which the ledger's covers column cannot record",
                    migrations: [first.identifier, bad])
            }
        }
        guard storage == .userVersion else { return }
        var previous: Migration?
        for migration in migrations {
            guard let number = migration.number, number > 0 else {
                throw MigrationError(
                    .invalidRequest,
                    "migration \(migration.identifier): user_version storage needs identifiers that start with a positive number",
                    migrations: [migration.identifier])
            }
            if let previous, let last = previous.number, number <= last {
                throw MigrationError(
                    .invalidRequest,
                    "migration \(migration.identifier): number \(number) does not follow \(previous.identifier) (user_version storage needs increasing numbers)",
                    migrations: [migration.identifier, previous.identifier])
            }
            previous = migration
        }
    }
}
