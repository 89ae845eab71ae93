import Foundation
import Strata

/// How one shipped version of the app meets the head database: what its migrator, with
/// `Migrator.newerDatabasePolicy` set to `.openWhenCompatible`, decides, and whether that held
/// when the version then used the file.
public struct OlderVersionOpening: Sendable, Hashable {
    /// What the version does with the head database.
    public enum Verdict: String, Sendable, Hashable, Codable {
        /// It reads and writes the file as it always did.
        case opensNormally = "opens normally"
        /// It reads the file; every write is refused with a clear error.
        case opensReadOnly = "opens read-only"
        /// It refuses the file, naming the first change it cannot read.
        case refused
        /// The version is head: nothing to decide.
        case isHead = "is head"
    }

    /// The version's number in the history.
    public var version: Int
    /// The version's last migration.
    public var migration: String
    /// The verdict; nil when the opening itself failed (``failure``).
    public var verdict: Verdict?
    /// The change that decided it (read-only or refused), `code object: reason`.
    public var reason: String?
    /// Rows the version wrote to the head database and read back unchanged (opens normally).
    public var rowsWrittenAndRead: Int
    /// Why the verdict did not hold, or the opening failed: the table and what went wrong. Nil
    /// when it held.
    public var failure: String?

    /// True when the verdict held (whatever it is).
    public var passed: Bool { failure == nil }

    /// `version 2 (0002_add_folder) opening head: opens normally (24 rows written and read back)`.
    public var summary: String {
        let head = "version \(version) (\(migration)) opening head: "
        if let failure { return head + "FAILED: \(failure)" }
        switch verdict {
        case .opensNormally?: return head + "opens normally (\(rowsWrittenAndRead) rows written and read back)"
        case .opensReadOnly?: return head + "opens read-only: \(reason ?? "")"
        case .refused?: return head + "refused: \(reason ?? "")"
        case .isHead?, nil: return head + "is head"
        }
    }
}

