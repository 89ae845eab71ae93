import ArgumentParser
import Foundation
import Strata
import StrataTesting

/// `strata lint`: classifies every change between an old schema and a desired one for the app
/// versions that still run.
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Classify every change of a schema change for the app versions that still run.",
        discussion: """
            Plans the change from the old schema (a database, a schema file, or the latest version of \
            a history folder) to the desired one, and classifies each change: safe while older \
            versions run, breaking for older readers or writers, or data-dependent (may fail on \
            existing rows). Each finding has a stable code (listed in the Strata documentation, \
            "Upgrades over an app's life"), the object, the reason and the safer sequence. Exits 0 when no finding is at or above --fail-on, 2 when one is, \
            1 on an error.
            """)

    enum Level: String, ExpressibleByArgument, CaseIterable {
        case safe
        case dataDependent = "data-dependent"
        case breaking

        var level: CompatibilityFinding.Level {
            switch self {
            case .safe: return .safe
            case .dataDependent: return .dataDependent
            case .breaking: return .breaking
            }
        }
    }

    enum Policy: String, ExpressibleByArgument, CaseIterable {
        case previousVersion = "previous-version"
        case sync, strict

        var policy: CompatibilityPolicy {
            switch self {
            case .previousVersion: return .previousVersion
            case .sync: return .sync
            case .strict: return .strict
            }
        }
    }

    @Option(
        name: .customLong("from"),
        help: ArgumentHelp(
            "The old schema: a history folder, a .sql schema file, or a database (decided by what the path is).",
            valueName: "old"))
    var from: String?

    @Option(name: .customLong("db"), help: ArgumentHelp("The old schema: a database file.", valueName: "db"))
    var database: String?

    @Option(name: .customLong("schema"), help: ArgumentHelp("The old schema: a .sql schema file.", valueName: "schema"))
    var schema: String?

    @Option(
        name: .customLong("history"),
        help: ArgumentHelp(
            "The old schema: the latest version of a history folder (or --release N).", valueName: "history"))
    var history: String?

    @Option(
        name: .customLong("release"), help: "With a history folder: the version to lint from (default: the latest).")
    var version: Int?

    @Option(name: .customLong("to"), help: ArgumentHelp("The desired schema: a .sql file.", valueName: "schema"))
    var to: String

    @Option(name: .customLong("policy"), help: "previous-version (default), sync (a synced store's rules) or strict.")
    var policy: Policy = .previousVersion

    @Option(
        name: .customLong("fail-on"),
        help: "Exit 2 on findings at or above: safe, data-dependent or breaking (default).")
    var failOn: Level = .breaking

    @OptionGroup var formatArguments: FormatArguments

    @OptionGroup var connection: ConnectionArguments

    func validate() throws {
        let given = [from, database, schema, history].compactMap { $0 }
        if given.count != 1 {
            throw ValidationError("give exactly one old schema: --from, --db, --schema or --history")
        }
        if version != nil && history == nil && from == nil { throw ValidationError("--release goes with --history") }
    }

    /// What the old schema is.
    enum Source {
        case database(String)
        case schemaFile(String)
        case history(String)
    }

    var source: Source {
        if let database { return .database(database) }
        if let schema { return .schemaFile(schema) }
        if let history { return .history(history) }
        let path = from ?? ""
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return .history(path)
        }
        return path.lowercased().hasSuffix(".sql") ? .schemaFile(path) : .database(path)
    }

    func run() throws {
        let desired = try SchemaFile.load(to).text
        let (db, name) = try oldSchemaDatabase()
        defer { db.close() }
        let plan: Plan
        do {
            plan = try db.planSchemaChange(to: desired, options: SchemaChangeOptions(allowDestructive: true))
        } catch {
            throw CLIError(error, database: name, schema: to)
        }
        let report = plan.compatibility(policy: policy.policy)
        let failing = report.findings(atLeast: failOn.level)
        if formatArguments.isJSON {
            CLIJSON.print(
                LintJSON.Document(
                    policy: report.policy.rawValue, failOn: failOn.rawValue, failed: !failing.isEmpty,
                    findings: report.findings.map(LintJSON.Finding.init)))
        } else {
            CLIOutput.print(LintJSON.text(report))
        }
        if !failing.isEmpty {
            throw CLIError(
                message:
                    "\(to): \(failing.count) finding\(failing.count == 1 ? "" : "s") at or above \(failOn.rawValue) (policy \(report.policy.rawValue))",
                exitCode: CLIError.findingsExitCode)
        }
    }

    /// A scratch database holding the old schema (never the user's file: planning against a
    /// schema-only copy gives the data conditions as conditions, whatever the rows).
    private func oldSchemaDatabase() throws -> (Database, String) {
        let scratch = try DatabaseOpener.scratch()
        do {
            switch source {
            case .database(let path):
                guard FileManager.default.fileExists(atPath: path) else {
                    throw CLIError(message: "\(path): no such database")
                }
                let db = try connection.open(path, .readExisting).db
                defer { db.close() }
                let schema = try CLIError.reporting(database: path) { try DatabaseSchema.read(from: db) }
                try CLIError.reporting(database: path) { try scratch.execute(sql: schema.sql) }
                return (scratch, path)
            case .schemaFile(let path):
                let text = try SchemaFile.readText(path)
                try CLIError.reporting(database: path, schema: path) {
                    try scratch.applySchemaChange(try scratch.planSchemaChange(to: text))
                }
                return (scratch, path)
            case .history(let folder):
                let history: MigrationHistory
                do {
                    history = try MigrationHistory(folder: folder)
                } catch let error as HistoryError {
                    throw CLIError(message: error.message)
                }
                let chosen = version.map { n in history.versions.first { $0.number == n } } ?? history.versions.last
                guard let chosen else {
                    throw CLIError(message: "\(folder): no version \(version ?? 0)")
                }
                try CLIError.reporting(database: chosen.path, schema: chosen.path) {
                    try scratch.applySchemaChange(try scratch.planSchemaChange(to: chosen.sql))
                }
                return (scratch, chosen.path)
            }
        } catch {
            scratch.close()
            throw error
        }
    }
}

