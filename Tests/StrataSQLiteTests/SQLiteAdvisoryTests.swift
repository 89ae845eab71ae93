import Foundation
import StrataSQLite
import Testing

/// The table of known SQLite defects (`SQLiteAdvisory`): version parsing, ranges, compile
/// options, which entries apply to which release, and what a connection reports at open. Runs
/// under every version of the real-SQLite matrix (`scripts/sqlite-versions.sh test`), where
/// `runtimeAdvisoriesMatchTheVersionUnderTest` checks the loaded library's answer.
@Suite("SQLite advisories")
struct SQLiteAdvisoryTests {
    private func ids(_ version: String, _ options: SQLiteCompileOptions = []) throws -> [String] {
        let version = try #require(SQLiteVersion(string: version))
        return SQLiteAdvisory.applying(to: version, compileOptions: options).map(\.id)
    }

    @Test func versionStringsParse() {
        #expect(SQLiteVersion(string: "3.40.1") == SQLiteVersion(3, 40, 1))
        #expect(SQLiteVersion(string: "3.51") == SQLiteVersion(3, 51, 0))
        #expect(SQLiteVersion(string: "3.7.0") == SQLiteVersion(3, 7, 0))
        for bad in ["", "3", "3.", ".40", "3.40.1.2", "v3.40", " 3.40", "3.40.x", "3..1", "3.-1.0", "3.40.1 "] {
            #expect(SQLiteVersion(string: bad) == nil, "\(bad)")
        }
    }

    @Test func rangesIncludeTheirStartAndExcludeTheirEnd() {
        let range = SQLiteVersionRange(SQLiteVersion(3, 7, 0), ..<SQLiteVersion(3, 51, 3))
        #expect(range.contains(SQLiteVersion(3, 7, 0)))
        #expect(range.contains(SQLiteVersion(3, 51, 2)))
        #expect(!range.contains(SQLiteVersion(3, 51, 3)))
        #expect(!range.contains(SQLiteVersion(3, 6, 23)))
        #expect(range.description == "3.7.0 ..< 3.51.3")
        let one = SQLiteVersionRange.only(SQLiteVersion(3, 52, 0))
        #expect(one.contains(SQLiteVersion(3, 52, 0)))
        #expect(!one.contains(SQLiteVersion(3, 52, 1)) && !one.contains(SQLiteVersion(3, 51, 9)))
        #expect(one.description == "3.52.0")
        #expect(SQLiteVersionRange(from: SQLiteVersion(3, 9, 0), upTo: nil).contains(SQLiteVersion(9, 0, 0)))
    }

