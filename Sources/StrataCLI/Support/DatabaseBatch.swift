import ArgumentParser
import Foundation
import Strata
import StrataSQLite

/// `--db` (one or several paths, or glob patterns), `--db-list`, `--jobs`, `--continue-on-error`:
/// the databases `migrate` and `apply` work on.
///
/// One plain `--db PATH` is the single-database mode, whose output never changed. Several
/// `--db` values, a glob pattern or `--db-list` are a batch: each database is handled on its
/// own (one transaction each), up to `--jobs` at once, and reported with a summary.
struct DatabaseSelection: ParsableArguments {
    @Option(
        name: .customLong("db"), parsing: .upToNextOption,
        help: ArgumentHelp(
            "The database file (created when missing). Several paths, or a quoted glob pattern ('tenants/*.sqlite'), "
                + "make a batch.",
            valueName: "path"))
    var databases: [String] = []

    @Option(
        name: .customLong("db-list"),
        help: ArgumentHelp(
            "A file listing database paths, one per line (# comments and blank lines skipped; - reads stdin).",
            valueName: "file"))
    var listFile: String?

    @Option(
        name: .customLong("jobs"),
        help: ArgumentHelp(
            "In a batch, how many databases to work on at once, up to 256 (default: the number of CPUs).",
            valueName: "n"))
    var jobs: Int?

    @Flag(
        name: .customLong("continue-on-error"),
        help: "In a batch, go on after a database fails (default: start no new database after the first failure).")
    var continueOnError = false

    func validate() throws {
        if databases.isEmpty, listFile == nil {
            throw ValidationError("Missing expected argument '--db <path>' (or --db-list FILE)")
        }
        if let jobs, !(1...DatabaseSelection.maximumJobs).contains(jobs) {
            throw ValidationError("--jobs \(jobs): expected 1 to \(DatabaseSelection.maximumJobs)")
        }
    }

    /// The most databases handled at once: each holds a thread and two or three file descriptors.
    static let maximumJobs = 256

    /// Whether the command line names a batch rather than one database.
    var isBatch: Bool {
        listFile != nil || databases.count != 1 || DatabaseSelection.isPattern(databases[0])
    }

    /// The parallelism of a batch.
    var jobCount: Int { jobs ?? max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// The databases of a batch, in the order given: `--db` values (patterns expanded, sorted),
    /// then the list file's lines. A path naming the same file as an earlier one (however
    /// spelled: see ``identity(of:)``) is kept, marked as its duplicate: it is reported, and
    /// handled once. A pattern that matches nothing or an unreadable list is an error before
    /// any database is touched.
    func resolve() throws -> ResolvedDatabases {
        var paths: [String] = []
        for value in databases {
            guard DatabaseSelection.isPattern(value) else {
                paths.append(value)
                continue
            }
            let matches = try DatabaseSelection.glob(value)
            if matches.isEmpty { throw CLIError(message: "\(value): no file matches this pattern") }
            paths += matches
        }
        if let listFile {
            let text: String
            if listFile == "-" {
                text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            } else {
                text = try SchemaCommandSupport.readTextFile(listFile, what: "database list")
            }
            for line in text.split(whereSeparator: \.isNewline) {
                let path = line.trimmingCharacters(in: .whitespaces)
                if path.isEmpty || path.hasPrefix("#") { continue }
                paths.append(path)
            }
            if paths.isEmpty { throw CLIError(message: "\(listFile): the database list names no database") }
        }
        var first: [String: Int] = [:]
        var duplicateOf: [Int: Int] = [:]
        for (index, path) in paths.enumerated() {
            let identity = DatabaseSelection.identity(of: path)
            if let earlier = first[identity] {
                duplicateOf[index] = earlier
            } else {
                first[identity] = index
            }
        }
        return ResolvedDatabases(paths: paths, duplicateOf: duplicateOf)
    }

    /// A value with glob characters that is not itself an existing file's name.
    static func isPattern(_ value: String) -> Bool {
        value.contains(where: { "*?[".contains($0) }) && !FileManager.default.fileExists(atPath: value)
    }

    /// The regular paths matching `pattern`, sorted (glob(3)).
    private static func glob(_ pattern: String) throws -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        let rc = Foundation.glob(pattern, 0, nil, &result)
        if rc == GLOB_NOMATCH { return [] }
        guard rc == 0 else { throw CLIError(message: "\(pattern): cannot expand the pattern (glob error \(rc))") }
        return (0..<Int(result.gl_pathc)).compactMap { index in
            result.gl_pathv[index].map { String(cString: $0) }
        }
    }

