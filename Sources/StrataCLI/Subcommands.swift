import ArgumentParser

extension StrataCommand {
    /// Every subcommand, one file each in this folder. Keep one per line (merges stay clean).
    static let allSubcommands: [any ParsableCommand.Type] = [
        PlanCommand.self,
        ApplyCommand.self,
        DumpCommand.self,
        Version.self,
        Migrate.self,
        Status.self,
        New.self,
        Check.self,
        RekeyCommand.self,
    ]
}

/// `strata version`: prints the Strata and SQLite versions.
struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the Strata and SQLite library versions.")
    func run() throws {
        CLIOutput.print("strata \(strataVersion) (SQLite \(SQLiteVersionInfo.runtime))")
    }
}
