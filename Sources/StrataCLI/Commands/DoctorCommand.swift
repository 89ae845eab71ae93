import ArgumentParser
import Foundation
import Strata

/// `strata doctor`: the known SQLite defects (``SQLiteAdvisory``) that apply to the SQLite this
/// binary runs and to one database, its journal mode, whether Strata's WAL-reset mitigation is
/// on, and (with `--quick-check`) `PRAGMA quick_check`.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "List the known SQLite defects that apply to this SQLite and to a database.",
        discussion: """
            Reads the SQLite library this strata runs with (version and compile options) against \
            Strata's table of SQLite advisories (corruption, wrong results, memory safety, \
            withdrawn releases, each with its fixed version and source), and the database's \
            journal mode: an advisory that needs WAL mode applies to a WAL database only. Says \
            whether DatabasePool's WAL-reset mitigation (only the writer checkpoints) is on. \
            Opens the database read-only and changes nothing. Exits 0 when the checks ran (an \
            advisory that applies is a warning: upgrading SQLite is the fix), 1 when the database \
            cannot be read or --quick-check finds damage.
            """)

    @OptionGroup var databaseArguments: DatabaseArguments
    var database: String { databaseArguments.path }

    @Flag(
        name: .customLong("quick-check"),
        help: "Also run PRAGMA quick_check (reads every page: time grows with the database's size).")
    var quickCheck = false

    @OptionGroup var output: FormatArguments

    @OptionGroup var connection: ConnectionArguments

    func run() throws {
        let db = try connection.open(database, .readExisting).db
        defer { db.close() }
        let journalMode = try CLIError.reporting(database: database) {
            (try db.fetchValue(String.self, sql: "PRAGMA journal_mode") ?? "unknown").lowercased()
        }
        let problems: [String]? =
            quickCheck
            ? try CLIError.reporting(database: database) {
                try db.quickCheckProblems()
            } : nil
        var report = DoctorJSON(
            database: database, advisories: db.sqliteAdvisories, journalMode: journalMode, quickCheck: problems)
        report.onlineRebuilds = OnlineRebuildNotice.states(db)
        if output.isJSON {
            CLIJSON.print(report)
        } else {
            printText(report)
        }
        if let problems, !problems.isEmpty {
            throw CLIError(
                message: "\(database): PRAGMA quick_check found \(CLIOutput.count(problems.count, "problem"))")
        }
    }

    private func printText(_ report: DoctorJSON) {
        let sqlite = report.sqlite
        CLIOutput.print(
            "SQLite \(sqlite.version) (the library this strata runs), \(CLIOutput.count(sqlite.compileOptions.count, "compile option"))"
        )
        CLIOutput.print("\(database): journal mode \(report.journalMode)")
        let mitigation = report.walResetMitigation
        if mitigation.affected {
            CLIOutput.print(
                "WAL-reset mitigation: on (DatabasePool lets only its writer checkpoint)"
                    + (report.journalMode == "wal"
                        ? "; not covered: other processes or other connections to this file, so upgrade SQLite"
                        : "; this database is not in WAL mode, so the bug cannot strike it now"))
        } else {
            CLIOutput.print("WAL-reset mitigation: off (this SQLite does not have the WAL-reset bug)")
        }
        let applying = report.advisories.filter(\.appliesToDatabase)
        let dormant = report.advisories.filter { !$0.appliesToDatabase }
        if applying.isEmpty {
            CLIOutput.print("No known advisory applies to SQLite \(sqlite.version) and this database.")
        } else {
            CLIOutput.print(applying.count == 1 ? "1 advisory applies:" : "\(applying.count) advisories apply:")
            for advisory in applying { printAdvisory(advisory) }
        }
        if !dormant.isEmpty {
            CLIOutput.print(
                (dormant.count == 1 ? "1 advisory" : "\(dormant.count) advisories")
                    + " of this SQLite would apply in WAL mode:")
            for advisory in dormant { printAdvisory(advisory) }
        }
        if !report.onlineRebuilds.isEmpty {
            CLIOutput.print("Online rebuilds (\(report.onlineRebuilds.count)):")
            for line in OnlineRebuildNotice.lines(report.onlineRebuilds) { CLIOutput.print("  \(line)") }
        }
        if let problems = report.quickCheck {
            CLIOutput.print(
                problems.isEmpty
                    ? "PRAGMA quick_check: ok" : "PRAGMA quick_check: \(CLIOutput.count(problems.count, "problem"))")
            for problem in problems { CLIOutput.print("  \(problem)") }
        }
    }

    private func printAdvisory(_ advisory: DoctorJSON.Advisory) {
        CLIOutput.print("- \(advisory.id) (\(advisory.kind), \(advisory.severity)): \(advisory.title)")
        let ranges = advisory.affected.map(\.text).joined(separator: ", ")
        CLIOutput.print("  affected: \(ranges); fixed in \(advisory.fixedIn ?? "no release yet")")
        CLIOutput.print("  when: \(advisory.condition)")
        CLIOutput.print("  what: \(advisory.summary)")
        if let mitigation = advisory.mitigation { CLIOutput.print("  Strata: \(mitigation)") }
        CLIOutput.print("  see: \(advisory.sources.joined(separator: " "))")
    }
}

