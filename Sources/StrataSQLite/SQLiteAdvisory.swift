import CSQLite

/// A known defect of SQLite releases: which versions (and builds) have it, what it does, what
/// it needs to happen, which release fixed it, and where SQLite (or the CVE record) says so.
///
/// ```swift
/// let db = try Database(path: "app.sqlite")
/// for advisory in db.sqliteAdvisories {
///     print("\(advisory.id): \(advisory.title) (fixed in \(advisory.fixedIn.map(String.init(describing:)) ?? "-"))")
/// }
/// ```
///
/// ``SQLiteAdvisory/all`` is the table Strata knows; ``SQLiteAdvisory/runtime`` the entries that
/// apply to the SQLite library this process runs with (its version and compile options),
/// computed once per process, so reading it at every open costs a lookup. The table lists
/// corruption, wrong-result and memory-safety defects fixed since SQLite 3.26 (Strata's floor),
/// and withdrawn releases; an entry is added only with a source on sqlite.org or a CVE record.
public struct SQLiteAdvisory: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// What kind of defect.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The database file can be damaged: pages lost or written wrong.
        case corruption
        /// A statement can return or store wrong values without an error.
        case wrongResult = "wrong-result"
        /// Memory is read or written out of bounds (a crash, or worse with hostile input).
        case memorySafety = "memory-safety"
        /// The release was withdrawn by SQLite's developers.
        case withdrawnRelease = "withdrawn-release"
    }

    /// How much it matters to an application that meets its condition.
    public enum Severity: String, Sendable, Hashable, CaseIterable, Comparable {
        case low, medium, high

        public static func < (a: Severity, b: Severity) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }
    }

    /// A stable identifier: `wal-reset`, `CVE-2025-6965`.
    public let id: String
    /// One line: "WAL-reset bug: a checkpoint racing a write can corrupt the database".
    public let title: String
    public let kind: Kind
    public let severity: Severity
    /// The affected releases (a version is affected when one range contains it).
    public let affected: [SQLiteVersionRange]
    /// The first release with the fix on the newest line (nil: none yet). Older lines may have
    /// backports, which ``affected`` leaves out.
    public let fixedIn: SQLiteVersion?
    /// Compile options the library must have been built with for the defect to exist
    /// (`ENABLE_FTS5`), as `sqlite3_compileoption_get` names them; empty when any build has it.
    public let requiredCompileOptions: [String]
    /// True when only databases in WAL mode can meet it.
    public let requiresWAL: Bool
    /// What must happen for the defect to strike.
    public let condition: String
    /// What it does, in a sentence or two.
    public let summary: String
    /// What Strata does about it, when it does something (nil otherwise).
    public let mitigation: String?
    /// Where it is documented: sqlite.org pages, CVE records.
    public let sources: [String]

    /// An entry of the table.
    public init(
        id: String, title: String, kind: Kind, severity: Severity, affected: [SQLiteVersionRange],
        fixedIn: SQLiteVersion?, requiredCompileOptions: [String] = [], requiresWAL: Bool = false, condition: String,
        summary: String, mitigation: String? = nil, sources: [String]
    ) {
        self.id = id
        self.title = title
        self.kind = kind
        self.severity = severity
        self.affected = affected
        self.fixedIn = fixedIn
        self.requiredCompileOptions = requiredCompileOptions
        self.requiresWAL = requiresWAL
        self.condition = condition
        self.summary = summary
        self.mitigation = mitigation
        self.sources = sources
    }

    /// True when SQLite `version`, built with `compileOptions`, has the defect.
    ///
    /// ```swift
    /// SQLiteAdvisory.walReset.affects(SQLiteVersion(3, 40, 1), compileOptions: [])   // true
    /// SQLiteAdvisory.walReset.affects(SQLiteVersion(3, 50, 7), compileOptions: [])   // false: backport
    /// ```
    public func affects(_ version: SQLiteVersion, compileOptions: SQLiteCompileOptions) -> Bool {
        affected.contains { $0.contains(version) }
            && requiredCompileOptions.allSatisfy { compileOptions.contains($0) }
    }

    /// `wal-reset (corruption, high): WAL-reset bug: ...`.
    public var description: String { "\(id) (\(kind.rawValue), \(severity.rawValue)): \(title)" }

    /// The entries of ``all`` that apply to SQLite `version` built with `compileOptions`, in
    /// table order.
    public static func applying(to version: SQLiteVersion, compileOptions: SQLiteCompileOptions) -> [SQLiteAdvisory] {
        all.filter { $0.affects(version, compileOptions: compileOptions) }
    }

    /// The entries that apply to the SQLite library this process runs with: computed at the
    /// first use in the process (a version, the compile options and a pass over the table, a few
    /// microseconds), then a lookup. The library cannot change while a process runs.
    public static var runtime: [SQLiteAdvisory] { runtimeAdvisories }

    /// True when the SQLite library this process runs with has the WAL-reset bug
    /// (``SQLiteAdvisory/walReset``): a ``DatabasePool`` then lets only its writer checkpoint
    /// (see ``PoolConfiguration/walResetMitigation``).
    public static var runtimeHasWALResetBug: Bool { runtimeHasWALReset }
}

