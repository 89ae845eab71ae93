import StrataSQLite

/// A migration recorded as applied in a database.
///
/// ```swift
/// for record in try migrator.appliedRecords(db) {
///     print(record.identifier, record.appliedAt ?? "?")
/// }
/// ```
public struct AppliedMigration: Hashable, Sendable {
    /// The migration's identifier.
    public let identifier: String
    /// The SHA-256 of its SQL text when it was applied; nil for closures and `user_version` storage.
    public let checksum: String?
    /// When it was applied, UTC, as `YYYY-MM-DDTHH:MM:SS.SSSZ`; nil in `user_version` storage.
    public let appliedAt: String?
    /// How long it ran, in milliseconds; nil when it was adopted or baselined rather than run.
    public let durationMilliseconds: Int?
}

/// An applied migration whose SQL text changed after it was applied.
public struct ChecksumMismatch: Hashable, Sendable, CustomStringConvertible {
    /// The migration's identifier.
    public let identifier: String
    /// The checksum recorded when it was applied.
    public let recorded: String
    /// The checksum of the registered text now.
    public let current: String

    public var description: String {
        "\(identifier): edited after it was applied (checksum \(recorded.prefix(12)) recorded, \(current.prefix(12)) now)"
    }
}

/// Where a database stands relative to a migrator: what is applied, pending, edited, unknown.
///
/// ```swift
/// let status = try migrator.status(db)
/// if !status.unknown.isEmpty { print("opened by a newer app:", status.unknown) }
/// ```
public struct MigrationStatus: Sendable {
    /// The applied registered migrations, in registration order.
    public let applied: [AppliedMigration]
    /// The registered migrations not applied yet, in registration order.
    public let pending: [String]
    /// Applied migrations whose SQL text changed since.
    public let checksumMismatches: [ChecksumMismatch]
    /// Applied migrations that are not registered (in `user_version` storage: `"user_version N"`).
    public let unknown: [String]
    /// Applied registered migrations whose edits cannot be detected, because there is no
    /// checksum to compare: closure migrations (their identifier is their only identity: a change
    /// to their code goes unnoticed), and migrations recorded without a checksum (`user_version`
    /// storage). ``Migrator/schemaDrift(_:)`` shows whether the schema they left is still the one
    /// they produce.
    public let unverifiable: [String]
    /// Set when the database stopped in the middle of a baseline's history and cannot go on.
    var unsupportedHistory: MigrationError? = nil
}

extension Migrator {
    /// The name of the ledger table. The declarative engine ignores it (`DatabaseSchema.isInternalName(_:)`).
    public static let ledgerTableName = "strata_migrations"

    static let createLedgerSQL = """
        CREATE TABLE IF NOT EXISTS strata_migrations(
            identifier TEXT PRIMARY KEY NOT NULL,
            checksum TEXT,
            applied_at TEXT,
            duration_ms INTEGER)
        """

    /// The records of applied migrations, registered or not, in the order they were applied.
    public func appliedRecords(_ db: Database) throws -> [AppliedMigration] {
        switch storage {
        case .ledger:
            guard try tableExists(Migrator.ledgerTableName, in: db) else { return [] }
            // Read in place (no Row copies): every start-up reads the whole ledger.
            var records = [AppliedMigration]()
            try db.cachedStatement(
                sql: "SELECT identifier, checksum, applied_at, duration_ms FROM strata_migrations ORDER BY rowid"
            )
            .forEachRow { row in
                records.append(
                    AppliedMigration(
                        identifier: try row.decode(String.self, at: 0), checksum: try row.decode(String?.self, at: 1),
                        appliedAt: try row.decode(String?.self, at: 2),
                        durationMilliseconds: try row.decode(Int?.self, at: 3)))
            }
            return records
        case .userVersion:
            let version = try userVersion(db)
            return
                migrations
                .filter { ($0.number ?? Int.max) <= version }
                .map {
                    AppliedMigration(
                        identifier: $0.identifier, checksum: nil, appliedAt: nil, durationMilliseconds: nil)
                }
        }
    }

    /// The applied migrations among the registered ones, in registration order.
    ///
    /// ```swift
    /// try migrator.appliedMigrations(db)   // ["0001_create_player", "0002_add_score"]
    /// ```
    public func appliedMigrations(_ db: Database) throws -> [String] {
        try status(db).applied.map(\.identifier)
    }

