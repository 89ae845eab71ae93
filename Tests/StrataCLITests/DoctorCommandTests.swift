import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata doctor --db FILE` (text and `--format json`) and the advisory line of `strata
/// version`. The child `strata` runs the same SQLite library as this test process (the matrix
/// sets LD_LIBRARY_PATH on both), so the expected advisories are `SQLiteAdvisory.runtime`.
@Suite("strata doctor")
struct DoctorCommandTests {
    /// A database in `work` (the caller keeps the folder alive), in WAL mode or not.
    private func database(in work: TemporaryDirectory, walMode: Bool, name: String = "app.sqlite") throws -> String {
        let path = work.file(name)
        let db = try Database(path: path)
        if walMode { _ = try db.fetchValue(String.self, sql: "PRAGMA journal_mode = WAL") }
        try db.execute(sql: "CREATE TABLE t(x TEXT); CREATE INDEX ti ON t(x)")
        for i in 0..<500 {
            try db.execute(
                sql: "INSERT INTO t VALUES (?)", arguments: ["row \(i) " + String(repeating: "x", count: 40)])
        }
        db.close()
        return path
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    private var runtime: [SQLiteAdvisory] { SQLiteAdvisory.runtime }
    private var affected: Bool { SQLiteAdvisory.runtimeHasWALResetBug }

    @Test func textReportOnAWALDatabase() throws {
        let work = TemporaryDirectory()
        let path = try database(in: work, walMode: true)
        let r = try StrataProcess.run(["doctor", "--db", path])
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stderr == "")
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first?.hasPrefix("SQLite \(SQLiteVersion.runtime) (the library this strata runs), ") == true)
        #expect(lines.contains("\(path): journal mode wal"))
        if affected {
            #expect(
                lines.contains(
                    "WAL-reset mitigation: on (DatabasePool lets only its writer checkpoint); not covered: other "
                        + "processes or other connections to this file, so upgrade SQLite"))
        } else {
            #expect(lines.contains("WAL-reset mitigation: off (this SQLite does not have the WAL-reset bug)"))
        }
        for advisory in runtime {
            #expect(
                lines.contains(
                    "- \(advisory.id) (\(advisory.kind.rawValue), \(advisory.severity.rawValue)): \(advisory.title)"))
        }
        #expect(lines.filter { $0.hasPrefix("- ") }.count == runtime.count)
        if runtime.isEmpty {
            #expect(lines.contains("No known advisory applies to SQLite \(SQLiteVersion.runtime) and this database."))
        } else {
            #expect(lines.contains(runtime.count == 1 ? "1 advisory applies:" : "\(runtime.count) advisories apply:"))
        }
        #expect(!r.stdout.contains("would apply in WAL mode"))
        #expect(!r.stdout.contains("quick_check"))
    }

    /// A rollback-journal database cannot meet the WAL-reset bug: it is listed apart, as what
    /// would apply in WAL mode.
    @Test func rollbackJournalDatabaseSetsWALAdvisoriesApart() throws {
        let work = TemporaryDirectory()
        let path = try database(in: work, walMode: false)
        let r = try StrataProcess.run(["doctor", "--db", path, "--format", "json"])
        #expect(r.exitCode == 0, "\(r)")
        let document = try json(r.stdout)
        #expect(document["journalMode"] as? String == "delete")
        let advisories = try #require(document["advisories"] as? [[String: Any]])
        #expect(advisories.map { $0["id"] as? String } == runtime.map(\.id))
        let walReset = advisories.first { $0["id"] as? String == "wal-reset" }
        #expect((walReset != nil) == affected)
        if let walReset {
            #expect(walReset["appliesToDatabase"] as? Bool == false)
            #expect(walReset["requiresWAL"] as? Bool == true)
            #expect(walReset["fixedIn"] as? String == "3.51.3")
        }
        #expect(
            advisories.filter { $0["requiresWAL"] as? Bool == false }.allSatisfy {
                $0["appliesToDatabase"] as? Bool == true
            })
        let text = try StrataProcess.run(["doctor", "--db", path])
        #expect(text.stdout.contains("journal mode delete"))
        #expect(text.stdout.contains("1 advisory of this SQLite would apply in WAL mode:") == affected)
    }

    @Test func jsonReportOnAWALDatabase() throws {
        let work = TemporaryDirectory()
        let path = try database(in: work, walMode: true)
        let r = try StrataProcess.run(["doctor", "--db", path, "--format", "json", "--quick-check"])
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stderr == "")
        let document = try json(r.stdout)
        #expect(document["database"] as? String == path)
        #expect(document["journalMode"] as? String == "wal")
        let sqlite = try #require(document["sqlite"] as? [String: Any])
        #expect(sqlite["version"] as? String == SQLiteVersion.runtime.description)
        #expect(sqlite["compileOptions"] as? [String] == SQLiteCompileOptions.runtime.options)
        #expect(document["walResetMitigation"] as? [String: Bool] == ["affected": affected, "active": affected])
        #expect(document["quickCheck"] as? [String] == [])
        let advisories = try #require(document["advisories"] as? [[String: Any]])
        #expect(advisories.map { $0["id"] as? String } == runtime.map(\.id))
        #expect(advisories.allSatisfy { $0["appliesToDatabase"] as? Bool == true })
        for (entry, advisory) in zip(advisories, runtime) {
            #expect(entry["sources"] as? [String] == advisory.sources)
            #expect(entry["kind"] as? String == advisory.kind.rawValue)
            let ranges = entry["affected"] as? [[String: String]]
            #expect(ranges?.map { $0["from"] } == advisory.affected.map(\.lowerBound.description))
        }
    }

    /// `--quick-check` on a damaged file: the problem is listed and the exit code is 1.
    @Test func quickCheckFindsDamage() throws {
        let work = TemporaryDirectory()
        let path = try database(in: work, walMode: false)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // The first b-tree leaf page after the schema: its "fragmented free bytes" count made wrong.
        let pageSize = 4096
        let page = try #require((1..<(bytes.count / pageSize)).first { [0x0A, 0x0D].contains(bytes[$0 * pageSize]) })
        bytes[page * pageSize + 7] &+= 37
        try bytes.write(to: URL(fileURLWithPath: path))
        let r = try StrataProcess.run(["doctor", "--db", path, "--quick-check"])
        #expect(r.exitCode == 1, "\(r)")
        #expect(r.stdout.contains("PRAGMA quick_check: 1 problem"))
        #expect(r.stdout.contains("Fragmentation of"))
        #expect(r.stderr == "strata: \(path): PRAGMA quick_check found 1 problem\n")
        let ok = try StrataProcess.run([
            "doctor", "--db", try database(in: work, walMode: false, name: "ok.sqlite"), "--quick-check",
        ])
        #expect(ok.exitCode == 0 && ok.stdout.contains("PRAGMA quick_check: ok\n"), "\(ok)")
    }

    @Test func missingDatabaseIsRefusedAndNotCreated() throws {
        let work = TemporaryDirectory()
        let path = work.file("missing.sqlite")
        let r = try StrataProcess.run(["doctor", "--db", path])
        #expect(r.exitCode == 1)
        #expect(r.stderr == "strata: \(path): no such database file\n")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func versionSaysHowManyAdvisoriesApply() throws {
        let r = try StrataProcess.run(["version"])
        #expect(r.exitCode == 0, "\(r)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "\(r.stdout)")
        #expect(lines[0].hasSuffix("(SQLite \(SQLiteVersion.runtime))"))
        let version = SQLiteVersion.runtime.description
        if runtime.isEmpty {
            #expect(lines[1] == "SQLite \(version): no known advisory applies")
        } else {
            let count = runtime.count == 1 ? "1 known advisory applies" : "\(runtime.count) known advisories apply"
            #expect(
                lines[1]
                    == "SQLite \(version): \(count) (\(runtime.map(\.id).joined(separator: ", "))); run strata doctor --db FILE"
            )
        }
        #expect(lines[1].contains("wal-reset") == affected)
    }
}
