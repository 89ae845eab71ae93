import ArgumentParser
import Foundation
import Strata

/// `strata plan`: shows what `apply` would do.
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Show the changes that would bring a database to the desired schema.",
        discussion: """
            Nothing is written. Prints "No changes." when the database already matches. \
            Exits 3 when the plan holds destructive changes and --allow-destructive is not given.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, sql, json
    }

    @OptionGroup var arguments: SchemaChangeArguments

    @Option(name: .customLong("format"), help: "Output format: text, sql or json.")
    var format: Format = .text

    func run() throws {
        let desiredSQL = try arguments.readSchema()
        let (db, exists) = try SchemaCommandSupport.openForReading(arguments.database, arguments.connection.configuration)
        defer { db.close() }
        if !exists { CLIOutput.note("note: \(arguments.database) does not exist; planning against an empty database") }
        let plan = try SchemaCommandSupport.reportingErrors(database: arguments.database, schema: arguments.schema) {
            try db.planSchemaChange(to: desiredSQL, options: try arguments.options)
        }
        switch format {
        case .text: CLIOutput.print(plan.summary)
        case .sql: CLIOutput.print(plan.sqlScript().trimmingCharacters(in: .newlines))
        case .json: CLIOutput.print(PlanJSON.render(plan))
        }
    }
}

/// The stable JSON form of a plan (documented in the README).
enum PlanJSON {
    struct Document: Encodable {
        var changes: Bool
        var destructive: [String]
        var steps: [Step]
    }

    struct Step: Encodable {
        var kind: String
        var object: String
        var summary: String
        var destructive: Bool
        var statements: [String]
    }

    static func render(_ plan: Plan) -> String {
        let document = Document(
            changes: !plan.isEmpty, destructive: plan.destructiveChanges,
            steps: plan.steps.map {
                Step(kind: $0.kind.rawValue, object: $0.object, summary: $0.summary, destructive: $0.isDestructive,
                     statements: $0.statements)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(document)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
