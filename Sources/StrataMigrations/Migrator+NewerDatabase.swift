import StrataSQLite
import StrataSchema

/// What a ``Migrator`` does with a database that a newer version of the app migrated: its ledger
/// holds migrations this version does not register (``Migrator/newerDatabasePolicy``).
///
/// ```swift
/// var migrator = Migrator()
/// migrator.registerMigration("0001_create_note", sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT)")
/// migrator.newerDatabasePolicy = .openWhenCompatible
/// ```
public enum NewerDatabasePolicy: String, Sendable, Hashable, CaseIterable {
    /// Refuse it: ``MigrationError/Code/unknownMigrations``, nothing migrated (the default).
    case refuse
    /// Open it when this version can still use it, judged by the change from this version's
    /// schema (its migrations replayed on a private in-memory database) to the file's, classified
    /// by the compatibility rules for the previous version (`Plan.compatibility(policy: .previousVersion)`):
    ///
    /// - **normally** when every change is safe for this version: new tables, new columns that
    ///   are nullable or have a DEFAULT, new or dropped indexes and triggers, views redefined with
    ///   the same columns, relaxed constraints, changed defaults, widened types;
    /// - **read-only** when only this version's writes would break: a column that became NOT NULL
    ///   or was added NOT NULL without a DEFAULT, a new UNIQUE, CHECK or foreign key, a table that
    ///   became STRICT. Every write through the connection then fails (SQLITE_AUTH) with a message
    ///   naming the database and the newer migrations; reads work;
    /// - **refused** otherwise, when this version's reads would break: a dropped or renamed table,
    ///   column or view, a view whose columns changed, a narrowed type, a column that may now hold
    ///   NULL, a changed primary key or table kind, any other change the rules call breaking.
    ///   ``MigrationError/Code/incompatibleNewerDatabase`` names this version's last migration,
    ///   the file's newest and the first incompatible change.
    ///
    /// The plan's data conditions do not count: the newer version already applied the change, so
    /// the rows meet them. Nothing is ever written to the file; the file's history must extend this
    /// version's (every migration this version registers applied), or it is refused too.
    case openWhenCompatible = "open-when-compatible"
}

/// What ``Migrator/migrateReportingOutcome(_:)-(Database)`` did: the migrations it applied, and whether the
/// database was one a newer version of the app migrated, opened normally or read-only.
///
/// ```swift
/// let outcome = try migrator.migrateReportingOutcome(db)
/// if outcome.access == .readOnly { print(outcome.message) }   // tell the user to update the app
/// ```
public struct MigrationOutcome: Sendable, Hashable {
    /// How the app may use the connection.
    public enum Access: String, Sendable, Hashable {
        /// Reads and writes work.
        case readWrite = "read-write"
        /// Reads work; every write to the database through this connection fails with
        /// SQLITE_AUTH, its message naming the database and the newer migrations.
        case readOnly = "read-only"
    }

    /// The migrations applied by this call, in order (none when the database is newer).
    public let applied: [String]
    /// Read-write, or read-only for a newer database this version cannot write safely.
    public let access: Access
    /// The applied migrations this version does not register, in the order they were applied
    /// (`user_version N` in `user_version` storage); empty when the database is not newer.
    public let newerMigrations: [String]
    /// This version's last registered migration (nil when it registers none).
    public let version: String?
    /// The database's newest migration: the last of ``newerMigrations`` when it is newer,
    /// else ``version`` once migrated.
    public let databaseVersion: String?
    /// For a newer database, every change from this version's schema to the file's, classified
    /// for this version (safe ones included), in the plan's order; empty otherwise.
    public let findings: [CompatibilityFinding]
    /// The change that makes the database read-only for this version, when it is.
    public let readOnlyReason: CompatibilityFinding?
    /// The restore that took a newer database this version cannot read back to this version
    /// (a restore point taken before the upgrade from this version was kept, and nothing written
    /// since was lost); nil otherwise.
    public let restored: RestoreReport?
    /// One line for the app's log and its message to the user.
    public let message: String

    /// True when the database was migrated by a newer version of the app.
    public var isNewerDatabase: Bool { !newerMigrations.isEmpty }
}

