import Foundation
import StrataSQLite
import StrataSchema

/// A version marker that an app used before it adopted Strata's migrator: `PRAGMA user_version`
/// or a version table.
///
/// When the database has no record of applied migrations yet, the migrator reads the marker and
/// records the migrations it covers as applied (without running them); then the rest run.
///
/// ```swift
/// var migrator = Migrator()
/// // ... register the migrations the old code applied, in the same order, then the new ones
/// migrator.legacyVersion = .userVersion                            // PRAGMA user_version = 3 → first 3
/// migrator.legacyVersion = .table("app_version", column: "version_num")
/// migrator.legacyVersion = .table("DB_SCHEMA_VERSION", column: "version")
/// try migrator.migrate(db)
/// ```
///
/// By default an integer marker `N` covers the first `N` registered migrations, and a text
/// marker that equals a registered identifier covers the migrations up to and including it.
/// Supply ``init(source:lastAppliedMigration:)`` for any other correspondence. The marker is
/// left as it was. See <https://www.sqlite.org/pragma.html#pragma_user_version>.
public struct LegacyVersion: Sendable {
    /// Where the legacy version is read.
    public enum Source: Sendable, Hashable, CustomStringConvertible {
        /// `PRAGMA user_version` (0 means nothing to adopt).
        case userVersion
        /// The largest value of `column` in `table` (a missing table means nothing to adopt).
        case table(name: String, column: String)

        public var description: String {
            switch self {
            case .userVersion: "PRAGMA user_version"
            case .table(let name, let column): "\(name).\(column)"
            }
        }
    }

    /// Where the legacy version is read.
    public let source: Source
    /// Maps the legacy version to the identifier of the last migration it covers (nil: none).
    /// Nil uses the default rule (integer `N` → the `N`-th migration; text → that identifier).
    public let lastAppliedMigration: (@Sendable (SQLValue, _ registered: [String]) -> String?)?

    /// A marker with a custom correspondence between its value and the registered migrations.
    ///
    /// ```swift
    /// // Old versions counted from 100.
    /// LegacyVersion(source: .userVersion) { value, registered in
    ///     guard case .integer(let v) = value, v > 100 else { return nil }
    ///     return registered[Int(v) - 101]
    /// }
    /// ```
    public init(source: Source, lastAppliedMigration: (@Sendable (SQLValue, _ registered: [String]) -> String?)? = nil)
    {
        self.source = source
        self.lastAppliedMigration = lastAppliedMigration
    }

    /// `PRAGMA user_version`: version `N` covers the first `N` registered migrations.
    public static let userVersion = LegacyVersion(source: .userVersion)

    /// A version table such as `app_version(version_num)` or `DB_SCHEMA_VERSION(id, version)`.
    public static func table(_ name: String, column: String) -> LegacyVersion {
        LegacyVersion(source: .table(name: name, column: column))
    }
}

extension Migrator {
    /// Adopts ``legacyVersion`` when the database has no record of applied migrations: records
    /// the migrations the legacy marker covers as applied, in one transaction, and returns them.
    /// ``migrate(_:)-(Database)`` calls it; call it yourself to adopt without migrating.
    ///
    /// ```swift
    /// migrator.legacyVersion = .table("app_version", column: "version_num")
    /// try migrator.adoptLegacyVersion(db)   // ["0001_create_player", "0002_add_score"]
    /// ```
    @discardableResult
    public func adoptLegacyVersion(_ db: Database) throws -> [String] {
        guard let legacyVersion else { return [] }
        if storage == .userVersion, legacyVersion.source == .userVersion { return [] }
        guard try appliedRecords(db).isEmpty, let value = try readLegacyValue(legacyVersion.source, in: db) else {
            return []
        }

        let registered = identifiers
        let last: String?
        if let map = legacyVersion.lastAppliedMigration {
            last = map(value, registered)
        } else {
            last = try defaultLastMigration(for: value, source: legacyVersion.source)
        }
        guard let last else { return [] }
        guard let lastIndex = index(of: last) else {
            throw MigrationError(
                .adoptionFailed, "\(legacyVersion.source): maps to migration \(last), which is not registered",
                migrations: [last])
        }
        let adopted = Array(migrations[...lastIndex])
        let recorded = try db.transaction(.immediate) { () throws -> Bool in
            // Another process (a second app instance launching) may have adopted or migrated
            // since the read above: look again under the write lock.
            guard try appliedRecords(db).isEmpty else { return false }
            for migration in adopted { try record(migration, durationMilliseconds: nil, in: db) }
            return true
        }
        guard recorded else { return [] }
        emit(.adopted(identifiers: adopted.map(\.identifier), source: legacyVersion.source.description))
        return adopted.map(\.identifier)
    }

    /// Marks the database as being at migration `identifier`: it and every migration registered
    /// before it are recorded as applied without running (those already recorded are kept).
    /// Use it for a database created before the app had migrations, whose schema already
    /// matches `identifier`.
    ///
    /// ```swift
    /// try migrator.baseline(db, at: "0003_add_index")
    /// try migrator.migrate(db)   // runs 0004 and later
    /// ```
    @discardableResult
    public func baseline(_ db: Database, at identifier: String) throws -> [String] {
        guard let lastIndex = index(of: identifier) else {
            throw MigrationError(
                .invalidRequest, "migration \(identifier): not registered (cannot baseline at it)",
                migrations: [identifier])
        }
        guard !db.isInTransaction else {
            throw MigrationError(.invalidRequest, "\(db.path): baseline must run outside a transaction (one is open)")
        }
        try validateConfiguration()
        return try db.transaction(.immediate) {
            // Read once, under the write lock: another process may record some of them meanwhile.
            let status = try self.status(db)
            try refuseUnsafeState(status)
            let applied = Set(status.applied.map(\.identifier))
            let recorded = migrations[...lastIndex].filter { !applied.contains($0.identifier) }
            for migration in recorded { try record(migration, durationMilliseconds: nil, in: db) }
            return recorded.map(\.identifier)
        }
    }

    private func readLegacyValue(_ source: LegacyVersion.Source, in db: Database) throws -> SQLValue? {
        switch source {
        case .userVersion:
            let version = try userVersion(db)
            return version > 0 ? .integer(Int64(version)) : nil
        case .table(let name, let column):
            guard try tableExists(name, in: db) else { return nil }
            do {
                let value = try db.fetchValue(
                    SQLValue.self, sql: "SELECT max(\(SQL.quoteIdentifier(column))) FROM \(SQL.quoteIdentifier(name))")
                return value.flatMap { $0.isNull ? nil : $0 }
            } catch {
                throw MigrationError(
                    .adoptionFailed, "\(name).\(column): cannot read the legacy version: \(error)",
                    underlyingError: error)
            }
        }
    }

    private func defaultLastMigration(for value: SQLValue, source: LegacyVersion.Source) throws -> String? {
        var count: Int?
        switch value {
        case .integer(let n): count = Int(n)
        case .real(let d): count = Int(exactly: d)
        case .text(let text):
            if let id = index(of: text) { return migrations[id].identifier }
            count = Int(text.trimmingCharacters(in: .whitespaces))
        default: count = nil
        }
        guard let count, count >= 0 else {
            throw MigrationError(
                .adoptionFailed,
                "\(source): version \(value) is neither a count of migrations nor a registered identifier")
        }
        if count == 0 { return nil }
        guard count <= migrations.count else {
            throw MigrationError(
                .adoptionFailed,
                "\(source): version \(count) is beyond the \(migrations.count) registered migrations; nothing was migrated"
            )
        }
        return migrations[count - 1].identifier
    }
}
