import Foundation
import Strata
import StrataSQLite

/// What one version's upgrade check found (``MigrationHistory/upgradeReport(to:rows:seed:)-(Migrator,_,_)``).
public struct VersionVerification: Sendable, Hashable {
    /// The historical version.
    public var version: Int
    /// The migration the version ends with (a history of migrations), else nil.
    public var migration: String?
    /// Generated rows inserted before the upgrade.
    public var rowsInserted: Int
    /// Generated rows a constraint refused (skipped, not a failure).
    public var rowsSkipped: Int
    /// Rows whose values were checked after the upgrade.
    public var rowsChecked: Int
    /// Tables and columns that are not at head under their name (dropped, or renamed by a
    /// migration: a migration declares no renames), whose values are not checked.
    public var dropped: [String]
    /// Rows the migrations changed or deleted with their own statements (`UPDATE`, `DELETE`):
    /// deliberate, so notes and not failures, one line per table, change and migration
    /// (`table player: 12 rows changed (score) by 0003_scale_scores`).
    public var changedByMigrations: [String] = []
    /// The first failure, nil when the upgrade passed.
    public var failure: UpgradeFailure?

    public var passed: Bool { failure == nil }

    /// `version 3 (0003_add_email): ok, 40 rows checked` or the failure.
    public var summary: String {
        let name = "version \(version)" + (migration.map { " (\($0))" } ?? "")
        if let failure { return "\(name): FAILED: \(failure.message)" }
        var text = "\(name): ok, \(rowsChecked) row\(rowsChecked == 1 ? "" : "s") checked"
        if rowsSkipped > 0 {
            text += ", \(rowsSkipped) generated row\(rowsSkipped == 1 ? "" : "s") refused by constraints"
        }
        if !dropped.isEmpty { text += ", not at head (not checked): \(dropped.joined(separator: ", "))" }
        if !changedByMigrations.isEmpty {
            text += "; changed by the migrations (not failures): \(changedByMigrations.joined(separator: "; "))"
        }
        return text
    }
}

/// Why one version's upgrade failed: what was checked, and the table and row at fault.
public struct UpgradeFailure: StrataError, Hashable {
    /// What was checked: the ``code`` of this error.
    public enum Kind: String, StrataErrorCode {
        /// The history file is not the schema the migrations give at that version.
        case history
        /// The database at that version could not be built or filled.
        case setup
        /// The upgrade threw.
        case upgrade
        /// The upgraded schema differs from a fresh install.
        case schema
        /// A row, or a value of a row, did not survive.
        case row
        /// `PRAGMA integrity_check` failed.
        case integrity
        /// `PRAGMA foreign_key_check` found a violation.
        case foreignKey = "foreign-key"
        /// An FTS table's `integrity-check` failed.
        case fullText = "full-text"
    }

    public var version: Int
    public var kind: Kind
    /// The table at fault, when there is one.
    public var table: String?
    /// The row at fault (`id=3`), when there is one.
    public var row: String?
    /// The whole message, naming the version, the table and the row (at most
    /// `StrataErrorText.messageLimit` characters: ``row`` keeps the row whole).
    public var message: String

    init(version: Int, kind: Kind, table: String?, row: String?, message: String) {
        self.version = version
        self.kind = kind
        self.table = table
        self.row = row
        self.message = StrataErrorText.bounded(message)
    }

    /// ``kind``: what was checked.
    public var code: Kind { kind }
    /// The version the message names first (`version 3`).
    public var culprit: String? { "version \(version)" }
    /// Always nil: the message says what failed.
    public var underlyingError: (any Error)? { nil }
    /// The ``message``, which names the version first.
    public var description: String { describe(culprit: nil, cause: nil) }
}