/// How a version of the app can use a database whose schema a newer version changed: the
/// classification behind ``NewerDatabasePolicy/openWhenCompatible`` (`strata verify`'s matrix
/// uses it too).
package struct NewerDatabaseCheck: Sendable {
    /// What the version does with the file.
    package enum Verdict: String, Sendable, Hashable {
        case opensNormally = "opens normally"
        case opensReadOnly = "opens read-only"
        case refused = "refused"
    }

    /// What a change does to the older version.
    package enum Effect: Sendable, Hashable {
        case none
        case breaksWriters
        case breaksReaders
    }

    package var verdict: Verdict
    /// Every change from the version's schema to the file's, classified.
    package var findings: [CompatibilityFinding]
    /// The first change that decides the verdict (breaking reads when refused, writes when
    /// read-only); nil when it opens normally or the change could not be planned.
    package var decisive: CompatibilityFinding?
    /// Why the change could not be planned (then it is refused), nil when it was.
    package var planningFailure: String?

    /// `refused: breaking drop-column note.body: ...`, `opens normally`.
    package var summary: String {
        if let decisive { return "\(verdict.rawValue): \(decisive)" }
        if let planningFailure { return "\(verdict.rawValue): \(planningFailure)" }
        return verdict.rawValue
    }

    /// Classifies the change from the schema of `versionDatabase` (a private database holding
    /// the older version's schema) to `fileSchema`: planned on a schema-only copy of
    /// `versionDatabase` (nothing is written to either), classified by
    /// `Plan.compatibility(policy: .previousVersion)`, each finding's ``Effect`` decided by
    /// ``effect(of:in:)``.
    package static func classify(versionDatabase: Database, fileSchema: DatabaseSchema) -> NewerDatabaseCheck {
        let plan: Plan
        do {
            plan = try versionDatabase.planSchemaChange(
                to: fileSchema, options: SchemaChangeOptions(allowDestructive: true))
        } catch {
            return NewerDatabaseCheck(
                verdict: .refused, findings: [], decisive: nil,
                planningFailure: "the change to the file's schema cannot be planned: "
                    + SQLiteText.excerpt("\(error)", limit: 300))
        }
        let findings = plan.compatibility(policy: .previousVersion).findings
        let effects = findings.map { effect(of: $0, in: plan) }
        if let i = effects.firstIndex(of: .breaksReaders) {
            return NewerDatabaseCheck(verdict: .refused, findings: findings, decisive: findings[i])
        }
        if let i = effects.firstIndex(of: .breaksWriters) {
            return NewerDatabaseCheck(verdict: .opensReadOnly, findings: findings, decisive: findings[i])
        }
        return NewerDatabaseCheck(verdict: .opensNormally, findings: findings, decisive: nil)
    }

    /// The rule of ``NewerDatabasePolicy/openWhenCompatible``: what `finding` (a change from the
    /// older version's schema, `plan.base`, to the file's, `plan.desired`) does to that version.
    package static func effect(of finding: CompatibilityFinding, in plan: Plan) -> Effect {
        switch finding.code {
        case .dataCondition:
            // A condition on the rows for applying the change; the file already holds it.
            return .none
        case .addNotNullWithoutDefault, .setNotNull, .addUnique, .addCheck, .addForeignKey:
            // Refuses some of the older version's writes; every row still reads as it expects.
            return .breaksWriters
        case .changeTableOptions:
            // Becoming STRICT refuses loosely typed writes only; WITHOUT ROWID, or a table that
            // is no longer STRICT (values of any type for its readers), breaks reads.
            if let old = plan.base.table(named: finding.object), let new = plan.desired.table(named: finding.object),
                !old.isVirtual, !new.isVirtual, old.isWithoutRowID == new.isWithoutRowID, !old.isStrict, new.isStrict
            {
                return .breaksWriters
            }
            return .breaksReaders
        default:
            return finding.level == .safe ? .none : .breaksReaders
        }
    }
}

extension Migrator {
    /// Applies every pending migration like ``migrate(_:)-(Database)`` and reports what happened:
    /// the migrations applied, and, for a database a newer version of the app migrated (with
    /// ``newerDatabasePolicy`` set to ``NewerDatabasePolicy/openWhenCompatible``), whether this
    /// connection may write it.
    ///
    /// ```swift
    /// var migrator = Migrator()
    /// migrator.registerMigration("0001_create_note", sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT)")
    /// migrator.newerDatabasePolicy = .openWhenCompatible
    /// let outcome = try migrator.migrateReportingOutcome(db)
    /// if outcome.isNewerDatabase {
    ///     print(outcome.message)   // "...: migrated by a newer version of the app (0002_...), opened read-write"
    /// }
    /// ```
    ///
    /// The usual launch (the ledger holds exactly the registered migrations) costs what
    /// ``migrate(_:)-(Database)`` costs: one query. Only a newer database is classified, at each
    /// launch that meets it: this version's migrations replayed on a private in-memory database,
    /// then a plan from that schema to the file's, on a schema-only copy. Nothing is written to
    /// the file: a read-only connection refuses writes itself. Throws
    /// ``MigrationError/Code/incompatibleNewerDatabase`` when this version cannot read the file,
    /// and what ``migrate(_:)-(Database)`` throws.
    @discardableResult
    public func migrateReportingOutcome(_ db: Database) throws -> MigrationOutcome {
        let report = LockedValue<MigrationOutcome?>(nil)
        let applied = try Migrator.$newerDatabaseReport.withValue(report) { try migrate(db) }
        if let outcome = report.withLock({ $0 }) { return outcome }
        let version = migrations.last?.identifier
        let what = applied.isEmpty ? "up to date" : "migrated through \(version ?? "")"
        return MigrationOutcome(
            applied: applied, access: db.writeRefusal == nil ? .readWrite : .readOnly, newerMigrations: [],
            version: version, databaseVersion: applied.isEmpty ? nil : version, findings: [], readOnlyReason: nil,
            restored: nil,
            message: "\(db.path): \(what)")
    }

