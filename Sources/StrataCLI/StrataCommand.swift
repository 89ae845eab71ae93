import ArgumentParser
import Foundation
import Strata

/// The `strata` command: plan and apply schema changes, run versioned migrations.
///
/// Exit codes (a contract scripts rely on): 0 done or nothing to do; 1 error, database
/// unchanged; 3 refused because destructive changes were not allowed.
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Safe schema evolution for SQLite.",
        discussion: """
            Exit codes: 0 done (or nothing to do), 1 error (the database is unchanged), \
            3 refused because destructive changes were not allowed.
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
        } catch let error as CLIError {
            if !error.message.isEmpty { CLIOutput.error(error.message) }
            code = error.exitCode
        } catch let error as ExitCode {
            code = error.rawValue
        } catch {
            // Help, version and usage errors: ArgumentParser prints them. Usage errors exit 1,
            // as every other error does.
            let exitCode = StrataCommand.exitCode(for: error)
            if exitCode == .success {
                StrataCommand.exit(withError: error)
            }
            let message = StrataCommand.fullMessage(for: error)
            if error is ValidationError || exitCode == .validationFailure {
                CLIOutput.error(message)
            } else {
                CLIOutput.error(String(describing: error))
            }
            code = 1
        }
        exit(code)
    }
}