/// Thrown by ``MigrationHistory/verifyUpgrades(to:rows:seed:)-(Migrator,_,_)`` when a version fails:
/// every version's line, the failures named first. Swift Testing and XCTest both report it.
public struct UpgradeVerificationError: StrataError {
    /// What kind of failure this is. New codes may be added.
    public struct Code: StrataErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// One or more historical versions failed to upgrade (``failures``).
        public static let upgradesFailed = Code(rawValue: "upgradesFailed")
    }

    /// Every version's result.
    public var results: [VersionVerification]
    /// The failures, one per failing version.
    public var failures: [UpgradeFailure] { results.compactMap(\.failure) }

    /// ``Code/upgradesFailed``.
    public var code: Code { .upgradesFailed }
    /// `2 of 5 historical versions failed to upgrade`.
    public var message: String {
        "\(failures.count) of \(results.count) historical version\(results.count == 1 ? "" : "s") failed to upgrade"
    }
    /// The first failing version (`version 3`).
    public var culprit: String? { failures.first?.culprit }
    /// The first failure.
    public var underlyingError: (any Error)? { failures.first }

    /// The ``message``, then every version's line (the failures are among them).
    public var description: String {
        describe(culprit: nil, cause: nil) + ":\n"
            + StrataErrorText.boundedLines(results.map { "  " + $0.summary }.joined(separator: "\n"))
    }
}

extension MigrationHistory {
    /// Builds a database at every version of the history with the migrations 1...N of
    /// `migrator` (so its ledger is real), fills it with generated rows, migrates it to head with
    /// `migrator`, and checks: the schema equals a fresh install's, every row survives with its
    /// values (columns and tables the upgrade drops excepted), `integrity_check`,
    /// `foreign_key_check` and FTS integrity pass. With a baseline whose originals are registered,
    /// also checks that the baseline alone gives an empty database the schema and every row the
    /// originals give (reported on the version of its last covered migration). Throws
    /// ``UpgradeVerificationError`` naming each failing version and its first differing table and row.
    ///
    /// ```swift
    /// try MigrationHistory(folder: "Tests/History").verifyUpgrades(to: migrator)
    /// ```
    @discardableResult
    public func verifyUpgrades(to migrator: Migrator, rows: Int = 12, seed: UInt64 = 1) throws -> [VersionVerification]
    {
        let results = try upgradeReport(to: migrator, rows: rows, seed: seed)
        if results.contains(where: { !$0.passed }) { throw UpgradeVerificationError(results: results) }
        return results
    }

    /// The same checks for a declarative app: a database at version N is `migrateSchema(to:)` of
    /// the history file on an empty database, upgraded with `migrateSchema(to: schemaSQL, options:)`.
    @discardableResult
    public func verifyUpgrades(
        to schemaSQL: String, options: SchemaChangeOptions = SchemaChangeOptions(), rows: Int = 12, seed: UInt64 = 1
    ) throws -> [VersionVerification] {
        let results = try upgradeReport(to: schemaSQL, options: options, rows: rows, seed: seed)
        if results.contains(where: { !$0.passed }) { throw UpgradeVerificationError(results: results) }
        return results
    }

    /// Every version's result, failures included (``verifyUpgrades(to:rows:seed:)-(Migrator,_,_)``
    /// throws them); throws only when head itself cannot be built.
    public func upgradeReport(to migrator: Migrator, rows: Int = 12, seed: UInt64 = 1) throws -> [VersionVerification] {
        try upgradeReport(to: migrator, rows: rows, seed: seed, key: nil)
    }

    /// ``upgradeReport(to:rows:seed:)-(Migrator,_,_)`` on encrypted copies: each version's database
    /// is a file encrypted with `encryptionKey` (in a temporary folder, removed after), upgraded,
    /// then closed and opened again with the key before it is checked; a file left in plaintext is
    /// a failure. Needs an encryption-capable SQLite (SQLite3 Multiple Ciphers, SQLCipher).
    public func upgradeReport(
        to migrator: Migrator, rows: Int = 12, seed: UInt64 = 1, encryptionKey: EncryptionKey
    ) throws -> [VersionVerification] {
        try upgradeReport(to: migrator, rows: rows, seed: seed, key: encryptionKey)
    }

    /// ``upgradeReport(to:options:rows:seed:)`` on encrypted copies (see
    /// ``upgradeReport(to:rows:seed:encryptionKey:)``).
    public func upgradeReport(
        to schemaSQL: String, options: SchemaChangeOptions = SchemaChangeOptions(), rows: Int = 12, seed: UInt64 = 1,
        encryptionKey: EncryptionKey
    ) throws -> [VersionVerification] {
        try upgradeReport(to: schemaSQL, options: options, rows: rows, seed: seed, key: encryptionKey)
    }

