import Foundation
import Strata
import StrataTestSupport
import Testing

/// The file attacks of issue 24 (items 7 and 8), replayed with random batches and random timings
/// through the `strata` command line; `RekeyKillTests` replays item 2 (kills of `strata rekey`).
///
/// `STRATA_ATTACK_TRIALS` sets the trials per attack (default 6), `STRATA_ATTACK_SEED` the seed;
/// `scripts/attack-test.sh N SEED` runs more and prints the tally of outcomes.
@Suite("File attacks replayed through the command line", .serialized, .tags(.attack))
struct FileAttackTests {
    static let schema = "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT);\n"
    static let names = ["a", "b c", "it's", "\"q\"", "select", "ü-ñ", "x;y", "--z"]

    /// A FIFO, a socket-like special file (a directory, a link to /dev/null) among random tenant
    /// files, under a random command and `--jobs`. A thread keeps trying to open the FIFO for
    /// writing without blocking from a random moment on: it succeeds only if a reader has it
    /// open, so a success means strata opened the FIFO. Promise: exit 1 within the bound, the
    /// special file reported failed with one line naming it, every other database done, the
    /// FIFO never opened.
    @Test func specialFilesInARandomBatch() throws {
        var rng = SeededRandom(seed: AttackTests.seed &+ 24)
        let tally = AttackTests.Tally()
        let commands: [(name: String, arguments: [String], done: String)] = [
            ("apply --dry-run", ["apply", "--dry-run"], "would apply 1 change; unchanged"),
            ("apply", ["apply"], "applied 1 change"),
            ("migrate --dry-run", ["migrate", "--dry-run"], "would apply 1 migration (0001_create); unchanged"),
            ("migrate", ["migrate"], "applied 1 migration (0001_create)"),
        ]
        for trial in 0..<AttackTests.trials {
            let dir = TemporaryDirectory("strata-attack-special")
            let folder = dir.file("tenants")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try AttackTests.write(Self.schema, to: dir.file("schema.sql"))
            try FileManager.default.createDirectory(atPath: dir.file("migrations"), withIntermediateDirectories: false)
            try AttackTests.write(Self.schema, to: dir.file("migrations/0001_create.sql"))
            let count = Int.random(in: 2...6, using: &rng)
            let names = Array(Self.names.shuffled(using: &rng).prefix(count)).map { "\($0).sqlite" }
            let special = rng.pick(names)
            let kind = rng.pick(["FIFO", "directory", "character device"])
            for name in names where name != special {
                try Data().write(to: URL(fileURLWithPath: "\(folder)/\(name)"))
            }
            let specialPath = "\(folder)/\(special)"
            switch kind {
            case "FIFO": #expect(mkfifo(specialPath, 0o600) == 0)
            case "directory":
                try FileManager.default.createDirectory(atPath: specialPath, withIntermediateDirectories: false)
            default: try FileManager.default.createSymbolicLink(atPath: specialPath, withDestinationPath: "/dev/null")
            }
            let command = rng.pick(commands)
            let jobs = Int.random(in: 1...4, using: &rng)
            let probeDelay = Double.random(in: 0...0.3, using: &rng)
            let opened = FIFOProbe(path: kind == "FIFO" ? specialPath : nil, after: probeDelay)
            let extra =
                command.arguments[0] == "apply"
                ? ["--schema", dir.file("schema.sql")] : ["--migrations", dir.file("migrations")]
            let r = try ChildProcess.strata(
                command.arguments + extra + ["--db", "\(folder)/*.sqlite", "--continue-on-error", "--jobs", "\(jobs)"],
                seconds: 60)
            opened.stop()
            let label = "trial \(trial) (\(command.name), \(kind) \(special) among \(names), --jobs \(jobs))"
            #expect(!r.timedOut, "\(label): hung: \(r)")
            #expect(r.result.status == 1, "\(label): \(r)")
            let expected =
                names.sorted().map { name in
                    name == special
                        ? "\(folder)/\(name): FAILED: not a regular file (a \(kind)); a database is a regular file"
                        : "\(folder)/\(name): \(command.done)"
                } + ["\(count) databases: \(count - 1) succeeded, 1 failed"]
            // (In the order glob(3) sorts them, which depends on the locale: compared as sets.)
            let lines = r.result.stdout.split(separator: "\n").map(String.init)
            #expect(
                Set(lines.dropLast()) == Set(expected.dropLast()) && lines.count == expected.count, "\(label): \(r)")
            #expect(lines.last == expected.last, "\(label): \(r)")
            #expect(!opened.connected, "\(label): strata opened the FIFO")
            tally.add(r.result.status == 1 && !r.timedOut && !opened.connected ? "refused at once" : "NOT AS PROMISED")
        }
        tally.report("special files in a batch")
    }

    /// Random folders and symbolic links, and random spellings of paths to databases that exist
    /// or not (`x`, `./x`, `link/../x`, `dir/./x`, absolute, a dangling link). Promise: `strata
    /// apply` creates every file a path names (no distinct database dropped), handles each file
    /// once, and its summary counts every path named, the duplicates being exactly the paths
    /// that reached a file an earlier path reached.
    /// It once failed on SQLite 3.28.0 and 3.38.3, which remove `..` from a path textually;
    /// `Database` now resolves the folder of a path before SQLite sees it.
    @Test func pathSpellingsInABatch() throws {
        var rng = SeededRandom(seed: AttackTests.seed &+ 25)
        let tally = AttackTests.Tally()
        for trial in 0..<AttackTests.trials {
            let dir = TemporaryDirectory("strata-attack-spelling")
            try AttackTests.write(Self.schema, to: dir.file("schema.sql"))
            for folder in ["d1/s1", "d1/s2", "d2"] {
                try FileManager.default.createDirectory(atPath: dir.file(folder), withIntermediateDirectories: true)
            }
            // Links between folders: to a sibling, to a parent's child, to a folder two levels down.
            try FileManager.default.createSymbolicLink(atPath: dir.file("l1"), withDestinationPath: "d1/s1")
            try FileManager.default.createSymbolicLink(atPath: dir.file("d2/up"), withDestinationPath: "../d1/s2")
            try FileManager.default.createSymbolicLink(atPath: dir.file("d1/s1/back"), withDestinationPath: "..")
            let files = ["x.sqlite", "y.sqlite"]
            var named: [String] = []
            for _ in 0..<Int.random(in: 2...7, using: &rng) {
                let file = rng.pick(files)
                let spelling = rng.pick([
                    file, "./\(file)", "l1/../\(file)", "l1/\(file)", "d1/s1/\(file)", "d1/s1/back/\(file)",
                    "l1/back/s2/\(file)", "d2/up/\(file)", "d2/up/../\(file)", "d1/./s2/../\(file)",
                    dir.file("d1/s2/\(file)"),
                ])
                named.append(spelling)
            }
            if rng.chance(30) {
                try FileManager.default.createSymbolicLink(
                    atPath: dir.file("dangling.sqlite"), withDestinationPath: "d2/x.sqlite")
                named.append("dangling.sqlite")
            }
            // Some files exist already.
            for path in named where rng.chance(25) {
                let db = try Database(path: path.hasPrefix("/") ? path : dir.file(path))
                db.close()
            }
            let r = try ChildProcess.strata(
                ["apply", "--db"] + named + ["--schema", dir.file("schema.sql")], in: dir.path, seconds: 60)
            let label = "trial \(trial) (\(named))"
            #expect(r.result.status == 0, "\(label): \(r)")
            // Every path named reaches a database with the schema; the duplicates are the paths whose
            // file an earlier path reached (files compared by device and inode, after the run).
            var seen = Set<String>()
            var duplicates = 0
            for path in named {
                let full = path.hasPrefix("/") ? path : dir.file(path)
                var st = stat()
                guard stat(full, &st) == 0 else {
                    Issue.record("\(label): \(path) was not created")
                    continue
                }
                if !seen.insert("\(st.st_dev):\(st.st_ino)").inserted { duplicates += 1 }
                let db = try Database(path: full)
                #expect(
                    try db.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master") == ["t"], "\(label): \(path)"
                )
                db.close()
            }
            let summary =
                "\(named.count) database\(named.count == 1 ? "" : "s"): \(seen.count) succeeded, 0 failed"
                + (duplicates > 0 ? ", \(duplicates) duplicate\(duplicates == 1 ? "" : "s")" : "")
            #expect(r.result.stdout.hasSuffix(summary + "\n"), "\(label): \(r)")
            tally.add(
                r.result.status == 0 && r.result.stdout.hasSuffix(summary + "\n") ? "as promised" : "NOT AS PROMISED")
            tally.add("\(seen.count) distinct of \(named.count) named")
        }
        tally.report("path spellings in a batch")
    }
}

/// Tries to open a FIFO for writing without blocking, every millisecond from `after` seconds on,
/// until stopped: the open succeeds only while a reader has the FIFO open.
private final class FIFOProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var didConnect = false
    private let done = DispatchSemaphore(value: 0)

    init(path: String?, after delay: Double) {
        guard let path else {
            done.signal()
            return
        }
        Thread.detachNewThread { [self] in
            usleep(UInt32(delay * 1_000_000))
            while !lock.withLock({ stopped }) {
                let fd = open(path, O_WRONLY | O_NONBLOCK)
                if fd >= 0 {
                    close(fd)
                    lock.withLock { didConnect = true }
                }
                usleep(1000)
            }
            done.signal()
        }
    }

    func stop() {
        lock.withLock { stopped = true }
        _ = done.wait(timeout: .now() + 5)
    }

    var connected: Bool { lock.withLock { didConnect } }
}