    /// ``migrateReportingOutcome(_:)-(Database)`` through a `DatabaseQueue` or `DatabasePool`, on its writer.
    ///
    /// ```swift
    /// let outcome = try await migrator.migrateReportingOutcome(pool)
    /// ```
    @discardableResult
    public func migrateReportingOutcome(_ writer: some DatabaseWriter) async throws -> MigrationOutcome {
        try await writer.writeWithoutTransaction { db in try self.migrateReportingOutcome(db) }
    }

    /// Where ``openNewerDatabase(_:status:through:)`` leaves its outcome for
    /// ``migrateReportingOutcome(_:)-(Database)`` (bound by it, nil otherwise).
    @TaskLocal static var newerDatabaseReport: LockedValue<MigrationOutcome?>?

    /// True when `status` is a database a newer version migrated and the policy opens such files
    /// (``openNewerDatabase(_:status:through:)`` then decides, in place of the refusal).
    func opensAsNewerDatabase(_ status: MigrationStatus) -> Bool {
        newerDatabasePolicy == .openWhenCompatible && refusesUnknownMigrations && !status.unknown.isEmpty
    }

    /// The migrator's hook for a database a newer version migrated (called by `run` once
    /// ``refuseUnsafeState(_:emittingWarnings:acceptingNewer:)`` passed): classifies the change
    /// from this version's schema (migrations up to `targetIndex`) to the file's, and opens the
    /// database normally, opens it read-only (``Database/refuseWrites(_:)``), or throws
    /// ``MigrationError/Code/incompatibleNewerDatabase``. Writes nothing to the file.
    func openNewerDatabase(_ db: Database, status: MigrationStatus, through targetIndex: Int) throws {
        let version = migrations[targetIndex].identifier
        let newer = status.unknown
        let newest = newer.last ?? version
        let path = db.fileName ?? db.path
        let missing = pendingMigrations(status, upTo: targetIndex).map(\.identifier)
        if !missing.isEmpty {
            throw MigrationError(
                .unknownMigrations,
                "\(newer.joined(separator: ", ")): applied to \(path) but unknown to this app, which ends at \(version), and \(missing.joined(separator: ", ")) of this app \(missing.count == 1 ? "is" : "are") not applied: the database's history diverges from this app's (not a newer version of it); nothing was migrated",
                migrations: newer + missing)
        }
        let check = try checkNewerDatabase(db, through: targetIndex)
        let names = newer.joined(separator: ", ")
        switch check.verdict {
        case .opensNormally:
            db.refuseWrites(nil)
            report(
                MigrationOutcome(
                    applied: [], access: .readWrite, newerMigrations: newer, version: version, databaseVersion: newest,
                    findings: check.findings, readOnlyReason: nil, restored: nil,
                    message:
                        "\(path): migrated by a newer version of the app (\(names), after \(version)), opened read-write: every change is compatible with this version"
                ))
        case .opensReadOnly:
            let reason = check.decisive.map(\.description) ?? "a change breaks this version's writes"
            db.refuseWrites(
                StrataErrorText.bounded(
                    "\(path): read-only for this version of the app (it ends at \(version)): the database holds the newer migrations \(names), and \(reason)"
                ))
            report(
                MigrationOutcome(
                    applied: [], access: .readOnly, newerMigrations: newer, version: version, databaseVersion: newest,
                    findings: check.findings, readOnlyReason: check.decisive, restored: nil,
                    message:
                        "\(path): migrated by a newer version of the app (\(names), after \(version)), opened read-only: \(reason)"
                ))
        case .refused:
            let change = check.decisive.map(\.description) ?? check.planningFailure ?? "an incompatible change"
            var unusable: String?
            if let restored = try restoreInsteadOfRefusingNewerDatabase(
                db, version: version, newest: newest, unusable: &unusable)
            {
                db.refuseWrites(nil)
                let carried =
                    restored.carriedForward.isEmpty
                    ? "nothing was written since"
                    : "rows written since carried back: \(restored.carriedForward.joined(separator: ", "))"
                report(
                    MigrationOutcome(
                        applied: [], access: .readWrite, newerMigrations: newer, version: version,
                        databaseVersion: version, findings: check.findings, readOnlyReason: nil, restored: restored,
                        message:
                            "\(path): migrated by a newer version of the app (\(names), after \(version)), which this version cannot read (\(change)): restored to \(version) from the restore point \(restored.restorePoint.id) (\(carried))"
                    ))
                return
            }
            let why = unusable.map { "; \($0)" } ?? ""
            throw MigrationError(
                .incompatibleNewerDatabase,
                "\(newest): \(path) was migrated by a newer version of the app (through \(newest); this version ends at \(version)), and the change breaks this version: \(change)\(why); nothing was changed",
                migrations: [newest, version] + newer.dropLast(), compatibilityFinding: check.decisive)
        }
    }

