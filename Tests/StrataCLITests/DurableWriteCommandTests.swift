import Foundation
import StrataTestSupport
import Testing

/// Every file a command writes goes through `DurableFile` (issue 28): the binary's test seam
/// (`STRATA_TEST_FILE_STEPS`, `STRATA_TEST_FILE_FAIL`) records the steps of `new`, `new --data`,
/// `generate swift`, `history` and `squash`, and makes each step fail in turn. The trace must show
/// each written file flushed before it is renamed (or linked) into place and its folder flushed
/// after; a failure at any step must name the file and the system's message and leave every file
/// with its old bytes or all of its new ones (no partial file, no temporary file left); `squash`,
/// which changes two folders, leaves the old set or the squashed one (after a rerun when a
/// journal was left).
@Suite("Durable writes of the commands")
struct DurableWriteCommandTests {
    struct Scenario: Sendable {
        var name: String
        /// Makes the inputs in the given folder; returns the arguments and the folder to watch.
        var setup: @Sendable (TemporaryDirectory) throws -> (arguments: [String], watched: String)
    }

    static let schemaV1 = "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);\n"
    static let schemaV2 = schemaV1 + "CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n"

    static func write(_ text: String, _ path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    static let scenarios: [Scenario] = [
        Scenario(name: "new") { dir in
            let folder = dir.file("migrations")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try write(schemaV1, folder + "/0001_create_note.sql")
            try write(schemaV2, dir.file("schema.sql"))
            return (["new", "--migrations", folder, "--schema", dir.file("schema.sql"), "--name", "add tag"], folder)
        },
        Scenario(name: "new --data") { dir in
            let folder = dir.file("migrations")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try write(schemaV1, folder + "/0001_create_note.sql")
            try write(schemaV2, dir.file("schema.sql"))
            return (
                ["new", "--migrations", folder, "--schema", dir.file("schema.sql"), "--name", "tags", "--data"], folder
            )
        },
        Scenario(name: "generate swift (replacing a file)") { dir in
            let out = dir.file("out")
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
            try write("// an older generated file\n", out + "/Schema.swift")
            try write(schemaV2, dir.file("schema.sql"))
            return (["generate", "swift", "--schema", dir.file("schema.sql"), "--out", out + "/Schema.swift"], out)
        },
        Scenario(name: "history") { dir in
            let folder = dir.file("migrations")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try write(schemaV1, folder + "/0001_create_note.sql")
            try write("ALTER TABLE note ADD COLUMN done INTEGER;", folder + "/0002_add_done.sql")
            try write("CREATE INDEX note_done ON note(done);", folder + "/0003_index.sql")
            let history = dir.file("history")
            try FileManager.default.createDirectory(atPath: history, withIntermediateDirectories: false)
            try write("-- stale\n", history + "/0002.sql")
            return (["history", "--migrations", folder, "--out", history], history)
        },
        Scenario(name: "squash --archive") { dir in
            let folder = dir.file("migrations")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            for (name, text) in SquashCommandTests.history(7) { try write(text, folder + "/" + name) }
            return (
                ["squash", "--migrations", folder, "--through", "5", "--archive", dir.file("archive")], dir.path
            )
        },
    ]

    /// One line per step the seam recorded.
    static func steps(_ log: String) -> [String] {
        String(decoding: fileBytes(log), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test(arguments: 0..<scenarios.count) func flushedInOrderAndUntouchedOnAnyFailure(_ index: Int) throws {
        let scenario = Self.scenarios[index]
        // The uninterrupted run: its trace and the files it leaves.
        let first = TemporaryDirectory("durable-cli")
        let (arguments, watched) = try scenario.setup(first)
        let before = SquashCommandTests.snapshot(watched)
        let logs = TemporaryDirectory("durable-cli-log")
        let log = logs.file("steps.log")
        let run = try ChildProcess.run("strata", arguments, environment: ["STRATA_TEST_FILE_STEPS": log])
        try #require(run.status == 0, "\(scenario.name): \(run)")
        let complete = SquashCommandTests.snapshot(watched)
        #expect(complete != before, "\(scenario.name) changed nothing")
        let trace = Self.steps(log)
        try #require(!trace.isEmpty, "\(scenario.name): no step went through DurableFile")
        checkOrder(trace, scenario.name)

        // Each step fails in turn, on a fresh copy of the inputs.
        var outcomes = [String: Int]()
        for failAt in 1...trace.count {
            let dir = TemporaryDirectory("durable-cli")
            let (arguments, watched) = try scenario.setup(dir)
            let step = trace[failAt - 1]
            let label = "\(scenario.name), step \(failAt) of \(trace.count) (\(step))"
            let result = try ChildProcess.run("strata", arguments, environment: ["STRATA_TEST_FILE_FAIL": "\(failAt)"])
            var after = SquashCommandTests.snapshot(watched)
            if result.status != 0 {
                #expect(result.stderr.contains(String(cString: strerror(EIO))), "\(label): \(result)")
                #expect(result.stderr.contains(dir.path), "\(label): the error names no file: \(result)")
            }
            // Every file holds its old bytes or all of its new ones; nothing else appeared.
            for (path, bytes) in after where bytes != before[path] && bytes != complete[path] {
                if scenario.name.hasPrefix("squash"), path.hasPrefix("migrations/.strata-squash") { continue }
                // The temporary name of a file already linked into place, when its removal is the
                // step that failed: a hidden second name of the complete file (loaders skip it).
                if step.hasPrefix("remove "), let cut = path.range(of: ".strata-tmp-"),
                    step.contains(String(path[..<cut.lowerBound]).split(separator: "/").last.map(String.init) ?? "?")
                {
                    continue
                }
                Issue.record("\(label): \(path) is neither old nor new (\(bytes.count) bytes)")
            }
            if scenario.name.hasPrefix("squash") {
                if after != before, after != complete {
                    // A journal was left: the next squash finishes or undoes it.
                    let rerun = try ChildProcess.run("strata", arguments)
                    #expect(rerun.status == 0, "\(label): the rerun failed: \(rerun)")
                    after = SquashCommandTests.snapshot(watched)
                    #expect(after == complete, "\(label): the rerun did not complete the squash")
                    outcomes["journal, rerun completes", default: 0] += 1
                } else {
                    outcomes[after == before ? "old set" : "squashed", default: 0] += 1
                }
            } else {
                outcomes[after == before ? "untouched" : after == complete ? "complete" : "per file", default: 0] += 1
            }
            if result.status != 0, after == complete, !scenario.name.hasPrefix("squash") {
                #expect(step.hasPrefix("sync-dir") || step.hasPrefix("remove"), "\(label): failed after it was done?")
            }
        }
        print("durable writes (\(scenario.name)): \(trace.count) steps failed in turn: \(outcomes)")
    }

    /// Every file created then renamed or linked into place was flushed first; every folder
    /// whose names changed is flushed after.
    func checkOrder(_ trace: [String], _ name: String) {
        var created = Set<String>()
        var flushed = Set<String>()
        var dirty = [String]()
        for line in trace {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            let (kind, rest) = (parts[0], parts[1])
            func folder(_ path: String) -> String { (path as NSString).deletingLastPathComponent }
            switch kind {
            case "create": created.insert(rest)
            case "sync-file": flushed.insert(rest)
            case "rename", "link":
                let pair = rest.components(separatedBy: " -> ")
                guard pair.count == 2 else { continue }
                if created.contains(pair[0]) {
                    #expect(flushed.contains(pair[0]), "\(name): \(pair[0]) renamed before it was flushed: \(trace)")
                }
                dirty += [folder(pair[0]), folder(pair[1])]
            case "remove", "mkdir": dirty.append(folder(rest))
            case "rmdir":
                dirty.append(folder(rest))
                dirty.removeAll { $0 == rest }  // a folder removed needs no flush of its own
            case "sync-dir": dirty.removeAll { $0 == rest }
            default: break
            }
        }
        #expect(dirty.isEmpty, "\(name): folders never flushed after their names changed: \(Set(dirty)) in \(trace)")
    }

    @Test func otherCommandsRefuseAFolderWithAnUnfinishedSquash() throws {
        let dir = TemporaryDirectory("durable-cli")
        let folder = dir.file("migrations")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for (name, text) in SquashCommandTests.history(7) { try Self.write(text, folder + "/" + name) }
        let before = SquashCommandTests.snapshot(folder)
        // A failure at the commit point (the baseline's link into the folder) undoes everything.
        let log = dir.file("steps.log")
        let squash = ["squash", "--migrations", folder, "--through", "5", "--archive", dir.file("archive")]
        let trial = TemporaryDirectory("durable-cli")
        let trialFolder = trial.file("migrations")
        try FileManager.default.createDirectory(atPath: trialFolder, withIntermediateDirectories: false)
        for (name, text) in SquashCommandTests.history(7) { try Self.write(text, trialFolder + "/" + name) }
        let traced = try ChildProcess.run(
            "strata", ["squash", "--migrations", trialFolder, "--through", "5", "--archive", trial.file("archive")],
            environment: ["STRATA_TEST_FILE_STEPS": log])
        #expect(traced.status == 0, "\(traced)")
        let trace = Self.steps(log)
        let commit = try #require(
            trace.firstIndex { $0.hasPrefix("link \(trialFolder)/.strata-squash-staging/0005_baseline") }, "\(trace)")
        let failed = try ChildProcess.run("strata", squash, environment: ["STRATA_TEST_FILE_FAIL": "\(commit + 1)"])
        #expect(failed.status == 1, "\(failed)")
        #expect(SquashCommandTests.snapshot(folder) == before)
        // A journal left by a kill (written here as the squash writes it) makes the other commands refuse.
        try Self.write(
            #"{"archive":null,"archiveCopies":[],"archiveCreated":false,"baseline":"0005_baseline.sql","covered":[],"digest":"00"}"#,
            folder + "/.strata-squash-journal")
        let migrate = try ChildProcess.run(
            "strata", ["migrate", "--db", dir.file("db.sqlite"), "--migrations", folder])
        #expect(migrate.status == 1, "\(migrate)")
        #expect(migrate.stderr.contains("\(folder)/.strata-squash-journal: a `strata squash` was interrupted"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("db.sqlite")))
        // The squash undoes it (nothing to undo here) and then squashes.
        let rerun = try ChildProcess.run("strata", squash)
        #expect(rerun.status == 0, "\(rerun)")
        #expect(rerun.stderr.contains("undid a squash that was interrupted"), "\(rerun)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/.strata-squash-journal"))
        let again = try ChildProcess.run("strata", squash)
        #expect(again.status == 0 && again.stdout.hasPrefix("Nothing to do: "), "\(again)")
    }
}
