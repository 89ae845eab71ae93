import Foundation
import Strata
import StrataTestSupport
import Testing

/// The upgrade airbag (issue 38) killed with SIGKILL at random moments: `StrataTestHelper airbag`
/// runs an upgrade behind a restore point (`migrator.migrate(db, safety:)`: add a column and a
/// table, drop a column on SQLite 3.35.5 and later, a table rebuilt by hand, a data step; in one
/// transaction), a restore (`db.restore()`) when nothing was written since the upgrade (the exact
/// path) and when rows were (carried back), and the restore a crash loop makes at the next open,
/// each in rollback-journal and WAL mode. Half the kills land at a random kill point the helper
/// counts (each file step of the package, each migration's start and end: the helper kills
/// itself there), half after a random delay spread over 1.2 times an uninterrupted run.
///
/// After every kill: `integrity_check` and `foreign_key_check` pass; the schema and every row
/// are those before or after the operation (compared with both); `upgrade.json` is readable;
/// every restore point it lists is whole and valid (the library's check: size, checksum,
/// `quick_check`, the digests of its record) and holds every row of the state before the upgrade
/// (compared independently), and one is listed whenever the file is past the upgrade; the same
/// operation rerun in a fresh process completes with the state after it, and the upgrade's
/// record agrees with the file (an upgrade unconfirmed, a restore restored, a crash loop held
/// back). After an upgrade's rerun the restore point also takes the file back to every row
/// before the upgrade.
///
/// `STRATA_AIRBAG_KILLS` sets the number of kills (default 300, 50 per mode), `STRATA_AIRBAG_SEED`
/// the seed of the kill moments.
@Suite("Upgrade airbag kills", .serialized)
struct UpgradeAirbagKillTests {
    static var kills: Int { ProcessInfo.processInfo.environment["STRATA_AIRBAG_KILLS"].flatMap { Int($0) } ?? 300 }
    static var seed: UInt64 { ProcessInfo.processInfo.environment["STRATA_AIRBAG_SEED"].flatMap { UInt64($0) } ?? 38 }
    static let books = 2000

    enum Operation: String {
        case upgrade
        case restoreExact = "restore (exact)"
        case restoreCarried = "restore (rows carried back)"
        case crashLoopExact = "crash-loop restore (exact)"
        case crashLoopCarried = "crash-loop restore (rows carried back)"
    }

    struct Mode: CustomStringConvertible {
        var operation: Operation
        var wal: Bool
        var template = ""
        var before: DatabaseState? = nil
        var after: DatabaseState? = nil
        var duration = 0.0
        var killPoints = 0
        var action: String {
            switch operation {
            case .upgrade, .crashLoopExact, .crashLoopCarried: "migrate"
            case .restoreExact, .restoreCarried: "restore"
            }
        }
        var description: String { "\(operation.rawValue), \(wal ? "WAL" : "rollback journal")" }
    }

