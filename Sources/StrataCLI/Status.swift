import ArgumentParser
import Foundation
import Strata

/// `strata status`: which migration files a database applied, which are pending, edited, unknown.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show applied, pending, edited and unknown migrations of a database.",
        discussion: """
            Exits 1 (with one line on stderr) when `strata migrate` would refuse the database: \
            applied migrations were edited or are missing from DIR.
            """)

    @Option(name: .customLong("db"), help: "The database file.")
    var database: String

    @Option(name: .customLong("migrations"), help: "The folder of migration files.")
    var migrationsPath: String

    @OptionGroup var connection: ConnectionArguments

    func run() throws {
        let directory = try MigrationCommandSupport.loadDirectory(migrationsPath)
        let migrator = MigrationCommandSupport.migrator(for: directory)
        let db = try MigrationCommandSupport.openDatabase(database, mustExist: true, readOnly: true, configuration: connection.configuration)
        defer { db.close() }
        let status = try MigrationCommandSupport.reportingErrors { try migrator.status(db) }

        CLIOutput.print("Database: \(database)")
        CLIOutput.print("Migrations: \(migrationsPath) (\(MigrationCommandSupport.count(directory.files.count, "file")))")
        CLIOutput.print("Applied (\(status.applied.count)):")
        for record in status.applied {
            let when = record.appliedAt.map { " applied \($0)" } ?? ""
            let duration = record.durationMilliseconds.map { " in \($0) ms" } ?? (record.appliedAt == nil ? "" : " (adopted)")
            CLIOutput.print("  \(record.identifier)\(when)\(duration)")
        }
        CLIOutput.print("Pending (\(status.pending.count)):")
        for identifier in status.pending { CLIOutput.print("  \(identifier)") }
        if !status.checksumMismatches.isEmpty {
            CLIOutput.print("Checksum mismatches (\(status.checksumMismatches.count)):")
            for mismatch in status.checksumMismatches { CLIOutput.print("  \(mismatch)") }
        }
        if !status.unknown.isEmpty {
            CLIOutput.print("Unknown (\(status.unknown.count)):")
            for identifier in status.unknown { CLIOutput.print("  \(identifier): applied, but no file in \(migrationsPath)") }
        }
        var problems: [String] = []
        if !status.checksumMismatches.isEmpty {
            problems.append("\(status.checksumMismatches.map(\.identifier).joined(separator: ", ")) edited after being applied")
        }
        if !status.unknown.isEmpty {
            problems.append("\(status.unknown.joined(separator: ", ")) applied but missing from \(migrationsPath)")
        }
        if !problems.isEmpty {
            throw CLIError(message: "\(database): \(problems.joined(separator: "; ")) (strata migrate would refuse)")
        }
    }
}
