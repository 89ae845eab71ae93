import ArgumentParser
import Strata

/// `strata version`: prints the Strata and SQLite versions, and how many known SQLite defects
/// (``SQLiteAdvisory``) apply to that SQLite.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print the Strata and SQLite library versions, and the SQLite advisories that apply.")

    func run() throws {
        CLIOutput.print("strata \(strataVersion) (SQLite \(SQLiteVersionInfo.runtime))")
        CLIOutput.print(Self.advisoryLine(SQLiteAdvisory.runtime, version: SQLiteVersionInfo.runtime))
    }

    /// `SQLite 3.40.1: 2 known advisories apply (wal-reset, CVE-2025-6965); run strata doctor --db FILE`.
    static func advisoryLine(_ advisories: [SQLiteAdvisory], version: String) -> String {
        guard !advisories.isEmpty else { return "SQLite \(version): no known advisory applies" }
        let count = advisories.count == 1 ? "1 known advisory applies" : "\(advisories.count) known advisories apply"
        return "SQLite \(version): \(count) (\(advisories.map(\.id).joined(separator: ", "))); "
            + "run strata doctor --db FILE"
    }
}
