import Foundation
import StrataTestSupport
import Testing

/// `strata squash` killed with SIGKILL at random moments (issue 28): a copy of a 50-migration
/// folder is squashed through 40 with `--archive`, and the process is killed after a random delay.
/// A squash changes two folders, so it cannot be one atomic step: it writes a journal first and
/// its commit point is the baseline's move into the folder (see `SquashFiles` in
/// `Sources/StrataCLI/SquashCommand.swift`). After each kill both folders must be exactly as
/// before, exactly as an uninterrupted squash leaves them, or hold the journal (interrupted:
/// every other command refuses the folder); the same squash run again must then leave them
/// exactly as an uninterrupted one does (or say there is nothing to do), and `strata verify`
/// proves that result against the history recorded before the squash (on the first kill of each
/// kind; the others are compared byte for byte with it).
///
/// `STRATA_SQUASH_KILLS` sets the number of kills (default 30: about two minutes of `swift test`
/// on a loaded 2-CPU machine; the real-SQLite matrix runs 10, `scripts/crash-test.sh N` runs N),
/// `STRATA_SQUASH_SEED` the seed of
/// the kill moments. Half the delays are spread over the whole run, half over its last part,
/// where the file operations are.
@Suite("Squash kills", .serialized)
struct SquashKillTests {
    static var kills: Int { ProcessInfo.processInfo.environment["STRATA_SQUASH_KILLS"].flatMap { Int($0) } ?? 30 }
    static var seed: UInt64 { ProcessInfo.processInfo.environment["STRATA_SQUASH_SEED"].flatMap { UInt64($0) } ?? 28 }

    /// 50 migrations: ten tables (one with a hostile name), seed rows, then columns and indexes.
    static func migrations() -> [String: String] {
        var files: [String: String] = [:]
        let tables = (1...9).map { "t\($0)" } + ["order \"items\""]
        func quoted(_ name: String) -> String { "\"" + name.replacing("\"", with: "\"\"") + "\"" }
        for i in 1...50 {
            let name = String(format: "%04d", i)
            let table = tables[(i - 1) % tables.count]
            switch i {
            case 1...10:
                files["\(name)_create.sql"] =
                    "CREATE TABLE \(quoted(table))(id INTEGER PRIMARY KEY, label TEXT NOT NULL DEFAULT '');\n"
                    + "INSERT INTO \(quoted(table))(label) VALUES ('row of \(i)'), ('it''s \(i)');"
            case 11...40 where i % 3 == 0:
                files["\(name)_index.sql"] = "CREATE INDEX \(quoted("ix \(i)")) ON \(quoted(table))(label);"
            default:
                files["\(name)_column.sql"] = "ALTER TABLE \(quoted(table)) ADD COLUMN c\(i) INTEGER DEFAULT \(i);"
            }
        }
        return files
    }