    func upgradeReport(
        to migrator: Migrator, rows: Int, seed: UInt64, key: EncryptionKey?
    ) throws
        -> [VersionVerification]
    {
        let fresh = try Self.freshInstall { try migrator.migrate($0) }
        var results = versions.map { version in
            let identifier: String
            if let named = version.migration {
                identifier = named
            } else if version.number <= migrator.identifiers.count {
                identifier = migrator.identifiers[version.number - 1]
            } else {
                return VersionVerification(
                    version: version.number, migration: nil, rowsInserted: 0, rowsSkipped: 0, rowsChecked: 0,
                    dropped: [],
                    failure: UpgradeFailure(
                        version: version.number, kind: .history, table: nil, row: nil,
                        message:
                            "version \(version.number): \(version.path) names no migration and the migrator has only \(migrator.identifiers.count)"
                    ))
            }
            return verify(
                version, migration: identifier, rows: rows, seed: seed, key: key, fresh: fresh,
                build: { db in
                    try migrator.migrate(db, upTo: identifier)
                    // The history must be what the migrations give: else the check proves nothing.
                    let built = try DatabaseSchema.read(from: db)
                    let recorded = try DatabaseSchema(sql: version.sql)
                    if let first = recorded.differences(from: built).first {
                        throw UpgradeFailure(
                            version: version.number, kind: .history, table: nil, row: nil,
                            message:
                                "version \(version.number): \(version.path) is not the schema after migration \(identifier): \(first) (record the history again with `strata history`)"
                        )
                    }
                },
                upgrade: { db, base, changes in
                    // Rows the migrations' own statements update or delete are theirs to change.
                    var observed = migrator
                    let recorder = MigrationChangeRecorder(forwarding: migrator.eventHandler)
                    observed.eventHandler = recorder.handleEvent
                    db.add(transactionObserver: recorder)
                    defer { db.remove(transactionObserver: recorder) }
                    try observed.migrate(db)
                    changes = recorder.changes
                    return SchemaDiff(from: base, to: try DatabaseSchema.read(from: db))
                })
        }
        // A baseline must give a new install what the originals give: schema and every row. The
        // failure goes to the version of its last covered migration (else the last covered
        // version of the history, else its first version).
        if let difference = Self.baselineDifference(migrator), !results.isEmpty {
            let covered = Set(migrator.baselineCoveredIdentifiers)
            let position =
                results.firstIndex { $0.migration == migrator.baselineCoveredIdentifiers.last }
                ?? results.lastIndex { $0.migration.map(covered.contains) ?? false } ?? 0
            if results[position].failure == nil {
                let n = results[position].version
                results[position].failure = UpgradeFailure(
                    version: n, kind: difference.kind, table: difference.table, row: difference.row,
                    message: "version \(n): \(difference.message)")
            }
        }
        return results
    }

    /// With a baseline whose originals are all registered: the baseline alone on an empty
    /// database against the originals replayed on another, compared schema and every row
    /// (``TableRowComparison``). Nil when they agree, or when the originals cannot be replayed
    /// (some are not available: there is nothing to compare with).
    static func baselineDifference(
        _ migrator: Migrator
    ) -> (kind: UpgradeFailure.Kind, table: String?, row: String?, message: String)? {
        let covered = migrator.baselineCoveredIdentifiers
        guard let first = covered.first, let last = covered.last, let baseline = migrator.identifiers.first else {
            return nil
        }
        let originals = "the originals (\(first) ... \(last))"
        do {
            let replayed = try Database(inMemory: Configuration())
            defer { replayed.close() }
            do {
                try migrator.migrate(replayed, upTo: last)
            } catch {
                return nil
            }
            let installed = try Database(inMemory: Configuration())
            defer { installed.close() }
            do {
                try migrator.migrate(installed, upTo: baseline)
            } catch {
                return (.setup, nil, nil, "the baseline \(baseline) fails on an empty database: \(error)")
            }
            let expected = try DatabaseSchema.read(from: replayed)
            let actual = try DatabaseSchema.read(from: installed)
            if let difference = actual.differences(from: expected).first {
                return (
                    .schema, tableNamed(in: difference), nil,
                    "the baseline \(baseline) does not make the schema \(originals) make: \(difference)"
                )
            }
            if let difference = try TableRowComparison.firstDifference(
                expected: replayed, actual: installed, schema: expected, expectedName: "the originals'",
                actualName: "the baseline's")
            {
                return (
                    .row, difference.table, difference.row,
                    "the baseline \(baseline) does not leave the rows \(originals) leave: \(difference.message)"
                )
            }
            return nil
        } catch {
            return (.setup, nil, nil, "cannot compare the baseline \(baseline) with \(originals): \(error)")
        }
    }

