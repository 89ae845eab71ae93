import CSQLite

/// An SQLite library version such as 3.40.1, ordered.
///
/// ```swift
/// if SQLiteVersion.runtime >= SQLiteVersion(3, 35) { ... }
/// ```
/// See <https://www.sqlite.org/c3ref/libversion.html>.
public struct SQLiteVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// 3 for SQLite 3.40.1.
    public var major: Int
    /// 40 for SQLite 3.40.1.
    public var minor: Int
    /// 1 for SQLite 3.40.1.
    public var patch: Int

    /// A version from its parts: `SQLiteVersion(3, 40, 1)`.
    public init(_ major: Int, _ minor: Int, _ patch: Int = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// From `sqlite3_libversion_number()`'s encoding, X*1000000 + Y*1000 + Z.
    public init(number: Int) {
        self.init(number / 1_000_000, (number / 1000) % 1000, number % 1000)
    }

    /// The oldest SQLite Strata runs on: 3.26.0 (RHEL 8; iOS 13 ships 3.28). Opening a database on an
    /// older library fails with one line naming both versions (``SQLiteVersion/checkSupported(_:)``).
    public static let minimumSupported = SQLiteVersion(3, 26)

    /// Throws `SQLITE_ERROR` with one line naming `version` and ``minimumSupported`` when `version`
    /// is older than Strata's floor.
    ///
    /// ```swift
    /// try SQLiteVersion.checkSupported(.runtime)
    /// ```
    public static func checkSupported(_ version: SQLiteVersion) throws {
        guard version < minimumSupported else { return }
        throw SQLiteError(
            resultCode: .SQLITE_ERROR,
            message: "SQLite \(version) is too old: Strata needs SQLite \(minimumSupported) or newer")
    }

    /// The version of the SQLite library this process runs with.
    public static var runtime: SQLiteVersion { SQLiteVersion(number: Int(sqlite3_libversion_number())) }

    /// Version order: 3.9 < 3.10 < 3.40.1.
    public static func < (a: SQLiteVersion, b: SQLiteVersion) -> Bool {
        (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
    }

    /// `3.40.1`.
    public var description: String { "\(major).\(minor).\(patch)" }
}

/// What the SQLite library behind a connection can do, derived from its version (or from
/// ``Configuration/capabilityLimit`` when tests lower it).
///
/// ```swift
/// if db.capabilities.supportsDropColumn { try db.execute(sql: "ALTER TABLE t DROP COLUMN c") }
/// ```
public struct SQLiteCapabilities: Sendable, Hashable {
    /// The effective version: the runtime's, or the lower limit set in the configuration.
    public let version: SQLiteVersion

    /// The capabilities of SQLite `version`.
    ///
    /// ```swift
    /// SQLiteCapabilities(version: SQLiteVersion(3, 31)).dropColumn   // false
    /// ```
    public init(version: SQLiteVersion) { self.version = version }

    /// `ALTER TABLE ... RENAME COLUMN` (3.25.0). See <https://www.sqlite.org/lang_altertable.html>.
    public var supportsRenameColumn: Bool { version >= SQLiteVersion(3, 25) }
    /// `ALTER TABLE ... RENAME TO` that also rewrites references in triggers and views (3.26.0,
    /// with legacy_alter_table off).
    public var supportsModernRenameTable: Bool { version >= SQLiteVersion(3, 26) }
    /// `ALTER TABLE ... DROP COLUMN` (3.35.0).
    public var supportsDropColumn: Bool { version >= SQLiteVersion(3, 35) }
    /// `RETURNING` clauses (3.35.0).
    public var supportsReturning: Bool { version >= SQLiteVersion(3, 35) }
    /// Generated columns (3.31.0).
    public var supportsGeneratedColumns: Bool { version >= SQLiteVersion(3, 31) }
    /// `PRAGMA table_list` (3.37.0).
    public var supportsTableListPragma: Bool { version >= SQLiteVersion(3, 37) }
    /// STRICT tables (3.37.0).
    public var supportsStrictTables: Bool { version >= SQLiteVersion(3, 37) }
    /// `ALTER TABLE ... ADD CONSTRAINT` and `ALTER COLUMN ... SET/DROP NOT NULL` (3.53.0).
    public var supportsAlterConstraints: Bool { version >= SQLiteVersion(3, 53) }
    /// JSON functions built in (3.38.0; earlier libraries have them only when compiled with
    /// JSON1) and the `->` and `->>` operators (3.38.0).
    public var supportsJSON: Bool { version >= SQLiteVersion(3, 38) }

    /// True when `feature` is available.
    ///
    /// ```swift
    /// if db.capabilities.supports(.strictTables) { ... }
    /// ```
    public func supports(_ feature: SQLiteFeature) -> Bool { version >= feature.version }

    /// Throws `SQLITE_ERROR` with one line naming `feature`, the version it needs and this one,
    /// when `feature` is unavailable.
    ///
    /// ```swift
    /// try db.capabilities.require(.generatedColumns)
    /// // SQLITE_ERROR (1): generated columns need SQLite 3.31.0 or newer; this SQLite is 3.28.0
    /// ```
    public func require(_ feature: SQLiteFeature) throws {
        guard !supports(feature) else { return }
        throw SQLiteError(resultCode: .SQLITE_ERROR, message: feature.unavailableMessage(version))
    }
}

/// An SQLite feature newer than Strata's floor (``SQLiteVersion/minimumSupported``), with the
/// version that brought it. Strata refuses a feature the runtime lacks with one line naming both
/// versions, instead of SQLite's parser message (`near "AS": syntax error`).
///
/// ```swift
/// SQLiteFeature.generatedColumns.version   // 3.31.0
/// ```
public struct SQLiteFeature: Sendable, Hashable, CustomStringConvertible {
    /// What the feature is called in messages, plural: "generated columns".
    public let name: String
    /// The first SQLite version with the feature.
    public let version: SQLiteVersion

    /// A feature called `name` that SQLite `version` brought.
    public init(name: String, version: SQLiteVersion) {
        self.name = name
        self.version = version
    }

    /// Generated columns, `AS (expr)` (3.31.0). See <https://www.sqlite.org/gencol.html>.
    public static let generatedColumns = SQLiteFeature(name: "generated columns", version: SQLiteVersion(3, 31))
    /// `RETURNING` (3.35.0). See <https://www.sqlite.org/lang_returning.html>.
    public static let returning = SQLiteFeature(name: "RETURNING clauses", version: SQLiteVersion(3, 35))
    /// `ALTER TABLE ... DROP COLUMN` (3.35.0).
    public static let dropColumn = SQLiteFeature(name: "ALTER TABLE DROP COLUMN", version: SQLiteVersion(3, 35))
    /// STRICT tables (3.37.0). See <https://www.sqlite.org/stricttables.html>.
    public static let strictTables = SQLiteFeature(name: "STRICT tables", version: SQLiteVersion(3, 37))
    /// The JSON operators `->` and `->>` (3.38.0). See <https://www.sqlite.org/json1.html#jptr>.
    public static let jsonOperators = SQLiteFeature(
        name: "the JSON operators -> and ->>", version: SQLiteVersion(3, 38))
    /// `ALTER TABLE ... ADD/DROP CONSTRAINT` and `ALTER COLUMN ... SET/DROP NOT NULL` (3.53.0).
    public static let alterConstraints = SQLiteFeature(
        name: "ALTER TABLE ADD/DROP CONSTRAINT and ALTER COLUMN SET/DROP NOT NULL", version: SQLiteVersion(3, 53))

    /// "generated columns need SQLite 3.31.0 or newer; this SQLite is 3.28.0".
    public func unavailableMessage(_ runtime: SQLiteVersion) -> String {
        "\(name) need\(name.hasPrefix("the ") || name.hasSuffix("s") ? "" : "s") SQLite \(version) or newer; "
            + "this SQLite is \(runtime)"
    }

    public var description: String { "\(name) (SQLite \(version))" }
}