    @Test func killsLeaveTheStateBeforeOrAfterAndAWholeRestorePointOrNone() throws {
        let dir = TemporaryDirectory("airbag-kills")
        let folder = dir.file("migrations")
        try AirbagFixture.writeFolder(
            AirbagFixture.version1 + [AirbagFixture.seed(books: Self.books)] + AirbagFixture.upgrade, to: folder)
        let version1Folder = dir.file("migrations-v1")
        try AirbagFixture.writeFolder(
            AirbagFixture.version1 + [AirbagFixture.seed(books: Self.books)], to: version1Folder)

        // Templates: version 1, upgraded, upgraded then written, and both with the launches of a crash loop.
        var modes: [Mode] = []
        var version1State: DatabaseState?
        for wal in [false, true] {
            let name = wal ? "wal" : "delete"
            let v1 = dir.file("v1-\(name).sqlite")
            do {
                // Version 1, migrated without the airbag: no restore folder yet.
                let db = try Database(path: v1)
                if wal { try db.execute(sql: "PRAGMA journal_mode = WAL") }
                var migrator = Migrator()
                migrator.registerMigrations(from: try MigrationDirectory(path: version1Folder))
                try migrator.migrate(db)
                db.close()
            }
            let v1State = try AirbagFixture.state(of: v1)
            if let version1State {
                let same = v1State == version1State
                #expect(same, "version 1 differs between the journal modes")
            }
            version1State = v1State

            let upgraded = dir.file("upgraded-\(name).sqlite")
            try AirbagFixture.copyDatabase(v1, to: upgraded)
            let run = try AirbagFixture.airbag(upgraded, folder, "migrate")
            try #require(run.status == 0 && run.stdout.contains("outcome upgraded"), "\(run)")
            let upgradedState = try AirbagFixture.state(of: upgraded)

            let written = dir.file("written-\(name).sqlite")
            try AirbagFixture.copyDatabase(upgraded, to: written)
            do {
                let db = try Database(path: written)
                try db.execute(sql: AirbagFixture.writesAfterUpgrade)
                db.close()
            }
            let writtenState = try AirbagFixture.state(of: written)

            // One more open without a successful launch: the next open restores (crash loop of 2).
            var loops: [String] = []
            for source in [upgraded, written] {
                let looped = dir.file("loop-\(loops.count)-\(name).sqlite")
                try AirbagFixture.copyDatabase(source, to: looped)
                let open = try AirbagFixture.airbag(looped, folder, "migrate")
                try #require(open.status == 0 && open.stdout.contains("outcome upToDate"), "\(open)")
                #expect(try UpgradeStatus(forDatabaseAt: looped).lastUpgrade?.launchesWithoutSuccess == 2)
                loops.append(looped)
            }
            modes.append(Mode(operation: .upgrade, wal: wal, template: v1, before: v1State, after: upgradedState))
            if wal {
                modes.append(
                    Mode(operation: .restoreExact, wal: wal, template: upgraded, before: upgradedState, after: v1State))
                modes.append(Mode(operation: .crashLoopCarried, wal: wal, template: loops[1], before: writtenState))
            } else {
                modes.append(Mode(operation: .restoreCarried, wal: wal, template: written, before: writtenState))
                modes.append(
                    Mode(
                        operation: .crashLoopExact, wal: wal, template: loops[0], before: upgradedState, after: v1State)
                )
            }
        }
        let v1State = try #require(version1State)

        // One uninterrupted run per mode: the state after, its duration, and its kill points.
        for index in modes.indices {
            var mode = modes[index]
            let path = dir.file("measure.sqlite")
            var durations: [Double] = []
            for round in 0..<3 {
                try AirbagFixture.copyDatabase(mode.template, to: path)
                let started = Date()
                let run = try AirbagFixture.airbag(
                    path, folder, mode.action, environment: round == 0 ? ["STRATA_TEST_MARKERS": "1"] : [:])
                durations.append(Date().timeIntervalSince(started))
                try #require(run.status == 0, "\(mode): \(run)")
                if round == 0 {
                    mode.killPoints = run.stdout.split(separator: "\n").filter { $0.hasPrefix("marker ") }.count
                }
                let state = try AirbagFixture.state(of: path)
                if let after = mode.after {
                    #expect(state == after, "\(mode): an uninterrupted run gives \(state.differences(from: after))")
                } else {
                    mode.after = state
                }
            }
            mode.duration = durations.sorted()[1]
            #expect(mode.after != mode.before, "\(mode): the operation changes nothing")
            #expect(mode.killPoints > 0, "\(mode): no kill point counted")
            modes[index] = mode
        }
        if modes.contains(where: { $0.operation == .crashLoopCarried || $0.operation == .restoreCarried }) {
            // Carried back: the rows written since the upgrade, on the older schema.
            let carried = try #require(modes.first { $0.operation == .restoreCarried }?.after)
            #expect(carried.rows["author"]?.contains { $0.contains(.text("written after the upgrade")) } == true)
            #expect(carried.rows["shelf"] == nil, "the table the upgrade added is gone")
        }

        var rng = SeededRandom(seed: Self.seed)
        var tally: [String: Int] = [:]
        let started = Date()
        for trial in 0..<Self.kills {
            let mode = modes[trial % modes.count]
            let trialDir = TemporaryDirectory("airbag-kill")
            let path = trialDir.file("app.sqlite")
            try AirbagFixture.copyDatabase(mode.template, to: path)
            let byPoint = (trial / modes.count) % 2 == 0
            var environment: [String: String] = [:]
            let label: String
            let delay: Double
            if byPoint {
                let point = Int.random(in: 1...mode.killPoints, using: &rng)
                environment["STRATA_TEST_KILL_AT"] = "\(point)"
                delay = 0
                label = "kill \(trial) (\(mode), at kill point \(point) of \(mode.killPoints))"
            } else {
                delay = Double.random(in: 0...(mode.duration * 1.2), using: &rng)
                label = "kill \(trial) (\(mode), after \(Int(delay * 1000)) ms of \(Int(mode.duration * 1000)))"
            }
            let output = TemporaryDirectory("airbag-kill-output")
            let process = try ChildProcess.launch(
                "StrataTestHelper", ["airbag", path, folder, mode.action], output: output, environment: environment)
            if !byPoint {
                usleep(UInt32(delay * 1_000_000))
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            }
            BoundedWait.exit(of: process)
            let killed = process.terminationReason == .uncaughtSignal
            if !killed {
                let r = ChildProcess.result(of: process, output: output)
                #expect(r.status == 0, "\(label): the helper failed on its own: \(r)")
            }
            let kind = try check(path, mode: mode, version1: v1State, label: label)
            tally["\(mode): \(killed ? "killed" : "finished") \(kind)", default: 0] += 1

            // The same operation, rerun in a fresh process, completes.
            let rerun = try AirbagFixture.airbag(path, folder, mode.action)
            #expect(rerun.status == 0, "\(label): the rerun failed: \(rerun)")
            try checkRerun(path, mode: mode, version1: v1State, label: label)
        }
        let seconds = Date().timeIntervalSince(started)
        print(
            "crash test (upgrade airbag): \(Self.kills) kills in \(String(format: "%.1f", seconds)) s on SQLite \(SQLiteVersion.runtime)"
                + "\(AirbagFixture.hasDropColumn ? "" : " (no DROP COLUMN migration)"); "
                + tally.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))
        #expect(tally.keys.allSatisfy { !$0.hasSuffix("neither") })
    }

    /// The checks after a kill; returns which state the file is in.
    private func check(_ path: String, mode: Mode, version1: DatabaseState, label: String) throws -> String {
        let db = try Database(path: path)
        defer { db.close() }
        #expect(try integrityProblems(db).isEmpty, "\(label): integrity_check failed")
        #expect(try db.fetchAll(sql: "PRAGMA foreign_key_check").isEmpty, "\(label): foreign key violations")
        let state = try DatabaseState(db)
        let kind: String
        if state == mode.before {
            kind = "before"
        } else if state == mode.after {
            kind = "after"
        } else {
            kind = "neither"
            Issue.record(
                "\(label): neither the state before nor after: \(mode.after.map { state.differences(from: $0) } ?? "")")
        }
        let problems = AirbagFixture.restoreFolderProblems(db, expected: version1)
        #expect(problems.isEmpty, "\(label): \(problems)")
        let status = try UpgradeStatus(forDatabaseAt: path)
        if mode.operation == .upgrade, kind == "after" {
            // Past the upgrade, the way back is recorded.
            let id = status.lastUpgrade?.restorePointID
            #expect(
                id != nil && status.restorePoints.contains { $0.id == id },
                "\(label): the file is upgraded and its restore point is not listed: \(status)")
        }
        if mode.operation != .upgrade {
            #expect(!status.restorePoints.isEmpty, "\(label): the restore point is gone")
        }
        return kind
    }

    /// The checks after the rerun.
    private func checkRerun(_ path: String, mode: Mode, version1: DatabaseState, label: String) throws {
        let db = try Database(path: path)
        defer { db.close() }
        #expect(try integrityProblems(db).isEmpty, "\(label), rerun: integrity_check failed")
        let state = try DatabaseState(db)
        #expect(
            state == mode.after,
            "\(label): the rerun did not give the state after: \(mode.after.map { state.differences(from: $0) } ?? "")")
        let problems = AirbagFixture.restoreFolderProblems(db, expected: version1)
        #expect(problems.isEmpty, "\(label), rerun: \(problems)")
        let status = try UpgradeStatus(forDatabaseAt: path)
        let upgrade = status.lastUpgrade
        switch mode.operation {
        case .upgrade:
            #expect(
                upgrade?.phase == .unconfirmed,
                "\(label): after the rerun the upgrade is \(upgrade.map { "\($0.phase)" } ?? "not recorded"), not unconfirmed"
            )
            #expect(try AirbagFixture.unlistedFiles(path).isEmpty, "\(label): left in the restore folder")
            // The way back works: every row before the upgrade.
            try db.restore()
            #expect(try DatabaseState(db) == version1, "\(label): the restore after the rerun")
        case .restoreExact, .restoreCarried:
            #expect(
                upgrade?.phase == .restored, "\(label): after the rerun the upgrade is \(String(describing: upgrade))")
        case .crashLoopExact, .crashLoopCarried:
            #expect(
                upgrade?.phase == .restored, "\(label): after the rerun the upgrade is \(String(describing: upgrade))")
            #expect(
                status.heldBack.contains { $0.key == upgrade?.key }, "\(label): the upgrade is not held back: \(status)"
            )
        }
    }
}