extension MigrationHistory {
    /// The older-version matrix: every version of the history, as the app shipped it (the
    /// migrations of `migrator` through that version's migration, with
    /// `newerDatabasePolicy = .openWhenCompatible`), opening a database at head (a file made by
    /// `migrator`), and each verdict checked:
    /// - **opens normally**: the version writes rows of its own schema (generated, as
    ///   ``verifyUpgrades(to:rows:seed:)-(Migrator,_,_)`` makes them) into every one of its tables
    ///   and reads them back through its columns: every write succeeds and every value reads back
    ///   as written, else the verdict did not hold;
    /// - **opens read-only**: the version reads every column of its tables, and a write is refused
    ///   with `SQLITE_AUTH`;
    /// - **refused**: the refusal is `MigrationError.Code.incompatibleNewerDatabase` and names the change.
    ///
    /// ```swift
    /// for opening in try MigrationHistory(folder: "Tests/History").olderVersionsReport(opening: migrator) {
    ///     print(opening.summary)
    /// }
    /// ```
    ///
    /// Each version gets its own head database, in a temporary folder removed after. Throws only
    /// when head itself cannot be built.
    public func olderVersionsReport(
        opening migrator: Migrator, rows: Int = 12, seed: UInt64 = 1
    ) throws -> [OlderVersionOpening] {
        let folder = FilePath.join(FileManager.default.temporaryDirectory.path, "strata-older-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let head = migrator.identifiers.last
        return versions.map { version in
            let identifier =
                version.migration
                ?? (version.number <= migrator.identifiers.count ? migrator.identifiers[version.number - 1] : "")
            var result = OlderVersionOpening(
                version: version.number, migration: identifier, verdict: nil, reason: nil, rowsWrittenAndRead: 0,
                failure: nil)
            guard var older = migrator.prefix(through: identifier) else {
                result.failure =
                    "\(version.path) names \(identifier.isEmpty ? "no migration" : "the migration \(identifier)"), which the migrator does not register"
                return result
            }
            if identifier == head {
                result.verdict = .isHead
                return result
            }
            older.newerDatabasePolicy = .openWhenCompatible
            do {
                try Self.open(
                    headBy: migrator, by: older, in: folder, number: version.number, rows: rows,
                    seed: seed &+ UInt64(version.number), into: &result)
            } catch {
                result.verdict = nil
                result.failure = "\(error)"
            }
            return result
        }
    }

    private static func open(
        headBy migrator: Migrator, by older: Migrator, in folder: String, number: Int, rows: Int, seed: UInt64,
        into result: inout OlderVersionOpening
    ) throws {
        // The version's own schema and rows, on a file of its own (attached below).
        let ownPath = FilePath.join(folder, "version-\(number).sqlite")
        let own = try Database(path: ownPath)
        defer { own.close() }
        try older.migrate(own)
        let schema = try DatabaseSchema.read(from: own)
        var generator = RowGenerator(rows: rows, seed: seed)
        _ = try generator.fill(own)
        let tables = RowGenerator.dependencyOrder(schema.tables.filter { !$0.isVirtual })

        let headPath = FilePath.join(folder, "head-\(number).sqlite")
        let db = try Database(path: headPath)
        defer { db.close() }
        try migrator.migrate(db)
        let outcome: MigrationOutcome
        do {
            outcome = try older.migrateReportingOutcome(db)
        } catch let error as MigrationError where error.code == .incompatibleNewerDatabase {
            result.verdict = .refused
            result.reason = error.compatibilityFinding.map(\.description) ?? error.message
            return
        }
        guard outcome.isNewerDatabase, outcome.restored == nil else {
            result.failure = "the version did not see a newer database: \(outcome.message)"
            return
        }
        // Every column of its tables reads (both verdicts).
        for table in tables {
            let columns = table.storedColumns.map { SQL.quoteIdentifier($0.name) }.joined(separator: ", ")
            do {
                _ = try db.fetchAll(sql: "SELECT \(columns) FROM main.\(SQL.quoteIdentifier(table.name)) LIMIT 1")
            } catch {
                result.failure = "table \(table.name): the version cannot read its columns (\(columns)): \(error)"
                return
            }
        }
        if outcome.access == .readOnly {
            result.verdict = .opensReadOnly
            result.reason = outcome.readOnlyReason?.description ?? outcome.message
            guard let first = tables.first else { return }
            do {
                try db.execute(sql: "DELETE FROM main.\(SQL.quoteIdentifier(first.name)) WHERE 0")
                result.failure = "table \(first.name): opened read-only, yet a write was not refused"
            } catch let error as SQLiteError where error.resultCode == .SQLITE_AUTH {
                return
            }
            return
        }
        // Opens normally: its rows go in through its columns and read back as written.
        result.verdict = .opensNormally
        try db.execute(sql: "ATTACH DATABASE ? AS strata_older_version", arguments: [ownPath])
        defer { try? db.execute(sql: "DETACH DATABASE strata_older_version") }
        for table in tables {
            let name = SQL.quoteIdentifier(table.name)
            let columns = table.storedColumns.map { SQL.quoteIdentifier($0.name) }.joined(separator: ", ")
            let written = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM strata_older_version.\(name)") ?? 0
            do {
                try db.execute(
                    sql: "INSERT INTO main.\(name) (\(columns)) SELECT \(columns) FROM strata_older_version.\(name)")
            } catch {
                result.failure = "table \(table.name): the version's writes fail on the head database: \(error)"
                return
            }
            // Head started with no rows in the version's tables? Not always (a migration may
            // seed them): compare what the version wrote with what reads back, as multisets.
            let missing =
                try db.fetchValue(
                    Int.self,
                    sql:
                        "SELECT count(*) FROM (SELECT \(columns) FROM strata_older_version.\(name) EXCEPT SELECT \(columns) FROM main.\(name))"
                ) ?? 0
            if missing > 0 {
                result.failure =
                    "table \(table.name): \(missing) of the \(written) rows the version wrote do not read back as written (a changed type or default converts them)"
                return
            }
            result.rowsWrittenAndRead += written
        }
    }
}
