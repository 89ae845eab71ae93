import ArgumentParser
import Foundation
import Strata

/// `strata check`: fails when the migration files do not produce `schema.sql`.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check that a fresh database migrated through DIR equals schema.sql.",
        discussion: """
            The drift check that keeps the migrations and the declared schema honest: exits 1, with \
            the differences listed on stdout, when they disagree.
            """)

    @OptionGroup var migrationsArguments: MigrationsArguments
    var migrationsPath: String { migrationsArguments.path }

    @OptionGroup var schemaArguments: SchemaFileArguments
    var schemaPath: String { schemaArguments.path }

    @OptionGroup var output: FormatArguments

    func run() throws {
        let directory = try migrationsArguments.load()
        let desired: DatabaseSchema
        do {
            desired = try schemaArguments.parse()
        } catch {
            throw CLIError(error, database: schemaPath, schema: schemaPath).shortened()
        }
        let scratch = try MigrationFolder.migratedScratchDatabase(directory)
        defer { scratch.close() }
        let differences = try CLIError.reporting { desired.differences(from: try DatabaseSchema.read(from: scratch)) }
        let files = CLIOutput.count(directory.files.count, "migration")
        if output.isJSON {
            CLIJSON.print(
                CheckJSON(
                    migrations: migrationsPath, schema: schemaPath, files: directory.files.count,
                    matches: differences.isEmpty, differences: differences))
        }
        guard !differences.isEmpty else {
            if output.isJSON { return }
            CLIOutput.print("OK: the \(files) in \(migrationsPath) produce \(schemaPath).")
            return
        }
        if !output.isJSON {
            for difference in differences { CLIOutput.print("- \(difference)") }
        }
        throw CLIError(
            message: "\(schemaPath): differs from the schema the \(files) in \(migrationsPath) produce "
                + "(\(CLIOutput.count(differences.count, "difference"))); run `strata new` to write the missing migration"
        )
    }
}

/// `strata check --format json` (documented in the CLI reference, Sources/Strata/Strata.docc/CommandLineTool.md).
struct CheckJSON: Encodable {
    var migrations: String
    var schema: String
    var files: Int
    var matches: Bool
    var differences: [String]
}