    /// Every entry under `path`, relative path → bytes (folders as `name/`).
    static func snapshot(_ path: String) -> [String: Data] {
        var out: [String: Data] = [:]
        for name in FileManager.default.subpaths(atPath: path) ?? [] {
            var isDirectory: ObjCBool = false
            let full = (path as NSString).appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                out[name] = fileBytes(full)
            } else {
                out[name + "/"] = Data()
            }
        }
        return out
    }

    /// A folder `work/migrations` holding the 50 files (and no archive yet).
    static func makeFolder(in work: TemporaryDirectory) throws {
        let folder = work.file("migrations")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for (name, text) in migrations() {
            try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
        }
    }

    static func squash(_ work: TemporaryDirectory) -> [String] {
        ["squash", "--migrations", work.file("migrations"), "--through", "40", "--archive", work.file("archive")]
    }

    @Test func killingStrataSquashLeavesTheOldSetTheSquashedSetOrAJournalTheRerunFinishes() throws {
        // The state before, the history of the unsquashed folder, and the uninterrupted squash.
        let reference = TemporaryDirectory("squash-kill-reference")
        try Self.makeFolder(in: reference)
        let before = Self.snapshot(reference.path)
        let history = reference.file("history")
        let recorded = try ChildProcess.run(
            "strata", ["history", "--migrations", reference.file("migrations"), "--out", history])
        try #require(recorded.status == 0, "\(recorded)")
        // `history` sits beside the folders: keep it out of the compared state.
        let beforeFolders = before
        var durations: [Double] = []
        var complete: [String: Data] = [:]
        for round in 0..<3 {
            let work = TemporaryDirectory("squash-kill-measure")
            try Self.makeFolder(in: work)
            let started = Date()
            let run = try ChildProcess.run("strata", Self.squash(work))
            durations.append(Date().timeIntervalSince(started))
            try #require(run.status == 0, "\(run)")
            let state = Self.snapshot(work.path)
            if round == 0 { complete = state } else { #expect(state == complete, "two squashes differ") }
        }
        #expect(complete != beforeFolders)
        #expect(complete.keys.contains("migrations/0040_baseline.sql"))
        #expect(complete.keys.filter { $0.hasPrefix("archive/") && $0.hasSuffix(".sql") }.count == 40)
        var duration = durations.sorted()[1]

        var rng = SeededRandom(seed: Self.seed)
        var tally = [String: Int]()
        var verified = Set<String>()
        let started = Date()
        for trial in 0..<Self.kills {
            let work = TemporaryDirectory("squash-kill")
            try Self.makeFolder(in: work)
            if trial > 0, trial % 40 == 0 {
                // The machine's load changes: measure again so the kills stay spread over the run.
                let measure = TemporaryDirectory("squash-kill-measure")
                try Self.makeFolder(in: measure)
                let started = Date()
                _ = try ChildProcess.run("strata", Self.squash(measure))
                duration = (duration + Date().timeIntervalSince(started)) / 2
            }
            let delay =
                trial % 2 == 0
                ? Double.random(in: 0...(duration * 1.2), using: &rng)
                : Double.random(in: (duration * 0.6)...(duration * 1.05), using: &rng)
            let label = "kill \(trial) (after \(Int(delay * 1000)) ms of \(Int(duration * 1000)))"
            let output = TemporaryDirectory("squash-kill-output")
            let process = try ChildProcess.launch("strata", Self.squash(work), output: output)
            usleep(UInt32(delay * 1_000_000))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            BoundedWait.exit(of: process)
            if process.terminationReason == .exit {
                let r = ChildProcess.result(of: process, output: output)
                #expect(r.status == 0, "\(label): strata squash failed on its own: \(r)")
            }

            let state = Self.snapshot(work.path)
            let kind: String
            if state == beforeFolders {
                kind = "old set"
            } else if state == complete {
                kind = "squashed"
            } else if state.keys.contains("migrations/.strata-squash-journal") {
                kind = "journal left"
                let refused = try ChildProcess.run(
                    "strata", ["status", "--db", work.file("db.sqlite"), "--migrations", work.file("migrations")])
                #expect(
                    refused.status == 1 && refused.stderr.contains(".strata-squash-journal"),
                    "\(label): another command used a folder with an unfinished squash: \(refused)")
            } else if state.keys.allSatisfy({
                // DurableFile's temporary name for `.strata-squash-journal` is
                // `..strata-squash-journal.strata-tmp-XXXXXXXX` (a dot before the file's name).
                $0.hasPrefix("migrations/..strata-squash-journal.strata-tmp-") || beforeFolders[$0] == state[$0]
            }) {
                // Killed while the journal itself was written: only its hidden temporary file.
                kind = "journal being written"
            } else {
                kind = "neither"
                let changed = state.keys.filter { beforeFolders[$0] != state[$0] && complete[$0] != state[$0] }
                Issue.record("\(label): the folders are neither old, squashed, nor journaled: \(changed.sorted())")
            }
            tally[kind, default: 0] += 1

            // The same squash again: finishes or undoes, then squashes (or has nothing to do).
            let rerun = try ChildProcess.run("strata", Self.squash(work))
            #expect(rerun.status == 0, "\(label) (\(kind)): the rerun failed: \(rerun)")
            if kind == "squashed" {
                #expect(rerun.stdout.hasPrefix("Nothing to do: "), "\(label): \(rerun)")
            }
            let after = Self.snapshot(work.path)
            #expect(after == complete, "\(label) (\(kind)): the rerun left another result")
            if !verified.contains(kind) {
                verified.insert(kind)
                let verify = try ChildProcess.run(
                    "strata", ["verify", "--history", history, "--migrations", work.file("migrations"), "--rows", "3"])
                #expect(verify.status == 0, "\(label) (\(kind)): strata verify: \(verify)")
                #expect(verify.stdout.contains("0040"), "\(label): \(verify.stdout)")
            }
        }
        let seconds = Date().timeIntervalSince(started)
        print(
            "crash test (squash): \(Self.kills) kills in \(String(format: "%.1f", seconds)) s, "
                + tally.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
                + "; every rerun gave the squashed folders, verified: \(verified.sorted().joined(separator: ", "))")
        #expect(tally["neither", default: 0] == 0)
    }
}
