import ArgumentParser
import Foundation
import Strata

/// `strata dump`: prints a database's schema as SQL.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print the schema of a database as SQL (tables, indexes, views, triggers).",
        discussion: "The output is a valid desired schema for `strata plan` and `strata apply`.")

    @OptionGroup var databaseArguments: DatabaseArguments
    var database: String { databaseArguments.path }

    @OptionGroup var output: FormatArguments

    @OptionGroup var connection: ConnectionArguments

    func run() throws {
        let db = try connection.open(database, .readExisting).db
        defer { db.close() }
        let schema = try CLIError.reporting(database: database) {
            try DatabaseSchema.read(from: db)
        }
        if output.isJSON {
            CLIJSON.print(DumpJSON(database: database, schema: schema))
        } else if schema.isEmpty {
            CLIOutput.print("-- \(database): empty schema")
        } else {
            CLIOutput.print(schema.sql.trimmingCharacters(in: .newlines))
        }
    }
}

/// `strata dump --format json` (documented in the CLI reference, Sources/Strata/Strata.docc/CommandLineTool.md): every object with its SQL, in the
/// order of the text dump (tables, then indexes, views, triggers).
struct DumpJSON: Encodable {
    struct Object: Encodable {
        /// `table`, `virtual table`, `index`, `view` or `trigger`.
        var type: String
        var name: String
        /// The table an index or a trigger belongs to; a table's or a view's own name.
        var table: String
        var sql: String
    }

    var database: String
    var objects: [Object]

    init(database: String, schema: DatabaseSchema) {
        self.database = database
        objects =
            schema.tables.map {
                Object(type: $0.isVirtual ? "virtual table" : "table", name: $0.name, table: $0.name, sql: $0.sql)
            }
            + schema.indexes.map { Object(type: "index", name: $0.name, table: $0.table, sql: $0.sql) }
            + schema.views.map { Object(type: "view", name: $0.name, table: $0.name, sql: $0.sql) }
            + schema.triggers.map { Object(type: "trigger", name: $0.name, table: $0.table, sql: $0.sql) }
    }
}