    /// The same file however spelled (a link, a second hard link, `./a` and `a`): its device and
    /// inode when it exists. A path where nothing is yet names the file it would create: its
    /// folder with every symbolic link resolved, then its name (`link/../x.sqlite`, with `link`
    /// pointing to `deep/sub`, is `deep/x.sqlite`, not `x.sqlite`); a dangling symbolic link
    /// names its target. A path whose folder does not exist is only the same as itself.
    static func identity(of path: String) -> String {
        var current = path
        for _ in 0..<40 {
            if let info = try? FileSystem.info(current, followingLinks: true) {
                return "file " + info.identity.description
            }
            let parent = (current as NSString).deletingLastPathComponent
            let folder = parent.isEmpty ? "." : parent
            if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: current) {
                current = link.hasPrefix("/") ? link : folder + "/" + link
                continue
            }
            let name = (current as NSString).lastPathComponent
            guard let resolved = try? FileSystem.resolvedPath(folder) else { break }
            return "path " + (resolved == "/" ? "" : resolved) + "/" + name
        }
        return "as named " + path
    }
}

/// The paths of a batch: every one the user named, in order, and which ones name the same file
/// as an earlier one.
struct ResolvedDatabases {
    var paths: [String]
    /// For a path naming the same database as an earlier path: the earlier one's index.
    var duplicateOf: [Int: Int] = [:]
}

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
            database: database, result: error.exitCode == CLIError.refusedExitCode ? .refused : .failed,
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
            return "\(database): REFUSED \(MigrationCommandSupport.count(refused.count, "destructive change")) "
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
        let state = BatchState(count: paths.count, continueOnError: continueOnError, report: report)
        for (index, first) in databases.duplicateOf {
            state.setDuplicate(index, .duplicate(paths[index], of: paths[first]))
        }
        let group = DispatchGroup()
        let distinct = paths.count - databases.duplicateOf.count
        for _ in 0..<min(max(1, jobs), max(1, distinct)) {
            group.enter()
            let worker = Thread {
                while let index = state.nextIndex() {
                    state.finish(index, job(paths[index]))
                }
                group.leave()
            }
            // The main thread's size: parsing and planning a deeply nested schema recurses, and
            // must not fail on a worker where it works for a single database.
            worker.stackSize = 8 << 20
            worker.start()
        }
        group.wait()
        return state.outcomes(skipping: paths)
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
            if duplicates > 0 { parts.append(MigrationCommandSupport.count(duplicates, "duplicate")) }
            return "\(MigrationCommandSupport.count(databases, "database")): " + parts.joined(separator: ", ")
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
                "\(MigrationCommandSupport.count(summary.databases, "database")): \(problems.joined(separator: ", "))",
            exitCode: code)
    }
}

/// The shared state of a batch's worker threads.
private final class BatchState: @unchecked Sendable {
    private let lock = NSLock()
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
    func setDuplicate(_ index: Int, _ outcome: DatabaseOutcome) {
        lock.lock()
        defer { lock.unlock() }
        results[index] = outcome
    }

    /// The next database to start, or nil when all are started or the batch stopped.
    func nextIndex() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        while next < results.count, results[next] != nil { next += 1 }  // duplicates
        guard !stopped, next < results.count else { return nil }
        next += 1
        return next - 1
    }

    func finish(_ index: Int, _ outcome: DatabaseOutcome) {
        lock.lock()
        defer { lock.unlock() }
        results[index] = outcome
        if outcome.isFailure, !continueOnError { stopped = true }
        // Report in order: everything known up to the first database still running.
        while reported < results.count, let known = results[reported] {
            report(known)
            reported += 1
        }
    }

    /// Every outcome; databases never started are `skipped` (and reported now).
    func outcomes(skipping databases: [String]) -> [DatabaseOutcome] {
        lock.lock()
        defer { lock.unlock() }
        for index in results.indices where results[index] == nil {
            results[index] = DatabaseOutcome(database: databases[index], result: .skipped, text: "")
        }
        while reported < results.count, let known = results[reported] {
            report(known)
            reported += 1
        }
        return results.map { $0! }
    }
}

/// One database's entry in the JSON document of a command run over databases.
protocol BatchJSONEntry: Encodable {
    init(_ outcome: DatabaseOutcome)
}

/// The JSON document of a command run over one or more databases (`strata apply` and
/// `strata migrate` with `--format json`, documented in the README): whether it was a dry run,
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