/// Computed once per process: Swift initializes a global lazily, once, thread-safely.
private let runtimeAdvisories = SQLiteAdvisory.applying(to: .runtime, compileOptions: .runtime)
private let runtimeHasWALReset = runtimeAdvisories.contains { $0.id == SQLiteAdvisory.walReset.id }

/// A range of SQLite releases: from `lowerBound` (included) up to `upperBound` (excluded).
///
/// ```swift
/// SQLiteVersionRange(SQLiteVersion(3, 7, 0), ..<SQLiteVersion(3, 51, 3)).contains(SQLiteVersion(3, 40, 1))   // true
/// ```
public struct SQLiteVersionRange: Sendable, Hashable, CustomStringConvertible {
    /// The first affected release.
    public let lowerBound: SQLiteVersion
    /// The first release past the range (nil: every later release too).
    public let upperBound: SQLiteVersion?

    /// `lowerBound` up to, not including, `upperBound`.
    public init(_ lowerBound: SQLiteVersion, _ upperBound: PartialRangeUpTo<SQLiteVersion>) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound.upperBound
    }

    /// `lowerBound` up to, not including, `upperBound` (nil: no end).
    public init(from lowerBound: SQLiteVersion, upTo upperBound: SQLiteVersion?) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }

    /// One release only.
    public static func only(_ version: SQLiteVersion) -> SQLiteVersionRange {
        SQLiteVersionRange(from: version, upTo: SQLiteVersion(version.major, version.minor, version.patch + 1))
    }

    /// True when `version` is in the range.
    public func contains(_ version: SQLiteVersion) -> Bool {
        version >= lowerBound && upperBound.map { version < $0 } ?? true
    }

    /// `3.7.0 ..< 3.51.3`, `3.52.0`, `3.9.0 and later`.
    public var description: String {
        guard let upperBound else { return "\(lowerBound) and later" }
        if upperBound == SQLiteVersion(lowerBound.major, lowerBound.minor, lowerBound.patch + 1) {
            return lowerBound.description
        }
        return "\(lowerBound) ..< \(upperBound)"
    }
}

/// The compile options of an SQLite library, as `sqlite3_compileoption_get` lists them: names
/// without the `SQLITE_` prefix, some with a value (`ENABLE_FTS5`, `THREADSAFE=1`).
/// See <https://www.sqlite.org/c3ref/compileoption_get.html>.
///
/// ```swift
/// SQLiteCompileOptions.runtime.contains("ENABLE_FTS5")
/// ```
public struct SQLiteCompileOptions: Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// Each option as the library spells it.
    public let options: [String]
    private let names: Set<String>

    /// The options `options` (with or without the `SQLITE_` prefix).
    public init(_ options: [String]) {
        self.options = options.map(Self.stripped)
        names = Set(self.options.map { Self.name(of: $0) })
    }

    public init(arrayLiteral elements: String...) { self.init(elements) }

    /// True when `option` (`ENABLE_FTS5` or `SQLITE_ENABLE_FTS5`, compared without case and
    /// without a value) is among the options.
    public func contains(_ option: String) -> Bool { names.contains(Self.name(of: Self.stripped(option))) }

    /// The options of the SQLite library this process runs with, read once per process.
    public static var runtime: SQLiteCompileOptions { runtimeCompileOptions }

    public var description: String { options.joined(separator: " ") }

    private static func stripped(_ option: String) -> String {
        option.uppercased().hasPrefix("SQLITE_") ? String(option.dropFirst(7)) : option
    }

    private static func name(of option: String) -> String {
        String(option.prefix { $0 != "=" }).uppercased()
    }
}

