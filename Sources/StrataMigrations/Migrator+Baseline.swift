import StrataSQLite

/// A baseline: one migration that stands for the first migrations of an app's history.
///
/// Registered with ``Migrator/registerBaseline(_:covering:originals:oldestSupported:)``. The
/// ledger decides what runs:
/// - a database with none of the covered migrations applied (a fresh install) runs the baseline
///   and records it, with the identifiers it covers;
/// - a database with every covered migration applied skips it (nothing is written);
/// - a database with some covered migrations applied runs the remaining originals (given in
///   `originals`) in order, or is refused, naming its last applied migration and the oldest
///   version the app still supports.
struct Baseline: Sendable {
    /// The identifiers the baseline replaces, in their original order.
    let covered: [String]
    let coveredSet: Set<String>
    /// The original migrations still available, by identifier.
    let originals: [String: Migration]
    /// The oldest applied migration a database may stop at and still be upgraded, as the app states it.
    let oldestSupported: String?

    /// The oldest covered migration a database may have last applied and still reach head: the
    /// one before the first of the trailing originals that are all available.
    var computedOldestSupported: String? {
        if let oldestSupported { return oldestSupported }
        var first = covered.count
        while first > 0, originals[covered[first - 1]] != nil { first -= 1 }
        if first == 0 { return nil }  // every original is available: any state reaches head
        return covered[first - 1]
    }
}

extension Migrator {
    /// Registers a baseline that replaces the migrations `covered` (the first ones of the app's
    /// history, in their order): new databases run the baseline, databases that applied all of
    /// `covered` skip it, and a database stopped in the middle runs the rest of `originals`.
    ///
    /// ```swift
    /// var migrator = Migrator()
    /// migrator.registerBaseline(
    ///     Migration("0200_baseline", sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL)"),
    ///     covering: (1...200).map { String(format: "%04d", $0) })
    /// migrator.registerMigration("0201_add_score", sql: "ALTER TABLE player ADD COLUMN score INTEGER")
    /// ```
    ///
    /// - Parameters:
    ///   - baseline: creates the combined schema of the covered migrations on an empty database.
    ///   - covered: the identifiers it replaces, in the order they were applied. Old ledgers
    ///     keep their rows and their checksums (an original given in `originals` is still
    ///     checked against its recorded checksum).
    ///   - originals: the covered migrations still available (an archive), so that a database
    ///     that applied only some of them can run the rest. Each must be in `covered`.
    ///   - oldestSupported: the covered identifier a database must have reached to be upgraded,
    ///     named in the error that refuses an older one. Default: the one before the first
    ///     original that is missing, counting from the end.
    ///
    /// A baseline comes before every other migration and there is one per migrator. Breaking
    /// these rules (or registering a covered identifier elsewhere) is a programming error that
    /// stops the program with a message naming the identifier, as a duplicate does.
    public mutating func registerBaseline(
        _ baseline: Migration, covering covered: [String], originals: [Migration] = [],
        oldestSupported: String? = nil
    ) {
        precondition(
            migrations.isEmpty && self.baseline == nil,
            "Migrator: baseline \"\(baseline.identifier)\" must be registered first, and only once")
        precondition(!covered.isEmpty, "Migrator: baseline \"\(baseline.identifier)\" covers no migration")
        let coveredSet = Set(covered)
        precondition(
            coveredSet.count == covered.count && !coveredSet.contains(baseline.identifier),
            "Migrator: baseline \"\(baseline.identifier)\": covered identifiers must be unique and differ from the baseline's"
        )
        var byIdentifier: [String: Migration] = [:]
        for original in originals {
            precondition(
                coveredSet.contains(original.identifier) && byIdentifier[original.identifier] == nil,
                "Migrator: original \"\(original.identifier)\" of baseline \"\(baseline.identifier)\" is not covered by it, or given twice"
            )
            byIdentifier[original.identifier] = original
        }
        if let oldestSupported {
            precondition(
                coveredSet.contains(oldestSupported),
                "Migrator: oldest supported \"\(oldestSupported)\" is not covered by baseline \"\(baseline.identifier)\""
            )
        }
        register(baseline)
        self.baseline = Baseline(
            covered: covered, coveredSet: coveredSet, originals: byIdentifier, oldestSupported: oldestSupported)
    }

    /// Registers a baseline that runs SQL text; see ``registerBaseline(_:covering:originals:oldestSupported:)``.
    ///
    /// ```swift
    /// migrator.registerBaseline(
    ///     "0002_baseline", sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)",
    ///     covering: ["0001_create_note", "0002_add_body"])
    /// ```
    public mutating func registerBaseline(
        _ identifier: String, sql: String, covering covered: [String], originals: [Migration] = [],
        oldestSupported: String? = nil
    ) {
        registerBaseline(
            Migration(identifier, sql: sql), covering: covered, originals: originals, oldestSupported: oldestSupported)
    }

    /// The identifiers the registered baseline covers, in order (empty without a baseline).
    public var baselineCoveredIdentifiers: [String] { baseline?.covered ?? [] }

    /// The identifiers a recorded baseline row says it covers (its `covers` column), or nil.
    public func recordedCoverage(of identifier: String, in db: Database) throws -> [String]? {
        guard storage == .ledger, try tableExists(Migrator.ledgerTableName, in: db),
            try ledgerHasCoversColumn(db)
        else { return nil }
        guard
            let text = try db.fetchValue(
                String?.self, sql: "SELECT covers FROM strata_migrations WHERE identifier = ?", arguments: [identifier])
                ?? nil
        else { return nil }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    func ledgerHasCoversColumn(_ db: Database) throws -> Bool {
        try db.fetchValue(
            Bool.self, sql: "SELECT count(*) > 0 FROM pragma_table_info('strata_migrations') WHERE name = 'covers'")
            ?? false
    }

    /// Records in the baseline's ledger row which identifiers it covers (a `covers` column,
    /// added to the ledger the first time; older apps read the other columns only).
    func recordCoverage(of migration: Migration, in db: Database) throws {
        guard storage == .ledger, let baseline, migration.identifier == migrations.first?.identifier else { return }
        if try !ledgerHasCoversColumn(db) {
            try db.execute(sql: "ALTER TABLE strata_migrations ADD COLUMN covers TEXT")
        }
        try db.execute(
            sql: "UPDATE strata_migrations SET covers = ? WHERE identifier = ?",
            arguments: [baseline.covered.joined(separator: "\n"), migration.identifier])
    }

    /// The error for a database that applied some covered migrations and cannot run the rest.
    func unsupportedHistoryError(
        baselineIdentifier: String, lastApplied: String, missing: [String], baseline: Baseline
    ) -> MigrationError {
        let oldest =
            baseline.computedOldestSupported.map { "the oldest version this app supports is \($0)" }
            ?? "this app supports no partial history"
        let shownMissing =
            missing.prefix(3).joined(separator: ", ") + (missing.count > 3 ? " (and \(missing.count - 3) more)" : "")
        return MigrationError(
            .unsupportedHistory,
            "database stopped at \(lastApplied), in the middle of the history that baseline \(baselineIdentifier) replaces, and the original migrations \(shownMissing) are not available; \(oldest); nothing was migrated",
            migrations: [lastApplied, baselineIdentifier])
    }
}