    /// Every version's result for a declarative app (``verifyUpgrades(to:options:rows:seed:)``).
    public func upgradeReport(
        to schemaSQL: String, options: SchemaChangeOptions = SchemaChangeOptions(), rows: Int = 12, seed: UInt64 = 1
    ) throws -> [VersionVerification] {
        try upgradeReport(to: schemaSQL, options: options, rows: rows, seed: seed, key: nil)
    }

    func upgradeReport(
        to schemaSQL: String, options: SchemaChangeOptions, rows: Int, seed: UInt64, key: EncryptionKey?
    ) throws -> [VersionVerification] {
        let fresh = try Self.freshInstall { try $0.migrateSchema(to: schemaSQL, options: options) }
        return versions.map { version in
            verify(
                version, migration: nil, rows: rows, seed: seed, key: key, fresh: fresh,
                build: { db in try db.migrateSchema(to: version.sql) },
                upgrade: { db, _, _ in try db.migrateSchema(to: schemaSQL, options: options).diff })
        }
    }

    /// A database at `version` of the history, with `rows` inserted (table name -> rows, each a
    /// ``Row`` of column values), for hand-written assertions: built with the migrations 1...N of
    /// `migrator` (its ledger is real), or, without a migrator, by the engine from the history
    /// file. In memory, or at `path` (which must not exist).
    ///
    /// ```swift
    /// let db = try history.makeDatabase(atVersion: 2, migrator: migrator, rows: ["note": [["id": 1, "body": "hi"]]])
    /// try migrator.migrate(db)
    /// ```
    public func makeDatabase(
        atVersion number: Int, migrator: Migrator? = nil, path: String? = nil, rows: [String: [Row]] = [:]
    ) throws -> Database {
        guard let version = versions.first(where: { $0.number == number }) else {
            throw HistoryError(
                .invalidRequest,
                "\(folder): no version \(number) (versions: \(versions.map { String($0.number) }.joined(separator: ", ")))",
                culprit: folder)
        }
        if let path, FileManager.default.fileExists(atPath: path) {
            throw HistoryError(
                .invalidRequest, "\(path): already exists (makeDatabase writes a new database)", culprit: path)
        }
        let db = try path.map { try Database(path: $0) } ?? Database(inMemory: Configuration())
        do {
            if let migrator {
                let identifier: String
                if let named = version.migration {
                    identifier = named
                } else if number <= migrator.identifiers.count {
                    identifier = migrator.identifiers[number - 1]
                } else {
                    throw HistoryError(
                        .invalidRequest,
                        "version \(number): the migrator has only \(migrator.identifiers.count) migrations",
                        culprit: "version \(number)")
                }
                try migrator.migrate(db, upTo: identifier)
            } else {
                try db.migrateSchema(to: version.sql)
            }
            try db.transaction {
                for table in rows.keys.sorted() {
                    for row in rows[table] ?? [] {
                        let names = row.columnNames.map(SQL.quoteIdentifier).joined(separator: ", ")
                        let marks = row.columnNames.map { _ in "?" }.joined(separator: ", ")
                        try db.execute(
                            sql: "INSERT INTO main.\(SQL.quoteIdentifier(table)) (\(names)) VALUES (\(marks))",
                            arguments: StatementArguments(row.values))
                    }
                }
            }
        } catch {
            db.close()
            if let path {
                for suffix in ["", "-journal", "-wal", "-shm"] {
                    try? FileManager.default.removeItem(atPath: path + suffix)
                }
            }
            throw error
        }
        return db
    }