    /// Issue 38: "restores the restore point when one is kept and nothing would be lost". Called
    /// when this version cannot read a newer database, before the refusal is thrown: when the
    /// restore folder keeps a restore point taken before an upgrade *from this version* (its
    /// `fromVersion` is this version's last migration), the database goes back to it, carrying
    /// back what was written since (`Database.restore(from:acceptingLoss:)`, one transaction, never
    /// accepting a loss). Returns nil, the file unchanged, when there is no such restore point or
    /// the restore refuses (it would lose rows, the restore point is damaged...); `unusable` then
    /// says why, for the refusal's message.
    func restoreInsteadOfRefusingNewerDatabase(
        _ db: Database, version: String, newest: String, unusable: inout String?
    ) throws -> RestoreReport? {
        guard Self.hasFile(db) else { return nil }
        let points: [RestorePoint]
        do {
            points = try RestorePoint.all(forDatabaseAt: db.path)
        } catch {
            unusable = "its restore points cannot be read: \(MigrationError.excerpt("\(error)", limit: 300))"
            return nil
        }
        guard let point = points.last(where: { $0.fromVersion == version }) else { return nil }
        do {
            return try db.restore(
                from: point, acceptingLoss: false,
                because:
                    "an older version of the app (it ends at \(version)) cannot read the database migrated through \(newest)"
            )
        } catch {
            unusable =
                "the restore point \(point.id) taken before the upgrade from \(version) was not used: \(MigrationError.excerpt("\(error)", limit: 400))"
            return nil
        }
    }

    /// The classification of the change from this version's schema (the registered migrations
    /// up to `targetIndex`, replayed on a private in-memory database) to the file's.
    func checkNewerDatabase(_ db: Database, through targetIndex: Int) throws -> NewerDatabaseCheck {
        let fileSchema = try DatabaseSchema.read(from: db)
        let scratch = try versionDatabase(through: targetIndex, configuration: db.configuration)
        defer { scratch.close() }
        return NewerDatabaseCheck.classify(versionDatabase: scratch, fileSchema: fileSchema)
    }

    /// A private in-memory database migrated through the registered migrations up to
    /// `targetIndex`: this version's schema. Throws ``MigrationError/Code/incompatibleNewerDatabase``
    /// when they fail on an empty database.
    func versionDatabase(through targetIndex: Int, configuration: Configuration) throws -> Database {
        let scratch = try Database(inMemory: configuration.forScratchDatabase)
        var replay = self
        replay.newerDatabasePolicy = .refuse
        replay.eventHandler = nil
        replay.upgradeSafety = nil
        replay.eraseDatabaseOnChange = false
        replay.legacyVersion = nil
        let target = migrations[targetIndex].identifier
        do {
            try Migrator.$newerDatabaseReport.withValue(nil) { _ = try replay.migrate(scratch, upTo: target) }
        } catch {
            scratch.close()
            throw MigrationError(
                .incompatibleNewerDatabase,
                "\(target): this version's migrations fail on an empty database, so its schema cannot be compared with the newer database's: \(MigrationError.excerpt("\(error)", limit: 400)); nothing was changed",
                migrations: [target], underlyingError: error)
        }
        return scratch
    }

    private func report(_ outcome: MigrationOutcome) {
        Migrator.newerDatabaseReport?.withLock { $0 = outcome }
    }
}