/// The stable JSON (and text) form of a compatibility report, in `lint` and in `plan --format json`.
enum LintJSON {
    struct Document: Encodable {
        var policy: String
        var failOn: String
        var failed: Bool
        var findings: [Finding]
    }

    struct Compatibility: Encodable {
        var policy: String
        var findings: [Finding]

        init(_ report: CompatibilityReport) {
            policy = report.policy.rawValue
            findings = report.findings.map(Finding.init)
        }
    }

    struct Finding: Encodable {
        var code: String
        var level: String
        var object: String
        var reason: String
        var saferSequence: String?

        init(_ finding: CompatibilityFinding) {
            code = finding.code.rawValue
            level = finding.level.rawValue
            object = finding.object
            reason = finding.reason
            saferSequence = finding.saferSequence
        }
    }

    /// One line per finding (`breaking drop-column note.body: reason`), its safer sequence
    /// indented below, and a count.
    static func text(_ report: CompatibilityReport) -> String {
        if report.findings.isEmpty { return "No changes." }
        var lines = [String]()
        for finding in report.findings {
            lines.append(finding.description)
            if let safer = finding.saferSequence { lines.append("    safer: \(safer)") }
        }
        let counts = CompatibilityFinding.Level.allCases.reversed().map { level in
            "\(report.findings.filter { $0.level == level }.count) \(level.rawValue)"
        }
        lines.append(
            "\(report.findings.count) finding\(report.findings.count == 1 ? "" : "s"): \(counts.joined(separator: ", "))"
        )
        return lines.joined(separator: "\n")
    }
}
