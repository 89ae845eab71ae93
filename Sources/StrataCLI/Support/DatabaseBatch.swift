import Foundation
import Strata
import StrataSQLite

/// What happened to one database of a batch (or to the single database, for JSON output).
struct DatabaseOutcome: Sendable {
    enum Result: String, Encodable, Sendable {
        /// Done (or nothing to do).
        case ok
        /// An error; the database is unchanged.
        case failed
        /// Destructive changes were refused (`apply`); the database is unchanged.
        case refused
        /// Not started: an earlier database failed and --continue-on-error was not given.
        case skipped
        /// The same file as a path named earlier (handled once, there).
        case duplicate
    }

    var database: String
    var result: Result
    /// The one-line text report (after `PATH: `).
    var text: String
    /// The error, for failed and refused databases (exit code 1 or 3).
    var error: CLIError?
    /// `migrate`: the migrations applied (or that would be, in a dry run), with their durations.
    var migrations: [MigrationRun] = []
    /// `apply`: the plan made (applied, or shown by a dry run).
    var plan: Plan?
    /// `apply`: the destructive changes refused.
    var refused: [String] = []
    /// `apply --backup`: the backup written before applying.
    var backup: String?
    /// `apply` and `migrate` with `--restore-point`: the restore point written, or why none was.
    var restorePoint: RestorePointOutcome?

    struct MigrationRun: Sendable {
        var identifier: String
        var milliseconds: Int?
    }

    /// `database` names the same file as `first`, named earlier.
    static func duplicate(_ database: String, of first: String) -> DatabaseOutcome {
        DatabaseOutcome(database: database, result: .duplicate, text: "same database as \(first) (handled once)")
    }

    static func failure(_ database: String, _ error: CLIError, refused: [String] = []) -> DatabaseOutcome {
        DatabaseOutcome(
            database: database, result: error.code == .refused ? .refused : .failed,
            text: "", error: error, refused: refused)
    }

    var isFailure: Bool { result == .failed || result == .refused }

    /// The error message without the database path it usually starts with (the report names it).
    var errorMessage: String? {
        guard let message = error?.message else { return nil }
        let prefix = database + ": "
        return message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
    }

    /// `PATH: what happened`, for the text report of a batch.
    var textLine: String {
        switch result {
        case .ok, .duplicate: return "\(database): \(text)"
        case .failed: return "\(database): FAILED: \(errorMessage ?? "")"
        case .refused:
            return "\(database): REFUSED \(CLIOutput.count(refused.count, "destructive change")) "
                + "(pass --allow-destructive to apply): \(refused.joined(separator: "; "))"
        case .skipped: return "\(database): skipped (not started after an earlier failure; --continue-on-error goes on)"
        }
    }
}

/// Runs one job per database, at most `jobs` at once, and reports each outcome in the order
/// the databases were given, as soon as it and every earlier one is known.
enum DatabaseBatch {
    static func run(
        _ databases: ResolvedDatabases, jobs: Int, continueOnError: Bool,
        report: @escaping @Sendable (DatabaseOutcome) -> Void,
        job: @escaping @Sendable (String) -> DatabaseOutcome
    ) -> [DatabaseOutcome] {
        let paths = databases.paths
        let state = LockedValue(BatchState(count: paths.count, continueOnError: continueOnError, report: report))
        for (index, first) in databases.duplicateOf {
            state.withLock { $0.setDuplicate(index, .duplicate(paths[index], of: paths[first])) }
        }
        let group = DispatchGroup()
        let distinct = paths.count - databases.duplicateOf.count
        for _ in 0..<min(max(1, jobs), max(1, distinct)) {
            group.enter()
            let worker = Thread {
                while let index = state.withLock({ $0.nextIndex() }) {
                    let outcome = job(paths[index])
                    state.withLock { $0.finish(index, outcome) }
                }
                group.leave()
            }
            // The main thread's size: parsing and planning a deeply nested schema recurses, and
            // must not fail on a worker where it works for a single database.
            worker.stackSize = 8 << 20
            worker.start()
        }
        group.wait()
        return state.withLock { $0.outcomes(skipping: paths) }
    }

    /// The exit code of a batch: 1 when any database failed (even if others were refused:
    /// a failure needs a look first), else 3 when any was refused, else 0.
    static func exitCode(_ outcomes: [DatabaseOutcome]) -> Int32 {
        if outcomes.contains(where: { $0.result == .failed }) { return 1 }
        if outcomes.contains(where: { $0.result == .refused }) { return CLIError.refusedExitCode }
        return 0
    }

