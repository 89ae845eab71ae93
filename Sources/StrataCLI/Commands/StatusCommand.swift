import ArgumentParser
import Foundation
import Strata

/// `strata status`: which migration files a database applied, which are pending, edited, unknown,
/// and whether its schema is still what the applied migrations produce.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show applied, pending, edited and unknown migrations of a database, and schema drift.",
        discussion: """
            Exits 1 (with one line on stderr) when `strata migrate` would refuse the database: \
            applied migrations were edited or are missing from DIR.

            Drift: the applied migrations are replayed on an empty in-memory database and its \
            schema compared with the database's (as `strata check` compares). Differences are \
            listed (a change made outside the migrations, such as `strata apply`); they do not \
            change the exit code. Drift is not checked when applied migrations are edited or \
            missing from DIR. A migration applied without a checksum (a Swift closure migration of \
            an app) cannot be verified: a change to its code is not detected, and status says so.
            """)

    @OptionGroup var databaseArguments: DatabaseArguments
    var database: String { databaseArguments.path }

    @OptionGroup var migrationsArguments: MigrationsArguments
    var migrationsPath: String { migrationsArguments.path }

    @OptionGroup var output: FormatArguments

    @OptionGroup var connection: ConnectionArguments

    func run() throws {
        let directory = try migrationsArguments.load()
        let migrator = MigrationFolder.migrator(for: directory)
        let db = try connection.open(database, .readExisting).db
        defer { db.close() }
        let (status, records) = try CLIError.reporting { (try migrator.status(db), try migrator.appliedRecords(db)) }
        let drift = checkDrift(status, migrator, db)
        // Applied migrations recorded without a checksum, known or not: what an app's closure
        // migrations leave in the ledger.
        let withoutChecksum = Set(records.filter { $0.checksum == nil }.map(\.identifier))
        let problems = refusalReasons(status)
        let online = OnlineRebuildNotice.states(db)

        if output.isJSON {
            CLIJSON.print(
                StatusJSON(
                    database: database, migrations: migrationsPath, files: directory.files.count, status: status,
                    withoutChecksum: withoutChecksum, drift: drift, migrateWouldRefuse: !problems.isEmpty,
                    onlineRebuilds: online))
        } else {
            printText(status, files: directory.files.count, withoutChecksum: withoutChecksum, drift: drift)
            if !online.isEmpty {
                CLIOutput.print("Online rebuilds (\(online.count)):")
                for line in OnlineRebuildNotice.lines(online) { CLIOutput.print("  \(line)") }
            }
        }
        if !problems.isEmpty {
            throw CLIError(message: "\(database): \(problems.joined(separator: "; ")) (strata migrate would refuse)")
        }
    }

    /// The drift check, or why it was not made.
    enum Drift {
        case checked([String])
        case notChecked(String)
    }

    private func checkDrift(_ status: MigrationStatus, _ migrator: Migrator, _ db: Database) -> Drift {
        if !status.unknown.isEmpty {
            return .notChecked("applied migrations are missing from \(migrationsPath): they cannot be replayed")
        }
        if !status.checksumMismatches.isEmpty {
            return .notChecked("applied migrations were edited since: the files no longer say what ran")
        }
        // The rest of the report stands on its own: a drift check that cannot be made says why.
        do {
            return .checked(try migrator.schemaDrift(db))
        } catch let error as MigrationError {
            return .notChecked("the applied migrations fail on an empty database: \(error.description)")
        } catch let error as SQLiteError {
            return .notChecked("cannot read the schema: \(CLIError.describe(error, database: database))")
        } catch {
            return .notChecked("cannot read the schema: \(error)")
        }
    }

    private func refusalReasons(_ status: MigrationStatus) -> [String] {
        var problems: [String] = []
        if !status.checksumMismatches.isEmpty {
            problems.append(
                "\(status.checksumMismatches.map(\.identifier).joined(separator: ", ")) edited after being applied")
        }
        if !status.unknown.isEmpty {
            problems.append("\(status.unknown.joined(separator: ", ")) applied but missing from \(migrationsPath)")
        }
        return problems
    }

    private func printText(_ status: MigrationStatus, files: Int, withoutChecksum: Set<String>, drift: Drift) {
        let codeMigration = "not verifiable: recorded without a checksum, as a code migration is"
        CLIOutput.print("Database: \(database)")
        CLIOutput.print("Migrations: \(migrationsPath) (\(CLIOutput.count(files, "file")))")
        CLIOutput.print("Applied (\(status.applied.count)):")
        for record in status.applied {
            let when = record.appliedAt.map { " applied \($0)" } ?? ""
            let duration =
                record.durationMilliseconds.map { " in \($0) ms" } ?? (record.appliedAt == nil ? "" : " (adopted)")
            let note = withoutChecksum.contains(record.identifier) ? " (\(codeMigration))" : ""
            CLIOutput.print("  \(record.identifier)\(when)\(duration)\(note)")
        }
        CLIOutput.print("Pending (\(status.pending.count)):")
        for identifier in status.pending { CLIOutput.print("  \(identifier)") }
        if !status.checksumMismatches.isEmpty {
            CLIOutput.print("Checksum mismatches (\(status.checksumMismatches.count)):")
            for mismatch in status.checksumMismatches { CLIOutput.print("  \(mismatch)") }
        }
        if !status.unknown.isEmpty {
            CLIOutput.print("Unknown (\(status.unknown.count)):")
            for identifier in status.unknown {
                let note = withoutChecksum.contains(identifier) ? " (\(codeMigration))" : ""
                CLIOutput.print("  \(identifier): applied, but no file in \(migrationsPath)\(note)")
            }
        }
        // Sections appear only when there is something to say, as above.
        switch drift {
        case .checked(let differences) where !differences.isEmpty:
            CLIOutput.print(
                "Drift (\(differences.count)): the schema differs from what the applied migrations produce:")
            for difference in differences { CLIOutput.print("  - \(difference)") }
        case .checked:
            break
        case .notChecked(let reason) where status.unknown.isEmpty && status.checksumMismatches.isEmpty:
            CLIOutput.print("Drift: not checked (\(reason))")
        case .notChecked:
            break  // the sections above say why (and the JSON document has the reason)
        }
    }
}