    /// The registered migrations that ``migrate(_:)-(Database)`` would apply, in order.
    public func pendingMigrations(_ db: Database) throws -> [String] {
        try status(db).pending
    }

    /// True when every registered migration is applied.
    public func hasCompletedMigrations(_ db: Database) throws -> Bool {
        try status(db).pending.isEmpty
    }

    /// Applied, pending, edited and unknown migrations, in one read.
    public func status(_ db: Database) throws -> MigrationStatus {
        let records = try appliedRecords(db)
        let byIdentifier = Dictionary(records.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        var applied: [AppliedMigration] = []
        var pending: [String] = []
        var mismatches: [ChecksumMismatch] = []
        var unverifiable: [String] = []
        var unsupportedHistory: MigrationError?
        for (position, migration) in migrations.enumerated() {
            if position == 0, let baseline, byIdentifier[migration.identifier] == nil {
                // Not recorded: a fresh database, one migrated before the squash, or one in between.
                var missing: [String] = []
                for identifier in baseline.covered {
                    guard let record = byIdentifier[identifier] else {
                        missing.append(identifier)
                        continue
                    }
                    applied.append(record)
                    guard let original = baseline.originals[identifier] else { continue }
                    if record.checksum == nil || original.checksum == nil { unverifiable.append(identifier) }
                    if let recorded = record.checksum, let current = original.checksum,
                        !original.acceptsRecordedChecksum(recorded)
                    {
                        mismatches.append(
                            ChecksumMismatch(identifier: identifier, recorded: recorded, current: current))
                    }
                }
                if missing.count == baseline.covered.count {
                    pending.append(migration.identifier)
                } else if !missing.isEmpty {
                    pending.append(contentsOf: missing)
                    let unavailable = missing.filter { baseline.originals[$0] == nil }
                    if !unavailable.isEmpty {
                        let last =
                            records.last(where: { baseline.coveredSet.contains($0.identifier) })?.identifier ?? ""
                        unsupportedHistory = unsupportedHistoryError(
                            baselineIdentifier: migration.identifier, lastApplied: last, missing: unavailable,
                            baseline: baseline)
                    }
                }
                continue
            }
            guard let record = byIdentifier[migration.identifier] else {
                pending.append(migration.identifier)
                continue
            }
            applied.append(record)
            if record.checksum == nil || migration.checksum == nil { unverifiable.append(migration.identifier) }
            if let recorded = record.checksum, let current = migration.checksum,
                !migration.acceptsRecordedChecksum(recorded)
            {
                mismatches.append(
                    ChecksumMismatch(identifier: migration.identifier, recorded: recorded, current: current))
            }
        }
        let known = Set(identifiers).union(baseline?.coveredSet ?? [])
        var unknown = records.map(\.identifier).filter { !known.contains($0) }
        if storage == .userVersion {
            let version = try userVersion(db)
            let last = migrations.compactMap(\.number).max() ?? 0
            if version > last { unknown = ["user_version \(version)"] }
        }
        return MigrationStatus(
            applied: applied, pending: pending, checksumMismatches: mismatches, unknown: unknown,
            unverifiable: unverifiable, unsupportedHistory: unsupportedHistory)
    }

    /// The migrations to run, in order, for `status`, among the registered ones up to
    /// `targetIndex`: a baseline is replaced by the originals a database stopped in its middle still needs.
    func pendingMigrations(_ status: MigrationStatus, upTo targetIndex: Int) -> [Migration] {
        let pending = Set(status.pending)
        var result: [Migration] = []
        for (position, migration) in migrations[...targetIndex].enumerated() {
            if position == 0, let baseline, !pending.contains(migration.identifier) {
                for identifier in baseline.covered where pending.contains(identifier) {
                    if let original = baseline.originals[identifier] { result.append(original) }
                }
                continue
            }
            if pending.contains(migration.identifier) { result.append(migration) }
        }
        return result
    }

    /// True when the ledger holds exactly `expected`, in order, each with its current checksum
    /// (no other row, no edit, nothing pending): then ``migrate(_:)`` has nothing to do and
    /// nothing to report. One query compares the whole ledger with the registered list; any
    /// other state (or a database this shortcut does not cover: development erase, legacy
    /// adoption, `user_version` storage) answers false and goes through ``status(_:)``, which
    /// finds what differs.
    ///
    /// First the start-up digest (``ledgerMatchesStartupDigest(_:in:)``: one short query, no
    /// migration hashed), then, when it does not match, every checksum
    /// (``ledgerHoldsExactly(_:in:)``).
    func isLedgerExactly(_ expected: ArraySlice<Migration>, in db: Database) -> Bool {
        guard storage == .ledger, !eraseDatabaseOnChange, legacyVersion == nil, !expected.isEmpty else { return false }
        if ledgerMatchesStartupDigest(expected, in: db) { return true }
        return ledgerHoldsExactly(expected, in: db)
    }

    /// ``isLedgerExactly(_:in:)`` by comparing every identifier and checksum with the ledger's.
    func ledgerHoldsExactly(_ expected: ArraySlice<Migration>, in db: Database) -> Bool {
        guard storage == .ledger, !eraseDatabaseOnChange, legacyVersion == nil, !expected.isEmpty else { return false }
        var text = ""
        text.reserveCapacity(expected.count * 96)
        for migration in expected {
            let checksum = migration.checksum ?? ""
            // The separators below must not appear in what they separate.
            guard !migration.identifier.utf8.contains(where: { $0 == 0x1E || $0 == 0x1F }) else { return false }
            if !text.isEmpty { text.append("\u{1E}") }
            text.append(migration.identifier)
            text.append("\u{1F}")
            text.append(checksum)
        }
        let ledger = try? db.fetchValue(
            String.self,
            sql: """
                SELECT group_concat(identifier || char(31) || ifnull(checksum, ''), char(30))
                FROM (SELECT identifier, checksum FROM main.strata_migrations ORDER BY rowid)
                """)
        if ledger == text { return true }
        // A database migrated before the baseline was registered: its ledger starts with the
        // covered identifiers (checksums accepted as recorded), then the rest. With originals
        // to check against, the full status does it.
        guard let baseline, baseline.originals.isEmpty, expected.startIndex == 0,
            !baseline.covered.contains(where: { $0.utf8.contains(where: { $0 == 0x1E || $0 == 0x1F }) })
        else { return false }
        var rest = ""
        for migration in expected.dropFirst() {
            if !rest.isEmpty { rest.append("\u{1E}") }
            rest.append(migration.identifier)
            rest.append("\u{1F}")
            rest.append(migration.checksum ?? "")
        }
        guard
            let row = try? db.fetchOne(
                sql: """
                    SELECT
                        (SELECT group_concat(identifier, char(30))
                         FROM (SELECT identifier FROM main.strata_migrations ORDER BY rowid LIMIT ?1)),
                        (SELECT ifnull(group_concat(identifier || char(31) || ifnull(checksum, ''), char(30)), '')
                         FROM (SELECT identifier, checksum FROM main.strata_migrations ORDER BY rowid LIMIT -1 OFFSET ?1))
                    """, arguments: [baseline.covered.count]),
            let covered = try? row.decode(String?.self, at: 0), let remaining = try? row.decode(String.self, at: 1)
        else { return false }
        return covered == baseline.covered.joined(separator: "\u{1E}") && remaining == rest
    }

    /// Records `migration` as applied, inside the caller's transaction.
    func record(_ migration: Migration, durationMilliseconds: Int?, in db: Database) throws {
        switch storage {
        case .ledger:
            try db.execute(sql: Migrator.createLedgerSQL)
            try db.execute(
                sql: """
                    INSERT INTO strata_migrations(identifier, checksum, applied_at, duration_ms)
                    VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?)
                    """,
                arguments: [migration.identifier, migration.checksum, durationMilliseconds])
            try recordCoverage(of: migration, in: db)
        case .userVersion:
            guard let number = migration.number else {
                throw MigrationError(
                    .invalidRequest,
                    "migration \(migration.identifier): user_version storage needs identifiers that start with a number",
                    migrations: [migration.identifier])
            }
            // PRAGMA user_version lives in the database header, which the transaction covers.
            try db.execute(sql: "PRAGMA user_version = \(number)")
        }
    }

    func userVersion(_ db: Database) throws -> Int {
        try db.fetchValue(Int.self, sql: "PRAGMA user_version") ?? 0
    }

    func tableExists(_ name: String, in db: Database) throws -> Bool {
        try db.fetchValue(
            Bool.self, sql: "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE",
            arguments: [name]) ?? false
    }
}
