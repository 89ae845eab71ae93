import ArgumentParser
import Foundation
import Strata
import StrataTesting

/// `strata history`: records the schema of every shipped version, one file each, for `verify`.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Write the schema of every version of a migrations folder into a history folder.",
        discussion: """
            Version N is the database after the first N migrations of the folder, in order: \
            HISTORY/0003.sql holds the schema after the third migration and names it in its first line. \
            The text is stable (the same migrations give the same bytes): commit the folder, and run \
            `strata verify` in CI. For a declarative app, `strata history add` records a release's desired schema.
            """,
        subcommands: [Add.self])

    @Option(
        name: .customLong("migrations"), help: ArgumentHelp("The folder of migration files.", valueName: "migrations"))
    var migrations: String?

    @Option(name: .customLong("out"), help: ArgumentHelp("The history folder to write.", valueName: "history"))
    var out: String?

    func run() throws {
        guard let migrations, let out else {
            throw CLIError(message: "history: give --migrations DIR and --out HISTORY (or use `strata history add`)")
        }
        let directory = try MigrationFolder.load(migrations)
        var migrator = Migrator()
        migrator.registerMigrations(from: directory)
        let written: [String]
        do {
            written = try MigrationHistory.record(migrator, to: out)
        } catch {
            throw CLIError(message: "\(migrations): \(error)")
        }
        CLIOutput.print(
            "\(out): \(directory.files.count) version\(directory.files.count == 1 ? "" : "s"), "
                + (written.isEmpty ? "unchanged" : "\(written.count) file\(written.count == 1 ? "" : "s") written"))
    }
}

extension HistoryCommand {
    /// `strata history add`: records one release's desired schema as version N.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Record a desired schema as version N of a history folder (HISTORY/000N.sql).",
            discussion: """
                The file holds the schema the engine makes of the desired schema on an empty database, \
                as stable text. Run it at each release of a declarative app.
                """)

        @OptionGroup var schemaFile: SchemaFileArguments

        @Option(name: .customLong("release"), help: "The version number (1, 2, ...).")
        var version: Int

        /// `--out HISTORY` belongs to `history` (ArgumentParser gives an option the parent declares to the parent).
        @ParentCommand var history: HistoryCommand

        func run() throws {
            guard let out = history.out else { throw CLIError(message: "history add: give --out HISTORY") }
            guard version > 0 else {
                throw CLIError(message: "history add: --release \(version): a version is a number from 1")
            }
            let text = try SchemaFile.readText(schemaFile.path)
            let path: String?
            do {
                path = try MigrationHistory.add(schema: text, version: version, to: out)
            } catch let error as HistoryError {
                throw CLIError(message: error.message)
            } catch {
                throw CLIError(error, database: schemaFile.path, schema: schemaFile.path)
            }
            let file = FilePath.join(out, MigrationHistory.fileName(for: version))
            CLIOutput.print(path == nil ? "\(file): unchanged" : "\(file): written")
        }
    }
}