    // MARK: the checks

    static func freshInstall(_ install: (Database) throws -> Void) throws -> DatabaseSchema {
        let db = try Database(inMemory: Configuration())
        defer { db.close() }
        do {
            try install(db)
        } catch {
            throw HistoryError(
                .buildFailed, "head: a fresh install fails: \(error)", culprit: "head", underlyingError: error)
        }
        return try DatabaseSchema.read(from: db)
    }

    private func verify(
        _ version: Version, migration: String?, rows: Int, seed: UInt64, key: EncryptionKey?, fresh: DatabaseSchema,
        build: (Database) throws -> Void,
        upgrade: (Database, DatabaseSchema, inout MigrationChanges) throws -> SchemaDiff
    ) -> VersionVerification {
        var result = VersionVerification(
            version: version.number, migration: migration, rowsInserted: 0, rowsSkipped: 0, rowsChecked: 0, dropped: [],
            failure: nil)
        let n = version.number
        func fail(_ kind: UpgradeFailure.Kind, _ message: String, table: String? = nil, row: String? = nil) {
            result.failure = UpgradeFailure(
                version: n, kind: kind, table: table, row: row, message: "version \(n): \(message)")
        }
        // In memory, or, with a key, an encrypted file in a folder of its own (removed after).
        var configuration = Configuration()
        var folder: String?
        var file: String?
        if let key {
            configuration.encryptionKey = { key }
            let made = FilePath.join(FileManager.default.temporaryDirectory.path, "strata-verify-\(UUID().uuidString)")
            folder = made
            file = FilePath.join(made, "version-\(n).sqlite")
        }
        defer {
            if let folder { try? FileManager.default.removeItem(atPath: folder) }
        }
        var db: Database
        do {
            if let folder, let file {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
                db = try Database(path: file, configuration: configuration)
            } else {
                db = try Database(inMemory: configuration)
            }
        } catch {
            fail(.setup, "cannot open a database\(key == nil ? "" : " encrypted with the key"): \(error)")
            return result
        }
        defer { db.close() }
        // 1. The database at version N, filled.
        let base: DatabaseSchema
        let snapshot: [String: TableSnapshot]
        do {
            try build(db)
            base = try DatabaseSchema.read(from: db)
            var generator = RowGenerator(rows: rows, seed: seed &+ UInt64(n))
            let summary = try generator.fill(db)
            result.rowsInserted = summary.inserted
            result.rowsSkipped = summary.skipped
            snapshot = try Self.snapshot(db, base)
        } catch let failure as UpgradeFailure {
            result.failure = failure
            return result
        } catch {
            fail(.setup, "cannot build the database at this version: \(error)")
            return result
        }
        // 2. The upgrade, the way the app does it.
        let diff: SchemaDiff
        var changes = MigrationChanges()
        do {
            diff = try upgrade(db, base, &changes)
        } catch {
            fail(.upgrade, "the upgrade fails: \(error)")
            return result
        }
        // The encrypted copy: no plaintext header on disk, and it opens again with the key.
        if let file {
            db.close()
            let header = FileManager.default.contents(atPath: file)?.prefix(16)
            if header == Data("SQLite format 3\0".utf8) {
                fail(.setup, "\(file) is in plaintext after the upgrade: the SQLite in use does not encrypt")
                return result
            }
            do {
                db = try Database(path: file, configuration: configuration)
                _ = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM main.sqlite_master")
            } catch {
                fail(.setup, "the upgraded encrypted copy does not open again with the key: \(error)")
                return result
            }
        }
        // 3. Head equals a fresh install.
        do {
            let upgraded = try DatabaseSchema.read(from: db)
            if let first = fresh.differences(from: upgraded).first {
                fail(
                    .schema, "the upgraded schema differs from a fresh install: \(first)",
                    table: Self.tableNamed(in: first))
                return result
            }
            // 4. Every row survives with its values.
            let check = try Self.compareRows(snapshot, diff: diff, upgraded: upgraded, changes: changes, db: db)
            result.rowsChecked = check.checked
            result.dropped = check.dropped
            result.changedByMigrations = check.notes
            if let failure = check.failure {
                fail(.row, failure.message, table: failure.table, row: failure.row)
                return result
            }
            // 5. Integrity.
            let integrity = try db.fetchAll(sql: "PRAGMA main.integrity_check").compactMap {
                try? $0.decode(String.self, at: 0)
            }
            if integrity != ["ok"] {
                fail(.integrity, "integrity_check: \(integrity.prefix(3).joined(separator: "; "))")
                return result
            }
            if let violation = try db.fetchAll(sql: "PRAGMA main.foreign_key_check").first {
                let table = (try? violation.decode(String.self, at: 0)) ?? "?"
                let rowid = violation.value(at: 1)
                let parent = (try? violation.decode(String.self, at: 2)) ?? "?"
                fail(
                    .foreignKey, "foreign_key_check: table \(table), rowid \(rowid): no row in \(parent)", table: table,
                    row: "rowid=\(rowid)")
                return result
            }
            for table in upgraded.tables where table.isVirtual {
                let module = (table.module ?? "").lowercased()
                guard module == "fts5" || module == "fts4" else { continue }
                let q = SQL.quoteIdentifier(table.name)
                // FTS5's check with rank 1 also compares the index with an external content table
                // (https://www.sqlite.org/fts5.html#the_integrity_check_command); a contentless
                // table has no content to compare.
                let compact = table.sql.lowercased().filter { !$0.isWhitespace }
                let contentless = compact.contains("content=''") || compact.contains("content=\"\"")
                let check =
                    module == "fts5" && !contentless
                    ? "INSERT INTO main.\(q)(\(q), rank) VALUES('integrity-check', 1)"
                    : "INSERT INTO main.\(q)(\(q)) VALUES('integrity-check')"
                do {
                    try db.execute(sql: check)
                } catch {
                    fail(.fullText, "table \(table.name): FTS integrity-check fails: \(error)", table: table.name)
                    return result
                }
            }
        } catch {
            fail(.setup, "cannot check the upgraded database: \(error)")
        }
        return result
    }

