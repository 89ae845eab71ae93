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
            Exits 3 when the plan holds destructive changes and --allow-destructive is not given \
            (with --format json, the document is printed all the same, the refused changes listed).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, sql, json
    }

    @OptionGroup var databaseArguments: DatabaseArguments
    var database: String { databaseArguments.path }

    @OptionGroup var arguments: SchemaChangeArguments

    @Option(name: .customLong("format"), help: "Output format: text, sql or json.")
    var format: Format = .text

    func run() throws {
        // Loaded once, before the database is opened: errors name the schema file.
        let desired = try arguments.schemaFile.load()
        let (db, exists) = try arguments.connection.open(database, .readOrEmpty).pair
        defer { db.close() }
        if !exists { CLIOutput.note("note: \(database) does not exist; planning against an empty database") }
        let options = try arguments.options
        let plan: Plan
        do {
            plan = try db.planSchemaChange(to: desired, options: options)
        } catch let error as SchemaError where error.code == .destructiveChangesRefused && format == .json {
            // The document still comes out: the plan --allow-destructive would apply (the refusal
            // carries it: planned once), and what was refused.
            let allowed = error.plan
            CLIJSON.print(
                PlanJSON.Document(
                    changes: true, destructive: error.destructiveChanges, refused: error.destructiveChanges,
                    steps: allowed.map(PlanJSON.steps) ?? [],
                    compatibility: allowed.map { LintJSON.Compatibility($0.compatibility()) },
                    estimate: allowed.map { PlanJSON.Estimate($0.estimate, whole: true) }))
            throw CLIError(error, database: database, schema: arguments.schemaFile.path)
        } catch {
            throw CLIError(error, database: database, schema: arguments.schemaFile.path)
        }
        // An interrupted online rebuild shows in no plan: say it is there.
        for line in OnlineRebuildNotice.lines(OnlineRebuildNotice.states(db)) {
            CLIOutput.note("note: \(database): online rebuild of \(line)")
        }
        switch format {
        case .text: CLIOutput.print(plan.summaryWithEstimates)
        case .sql: CLIOutput.print(plan.sqlScript().trimmingCharacters(in: .newlines))
        case .json: CLIJSON.print(PlanJSON.document(plan))
        }
    }
}

/// The stable JSON form of a plan (documented in the CLI reference, Sources/Strata/Strata.docc/CommandLineTool.md), also inside `apply`'s document.
enum PlanJSON {
    struct Document: Encodable {
        var changes: Bool
        var destructive: [String]
        /// The destructive changes refused (exit code 3); empty when the plan was allowed.
        var refused: [String]
        var steps: [Step]
        /// The plan's changes classified for older app versions (`strata lint`'s findings, policy previous-version).
        var compatibility: LintJSON.Compatibility? = nil
        /// The whole plan's estimate (``Plan/estimate``); absent when nothing was planned.
        var estimate: Estimate? = nil
    }

    struct Step: Encodable {
        var kind: String
        var object: String
        var summary: String
        var destructive: Bool
        var statements: [String]
        /// The step's estimate (``PlanStep/estimate``).
        var estimate: Estimate
    }

    /// A ``PlanEstimate``: the counts, where they come from, and the expected seconds at the
    /// default rate.
    struct Estimate: Encodable {
        var rows: Int
        var rowsAreLowerBound: Bool
        var rowSource: String
        var bytes: Int64
        var byteSource: String
        var indexes: Int
        var indexEntries: Int
        var foreignKeyCheckTables: [String]
        var foreignKeyCheckRows: Int
        var expectedSeconds: Double
        /// The whole plan only: the disk a restore point before it takes (`--restore-point`),
        /// and its expected seconds at the default rate (not in `expectedSeconds`).
        var restorePointBytes: Int64?
        var restorePointSeconds: Double?

        init(_ e: PlanEstimate, whole: Bool = false) {
            rows = e.rows
            rowsAreLowerBound = e.rowsAreLowerBound
            rowSource = e.rowSource.rawValue
            bytes = e.bytes
            byteSource = e.byteSource.rawValue
            indexes = e.indexes
            indexEntries = e.indexEntries
            foreignKeyCheckTables = e.foreignKeyCheckTables
            foreignKeyCheckRows = e.foreignKeyCheckRows
            expectedSeconds = Self.seconds(e.expectedDuration())
            if whole {
                restorePointBytes = e.restorePointBytes
                restorePointSeconds = Self.seconds(e.restorePointDuration())
            }
        }

        /// Milliseconds: a stable, finite number for any estimate.
        static func seconds(_ duration: Duration) -> Double {
            let d = duration.components
            return Double(d.seconds * 1000 + d.attoseconds / 1_000_000_000_000_000) / 1000
        }
    }

    static func steps(_ plan: Plan) -> [Step] {
        plan.steps.map {
            Step(
                kind: $0.kind.rawValue, object: $0.object, summary: $0.summary, destructive: $0.isDestructive,
                statements: $0.statements, estimate: Estimate($0.estimate))
        }
    }

    static func document(_ plan: Plan) -> Document {
        Document(
            changes: !plan.isEmpty, destructive: plan.destructiveChanges, refused: [],
            steps: steps(plan), compatibility: LintJSON.Compatibility(plan.compatibility()),
            estimate: Estimate(plan.estimate, whole: true))
    }
}