    /// The counts of a batch, for the summary line and the JSON document.
    struct Summary: Encodable {
        var databases: Int
        var succeeded: Int
        var failed: Int
        var refused: Int
        var skipped: Int
        /// Paths that name the same database as an earlier one (counted in `databases`).
        var duplicates: Int

        init(_ outcomes: [DatabaseOutcome]) {
            databases = outcomes.count
            succeeded = outcomes.filter { $0.result == .ok }.count
            failed = outcomes.filter { $0.result == .failed }.count
            refused = outcomes.filter { $0.result == .refused }.count
            skipped = outcomes.filter { $0.result == .skipped }.count
            duplicates = outcomes.filter { $0.result == .duplicate }.count
        }

        var text: String {
            var parts = ["\(succeeded) succeeded", "\(failed) failed"]
            if refused > 0 { parts.append("\(refused) refused") }
            if skipped > 0 { parts.append("\(skipped) skipped") }
            if duplicates > 0 { parts.append(CLIOutput.count(duplicates, "duplicate")) }
            return "\(CLIOutput.count(databases, "database")): " + parts.joined(separator: ", ")
        }
    }

    /// Ends a batch: the summary on stdout (text), a one-line error on stderr, the exit code.
    static func finish(_ outcomes: [DatabaseOutcome], json: Bool) throws {
        let summary = Summary(outcomes)
        if !json { CLIOutput.print(summary.text) }
        let code = exitCode(outcomes)
        guard code != 0 else { return }
        var problems: [String] = []
        if summary.failed > 0 { problems.append("\(summary.failed) failed") }
        if summary.refused > 0 { problems.append("\(summary.refused) refused destructive changes") }
        if summary.skipped > 0 { problems.append("\(summary.skipped) not started") }
        throw CLIError(
            message:
                "\(CLIOutput.count(summary.databases, "database")): \(problems.joined(separator: ", "))",
            exitCode: code)
    }
}

/// The shared state of a batch's worker threads, kept behind the library's lock
/// (`LockedValue`, `Sources/StrataSQLite/Lock.swift`).
private struct BatchState: Sendable {
    private var next = 0
    private var stopped = false
    private var results: [DatabaseOutcome?]
    private var reported = 0
    private let continueOnError: Bool
    private let report: @Sendable (DatabaseOutcome) -> Void

    init(count: Int, continueOnError: Bool, report: @escaping @Sendable (DatabaseOutcome) -> Void) {
        results = Array(repeating: nil, count: count)
        self.continueOnError = continueOnError
        self.report = report
    }

    /// Records, before any job starts, the outcome of a path that names an earlier one's file.
    mutating func setDuplicate(_ index: Int, _ outcome: DatabaseOutcome) {
        results[index] = outcome
    }

    /// The next database to start, or nil when all are started or the batch stopped.
    mutating func nextIndex() -> Int? {
        while next < results.count, results[next] != nil { next += 1 }  // duplicates
        guard !stopped, next < results.count else { return nil }
        next += 1
        return next - 1
    }

    mutating func finish(_ index: Int, _ outcome: DatabaseOutcome) {
        results[index] = outcome
        if outcome.isFailure, !continueOnError { stopped = true }
        reportKnown()
    }

    /// Every outcome; databases never started are `skipped` (and reported now).
    mutating func outcomes(skipping databases: [String]) -> [DatabaseOutcome] {
        for index in results.indices where results[index] == nil {
            results[index] = DatabaseOutcome(database: databases[index], result: .skipped, text: "")
        }
        reportKnown()
        return results.compactMap { $0 }
    }

    /// Reports in order: everything known up to the first database still running.
    private mutating func reportKnown() {
        while reported < results.count, let known = results[reported] {
            report(known)
            reported += 1
        }
    }
}

/// One database's entry in the JSON document of a command run over databases.
protocol BatchJSONEntry: Encodable {
    init(_ outcome: DatabaseOutcome)
}

/// The JSON document of a command run over one or more databases (`strata apply` and
/// `strata migrate` with `--format json`, documented in the CLI reference): whether it was a dry run,
/// one entry per database in the order given, and the batch's summary.
struct BatchJSON<Entry: BatchJSONEntry>: Encodable {
    var dryRun: Bool
    var databases: [Entry]
    var summary: DatabaseBatch.Summary

    init(_ outcomes: [DatabaseOutcome], dryRun: Bool) {
        self.dryRun = dryRun
        databases = outcomes.map(Entry.init)
        summary = DatabaseBatch.Summary(outcomes)
    }
}