/// `strata status --format json` (documented in the CLI reference, Sources/Strata/Strata.docc/CommandLineTool.md).
struct StatusJSON: Encodable {
    struct Applied: Encodable {
        var identifier: String
        var appliedAt: String?
        var durationMilliseconds: Int?
        /// `verified` (checksum equal), `edited` (checksum differs), or `not verifiable` (no checksum recorded).
        var checksum: String
    }

    struct Mismatch: Encodable {
        var identifier: String
        var recorded: String
        var current: String
    }

    struct Unknown: Encodable {
        var identifier: String
        /// False when it was recorded without a checksum (a code migration).
        var hasChecksum: Bool
    }

    struct Drift: Encodable {
        /// Whether the comparison was made (see `reason` when not).
        var checked: Bool
        /// Whether the schema equals what the applied migrations produce; null when not checked.
        var matches: Bool?
        var differences: [String]
        var reason: String?
    }

    var database: String
    var migrations: String
    var files: Int
    var applied: [Applied]
    var pending: [String]
    var checksumMismatches: [Mismatch]
    var unknown: [Unknown]
    var drift: Drift
    var migrateWouldRefuse: Bool
    /// The online rebuilds whose objects the database holds: interrupted, or running now.
    var onlineRebuilds: [OnlineRebuildJSON]

    init(
        database: String, migrations: String, files: Int, status: MigrationStatus, withoutChecksum: Set<String>,
        drift: StatusCommand.Drift, migrateWouldRefuse: Bool, onlineRebuilds: [OnlineRebuildJSON] = []
    ) {
        self.onlineRebuilds = onlineRebuilds
        self.database = database
        self.migrations = migrations
        self.files = files
        let edited = Set(status.checksumMismatches.map(\.identifier))
        applied = status.applied.map {
            Applied(
                identifier: $0.identifier, appliedAt: $0.appliedAt, durationMilliseconds: $0.durationMilliseconds,
                checksum: edited.contains($0.identifier)
                    ? "edited" : withoutChecksum.contains($0.identifier) ? "not verifiable" : "verified")
        }
        pending = status.pending
        checksumMismatches = status.checksumMismatches.map {
            Mismatch(identifier: $0.identifier, recorded: $0.recorded, current: $0.current)
        }
        unknown = status.unknown.map { Unknown(identifier: $0, hasChecksum: !withoutChecksum.contains($0)) }
        switch drift {
        case .checked(let differences):
            self.drift = Drift(checked: true, matches: differences.isEmpty, differences: differences, reason: nil)
        case .notChecked(let reason):
            self.drift = Drift(checked: false, matches: nil, differences: [], reason: reason)
        }
        self.migrateWouldRefuse = migrateWouldRefuse
    }
}
