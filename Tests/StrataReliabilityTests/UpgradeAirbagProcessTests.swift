import Foundation
import Strata
import StrataTestSupport
import Testing

/// The upgrade airbag (issue 38) across processes, with `StrataTestHelper airbag` as the app:
/// a launch that upgrades and then crashes, M times (the next open restores, the same build does
/// not retry, a fixed build upgrades); a launch killed right after the upgrade's commit (the
/// launches after it are counted and confirm it as usual); and two processes upgrading or
/// restoring the same file at once, many rounds (`STRATA_AIRBAG_RACE_ROUNDS`, default 12 per
/// pairing): each waits or fails with a clear error, and the file, its restore points and its
/// state file are always one of the valid outcomes.
@Suite("Upgrade airbag across processes", .serialized)
struct UpgradeAirbagProcessTests {
    static var raceRounds: Int {
        ProcessInfo.processInfo.environment["STRATA_AIRBAG_RACE_ROUNDS"].flatMap { Int($0) } ?? 12
    }

    /// Folders of version 1, of the upgrade (the "build" under test) and of a build whose data
    /// step was fixed (another checksum), and a file at version 1 in rollback-journal or WAL mode.
    struct Setup {
        let dir = TemporaryDirectory("airbag-processes")
        var build: String { dir.file("build") }
        var fixedBuild: String { dir.file("fixed-build") }
        var version1 = ""
        var version1State: DatabaseState?

        init(wal: Bool) throws {
            let v1Steps = AirbagFixture.version1 + [AirbagFixture.seed(books: 300)]
            try AirbagFixture.writeFolder(v1Steps + AirbagFixture.upgrade, to: build)
            var fixed = AirbagFixture.upgrade
            fixed[fixed.count - 1].1 += "\nUPDATE book SET pages = pages WHERE id < 0;"
            try AirbagFixture.writeFolder(v1Steps + fixed, to: fixedBuild)
            let v1Folder = dir.file("v1")
            try AirbagFixture.writeFolder(v1Steps, to: v1Folder)
            version1 = dir.file("v1.sqlite")
            let db = try Database(path: version1)
            if wal { try db.execute(sql: "PRAGMA journal_mode = WAL") }
            var migrator = Migrator()
            migrator.registerMigrations(from: try MigrationDirectory(path: v1Folder))
            try migrator.migrate(db)
            version1State = try DatabaseState(db)
            db.close()
        }
    }

