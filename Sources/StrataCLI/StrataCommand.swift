import ArgumentParser
import Foundation
import Strata

/// The `strata` command: plan and apply schema changes, run versioned migrations.
///
/// Exit codes (a contract scripts rely on): 0 done or nothing to do; 1 error, database
/// unchanged; 2 `lint` findings at or above `--fail-on`; 3 refused because destructive changes were not allowed.
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Safe schema evolution for SQLite.",
        discussion: """
            Exit codes: 0 done (or nothing to do), 1 error (the database is unchanged), \
            2 lint findings at or above --fail-on, 3 refused because destructive changes were not allowed.
            """,
        version: strataVersion,
        subcommands: StrataCommand.allSubcommands
    )
}

let strataVersion = "0.1.0"

@main
enum Main {
    static func main() {
        let code: Int32
        do {
            var command = try StrataCommand.parseAsRoot()
            try command.run()
            code = 0
        } catch {
            // Every error, usage errors included, is printed and given its exit code in one place.
            code = CLIError.exitCode(reporting: error)
        }
        exit(code)
    }
}