    /// `table x` in a difference line.
    static func tableNamed(in line: String) -> String? {
        guard line.hasPrefix("table ") else { return nil }
        let rest = line.dropFirst(6)
        let end = rest.firstIndex(where: { $0 == ":" || $0 == " " }) ?? rest.endIndex
        return String(rest[..<end])
    }

    struct TableSnapshot {
        var table: TableInfo
        /// The key columns rows are matched by (empty: the rowid).
        var keyColumns: [String]
        var rows: [Row]
    }

    static func keyColumns(_ table: TableInfo) -> [String] {
        table.columns.filter { $0.primaryKeyPosition > 0 }.sorted { $0.primaryKeyPosition < $1.primaryKeyPosition }.map(
            \.name)
    }

    static func snapshot(_ db: Database, _ schema: DatabaseSchema) throws -> [String: TableSnapshot] {
        var result = [String: TableSnapshot]()
        for table in schema.tables where !table.isVirtual {
            let keys = keyColumns(table)
            let rowid = table.hasRowID ? "rowid AS \"strata rowid\", " : ""
            let rows = try db.fetchAll(sql: "SELECT \(rowid)* FROM main.\(SQL.quoteIdentifier(table.name))")
            result[table.name.asciiLowercasedForKit] = TableSnapshot(table: table, keyColumns: keys, rows: rows)
        }
        return result
    }

    struct RowCheck {
        var checked = 0
        var dropped = [String]()
        var failure: (message: String, table: String, row: String)?
        /// (table, what, migration) -> rows: the changes attributed to a migration's statements.
        var attributed = [String: (table: String, what: String, migration: String, rows: Int)]()

        /// `table player: 12 rows changed (score) by 0003_scale`, sorted.
        var notes: [String] {
            attributed.values.sorted { ($0.table, $0.what, $0.migration) < ($1.table, $1.what, $1.migration) }.map {
                "table \($0.table): \($0.rows) row\($0.rows == 1 ? "" : "s") \($0.what) by \($0.migration)"
            }
        }