    /// "Affecting versions 3.7.0 through 3.51.2", fixed in 3.51.3, backported to 3.44.6 and
    /// 3.50.7 (https://sqlite.org/wal.html#walresetbug).
    @Test func walResetBugRangeAndBackports() throws {
        let affected = [
            "3.7.0", "3.26.0", "3.40.1", "3.44.5", "3.45.0", "3.46.1", "3.50.4", "3.50.6", "3.51.0", "3.51.2",
        ]
        let fixed = ["3.6.23", "3.44.6", "3.44.9", "3.50.7", "3.50.9", "3.51.3", "3.52.0", "3.53.0", "3.54.0"]
        for version in affected { #expect(try ids(version).contains("wal-reset"), "\(version)") }
        for version in fixed { #expect(try !ids(version).contains("wal-reset"), "\(version)") }
        #expect(SQLiteAdvisory.walReset.requiresWAL)
        #expect(SQLiteAdvisory.walReset.kind == .corruption)
        #expect(SQLiteAdvisory.walReset.fixedIn == SQLiteVersion(3, 51, 3))
        #expect(SQLiteAdvisory.walReset.sources.contains("https://sqlite.org/wal.html#walresetbug"))
    }

    @Test func withdrawnReleaseIsOnlyThatRelease() throws {
        #expect(try ids("3.52.0").contains("withdrawn-3.52.0"))
        for version in ["3.51.3", "3.52.1", "3.53.0"] { #expect(try !ids(version).contains("withdrawn-3.52.0")) }
        #expect(SQLiteAdvisory.withdrawn3520.kind == .withdrawnRelease)
    }

    @Test func dropColumnCorruptionIsTheFirstFourReleasesOfDropColumn() throws {
        for version in ["3.35.0", "3.35.4"] { #expect(try ids(version).contains("drop-column-corruption")) }
        for version in ["3.34.1", "3.35.5", "3.36.0"] { #expect(try !ids(version).contains("drop-column-corruption")) }
    }

    /// An advisory of an optional extension applies only to a library built with it.
    @Test func compileOptionsGateAdvisories() throws {
        #expect(try !ids("3.50.4").contains("CVE-2026-11822"))
        #expect(try ids("3.50.4", ["ENABLE_FTS5"]).contains("CVE-2026-11822"))
        #expect(try ids("3.50.4", ["SQLITE_ENABLE_FTS5"]).contains("CVE-2026-11822"))
        #expect(try !ids("3.53.2", ["ENABLE_FTS5"]).contains("CVE-2026-11822"))
        #expect(try !ids("3.27.2").contains("CVE-2019-8457"))
        #expect(try ids("3.27.2", ["ENABLE_RTREE"]).contains("CVE-2019-8457"))
        #expect(try !ids("3.28.0", ["ENABLE_RTREE"]).contains("CVE-2019-8457"))
    }

    @Test func compileOptionNamesCompareWithoutPrefixCaseOrValue() {
        let options: SQLiteCompileOptions = ["THREADSAFE=1", "ENABLE_FTS5", "SQLITE_ENABLE_RTREE"]
        #expect(options.contains("THREADSAFE"))
        #expect(options.contains("sqlite_threadsafe"))
        #expect(options.contains("enable_fts5"))
        #expect(options.contains("ENABLE_RTREE"))
        #expect(!options.contains("ENABLE_FTS"))
        #expect(!options.contains("ENABLE_STAT4"))
        #expect(options.options == ["THREADSAFE=1", "ENABLE_FTS5", "ENABLE_RTREE"])
    }

    /// Debian 12's library: the machine this suite usually runs on.
    @Test func debianTwelvesLibraryHasTheWALResetBug() throws {
        let debian: SQLiteCompileOptions = ["ENABLE_FTS5", "ENABLE_RTREE", "ENABLE_SESSION", "THREADSAFE=1"]
        let found = try ids("3.40.1", debian)
        #expect(found == ["wal-reset", "CVE-2026-11822", "CVE-2025-6965", "CVE-2025-7458"])
    }

    @Test func everyEntryIsSourcedAndConsistent() {
        #expect(Set(SQLiteAdvisory.all.map(\.id)).count == SQLiteAdvisory.all.count)
        for advisory in SQLiteAdvisory.all {
            #expect(
                !advisory.sources.isEmpty && advisory.sources.allSatisfy { $0.hasPrefix("https://") }, "\(advisory.id)")
            #expect(!advisory.affected.isEmpty, "\(advisory.id)")
            if let fixed = advisory.fixedIn {
                #expect(!advisory.affected.contains { $0.contains(fixed) }, "\(advisory.id): fixed release in range")
            }
            #expect(!advisory.title.isEmpty && !advisory.condition.isEmpty && !advisory.summary.isEmpty)
        }
    }

    // MARK: The library this process runs

    /// What each library of the matrix (and Debian 12's, the system one here) must report.
    static let walResetByVersion: [String: Bool] = [
        "3.28.0": true, "3.38.3": true, "3.40.1": true, "3.45.0": true, "3.50.4": true, "3.54.0": false,
    ]

    @Test func runtimeAdvisoriesMatchTheVersionUnderTest() throws {
        let version = SQLiteVersion.runtime.description
        if let expected = RealSQLiteVersionTests.expected { #expect(version == expected) }
        guard let expectation = Self.walResetByVersion[version] else {
            Issue.record("no expectation for SQLite \(version): add it to walResetByVersion")
            return
        }
        let db = try Database(inMemory: Configuration())
        defer { db.close() }
        #expect(db.sqliteAdvisories.contains { $0.id == "wal-reset" } == expectation)
        #expect(SQLiteAdvisory.runtimeHasWALResetBug == expectation)
        #expect(db.sqliteAdvisories == SQLiteAdvisory.applying(to: .runtime, compileOptions: .runtime))
        #expect(PoolConfiguration().walResetMitigation.isActive == expectation)
    }

    /// The compile options are the library's own (`PRAGMA compile_options` lists the same).
    @Test func runtimeCompileOptionsAreTheLibrarys() throws {
        let db = try Database(inMemory: Configuration())
        defer { db.close() }
        let pragma = try db.fetchColumn(String.self, sql: "PRAGMA compile_options")
        #expect(SQLiteCompileOptions.runtime.options == pragma)
        #expect(SQLiteCompileOptions.runtime.contains("THREADSAFE"))
    }
}
