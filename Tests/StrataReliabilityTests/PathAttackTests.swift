import Foundation
import Strata
import StrataTestSupport
import Testing

/// Odd paths through every option of the `strata` command line that takes a path (issue 37,
/// item 3): one-character relative names (Foundation's `deletingLastPathComponent` trapped on
/// them: SIGILL), `.`, `..`, `/`, trailing slashes, `~`, very long names and paths (beyond
/// NAME_MAX and PATH_MAX), bytes that are not UTF-8, names with newlines, the empty path.
///
/// The options are read from the built binary (`--experimental-dump-help`), so a new path
/// option is fuzzed as soon as it exists; an option whose value name this suite does not know
/// fails the suite until it is classified. Each run must end by exiting, 0 or 1 with a message
/// on stderr, never by a signal, and must not touch the home folder.
///
/// The default run tries every path option with every odd path once (under 10 s on two cores);
/// `STRATA_PATH_FUZZ_TRIALS=N` adds N runs of random odd paths (random pieces joined), with
/// `STRATA_ATTACK_SEED`; `scripts/attack-test.sh` passes both.
@Suite("Odd paths through every path option of the command line", .serialized, .tags(.attack))
struct PathAttackTests {
    static var randomTrials: Int {
        ProcessInfo.processInfo.environment["STRATA_PATH_FUZZ_TRIALS"].flatMap { Int($0) } ?? 0
    }

    /// Value names (`<db>`, `<path>`...) of options that take a file or folder.
    static let pathValueNames: Set<String> = [
        "db", "path", "file", "schema", "migrations", "history", "archive", "old",
    ]
    /// Value names of options that take something else.
    static let otherValueNames: Set<String> = [
        "n", "OLD:NEW", "TABLE.OLD:NEW", "ROWS", "time", "name", "format", "to", "release", "rows", "seed", "id",
        "policy", "fail-on", "VERSION",
    ]

    struct PathOption: Hashable, CustomStringConvertible {
        var command: [String]
        var option: String
        var description: String { "strata \(command.joined(separator: " ")) --\(option)" }
    }

    /// Every option of every command, read from the binary, and those that take a path.
    static func pathOptions() throws -> [PathOption] {
        let r = try ChildProcess.strata(["--experimental-dump-help"])
        #expect(r.status == 0, "\(r)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        var found: [PathOption] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["kind"] as? String == "option"
            {
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                guard let long = names.first, let valueName = argument["valueName"] as? String else { continue }
                if pathValueNames.contains(valueName) {
                    found.append(PathOption(command: path, option: long))
                } else if !otherValueNames.contains(valueName) {
                    Issue.record(
                        Comment(
                            rawValue: "strata \(path.joined(separator: " ")) --\(long) <\(valueName)>: unknown value "
                                + "name; add it to PathAttackTests.pathValueNames (and a base invocation) or otherValueNames"
                        ))
                }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                if let name = sub["commandName"] as? String, name != "help" { walk(sub, path + [name]) }
            }
        }
        walk(try #require(root["command"] as? [String: Any]), [])
        return found
    }

    /// A run's own fixtures: a database at version 1, a schema, a migrations folder, a history
    /// folder, a key file and a list of databases, in `root/fixtures`; the run's working directory
    /// is `root/work/here` (so `..` stays inside the run's folder); a fake home folder.
    final class Fixture: @unchecked Sendable {
        let dir = TemporaryDirectory("strata-paths")
        var root: String { dir.path }
        var fixtures: String { root + "/fixtures" }
        var work: String { root + "/work/here" }
        var home: String { root + "/home" }

        /// The fixtures, made once and copied for each run.
        static let template: TemporaryDirectory? = {
            let made = TemporaryDirectory("strata-paths-template")
            do {
                try make(in: made.path)
                return made
            } catch {
                return nil
            }
        }()

        init() throws {
            let template = try #require(Self.template, "the fixtures could not be made")
            for folder in [root + "/work", home] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            try FileManager.default.copyItem(atPath: template.path + "/fixtures", toPath: fixtures)
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        }