        mutating func attribute(_ table: String, _ what: String, to migration: String) {
            let key = table + "\u{1F}" + what + "\u{1F}" + migration
            attributed[key, default: (table, what, migration, 0)].rows += 1
        }
    }

    /// Each snapshot row, found again after the upgrade (by its primary key, else its rowid) with
    /// the same value in every column the upgrade keeps (renames followed).
    static func compareRows(
        _ snapshot: [String: TableSnapshot], diff: SchemaDiff, upgraded: DatabaseSchema,
        changes migrationChanges: MigrationChanges = MigrationChanges(), db: Database
    ) throws -> RowCheck {
        var check = RowCheck()
        let dropped = Set(diff.droppedTables.map { $0.name.asciiLowercasedForKit })
        let changes = Dictionary(
            diff.changedTables.map { ($0.live.name.asciiLowercasedForKit, $0) }, uniquingKeysWith: { a, _ in a })
        for key in snapshot.keys.sorted() {
            guard let old = snapshot[key] else { continue }
            if dropped.contains(key) {
                check.dropped.append(old.table.name)
                continue
            }
            let change = changes[key]
            guard let newTable = upgraded.table(named: change?.desired.name ?? old.table.name), !newTable.isVirtual
            else {
                check.dropped.append(old.table.name)
                continue
            }
            // Old column -> new column (nil: dropped by the upgrade).
            var mapping = [String: String]()
            let droppedColumns = Set((change?.droppedColumns ?? []).map { $0.name.asciiLowercasedForKit })
            let renames = Dictionary(
                (change?.columnRenames ?? []).map { ($0.from.asciiLowercasedForKit, $0.to) },
                uniquingKeysWith: { a, _ in a })
            for c in old.table.columns where !c.isGenerated {
                let k = c.name.asciiLowercasedForKit
                if droppedColumns.contains(k) {
                    check.dropped.append("\(old.table.name).\(c.name)")
                    continue
                }
                let name = renames[k] ?? c.name
                if let column = newTable.column(named: name), !column.isGenerated { mapping[k] = column.name }
            }
            guard !old.rows.isEmpty else { continue }
            // Match by the primary key when the upgrade keeps all its columns, else by rowid.
            var keyPairs = old.keyColumns.compactMap { name in mapping[name.asciiLowercasedForKit].map { (name, $0) } }
            if keyPairs.count != old.keyColumns.count || keyPairs.isEmpty {
                guard old.table.hasRowID, newTable.hasRowID else { continue }
                keyPairs = [("strata rowid", "strata rowid")]
            }
            let rowid = newTable.hasRowID ? "rowid AS \"strata rowid\", " : ""
            let newRows = try db.fetchAll(sql: "SELECT \(rowid)* FROM main.\(SQL.quoteIdentifier(newTable.name))")
            var index = [[SQLValue]: Row]()
            for row in newRows {
                index[keyPairs.map { row.value(named: $0.1) ?? .null }] = row
            }
            for row in old.rows {
                let keyValues = keyPairs.map { row.value(named: $0.0) ?? .null }
                let rowName = zip(keyPairs, keyValues).map { "\($0.0 == "strata rowid" ? "rowid" : $0.0)=\($1)" }
                    .joined(
                        separator: ", ")
                // The migration whose own UPDATE or DELETE wrote this row (by its rowid, in the
                // table under its old or new name), if one did.
                let writer = migrationChanges.writer(
                    of: row.value(named: "strata rowid"), in: [old.table.name, newTable.name])
                guard let new = index[keyValues] else {
                    if let writer, writer.deleted {
                        check.attribute(old.table.name, "deleted", to: writer.migration)
                        continue
                    }
                    check.failure = (
                        "table \(old.table.name), row \(rowName): missing after the upgrade", old.table.name, rowName
                    )
                    return check
                }
                var changedColumns = [String]()
                for c in old.table.columns where !c.isGenerated {
                    guard let newName = mapping[c.name.asciiLowercasedForKit],
                        let newColumn = newTable.column(named: newName)
                    else { continue }
                    let before = row.value(named: c.name) ?? .null
                    let after = new.value(named: newName) ?? .null
                    if before == after { continue }
                    // NULL backfilled by a column that became NOT NULL, or a value converted by a
                    // changed type: the plan declares both.
                    if before == .null && newColumn.isNotNull { continue }
                    if try converted(before, to: newColumn, strict: newTable.isStrict, db: db) == after { continue }
                    // Updated by a migration's own statement: deliberate, reported as a note.
                    if writer != nil {
                        changedColumns.append(c.name)
                        continue
                    }
                    check.failure = (
                        "table \(old.table.name), row \(rowName): column \(c.name) was \(before), is \(after) after the upgrade",
                        old.table.name, rowName
                    )
                    return check
                }
                if let writer, !changedColumns.isEmpty {
                    check.attribute(
                        old.table.name, "changed (\(changedColumns.joined(separator: ", ")))", to: writer.migration)
                }
                check.checked += 1
            }
        }
        return check
    }