    @Test(arguments: [(2, false), (2, true), (3, false)])
    func aLaunchThatCrashesMTimesIsRestoredHeldBackAndAFixedBuildUpgrades(launches: Int, wal: Bool) throws {
        let setup = try Setup(wal: wal)
        let path = setup.dir.file("app.sqlite")
        try AirbagFixture.copyDatabase(setup.version1, to: path)
        let before = try #require(setup.version1State)
        let loop = ["--crash-loop", "\(launches)"]
        // Launch 1 upgrades and crashes before reporting a successful launch; the next ones
        // open the upgraded file and crash too (by SIGKILL, or abort() for the second).
        var upgraded: DatabaseState?
        for launch in 1...launches {
            let action = launch == 2 ? "abort" : "crash"
            let run = try AirbagFixture.airbag(path, setup.build, action, loop)
            #expect(run.status != 0, "launch \(launch) did not crash: \(run)")
            #expect(
                run.stdout.contains(launch == 1 ? "outcome upgraded" : "outcome upToDate"),
                "launch \(launch): \(run)")
            let state = try AirbagFixture.state(of: path)
            if let upgraded {
                #expect(state == upgraded, "launch \(launch) changed the upgraded file")
            } else {
                upgraded = state
                #expect(state != before, "launch 1 did not upgrade")
            }
            #expect(try UpgradeStatus(forDatabaseAt: path).lastUpgrade?.launchesWithoutSuccess == launch)
        }
        // The next open restores before anything else.
        let restored = try AirbagFixture.airbag(path, setup.build, "migrate", loop)
        #expect(restored.status == 0 && restored.stdout.contains("outcome restored"), "\(restored)")
        #expect(
            restored.stdout.contains("opened \(launches) times without a successful launch"), "\(restored.stdout)")
        #expect(try AirbagFixture.state(of: path) == before, "the old schema and every row are back")
        let status = try UpgradeStatus(forDatabaseAt: path)
        #expect(status.lastUpgrade?.phase == .restored)
        let held = try #require(status.heldBack.last)
        #expect(held.migrations == AirbagFixture.upgrade.map(\.0))
        do {
            let db = try Database(path: path)
            defer { db.close() }
            #expect(try integrityProblems(db).isEmpty)
            #expect(AirbagFixture.restoreFolderProblems(db, expected: before).isEmpty)
        }
        // The same build, launched again (and succeeding), does not retry the upgrade.
        for _ in 0..<2 {
            let again = try AirbagFixture.airbag(path, setup.build, "succeed", loop)
            #expect(again.status == 0 && again.stdout.contains("outcome heldBack"), "\(again)")
            #expect(try AirbagFixture.state(of: path) == before)
        }
        // A fixed build (another checksum for the data step) upgrades normally, and its
        // successful launches confirm it.
        let fixed = try AirbagFixture.airbag(path, setup.fixedBuild, "succeed", loop)
        #expect(fixed.status == 0 && fixed.stdout.contains("outcome upgraded"), "\(fixed)")
        let fixedState = try AirbagFixture.state(of: path)
        #expect(
            fixedState.rows.filter { $0.key != "strata_migrations" }
                == upgraded?.rows.filter { $0.key != "strata_migrations" })
        for _ in 0..<2 {
            let run = try AirbagFixture.airbag(path, setup.fixedBuild, "succeed", loop)
            #expect(run.status == 0 && run.stdout.contains("outcome upToDate"), "\(run)")
        }
        let confirmed = try UpgradeStatus(forDatabaseAt: path)
        #expect(confirmed.lastUpgrade?.phase == .confirmed, "\(confirmed)")
        #expect(confirmed.restorePoints.isEmpty)
        #expect(try AirbagFixture.state(of: path) == fixedState)
    }

    /// A launch killed between the upgrade's commit and its record in `upgrade.json`: the
    /// launches after it must be counted and confirmed as after any upgrade. (Before the fix,
    /// the record stayed `upgrading`: successful launches were ignored, and the third open
    /// restored a file whose every launch had succeeded.)
    @Test(arguments: [false, true])
    func aLaunchKilledRightAfterTheCommitLeavesAnUpgradeTheNextLaunchesConfirm(wal: Bool) throws {
        let setup = try Setup(wal: wal)
        let path = setup.dir.file("app.sqlite")
        // The kill point: the first file step after the last migration's end (the commit).
        try AirbagFixture.copyDatabase(setup.version1, to: path)
        let markers = try AirbagFixture.airbag(path, setup.build, "migrate", environment: ["STRATA_TEST_MARKERS": "1"])
        try #require(markers.status == 0, "\(markers)")
        let upgraded = try AirbagFixture.state(of: path)
        let lines = markers.stdout.split(separator: "\n").filter { $0.hasPrefix("marker ") }
        let last = try #require(lines.lastIndex { $0.contains("migration") && $0.contains("finished") })
        let point = try #require(Int(lines[last + 1].split(separator: " ")[1]))
        #expect(lines[last + 1].contains("upgrade.json"), "\(lines[last + 1])")

        try AirbagFixture.copyDatabase(setup.version1, to: path)
        let killed = try AirbagFixture.airbag(
            path, setup.build, "migrate", environment: ["STRATA_TEST_KILL_AT": "\(point)"])
        #expect(killed.status != 0 && !killed.stdout.contains("done"), "\(killed)")
        #expect(try AirbagFixture.state(of: path) == upgraded, "the upgrade committed")
        // Three launches that succeed: never restored, and the upgrade is confirmed.
        for launch in 1...3 {
            let run = try AirbagFixture.airbag(path, setup.build, "succeed")
            #expect(run.status == 0 && run.stdout.contains("outcome upToDate"), "launch \(launch): \(run)")
            #expect(try AirbagFixture.state(of: path) == upgraded, "launch \(launch) restored a working upgrade")
        }
        let status = try UpgradeStatus(forDatabaseAt: path)
        #expect(status.lastUpgrade?.phase == .confirmed, "\(String(describing: status.lastUpgrade))")
        #expect(status.restorePoints.isEmpty)
    }

    /// Two processes started together on the same file, many rounds: two upgrades, two
    /// restores, an upgrade and a restore. Each exits 0 or with a clear error (exit status 3,
    /// `error CODE: ...` naming the file), never a crash or an unexpected error; the file is then
    /// one of the valid states, passes `integrity_check`, and every restore point listed is
    /// whole and holds version 1.
    @Test(arguments: [false, true])
    func twoProcessesUpgradingOrRestoringAtOnceWaitOrFailCleanly(wal: Bool) throws {
        let setup = try Setup(wal: wal)
        let before = try #require(setup.version1State)
        let upgradedTemplate = setup.dir.file("upgraded.sqlite")
        try AirbagFixture.copyDatabase(setup.version1, to: upgradedTemplate)
        let run = try AirbagFixture.airbag(upgradedTemplate, setup.build, "migrate")
        try #require(run.status == 0, "\(run)")
        let upgraded = try AirbagFixture.state(of: upgradedTemplate)

        struct Pairing {
            var name: String
            var template: String
            var actions: (String, String)
            var valid: [DatabaseState]
        }
        let pairings = [
            Pairing(name: "two upgrades", template: setup.version1, actions: ("migrate", "migrate"), valid: [upgraded]),
            Pairing(name: "two restores", template: upgradedTemplate, actions: ("restore", "restore"), valid: [before]),
            Pairing(
                name: "an upgrade and a restore", template: upgradedTemplate, actions: ("migrate", "restore"),
                valid: [before, upgraded]),
        ]
        var tally: [String: Int] = [:]
        for round in 0..<Self.raceRounds {
            for pairing in pairings {
                let trial = TemporaryDirectory("airbag-race")
                let path = trial.file("app.sqlite")
                try AirbagFixture.copyDatabase(pairing.template, to: path)
                let start = trial.file("go")
                let label = "round \(round), \(pairing.name)"
                let outputs = [TemporaryDirectory("airbag-race-a"), TemporaryDirectory("airbag-race-b")]
                let processes = try [pairing.actions.0, pairing.actions.1].enumerated().map { index, action in
                    try ChildProcess.launch(
                        "StrataTestHelper", ["airbag", path, setup.build, action, "--start-file", start],
                        output: outputs[index])
                }
                usleep(20_000)
                _ = FileManager.default.createFile(atPath: start, contents: nil)
                var outcomes: [String] = []
                for (index, process) in processes.enumerated() {
                    let result = ChildProcess.result(of: process, output: outputs[index], seconds: 120)
                    #expect(process.terminationReason == .exit, "\(label): process \(index) crashed: \(result)")
                    if result.status == 0 {
                        let line = result.stdout.split(separator: "\n").first {
                            $0.hasPrefix("outcome ") || $0.hasPrefix("restored ")
                        }
                        outcomes.append(line.map(String.init) ?? "?")
                    } else {
                        #expect(result.status == 3, "\(label): process \(index) failed unexpectedly: \(result)")
                        #expect(
                            result.stderr.hasPrefix("error ") && result.stderr.contains(path),
                            "\(label): not a clear error: \(result.stderr)")
                        outcomes.append(
                            "failed "
                                + (result.stderr.split(separator: ":").first.map(String.init) ?? result.stderr))
                    }
                }
                tally["\(pairing.name): \(outcomes.sorted().joined(separator: " + "))", default: 0] += 1

                let db = try Database(path: path)
                defer { db.close() }
                #expect(try integrityProblems(db).isEmpty, "\(label): integrity_check")
                let state = try DatabaseState(db)
                #expect(pairing.valid.contains(state), "\(label): not a valid state")
                let problems = AirbagFixture.restoreFolderProblems(db, expected: before)
                #expect(problems.isEmpty, "\(label): \(problems)")
                let status = try UpgradeStatus(forDatabaseAt: path)
                if state == upgraded {
                    // The upgrade's record points at a restore point of version 1: the way back.
                    let id = status.lastUpgrade?.restorePointID
                    #expect(
                        status.lastUpgrade?.phase == .unconfirmed && status.restorePoints.contains { $0.id == id },
                        "\(label): the upgraded file's record: \(status)")
                    try db.restore()
                    #expect(try DatabaseState(db) == before, "\(label): the restore after the race")
                } else {
                    #expect(status.lastUpgrade?.phase == .restored, "\(label): \(status)")
                }
            }
        }
        print(
            "two processes (\(wal ? "WAL" : "rollback journal")), \(Self.raceRounds) rounds per pairing: "
                + tally.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))
    }
}
