import ArgumentParser
import Foundation
import Strata

/// `strata dump`: prints a database's schema as SQL.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print the schema of a database as SQL (tables, indexes, views, triggers).",
        discussion: "The output is a valid desired schema for `strata plan` and `strata apply`.")

    @Option(name: .customLong("db"), help: "The database file.")
    var database: String

    @OptionGroup var connection: ConnectionArguments

    func run() throws {
        guard FileManager.default.fileExists(atPath: database) else {
            throw CLIError(message: "\(database): no such database file")
        }
        let (db, _) = try SchemaCommandSupport.openForReading(database, connection.configuration)
        defer { db.close() }
        let schema = try SchemaCommandSupport.reportingErrors(database: database, schema: nil) {
            try DatabaseSchema.read(from: db)
        }
        if schema.isEmpty {
            CLIOutput.print("-- \(database): empty schema")
        } else {
            CLIOutput.print(schema.sql.trimmingCharacters(in: .newlines))
        }
    }
}