private let runtimeCompileOptions: SQLiteCompileOptions = {
    var options: [String] = []
    var index: Int32 = 0
    while let option = sqlite3_compileoption_get(index) {
        options.append(String(cString: option))
        index += 1
    }
    return SQLiteCompileOptions(options)
}()

extension SQLiteVersion {
    /// Parses `3.40.1` or `3.40` (patch 0); nil for anything else (`3`, `3.40.1.2`, `v3.40`, ` 3.40`).
    ///
    /// ```swift
    /// SQLiteVersion(string: "3.51.3")   // 3.51.3
    /// ```
    public init?(string: String) {
        let parts = string.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(\.isASCIIDigit) })
        else { return nil }
        let numbers = parts.map { Int($0)! }
        self.init(numbers[0], numbers[1], numbers.count == 3 ? numbers[2] : 0)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension Database {
    /// The known SQLite defects (``SQLiteAdvisory``) that apply to the SQLite library this
    /// connection runs on, by its version and compile options: ``SQLiteAdvisory/runtime``, read
    /// at open (computed once per process). Whether one strikes a database also depends on the
    /// database and its use: ``SQLiteAdvisory/requiresWAL`` and ``SQLiteAdvisory/condition``
    /// say what it needs; `strata doctor --db FILE` checks one database.
    ///
    /// ```swift
    /// if db.sqliteAdvisories.contains(where: { $0.id == "wal-reset" }) { ... }
    /// ```
    public var sqliteAdvisories: [SQLiteAdvisory] { advisories }
}

extension SQLiteAdvisory {
    /// Every entry Strata knows, newest fix first within each kind.
    public static let all: [SQLiteAdvisory] = [
        walReset, withdrawn3520, dropColumnCorruption, cve202611822, cve20256965, cve202529087, cve20257458,
        cve202235737, cve202015358, cve20198457,
    ]

    /// The WAL-reset bug (SQLite 3.7.0 through 3.51.2; fixed in 3.51.3, backported to 3.50.7 and
    /// 3.44.6). A checkpoint that starts while another connection commits a transaction that
    /// resets (wraps) the WAL can miss the reset and record, in the shared wal-index, that frames
    /// of the new WAL were copied to the database when they were not; a later checkpoint then
    /// skips part of a committed transaction. The fix (in `walCheckpoint`) checks, once the
    /// checkpoint holds read-lock 0, that the WAL's salt is still the one it read.
    public static let walReset = SQLiteAdvisory(
        id: "wal-reset", title: "WAL-reset bug: a checkpoint racing a write can corrupt the database",
        kind: .corruption, severity: .high,
        affected: [
            SQLiteVersionRange(SQLiteVersion(3, 7, 0), ..<SQLiteVersion(3, 44, 6)),
            SQLiteVersionRange(SQLiteVersion(3, 45, 0), ..<SQLiteVersion(3, 50, 7)),
            SQLiteVersionRange(SQLiteVersion(3, 51, 0), ..<SQLiteVersion(3, 51, 3)),
        ],
        fixedIn: SQLiteVersion(3, 51, 3), requiresWAL: true,
        condition:
            "WAL mode, and two or more connections (threads or processes) of which one checkpoints while another "
            + "commits a transaction that resets the WAL; a narrow timing window",
        summary:
            "A checkpoint can miss a concurrent WAL reset and record frames of the new WAL as copied; a later "
            + "checkpoint then skips part of a committed transaction, corrupting the database. "
            + "Backports: 3.44.6, 3.50.7.",
        mitigation:
            "DatabasePool lets only its writer checkpoint (readers refuse PRAGMA wal_checkpoint and never "
            + "autocheckpoint), so within a pool no checkpoint runs beside a write; other processes and "
            + "other connections to the file are not covered: upgrade SQLite",
        sources: ["https://sqlite.org/wal.html#walresetbug", "https://sqlite.org/releaselog/3_51_3.html"])

