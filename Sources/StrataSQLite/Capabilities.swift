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
}
