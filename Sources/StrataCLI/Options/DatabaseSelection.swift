import ArgumentParser
import Foundation
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
                text = try SchemaFile.readText(listFile, what: "database list")
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
            let folder = FilePath.parent(of: current)
            if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: current) {
                current = link.hasPrefix("/") ? link : folder + "/" + link
                continue
            }
            let name = FilePath.lastComponent(of: current)
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
