import ArgumentParser

/// `strata version`: prints the Strata and SQLite versions.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version", abstract: "Print the Strata and SQLite library versions.")

    func run() throws {
        CLIOutput.print("strata \(strataVersion) (SQLite \(SQLiteVersionInfo.runtime))")
    }
}