/// `strata doctor --format json` (documented in the CLI reference, Sources/Strata/Strata.docc/CommandLineTool.md).
struct DoctorJSON: Encodable {
    struct SQLite: Encodable {
        var version: String
        var compileOptions: [String]
    }

    struct Range: Encodable {
        /// The first affected release.
        var from: String
        /// The first release past the range (nil: no end).
        var upTo: String?

        var text: String {
            guard let upTo else { return "\(from) and later" }
            return "\(from) ..< \(upTo)"
        }
    }

    struct Advisory: Encodable {
        var id: String
        var title: String
        var kind: String
        var severity: String
        var affected: [Range]
        var fixedIn: String?
        var requiredCompileOptions: [String]
        var requiresWAL: Bool
        var condition: String
        var summary: String
        var mitigation: String?
        var sources: [String]
        /// False when the advisory needs WAL mode and the database is not in WAL mode.
        var appliesToDatabase: Bool
    }

    struct Mitigation: Encodable {
        /// Whether this SQLite has the WAL-reset bug.
        var affected: Bool
        /// Whether a DatabasePool opened by default lets only its writer checkpoint.
        var active: Bool
    }

    var database: String
    var sqlite: SQLite
    var journalMode: String
    var walResetMitigation: Mitigation
    /// Every advisory of this SQLite library, with whether it applies to this database.
    var advisories: [Advisory]
    /// The problems `PRAGMA quick_check` found (empty: ok); nil without `--quick-check`.
    var quickCheck: [String]?
    /// The online rebuilds whose objects the database holds: interrupted, or running now.
    var onlineRebuilds: [OnlineRebuildJSON] = []

    init(database: String, advisories: [SQLiteAdvisory], journalMode: String, quickCheck: [String]?) {
        self.database = database
        sqlite = SQLite(
            version: SQLiteVersion.runtime.description, compileOptions: SQLiteCompileOptions.runtime.options)
        self.journalMode = journalMode
        walResetMitigation = Mitigation(
            affected: SQLiteAdvisory.runtimeHasWALResetBug, active: PoolConfiguration().walResetMitigation.isActive)
        self.advisories = advisories.map { advisory in
            Advisory(
                id: advisory.id, title: advisory.title, kind: advisory.kind.rawValue,
                severity: advisory.severity.rawValue,
                affected: advisory.affected.map {
                    Range(from: $0.lowerBound.description, upTo: $0.upperBound?.description)
                },
                fixedIn: advisory.fixedIn?.description, requiredCompileOptions: advisory.requiredCompileOptions,
                requiresWAL: advisory.requiresWAL, condition: advisory.condition, summary: advisory.summary,
                mitigation: advisory.mitigation, sources: advisory.sources,
                appliesToDatabase: !advisory.requiresWAL || journalMode == "wal")
        }
        self.quickCheck = quickCheck
    }
}
