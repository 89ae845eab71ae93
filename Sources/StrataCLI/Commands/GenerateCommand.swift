import ArgumentParser

/// `strata generate`: writes code from the declared schema (`strata generate swift`).
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate code from schema.sql.",
        subcommands: [SwiftSource.self])
}