    /// `value` as a column declared like `column` stores it (its affinity's conversion).
    static func converted(_ value: SQLValue, to column: ColumnInfo, strict: Bool, db: Database) throws -> SQLValue? {
        let type = column.declaredType.isEmpty ? "" : column.declaredType
        let name = "strata_kit_affinity"
        defer { try? db.execute(sql: "DROP TABLE IF EXISTS temp.\(name)") }
        do {
            try db.execute(sql: "CREATE TEMP TABLE \(name)(v \(type))")
            try db.execute(sql: "INSERT INTO temp.\(name)(v) VALUES (?)", arguments: StatementArguments([value]))
            return try db.fetchOne(sql: "SELECT v FROM temp.\(name)")?.value(at: 0)
        } catch {
            return nil
        }
    }
}

/// The rows the migrations' own statements updated or deleted during an upgrade: by table
/// (lowercased) and rowid, the last migration that wrote each; a WITHOUT ROWID table, whose rows
/// SQLite does not report one by one, by table.
struct MigrationChanges {
    struct Writer {
        var migration: String
        var deleted: Bool
    }
    var rows = [String: [Int64: Writer]]()
    var tables = [String: Writer]()

    /// Who wrote the row with `rowid` in one of `tables` (its old and new names), if anyone did.
    func writer(of rowid: SQLValue?, in names: [String]) -> Writer? {
        for name in names {
            let key = name.asciiLowercasedForKit
            if case .integer(let id)? = rowid, let writer = rows[key]?[id] { return writer }
            if let writer = tables[key] { return writer }
        }
        return nil
    }
}

/// Hears the migrator's events (which migration runs) and the connection's row changes.
final class MigrationChangeRecorder: TransactionObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var current: String?
    private var pending = MigrationChanges()
    private var committed = MigrationChanges()
    private let forwarding: (@Sendable (MigrationEvent) -> Void)?

    init(forwarding: (@Sendable (MigrationEvent) -> Void)?) { self.forwarding = forwarding }

    var changes: MigrationChanges { lock.withLock { committed } }

    var handleEvent: @Sendable (MigrationEvent) -> Void {
        { [self] event in
            if case .started(let identifier) = event { lock.withLock { current = identifier } }
            forwarding?(event)
        }
    }

    func observes(_ event: DatabaseEvent) -> Bool {
        event.kind != .insert && event.databaseName == "main" && !event.table.lowercased().hasPrefix("strata_")
    }

    func databaseDidChange(_ event: DatabaseEvent) {
        lock.withLock {
            guard let migration = current else { return }
            let writer = MigrationChanges.Writer(migration: migration, deleted: event.kind == .delete)
            let table = event.table.asciiLowercasedForKit
            if let rowid = event.rowID {
                pending.rows[table, default: [:]][rowid] = writer
            } else {
                pending.tables[table] = writer
            }
        }
    }

    func databaseDidCommit(_ db: Database) {
        lock.withLock {
            for (table, rows) in pending.rows { committed.rows[table, default: [:]].merge(rows) { _, new in new } }
            committed.tables.merge(pending.tables) { _, new in new }
            pending = MigrationChanges()
        }
    }

    func databaseDidRollback(_ db: Database) { lock.withLock { pending = MigrationChanges() } }
}
