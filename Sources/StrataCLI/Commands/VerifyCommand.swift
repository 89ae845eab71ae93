import ArgumentParser
import Foundation
import Strata
import StrataTesting

/// `strata verify`: upgrades a database from every historical version to head and checks it.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Upgrade a filled database from every version of a history to head, and check it.",
        discussion: """
            For each version of the history, builds a database at that version (the migrations 1...N \
            with --migrations, or the engine with --schema), fills it with generated rows that probe \
            the schema's edges, upgrades it to head the way the app does, and checks that the schema \
            equals a fresh install, that every row kept its values (except what the upgrade drops), \
            and that integrity_check, foreign_key_check and FTS integrity pass. One line per version; \
            exits 1 when a version fails, naming the table and row. With --key-file or --key-env, each \
            version's database is an encrypted file, opened again with the key after the upgrade \
            (needs an encryption-capable SQLite).

            With --older-versions (and --migrations), every version of the history \
            also opens the head database the way that version of the app does (its migrations, opening \
            newer files when compatible: Migrator.newerDatabasePolicy), and the verdict is checked by \
            using the file: opens normally (its generated rows written and read back), read-only (its \
            columns read, a write refused) or refused; one more line per version, exits 1 when a \
            verdict does not hold.
            """)

    @Option(name: .customLong("history"), help: ArgumentHelp("The history folder.", valueName: "history"))
    var history: String

    @Option(
        name: .customLong("migrations"),
        help: ArgumentHelp("The folder of migration files (head).", valueName: "migrations"))
    var migrations: String?

    @Option(
        name: .customLong("schema"),
        help: ArgumentHelp("The desired schema (head) of a declarative app.", valueName: "schema"))
    var schema: String?

    @Option(name: .customLong("rows"), help: "Generated rows per table (default 12).")
    var rows: Int = 12

    @Option(name: .customLong("seed"), help: "The seed of the generated values (default 1).")
    var seed: UInt64 = 1

    @Flag(
        name: .customLong("allow-destructive"),
        help: "With --schema: upgrade with destructive changes allowed (their rows are not checked).")
    var allowDestructive = false

    @Flag(
        name: .customLong("older-versions"),
        help:
            "With --migrations: also open the head database with every version of the history (the migrations through it, opening newer files when compatible) and check the verdict: opens normally (its rows written and read back), read-only (reads work, writes refused) or refused."
    )
    var olderVersions = false

    @OptionGroup var encryption: EncryptionArguments

    @OptionGroup var formatArguments: FormatArguments

    func validate() throws {
        if (migrations == nil) == (schema == nil) {
            throw ValidationError("give exactly one of --migrations DIR and --schema FILE")
        }
        if olderVersions && migrations == nil {
            throw ValidationError(
                "--older-versions needs --migrations DIR: the older-version matrix opens the head database with each version's migrator"
            )
        }
        if rows < 1 || rows > 100_000 { throw ValidationError("--rows \(rows): give a number from 1 to 100000") }
    }

    func run() throws {
        let historyFolder: MigrationHistory
        do {
            historyFolder = try MigrationHistory(folder: history)
        } catch let error as HistoryError {
            throw CLIError(message: error.message)
        }
        // With --key-file / --key-env: every version's database is an encrypted file.
        let key = try encryption.source.map { source -> EncryptionKey in
            guard Database.supportsEncryption else {
                throw CLIError(
                    message:
                        "\(encryption.keyFile ?? encryption.keyEnvironmentVariable ?? "the key"): verifying encrypted copies needs an encryption-capable SQLite (SQLite \(SQLiteVersion.runtime) cannot encrypt)"
                )
            }
            return .passphrase(bytes: try source.read())
        }
        let results: [VersionVerification]
        var openings: [OlderVersionOpening]?
        do {
            if let migrations {
                let directory = try MigrationFolder.load(migrations)
                var migrator = Migrator()
                migrator.registerMigrations(from: directory)
                if olderVersions {
                    openings = try historyFolder.olderVersionsReport(opening: migrator, rows: rows, seed: seed)
                }
                if let key {
                    results = try historyFolder.upgradeReport(to: migrator, rows: rows, seed: seed, encryptionKey: key)
                } else {
                    results = try historyFolder.upgradeReport(to: migrator, rows: rows, seed: seed)
                }
            } else if let schema {
                let text = try SchemaFile.readText(schema)
                let options = SchemaChangeOptions(allowDestructive: allowDestructive)
                if let key {
                    results = try historyFolder.upgradeReport(
                        to: text, options: options, rows: rows, seed: seed, encryptionKey: key)
                } else {
                    results = try historyFolder.upgradeReport(to: text, options: options, rows: rows, seed: seed)
                }
            } else {
                results = []
            }
        } catch let error as HistoryError {
            throw CLIError(message: error.message)
        }
        let failed = results.filter { !$0.passed }
        let failedOpenings = (openings ?? []).filter { !$0.passed }
        if formatArguments.isJSON {
            CLIJSON.print(
                VerifyJSON.Document(
                    passed: failed.isEmpty && failedOpenings.isEmpty, versions: results.map(VerifyJSON.Version.init),
                    olderVersions: openings?.map(VerifyJSON.OlderVersion.init)))
        } else {
            for result in results { CLIOutput.print(result.summary) }
            for opening in openings ?? [] { CLIOutput.print(opening.summary) }
        }
        if let first = failed.first?.failure {
            throw CLIError(
                message:
                    "\(history): \(failed.count) of \(results.count) version\(results.count == 1 ? "" : "s") failed; first: \(first.message)"
            )
        }
        if let first = failedOpenings.first {
            throw CLIError(
                message:
                    "\(history): \(failedOpenings.count) older version\(failedOpenings.count == 1 ? "" : "s") did not open the head database as their verdict says; first: \(first.summary)"
            )
        }
    }
}

/// The stable JSON form of `strata verify` (documented in the CLI reference, Sources/Strata/Strata.docc/CommandLineTool.md).
enum VerifyJSON {
    struct Document: Encodable {
        var passed: Bool
        var versions: [Version]
        /// With --older-versions only (absent otherwise).
        var olderVersions: [OlderVersion]?
    }

    struct OlderVersion: Encodable {
        var version: Int
        var migration: String
        var verdict: String?
        var reason: String?
        var rowsWrittenAndRead: Int
        var passed: Bool
        var failure: String?

        init(_ opening: OlderVersionOpening) {
            version = opening.version
            migration = opening.migration
            verdict = opening.verdict?.rawValue
            reason = opening.reason
            rowsWrittenAndRead = opening.rowsWrittenAndRead
            passed = opening.passed
            failure = opening.failure
        }
    }

    struct Version: Encodable {
        var version: Int
        var migration: String?
        var passed: Bool
        var rowsInserted: Int
        var rowsSkipped: Int
        var rowsChecked: Int
        var dropped: [String]
        var changedByMigrations: [String]
        var failure: Failure?

        init(_ result: VersionVerification) {
            version = result.version
            migration = result.migration
            passed = result.passed
            rowsInserted = result.rowsInserted
            rowsSkipped = result.rowsSkipped
            rowsChecked = result.rowsChecked
            dropped = result.dropped
            changedByMigrations = result.changedByMigrations
            failure = result.failure.map {
                Failure(kind: $0.kind.rawValue, table: $0.table, row: $0.row, message: $0.message)
            }
        }
    }

    struct Failure: Encodable {
        var kind: String
        var table: String?
        var row: String?
        var message: String
    }
}