    /// SQLite 3.52.0 (2026-03-06) was withdrawn: some of its new features were not fully
    /// compatible with earlier releases; 3.51.3 replaced it.
    public static let withdrawn3520 = SQLiteAdvisory(
        id: "withdrawn-3.52.0", title: "SQLite 3.52.0 was withdrawn", kind: .withdrawnRelease, severity: .medium,
        affected: [.only(SQLiteVersion(3, 52, 0))], fixedIn: nil,
        condition: "any use of this release",
        summary:
            "Withdrawn a week after release because some of its new features and their APIs were not fully "
            + "compatible with earlier releases; 3.51.3 was published in its place. Use 3.51.3, or a release after 3.52.0.",
        sources: ["https://sqlite.org/news.html", "https://sqlite.org/releaselog/3_51_3.html"])

    /// SQLite 3.35.5: "Fix defects in the new ALTER TABLE DROP COLUMN feature that could corrupt
    /// the database file."
    public static let dropColumnCorruption = SQLiteAdvisory(
        id: "drop-column-corruption", title: "ALTER TABLE DROP COLUMN can corrupt the database file",
        kind: .corruption, severity: .high,
        affected: [SQLiteVersionRange(SQLiteVersion(3, 35, 0), ..<SQLiteVersion(3, 35, 5))],
        fixedIn: SQLiteVersion(3, 35, 5),
        condition: "ALTER TABLE ... DROP COLUMN (a schema change that drops a column in place)",
        summary:
            "Defects in the then-new DROP COLUMN could corrupt the database file (values of the dropped "
            + "column showing up in another column of some rows).",
        sources: ["https://sqlite.org/releaselog/3_35_5.html"])

    /// CVE-2026-11822 and CVE-2026-11824: FTS5 memory corruption on a crafted database.
    public static let cve202611822 = SQLiteAdvisory(
        id: "CVE-2026-11822", title: "FTS5: out-of-bounds read and heap overflow on a crafted database",
        kind: .memorySafety, severity: .high,
        affected: [SQLiteVersionRange(SQLiteVersion(3, 9, 0), ..<SQLiteVersion(3, 53, 2))],
        fixedIn: SQLiteVersion(3, 53, 2), requiredCompileOptions: ["ENABLE_FTS5"],
        condition: "an FTS5 MATCH query against a database file someone else crafted (malformed FTS5 pages)",
        summary:
            "Malformed FTS5 leaf or continuation pages make fts5LeafSeek read out of bounds and fts5ChunkIterate "
            + "overflow a heap buffer (CVE-2026-11822, CVE-2026-11824).",
        sources: [
            "https://www.cve.org/CVERecord?id=CVE-2026-11822", "https://www.cve.org/CVERecord?id=CVE-2026-11824",
        ])

    /// CVE-2025-6965: more aggregate terms than columns, memory corruption (before 3.50.2).
    public static let cve20256965 = SQLiteAdvisory(
        id: "CVE-2025-6965", title: "More aggregate terms than available columns corrupts memory",
        kind: .memorySafety, severity: .medium,
        affected: [SQLiteVersionRange(SQLiteVersion(3, 0, 0), ..<SQLiteVersion(3, 50, 2))],
        fixedIn: SQLiteVersion(3, 50, 2),
        condition: "running SQL someone else wrote: a query with more aggregate terms than the column limit",
        summary:
            "The number of aggregate terms could exceed the number of columns available, truncating an index "
            + "and corrupting memory.",
        sources: [
            "https://www.cve.org/CVERecord?id=CVE-2025-6965",
            "https://www.sqlite.org/src/info/5508b56fd24016c13981ec280ecdd833007c9d8dd595edb295b984c2b487b5c8",
        ])

