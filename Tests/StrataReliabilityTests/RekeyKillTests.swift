import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata rekey` killed with SIGKILL at random moments, in every mode: WAL and rollback
/// journal, each with plaintext → key, key → key and key → plaintext (issue 24). After every
/// kill the file must open with the old key or the new one (none for plaintext), pass
/// `integrity_check`, hold every row of the database before, and be in its journal mode; in
/// key → key mode no file in the folder may hold the rows in plaintext. A later rekey removes the
/// copies a killed one left.
///
/// Runs against an encryption-capable SQLite only (`scripts/sqlite-versions.sh test` runs it on
/// SQLite3 Multiple Ciphers 3.54.0, and so does CI). `STRATA_REKEY_KILLS` sets the number of kills
/// (default 1,002: 167 per mode), `STRATA_REKEY_SEED` the seed of the kill moments;
/// `scripts/rekey-kill-test.sh N` runs it alone. Each database is small (about 130 KiB) and the
/// keys are raw (no key derivation), so a kill costs tens of milliseconds; the kill moments are
/// spread uniformly over 1.2 times the duration of an uninterrupted run of the mode, measured at the
/// start and again every 120 kills.
@Suite("Rekey kills", .serialized)
struct RekeyKillTests {
    static var kills: Int { ProcessInfo.processInfo.environment["STRATA_REKEY_KILLS"].flatMap { Int($0) } ?? 1002 }
    static var seed: UInt64 { ProcessInfo.processInfo.environment["STRATA_REKEY_SEED"].flatMap { UInt64($0) } ?? 24 }
    static let marker = "STRATA-REKEY-KILL-MARKER-7d3f"
    static let oldKey = "x'" + String(repeating: "0123456789ABCDEF", count: 4) + "'"
    static let newKey = "x'" + String(repeating: "FEDCBA9876543210", count: 4) + "'"

    struct Mode: CustomStringConvertible {
        var wal: Bool
        var from: String?
        var to: String?
        var description: String {
            "\(wal ? "WAL" : "rollback journal"), \(from == nil ? "plaintext" : "key") → \(to == nil ? "plaintext" : "key")"
        }
    }

    static let modes: [Mode] = [false, true].flatMap { wal in
        [
            Mode(wal: wal, from: nil, to: newKey), Mode(wal: wal, from: oldKey, to: newKey),
            Mode(wal: wal, from: oldKey, to: nil),
        ]
    }

    @Test(.requiresEncryption) func killingStrataRekeyLeavesTheOldOrTheNewDatabase() throws {
        let dir = TemporaryDirectory("strata-rekey-kills")
        let keys = (old: dir.file("old.key"), new: dir.file("new.key"))
        try Data(Self.oldKey.utf8).write(to: URL(fileURLWithPath: keys.old))
        try Data(Self.newKey.utf8).write(to: URL(fileURLWithPath: keys.new))
        func arguments(_ mode: Mode, _ path: String) -> [String] {
            ["rekey", "--db", path, "--busy-timeout", "2000"] + (mode.from == nil ? [] : ["--key-file", keys.old])
                + (mode.to == nil ? ["--remove-key"] : ["--new-key-file", keys.new])
        }
        func open(_ path: String, _ key: String?) throws -> Database? {
            var configuration = Configuration()
            if let key { configuration.encryptionKey = { .passphrase(key) } }
            do {
                return try Database(path: path, configuration: configuration)
            } catch let error as SQLiteError where error.resultCode == .SQLITE_NOTADB {
                return nil
            }
        }

        // One template per mode, its rows, and the duration of an uninterrupted rekey.
        var templates: [String] = []
        var expected: [DatabaseContents] = []
        var durations: [Double] = []
        for (index, mode) in Self.modes.enumerated() {
            let template = dir.file("template-\(index).sqlite")
            let db = try #require(try open(template, mode.from))
            _ = try db.fetchValue(String.self, sql: "PRAGMA journal_mode = \(mode.wal ? "WAL" : "DELETE")")
            try db.execute(
                sql: """
                    CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
                    CREATE INDEX note_body ON note(body);
                    CREATE TABLE tag(note_id INTEGER REFERENCES note(id), name TEXT, PRIMARY KEY (note_id, name)) WITHOUT ROWID;
                    """)
            try db.execute(
                sql: """
                    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 600)
                    INSERT INTO note(body) SELECT printf('%s %d %s', ?, i, hex(randomblob(30))) FROM c
                    """, arguments: [Self.marker])
            try db.execute(sql: "INSERT INTO tag SELECT id, 'tag ' || (id % 7) FROM note")
            expected.append(try DatabaseContents(db))
            db.close()
            templates.append(template)
            var runs: [Double] = []
            for _ in 0..<3 {
                let path = dir.file("measure.sqlite")
                try copyFile(template, to: path)
                let started = Date()
                let run = try ChildProcess.run("strata", arguments(mode, path))
                runs.append(Date().timeIntervalSince(started))
                #expect(run.status == 0, "\(mode): \(run)")
                let rekeyed = try #require(
                    try open(path, mode.to), "\(mode): the rekeyed file does not open with the new key")
                #expect(
                    try DatabaseContents(rekeyed) == expected[index], "\(mode): an uninterrupted rekey changed rows")
                #expect(
                    try rekeyed.fetchValue(String.self, sql: "PRAGMA journal_mode") == (mode.wal ? "wal" : "delete"))
                rekeyed.close()
                removeDatabase(path)
            }
            durations.append(runs.sorted()[1])
        }

        var rng = SeededRandom(seed: Self.seed)
        // old: killed before the copy existed; copying: killed while the copy was written or
        // checked (the old file in place, a copy beside it); new: killed after the rename.
        var tally = Array(repeating: (old: 0, copying: 0, new: 0, neither: 0), count: Self.modes.count)
        let started = Date()
        for trial in 0..<Self.kills {
            let index = trial % Self.modes.count
            let mode = Self.modes[index]
            let trialDir = TemporaryDirectory("strata-rekey-kill")
            let path = trialDir.file("db.sqlite")
            try copyFile(templates[index], to: path)
            if trial > 0, trial % 120 == index {
                // The machine's load changes: measure the mode again, so the kills stay spread
                // over the whole run (a run slower than measured would take no kill near its end).
                let path = trialDir.file("measure.sqlite")
                try copyFile(templates[index], to: path)
                let started = Date()
                let run = try ChildProcess.run("strata", arguments(mode, path))
                durations[index] = (durations[index] + Date().timeIntervalSince(started)) / 2
                #expect(run.status == 0, "\(mode): \(run)")
                removeDatabase(path)
            }
            let delay = Double.random(in: 0...(durations[index] * 1.2), using: &rng)
            let label = "kill \(trial) (\(mode), after \(Int(delay * 1000)) ms of \(Int(durations[index] * 1000)))"
            let output = TemporaryDirectory("strata-rekey-kill-output")
            let process = try ChildProcess.launch("strata", arguments(mode, path), output: output)
            usleep(UInt32(delay * 1_000_000))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            if process.terminationReason == .exit {
                let r = ChildProcess.result(of: process, output: output)
                #expect(r.status == 0, "\(label): strata rekey failed on its own: \(r)")
            }

            let db: Database
            let wasOld: Bool
            if let old = try open(path, mode.from) {
                db = old
                wasOld = true
                tally[index].old += 1
            } else if let new = try open(path, mode.to) {
                db = new
                wasOld = false
                tally[index].new += 1
            } else {
                tally[index].neither += 1
                Issue.record(
                    "\(label): the file opens with neither the old key nor the new one: \(filesIn(trialDir.path))")
                continue
            }
            #expect(try db.fetchColumn(String.self, sql: "PRAGMA integrity_check") == ["ok"], "\(label)")
            #expect(try DatabaseContents(db) == expected[index], "\(label): rows differ")
            #expect(
                try db.fetchValue(String.self, sql: "PRAGMA journal_mode") == (mode.wal ? "wal" : "delete"),
                "\(label): the journal mode changed")
            db.close()
            if mode.from != nil, mode.to != nil {
                let leaks = plaintextLeaks(in: trialDir.path, marker: Self.marker)
                #expect(leaks.isEmpty, "\(label): \(leaks)")
            }
            let copies = { filesIn(trialDir.path).filter { $0.contains(".strata-rekey-") } }
            if wasOld, !copies().isEmpty { tally[index].copying += 1 }
            if !wasOld {
                #expect(copies().isEmpty, "\(label): the new file is in place, and copies are left: \(copies())")
            } else if trial % 20 == 0 {
                // A rekey after the kill does the job and removes the copies the killed one left.
                let rerun = try ChildProcess.run("strata", arguments(mode, path))
                #expect(rerun.status == 0, "\(label): the rekey after the kill failed: \(rerun)")
                #expect(copies().isEmpty, "\(label): the rekey after the kill left \(copies())")
                let rekeyed = try open(path, mode.to)
                #expect(try rekeyed.map { try DatabaseContents($0) } == expected[index], "\(label): after the rerun")
                rekeyed?.close()
            }
        }
        let seconds = Date().timeIntervalSince(started)
        let summary = zip(Self.modes, tally).map {
            "\($0): old \($1.old) (\($1.copying) with a copy beside), new \($1.new), neither \($1.neither)"
        }
        print(
            "crash test (strata rekey): \(Self.kills) kills in \(String(format: "%.1f", seconds)) s; "
                + summary.joined(separator: "; "))
        #expect(tally.allSatisfy { $0.neither == 0 })
    }

    private func copyFile(_ source: String, to destination: String) throws {
        removeDatabase(destination)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
    }

    private func removeDatabase(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
