import ArgumentParser

extension StrataCommand {
    /// Every subcommand, one file each in this folder named after its type (`MigrateCommand.swift`).
    /// Keep one per line (merges stay clean).
    static let allSubcommands: [any ParsableCommand.Type] = [
        PlanCommand.self,
        ApplyCommand.self,
        DumpCommand.self,
        VersionCommand.self,
        MigrateCommand.self,
        StatusCommand.self,
        NewCommand.self,
        CheckCommand.self,
        RekeyCommand.self,
        HistoryCommand.self,
        VerifyCommand.self,
        SquashCommand.self,
        LintCommand.self,
        GenerateCommand.self,
        DoctorCommand.self,
        RestoreCommand.self,
        UpgradeCommand.self,
    ]
}