    /// CVE-2025-29087: concat_ws() integer overflow (3.44.0 through 3.49.0).
    public static let cve202529087 = SQLiteAdvisory(
        id: "CVE-2025-29087", title: "concat_ws() writes past the end of a buffer",
        kind: .memorySafety, severity: .medium,
        affected: [SQLiteVersionRange(SQLiteVersion(3, 44, 0), ..<SQLiteVersion(3, 49, 1))],
        fixedIn: SQLiteVersion(3, 49, 1),
        condition: "concat_ws() with a very large separator (2 MB or more) that someone else controls",
        summary:
            "An integer overflow in the result size of concat_ws() makes malloc allocate too little; the "
            + "function then writes beyond the buffer.",
        sources: ["https://www.cve.org/CVERecord?id=CVE-2025-29087"])

    /// CVE-2025-7458: integer overflow in sqlite3KeyInfoFromExprList (3.39.2 through 3.41.1).
    public static let cve20257458 = SQLiteAdvisory(
        id: "CVE-2025-7458", title: "ORDER BY with a huge number of terms reads out of bounds",
        kind: .memorySafety, severity: .medium,
        affected: [SQLiteVersionRange(SQLiteVersion(3, 39, 2), ..<SQLiteVersion(3, 41, 2))],
        fixedIn: SQLiteVersion(3, 41, 2),
        condition: "running SQL someone else wrote: a SELECT with a very large number of ORDER BY expressions",
        summary:
            "An integer overflow in sqlite3KeyInfoFromExprList can crash the process or disclose memory.",
        sources: ["https://www.cve.org/CVERecord?id=CVE-2025-7458"])

    /// CVE-2022-35737: array-bounds overflow with strings of billions of bytes (before 3.39.2).
    public static let cve202235737 = SQLiteAdvisory(
        id: "CVE-2022-35737", title: "Strings of billions of bytes passed to the C API overflow an array",
        kind: .memorySafety, severity: .medium,
        affected: [SQLiteVersionRange(SQLiteVersion(1, 0, 12), ..<SQLiteVersion(3, 39, 2))],
        fixedIn: SQLiteVersion(3, 39, 2),
        condition: "a string argument of billions of bytes to a C API function (printf-style formatting)",
        summary: "An array-bounds overflow when a string argument to a C API is billions of bytes long.",
        sources: [
            "https://sqlite.org/releaselog/3_39_2.html", "https://www.sqlite.org/cves.html",
            "https://www.cve.org/CVERecord?id=CVE-2022-35737",
        ])

    /// CVE-2020-15358: the query flattener and multiSelectOrderBy heap overflow (before 3.32.3).
    public static let cve202015358 = SQLiteAdvisory(
        id: "CVE-2020-15358", title: "Query flattener: heap overflow in a compound SELECT with ORDER BY",
        kind: .memorySafety, severity: .medium,
        affected: [SQLiteVersionRange(SQLiteVersion(3, 0, 0), ..<SQLiteVersion(3, 32, 3))],
        fixedIn: SQLiteVersion(3, 32, 3),
        condition: "running SQL someone else wrote: a crafted compound SELECT with ORDER BY",
        summary:
            "select.c mishandles the query-flattener optimization (constant propagation), overflowing a heap "
            + "buffer in multiSelectOrderBy.",
        sources: [
            "https://www.sqlite.org/src/tktview?name=8f157e8010", "https://www.cve.org/CVERecord?id=CVE-2020-15358",
        ])

    /// CVE-2019-8457: R*Tree out-of-bounds read on invalid rtree tables (3.6.0 through 3.27.2).
    public static let cve20198457 = SQLiteAdvisory(
        id: "CVE-2019-8457", title: "R*Tree: out-of-bounds read on an invalid rtree table",
        kind: .memorySafety, severity: .medium,
        affected: [SQLiteVersionRange(SQLiteVersion(3, 6, 0), ..<SQLiteVersion(3, 28, 0))],
        fixedIn: SQLiteVersion(3, 28, 0), requiredCompileOptions: ["ENABLE_RTREE"],
        condition: "rtreenode() on an R*Tree table of a database file someone else crafted",
        summary: "A heap out-of-bounds read in rtreenode() when it handles invalid rtree tables.",
        sources: ["https://www.sqlite.org/releaselog/3_28_0.html", "https://www.cve.org/CVERecord?id=CVE-2019-8457"])
}