        static func make(in root: String) throws {
            let fixtures = root + "/fixtures"
            func write(_ text: String, _ path: String) throws {
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            }
            for folder in [fixtures + "/migrations", fixtures + "/history"] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            let schema = "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT);\n"
            try write(schema, fixtures + "/schema.sql")
            try write(schema, fixtures + "/migrations/0001_create.sql")
            try write(
                "-- Strata schema history: version 1, after migration 0001_create.\n"
                    + "-- Written by `strata history`: commit it, never edit it.\n\n" + schema,
                fixtures + "/history/0001.sql")
            try write("secret passphrase\n", fixtures + "/key")
            try write("../../fixtures/app.sqlite\n", fixtures + "/list")  // from the working directory
            let db = try Database(path: fixtures + "/app.sqlite", configuration: Configuration())
            try db.execute(sql: schema)
            db.close()
        }

        /// The fixture each path option names in a valid run.
        func value(for option: String, in command: [String]) -> String {
            switch (command.first, option) {
            case (_, "db"): fixtures + "/app.sqlite"
            case (_, "schema"), ("lint", "to"), ("lint", "from"): fixtures + "/schema.sql"
            case (_, "migrations"): fixtures + "/migrations"
            case ("history", "out"): fixtures + "/history-out"
            case ("generate", "out"): fixtures + "/Schema.swift"
            case (_, "history"): fixtures + "/history"
            case (_, "archive"): fixtures + "/archive"
            case (_, "backup"): fixtures + "/backup.sqlite"
            case (_, "db-list"): fixtures + "/list"
            default: fixtures + "/key"  // --key-file, --new-key-file
            }
        }

        /// A valid invocation of `command` with `option` given `value` (replacing or added), or
        /// nil when this suite has no base invocation for the command.
        func invocation(_ command: [String], _ option: String, _ value: [UInt8]) -> [[UInt8]]? {
            let f = { (name: String) in self.value(for: name, in: command) }
            let base: [String]
            switch command {
            case ["plan"], ["apply"]: base = ["--db", f("db"), "--schema", f("schema")]
            case ["dump"], ["doctor"], ["restore"], ["upgrade", "status"]: base = ["--db", f("db")]
            case ["migrate"], ["status"]: base = ["--db", f("db"), "--migrations", f("migrations")]
            case ["new"]: base = ["--migrations", f("migrations"), "--schema", f("schema"), "--name", "x"]
            case ["check"]: base = ["--migrations", f("migrations"), "--schema", f("schema")]
            case ["rekey"]: base = ["--db", f("db"), "--new-key-file", f("new-key-file")]
            case ["history"]: base = ["--migrations", f("migrations"), "--out", f("out")]
            case ["history", "add"]:
                return (["history", "--out", f("out"), "add", "--schema", f("schema"), "--release", "1"])
                    .replacingValue(of: option, with: value)
            case ["verify"]: base = ["--history", f("history"), "--migrations", f("migrations")]
            case ["squash"]: base = ["--migrations", f("migrations"), "--through", "0001"]
            case ["lint"]:
                // One old schema exactly: the option under test when it is one.
                let old = ["from", "db", "schema", "history"].contains(option) ? option : "schema"
                base = ["--\(old)", f(old), "--to", f("to")]
            case ["generate", "swift"]: base = ["--schema", f("schema"), "--out", f("out")]
            default: return nil
            }
            return (command + base).replacingValue(of: option, with: value, insertingAfter: command.count)
        }
    }

    /// The odd paths, as bytes (some are not UTF-8), each with a label for the report. A label
    /// starting with `existing` names a copy of the fixture the option names in a valid run.
    static let long = String(repeating: "n", count: 300)  // beyond NAME_MAX (255)
    static let oddPaths: [(label: String, bytes: [UInt8])] = [
        ("one letter", Array("a".utf8)),
        ("one capital letter", Array("H".utf8)),
        ("existing one letter", Array("e".utf8)),
        ("dot", Array(".".utf8)),
        ("dot dot", Array("..".utf8)),
        ("root", Array("/".utf8)),
        ("two slashes", Array("//".utf8)),
        ("trailing slash", Array("a/".utf8)),
        ("trailing slashes", Array("a//".utf8)),
        ("existing, trailing slash", Array("e/".utf8)),
        ("dot slash", Array("./a".utf8)),
        ("dot dot slash", Array("../a".utf8)),
        ("tilde", Array("~".utf8)),
        ("tilde slash", Array("~/a".utf8)),
        ("dash", Array("-".utf8)),
        ("empty", []),
        ("name beyond NAME_MAX", Array(long.utf8)),
        (
            "path beyond PATH_MAX",
            Array(Array(repeating: String(repeating: "d", count: 100), count: 50).joined(separator: "/").utf8)
        ),
        ("byte FF", [0xFF]),
        ("not UTF-8 inside", [0x61, 0xFE, 0x62]),
        ("cut UTF-8 sequence", [0xC3]),
        ("newline inside", Array("a\nb".utf8)),
        ("newline alone", Array("\n".utf8)),
        ("trailing newline", Array("e\n".utf8)),
    ]

    /// How one run ended.
    struct Outcome: CustomStringConvertible {
        var signal: Int32?
        var status: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
        var description: String {
            (timedOut ? "KILLED (still running) " : "")
                + (signal.map { "killed by signal \($0)" } ?? "exit \(status)") + "\n--- stderr\n"
                + stderr.prefix(2_000)
        }
    }

    /// Runs `strata arguments...` in `directory` through `/bin/sh`, each argument rebuilt from
    /// its bytes with `printf` (Process takes Swift strings, which cannot hold bytes that are not
    /// UTF-8), with HOME set to `home`, stdin empty, and no backtrace printed on a crash.
    static func run(_ arguments: [[UInt8]], in directory: String, home: String) throws -> Outcome {
        let output = TemporaryDirectory("strata-paths-out")
        let strata = try ChildProcess.executable("strata").path
        // Each format is `\ooo` escapes only; `x` keeps printf's trailing newlines from `$( )`.
        let formats = arguments.map { $0.map { "\\" + String($0, radix: 8).leftPadded(to: 3) }.joined() }
        let script = """
            n=$#; for f; do a=$(printf "$f"; printf x); set -- "$@" "${a%x}"; done; shift "$n"; exec "$STRATA_BINARY" "$@" </dev/null
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, "sh"] + formats
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        environment["STRATA_BINARY"] = strata
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        for file in ["stdout", "stderr"] {
            _ = FileManager.default.createFile(atPath: output.file(file), contents: nil)
        }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output.file("stdout")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: output.file("stderr")))
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                kill(process.processIdentifier, SIGKILL)
                timedOut = true
                break
            }
            usleep(2_000)
        }
        process.waitUntilExit()
        let stdout = String(decoding: fileBytes(output.file("stdout")), as: UTF8.self)
        let stderr = String(decoding: fileBytes(output.file("stderr")), as: UTF8.self)
        let signal = process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
        return Outcome(
            signal: signal, status: process.terminationStatus, stdout: stdout, stderr: stderr, timedOut: timedOut)
    }

    /// One run of `option` with the odd path `bytes` in a fresh fixture: how it ended, and each
    /// broken promise (recorded by the caller, on the test's own thread).
    static func attempt(_ option: PathOption, label: String, bytes: [UInt8]) throws -> (String, [String]) {
        let fixture = try Fixture()
        guard let arguments = fixture.invocation(option.command, option.option, bytes) else {
            return ("no base", ["\(option): no base invocation in PathAttackTests.Fixture.invocation: add one"])
        }
        if label.hasPrefix("existing") {
            // `e` (or `e\n`) is a copy of what the option names in a valid run, where there is one.
            let source = fixture.value(for: option.option, in: option.command)
            let name = String(decoding: bytes.filter { $0 != UInt8(ascii: "/") }, as: UTF8.self)
            try? FileManager.default.copyItem(atPath: source, toPath: fixture.work + "/" + name)
        }
        let homeBefore = try FileManager.default.subpathsOfDirectory(atPath: fixture.home)
        let outcome = try run(arguments, in: fixture.work, home: fixture.home)
        let shown =
            "\(option) \(label) (\(String(decoding: bytes, as: UTF8.self).debugDescription.prefix(60))): \(outcome)"
        var problems: [String] = []
        if outcome.signal != nil || outcome.timedOut { problems.append("died: \(shown)") }
        if outcome.status != 0 {
            if outcome.status != 1 { problems.append("exit code other than 0 or 1: \(shown)") }
            if !outcome.stderr.hasPrefix("strata: ") && !outcome.stderr.hasPrefix("Error: ") {
                problems.append("failed without a message: \(shown)")
            }
        }
        if String(validating: bytes, as: UTF8.self) == nil,
            outcome.status != 1 || !outcome.stderr.contains("is not UTF-8")
        {
            // Bytes that are not UTF-8 are refused: Swift would read them as U+FFFD, another name.
            problems.append("not refused as not UTF-8: \(shown)")
        }
        // An error's lines are bounded (item 5): at most 2,000 characters after `strata: `.
        for line in outcome.stderr.split(separator: "\n") where outcome.status != 0 && line.count > 2_008 {
            problems.append("\(option) \(label): a line of \(line.count) characters on stderr")
        }
        if try FileManager.default.subpathsOfDirectory(atPath: fixture.home) != homeBefore {
            problems.append("HOME touched: \(shown)")
        }
        return (outcome.signal.map { "signal \($0)" } ?? "exit \(outcome.status)", problems)
    }

    /// Every path option with every odd path, run four at a time.
    @Test func everyPathOptionWithEveryOddPath() throws {
        let options = try Self.pathOptions()
        // The options the issue named, so an empty or broken enumeration cannot pass.
        for expected in [
            PathOption(command: ["apply"], option: "db"), PathOption(command: ["migrate"], option: "db"),
            PathOption(command: ["history"], option: "out"), PathOption(command: ["apply"], option: "backup"),
            PathOption(command: ["squash"], option: "archive"),
            PathOption(command: ["generate", "swift"], option: "out"),
        ] {
            #expect(options.contains(expected), "\(expected) not found among \(options)")
        }
        // By default each option gets a one-letter path and two more in turn (every odd path
        // reaches several options); the long run tries every pair.
        let full = Self.randomTrials > 0
        var cases: [(PathOption, String, [UInt8])] = []
        for (index, option) in options.enumerated() {
            var chosen: [Int] = Array(Self.oddPaths.indices)
            if !full {
                let others = Self.oddPaths.count - 1
                chosen = [0]
                for k in 0..<2 { chosen.append(1 + (index * 2 + k) % others) }
            }
            cases += chosen.map { (option, Self.oddPaths[$0].label, Self.oddPaths[$0].bytes) }
        }
        let tally = AttackTests.Tally()
        try Self.runAll(cases, tally: tally)
        tally.report("odd paths, \(options.count) path options, \(cases.count) runs")
    }

    /// `STRATA_PATH_FUZZ_TRIALS` runs of random odd paths: random pieces (the odd paths above,
    /// letters, slashes, dots, bytes that are not UTF-8, newlines) joined, on random options.
    @Test func randomOddPaths() throws {
        guard Self.randomTrials > 0 else { return }
        let options = try Self.pathOptions()
        var rng = SeededRandom(seed: AttackTests.seed &+ 37)
        let pieces: [[UInt8]] =
            Self.oddPaths.map(\.bytes) + [[0x2F], [0x2E], [0x0A], [0xFF], [0x7E], Array("é".utf8), [0x20], [0x2A]]
        var cases: [(PathOption, String, [UInt8])] = []
        for _ in 0..<Self.randomTrials {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 1...4, using: &rng) { bytes += rng.pick(pieces) }
            cases.append((rng.pick(options), "random", bytes))
        }
        let tally = AttackTests.Tally()
        try Self.runAll(cases, tally: tally)
        tally.report("random odd paths")
    }

    static func runAll(_ cases: [(PathOption, String, [UInt8])], tally: AttackTests.Tally) throws {
        let failures = LockedFailures()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for index in stride(from: worker, to: cases.count, by: 4) {
                let (option, label, bytes) = cases[index]
                do {
                    let (ending, problems) = try attempt(option, label: label, bytes: bytes)
                    tally.add(ending)
                    for problem in problems { failures.add(problem) }
                } catch {
                    failures.add("\(option) \(label): \(error)")
                }
            }
        }
        // At most 40 recorded, the count of the rest said.
        let all = failures.all
        for failure in all.prefix(40) { Issue.record(Comment(rawValue: failure)) }
        if all.count > 40 { Issue.record("\(all.count - 40) more broken promises") }
    }

    final class LockedFailures: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        func add(_ item: String) { lock.withLock { items.append(item) } }
        var all: [String] { lock.withLock { items } }
    }

    // MARK: The cases of the issue, each with its expected outcome

    /// `apply --db a --db b`, `migrate --db e --db f`, `history --out H`: one-letter relative
    /// paths work (they crashed with SIGILL in Foundation's `deletingLastPathComponent`).
    @Test func oneLetterPathsWork() throws {
        let fixture = try Fixture()
        let f = fixture.fixtures
        for (arguments, expected) in [
            (["apply", "--db", "a", "--db", "b", "--schema", "\(f)/schema.sql"], "2 databases: 2 succeeded"),
            (["migrate", "--db", "e", "--db", "f", "--migrations", "\(f)/migrations"], "2 databases: 2 succeeded"),
            (["migrate", "--db", "g", "--migrations", "\(f)/migrations"], "Applied 1 migration to g."),
            (["history", "--migrations", "\(f)/migrations", "--out", "H"], "H: 1 version, 1 file written"),
        ] {
            let r = try Self.run(arguments.map { Array($0.utf8) }, in: fixture.work, home: fixture.home)
            #expect(r.signal == nil && r.status == 0, "strata \(arguments.joined(separator: " ")): \(r)")
            #expect(r.stdout.contains(expected), "strata \(arguments.joined(separator: " ")): \(r.stdout)")
        }
        #expect(FileManager.default.fileExists(atPath: fixture.work + "/H/0001.sql"))
        for name in ["a", "b", "e", "f", "g"] {
            let db = try Database(path: fixture.work + "/" + name, configuration: Configuration())
            #expect(
                try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 't'") == 1, "\(name)")
            db.close()
        }
    }

    /// A folder named `~` is that folder, not the home folder: `URL(fileURLWithPath:)` expanded
    /// the tilde, so `migrate --migrations '~'` read `$HOME/0001_create.sql`.
    @Test func aFolderNamedTildeIsNotHome() throws {
        let fixture = try Fixture()
        try FileManager.default.copyItem(atPath: fixture.fixtures + "/migrations", toPath: fixture.work + "/~")
        let r = try ChildProcess.run(
            "strata", ["migrate", "--db", fixture.work + "/app.sqlite", "--migrations", "~"], in: fixture.work,
            environment: ["HOME": fixture.home])
        #expect(r.status == 0 && r.stdout.contains("Applied 0001_create"), "\(r)")
        let squash = try ChildProcess.run(
            "strata", ["squash", "--migrations", "~", "--through", "0001", "--archive", "~/archive"], in: fixture.work,
            environment: ["HOME": fixture.home])
        #expect(squash.status == 0, "\(squash)")
        #expect(FileManager.default.fileExists(atPath: fixture.work + "/~/archive/0001_create.sql"), "\(squash)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.home).isEmpty)
    }

    /// A path whose bytes are not UTF-8 is refused, naming the argument, and no file of another
    /// name (U+FFFD for the bad byte) is created.
    @Test func pathsThatAreNotUTF8AreRefused() throws {
        let fixture = try Fixture()
        let r = try Self.run(
            [
                Array("apply".utf8), Array("--db".utf8), [0x78, 0xFF, 0x79], Array("--schema".utf8),
                Array((fixture.fixtures + "/schema.sql").utf8),
            ],
            in: fixture.work, home: fixture.home)
        #expect(r.signal == nil && r.status == 1, "\(r)")
        #expect(r.stderr.contains("argument 3 (x\\xFFy) is not UTF-8 text"), "\(r)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.work).isEmpty)
    }
}

extension [String] {
    /// The arguments as bytes, with the value after `--option` replaced by `value`, or
    /// `--option value` inserted at `insertingAfter` when the option is not there.
    func replacingValue(of option: String, with value: [UInt8], insertingAfter position: Int? = nil) -> [[UInt8]] {
        var bytes = map { [UInt8]($0.utf8) }
        if let index = firstIndex(of: "--\(option)"), index + 1 < count {
            bytes[index + 1] = value
        } else {
            bytes.insert(contentsOf: [[UInt8]("--\(option)".utf8), value], at: position ?? bytes.count)
        }
        return bytes
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: Swift.max(0, width - count)) + self }
}
