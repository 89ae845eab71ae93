import Foundation
import Strata
import StrataTestSupport
import Testing

/// The attacks that once cost rows or leaked data (issue 11), replayed with random data and random
/// timings through the `strata` command line. Each trial checks the outcome a user is promised:
/// either the change happened with every row kept, or exit 1 with a clear message and the database
/// exactly as it was.
///
/// `STRATA_ATTACK_TRIALS` sets the trials per attack (default 6), `STRATA_ATTACK_SEED` the seed;
/// `scripts/attack-test.sh N SEED` runs more and prints the tally of outcomes.
@Suite("Attacks replayed through the command line", .serialized)
struct AttackTests {
    static var trials: Int { ProcessInfo.processInfo.environment["STRATA_ATTACK_TRIALS"].flatMap { Int($0) } ?? 6 }
    static var seed: UInt64 { ProcessInfo.processInfo.environment["STRATA_ATTACK_SEED"].flatMap { UInt64($0) } ?? 11 }

    /// Outcomes per attack, for the summary line the script prints.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var counts = [String: Int]()
        func add(_ outcome: String) { lock.withLock { counts[outcome, default: 0] += 1 } }
        func report(_ attack: String) {
            let text = lock.withLock {
                counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            }
            print("attack test: \(attack): \(text)")
        }
    }

    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    // MARK: 1. Conflict clauses in a rebuild

    /// A desired definition with `ON CONFLICT REPLACE/IGNORE` (or a CHECK) over random rows that
    /// may or may not collide: the rebuild keeps every row or is refused with the file unchanged.
    @Test func conflictClausesInARebuild() throws {
        var rng = SeededRandom(seed: Self.seed)
        let tally = Tally()
        let clauses = [
            "email TEXT UNIQUE ON CONFLICT REPLACE", "email TEXT UNIQUE ON CONFLICT IGNORE",
            "email TEXT UNIQUE ON CONFLICT FAIL", "email TEXT UNIQUE ON CONFLICT ROLLBACK",
            "email TEXT CHECK (email <> 'bad') ON CONFLICT IGNORE",
        ]
        for trial in 0..<Self.trials {
            let dir = TemporaryDirectory("strata-attack-conflict")
            let db = dir.file("app.sqlite")
            let rows = Int.random(in: 20...2_000, using: &rng)
            let collide = rng.chance(60)
            let wal = rng.chance(50)
            let withoutRowID = rng.chance(30)
            do {
                let database = try Database(path: db)
                if wal { _ = try database.fetchValue(String.self, sql: "PRAGMA journal_mode = WAL") }
                try database.execute(sql: "CREATE TABLE account(id INTEGER NOT NULL PRIMARY KEY, email TEXT)")
                try database.transaction {
                    for i in 1...rows {
                        try database.execute(sql: "INSERT INTO account VALUES (?, ?)", arguments: [i, "u\(i)@x"])
                    }
                    if collide {
                        // Two rows with one email, and one row that the CHECK refuses.
                        let i = Int.random(in: 1...rows, using: &rng)
                        let j = (i % rows) + 1
                        try database.execute(
                            sql: "UPDATE account SET email = ? WHERE id = ?", arguments: ["u\(i)@x", j])
                        try database.execute(
                            sql: "UPDATE account SET email = 'bad' WHERE id = ?",
                            arguments: [Int.random(in: 1...rows, using: &rng)])
                    }
                }
                database.close()
            }
            let clause = rng.pick(clauses)
            let schema = dir.file("schema.sql")
            try Self.write(
                "CREATE TABLE account(id INTEGER NOT NULL PRIMARY KEY, \(clause))\(withoutRowID ? " WITHOUT ROWID" : "");",
                to: schema)
            let before = try DatabaseContents(try Database(path: db))
            let bytes = fileBytes(db)
            let run = try ChildProcess.strata(["apply", "--db", db, "--schema", schema])
            let label = "trial \(trial) (\(clause), \(rows) rows, collide \(collide), wal \(wal))"
            let after = try Database(path: db)
            defer { after.close() }
            if run.status == 0 {
                tally.add("applied")
                // Every row kept, value for value.
                #expect(
                    try DatabaseContents(after).rows["account"]?.map { Array($0.suffix(2)) }
                        == before.rows["account"]?.map { Array($0.suffix(2)) }, "\(label): rows changed")
            } else {
                tally.add("refused")
                #expect(run.status == 1, "\(label): \(run)")
                #expect(run.stderr.hasPrefix("strata: ") && run.stderr.contains("account"), "\(label): \(run.stderr)")
                #expect(!run.stderr.contains("strata_tmp"), "\(label): \(run.stderr)")
                if !wal { #expect(fileBytes(db) == bytes, "\(label): the file changed") }
                #expect(try DatabaseContents(after) == before, "\(label): the database changed")
            }
            #expect(try after.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok", "\(label)")
        }
        tally.report("conflict clauses")
    }

    // MARK: 2. Rows committed between plan and apply

    /// `strata apply` turns `id` into the INTEGER PRIMARY KEY and `name` NOT NULL while another
    /// connection commits a row with a NULL at a random moment. If that row went into the old
    /// table, the apply must be refused (the NULL never silently becomes a rowid); if it went in
    /// after, the apply happened with every row kept.
    @Test func nullsCommittedWhileApplying() throws {
        var rng = SeededRandom(seed: Self.seed &+ 1)
        let tally = Tally()
        for trial in 0..<Self.trials {
            let dir = TemporaryDirectory("strata-attack-race")
            let db = dir.file("app.sqlite")
            let rows = Int.random(in: 2_000...40_000, using: &rng)
            do {
                let database = try Database(path: db)
                try database.execute(sql: "CREATE TABLE item(id INTEGER, name TEXT)")
                try database.execute(
                    sql: """
                        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(rows))
                        INSERT INTO item SELECT x, 'n' || x FROM c
                        """)
                database.close()
            }
            let nullID = rng.chance(50)
            let schema = dir.file("schema.sql")
            try Self.write("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL);", to: schema)
            let delay = UInt32.random(in: 0...150_000, using: &rng)

            let output = TemporaryDirectory("strata-attack-race-out")
            let apply = try ChildProcess.launch("strata", ["apply", "--db", db, "--schema", schema], output: output)
            usleep(delay)
            // The interloper: one transaction that sees which table it writes into.
            var configuration = Configuration()
            configuration.busyTimeout = 30
            let writer = try Database(path: db, configuration: configuration)
            var wroteIntoOldTable = false
            var writeError: Error?
            do {
                try writer.transaction(.immediate) {
                    let sql =
                        try writer.fetchValue(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = 'item'")
                        ?? ""
                    wroteIntoOldTable = !sql.contains("PRIMARY KEY")
                    try writer.execute(
                        sql: nullID
                            ? "INSERT INTO item(id, name) VALUES (NULL, 'late')"
                            : "INSERT INTO item(id, name) VALUES (\(rows + 1), NULL)")
                }
            } catch {
                writeError = error
            }
            writer.close()
            let run = ChildProcess.result(of: apply, output: output)
            let label = "trial \(trial) (\(rows) rows, NULL \(nullID ? "id" : "name"), after \(delay / 1000) ms)"

            let after = try Database(path: db)
            defer { after.close() }
            let count = try after.fetchValue(Int.self, sql: "SELECT count(*) FROM item") ?? -1
            if wroteIntoOldTable {
                #expect(writeError == nil, "\(label): \(String(describing: writeError))")
                #expect(run.status == 1, "\(label): a NULL committed before the apply must refuse it: \(run)")
                #expect(
                    run.stderr.contains(
                        nullID ? "column id becomes the INTEGER PRIMARY KEY" : "column name becomes NOT NULL"),
                    "\(label): \(run.stderr)")
                #expect(count == rows + 1, "\(label)")
                #expect(
                    try after.fetchValue(
                        Int.self, sql: "SELECT count(*) FROM item WHERE \(nullID ? "id" : "name") IS NULL") == 1,
                    "\(label)")
                tally.add(
                    run.stderr.contains("found inside the applying transaction")
                        ? "refused inside the transaction" : "refused by the preflight")
            } else {
                #expect(run.status == 0, "\(label): \(run)")
                #expect(
                    try after.fetchValue(
                        Int.self, sql: "SELECT count(*) FROM item WHERE id <= \(rows) AND name = 'n' || id") == rows,
                    "\(label)")
                if nullID {
                    // Inserted into the new table: SQLite gives the NULL id a fresh rowid, as it should there.
                    #expect(writeError == nil && count == rows + 1, "\(label)")
                } else {
                    #expect(
                        writeError != nil && count == rows, "\(label): a NULL name must be refused by the new table")
                }
                tally.add("applied, then the row was written")
            }
            #expect(try after.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok", "\(label)")
        }
        tally.report("NULLs committed while applying")
    }

    // MARK: 3. A disk that fills up

    /// `strata apply` (an index build) or `strata migrate` (a bulk copy) on a tmpfs of random size
    /// in rollback-journal or WAL mode: done, or refused with the file as it was and no journal.
    @Test(.enabled(if: SmallFileSystem.isAvailable, "mounting a tmpfs needs root"))
    func diskFillsUp() throws {
        var rng = SeededRandom(seed: Self.seed &+ 2)
        let tally = Tally()
        let dir = TemporaryDirectory("strata-attack-full")
        var templates = [String]()
        for wal in [false, true] {
            let path = dir.file("template-\(wal).sqlite")
            let db = try Database(path: path)
            if wal { _ = try db.fetchValue(String.self, sql: "PRAGMA journal_mode = WAL") }
            try db.execute(
                sql: """
                    CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT);
                    WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
                    INSERT INTO t(a, b) SELECT printf('%0120d', x), printf('%0160d', x) FROM c;
                    PRAGMA wal_checkpoint(TRUNCATE);
                    """)
            db.close()
            templates.append(path)
        }
        let schema = dir.file("schema.sql")
        try Self.write(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT); CREATE INDEX ta ON t(a); CREATE INDEX tb ON t(b);",
            to: schema)
        let migrations = dir.file("migrations")
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
        try Self.write(
            "CREATE TABLE copy(id INTEGER PRIMARY KEY, a TEXT, b TEXT);\nINSERT INTO copy SELECT * FROM t;\nCREATE INDEX copy_a ON copy(a);\n",
            to: migrations + "/0001_copy.sql")
        for trial in 0..<Self.trials {
            let wal = rng.chance(50)
            let migrate = rng.chance(50)
            let size = Int.random(in: 6_500...16_000, using: &rng)
            let fs = try SmallFileSystem(kilobytes: size)
            let db = fs.file("app.sqlite")
            let original = fileBytes(templates[wal ? 1 : 0])
            try original.write(to: URL(fileURLWithPath: db))
            let before = try DatabaseContents(try Database(path: db))
            let run = try ChildProcess.strata(
                migrate
                    ? ["migrate", "--db", db, "--migrations", migrations] : ["apply", "--db", db, "--schema", schema])
            let label =
                "trial \(trial) (\(migrate ? "migrate" : "apply"), \(wal ? "WAL" : "rollback journal"), \(size) KiB)"
            if run.status == 0 {
                tally.add("done")
            } else {
                tally.add("disk full, unchanged")
                #expect(run.status == 1, "\(label): \(run)")
                #expect(run.stderr.contains("full"), "\(label): \(run.stderr)")
                if !wal {
                    #expect(fileBytes(db) == original, "\(label): the file changed")
                    #expect(!FileManager.default.fileExists(atPath: db + "-journal"), "\(label): a journal was left")
                }
                let after = try Database(path: db)
                #expect(try DatabaseContents(after) == before, "\(label)")
                after.close()
            }
        }
        tally.report("disk fills up")
    }

    // MARK: 4. Backups aimed at what they must not destroy

    /// `strata apply --backup TARGET` (with or without `--force-backup`) where TARGET is, at random,
    /// the live database by another spelling or link, one of its journal files, an existing file, a
    /// directory with files, a path under a file, or a fresh path; an app holds the database open
    /// with rows in its WAL. Refused: the database, the app's rows and the target untouched.
    /// Written: a whole copy with every row and no wider permissions than the database.
    @Test func backupsAimedAtTheWrongThing() throws {
        var rng = SeededRandom(seed: Self.seed &+ 3)
        let tally = Tally()
        let kinds = [
            "./db", "symlink", "hard link", "-wal", "-shm", "-journal", "existing file", "directory", "under a file",
            "fresh",
        ]
        for trial in 0..<Self.trials {
            let dir = TemporaryDirectory("strata-attack-backup")
            let db = dir.file("app.sqlite")
            let mode = rng.pick([0o600, 0o640, 0o644])
            do {
                let database = try Database(path: db)
                _ = try database.fetchValue(String.self, sql: "PRAGMA journal_mode = WAL")
                try database.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
                try database.execute(
                    sql:
                        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < \(Int.random(in: 10...3000, using: &rng))) INSERT INTO note(body) SELECT hex(randomblob(30)) FROM c"
                )
                database.close()
            }
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: db)
            let app = try Database(path: db)
            try app.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try app.execute(sql: "INSERT INTO note(body) VALUES ('committed by the app, in the WAL only')")
            let schema = dir.file("schema.sql")
            try Self.write("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT, tag TEXT);", to: schema)
            let kind = rng.pick(kinds)
            let force = rng.chance(50)
            var target = dir.file("backup.sqlite")
            var protected: Data? = nil
            switch kind {
            case "./db": target = dir.path + "/./app.sqlite"
            case "symlink": try FileManager.default.createSymbolicLink(atPath: target, withDestinationPath: db)
            case "hard link": try FileManager.default.linkItem(atPath: db, toPath: target)
            case "-wal", "-shm", "-journal": target = db + kind
            case "existing file":
                let older = Data("an older backup".utf8)
                protected = older
                try older.write(to: URL(fileURLWithPath: target))
            case "directory":
                try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
                try Self.write("keep me", to: target + "/inside.txt")
            case "under a file":
                try Self.write("a file", to: dir.file("plain"))
                target = dir.file("plain") + "/backup.sqlite"
            default: break
            }
            let before = try DatabaseContents(app)
            let run = try ChildProcess.strata(
                ["apply", "--db", db, "--schema", schema, "--backup", target] + (force ? ["--force-backup"] : []))
            let label = "trial \(trial) (\(kind), force \(force), mode \(String(mode, radix: 8)))"
            let mayWrite = kind == "fresh" || (kind == "existing file" && force)
            if mayWrite {
                #expect(run.status == 0, "\(label): \(run)")
                let copy = try Database(path: target)
                #expect(
                    try DatabaseContents(copy).rows == before.rows, "\(label): the backup is not the whole database")
                copy.close()
                let backupMode =
                    ((try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions]) as? NSNumber)?
                    .intValue ?? -1
                #expect(backupMode & ~mode == 0, "\(label): backup mode \(String(backupMode, radix: 8))")
                tally.add("written")
            } else {
                #expect(run.status == 1, "\(label): \(run)")
                #expect(run.stderr.hasPrefix("strata: "), "\(label): \(run.stderr)")
                #expect(try DatabaseContents(app) == before, "\(label): the database changed")
                if let protected { #expect(fileBytes(target) == protected, "\(label): the existing file changed") }
                if kind == "directory" {
                    #expect(fileBytes(target + "/inside.txt") == Data("keep me".utf8), "\(label)")
                }
                tally.add("refused")
            }
            app.close()
        }
        tally.report("backups aimed at the wrong thing")
    }

    // MARK: 5. Transaction control smuggled into a migration

    /// A migration file made of random look-alike statements (names and strings that say trigger,
    /// begin, end, commit) with one real transaction-control statement at a random place: refused
    /// before it commits anything, the ledger and the file unchanged.
    @Test func transactionControlSmuggledIntoAMigration() throws {
        var rng = SeededRandom(seed: Self.seed &+ 4)
        let tally = Tally()
        let decoys = [
            "CREATE TABLE t%d(trigger TEXT, begin INTEGER);", "CREATE VIEW v%d AS SELECT 1 AS begin, 2 AS \"end\";",
            "CREATE TABLE \"commit%d\"(\"end\" TEXT DEFAULT 'COMMIT;');", "INSERT INTO a VALUES ('END; COMMIT;');",
            "CREATE TRIGGER tr%d AFTER INSERT ON a BEGIN SELECT CASE WHEN NEW.x = 'END' THEN 1 ELSE 2 END; END;",
            "-- COMMIT;\nINSERT INTO a VALUES (%d);", "/* ROLLBACK; */ INSERT INTO a VALUES (%d);",
            "SAVEPOINT s%d; INSERT INTO a VALUES (%d); RELEASE s%d;",
        ]
        let controls = [
            "COMMIT;", "commit transaction;", "END;", "end\n transaction;", "ROLLBACK;", "BEGIN;", "BEGIN IMMEDIATE;",
            "RELEASE strata_savepoint_1;", "ROLLBACK TO outer_sp;", "COMMIT",
        ]
        for trial in 0..<Self.trials {
            let dir = TemporaryDirectory("strata-attack-commit")
            let migrations = dir.file("m")
            try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
            try Self.write("CREATE TABLE a(x);\n", to: migrations + "/0001_a.sql")
            var statements = (0..<Int.random(in: 1...5, using: &rng)).map { i in
                rng.pick(decoys).replacingOccurrences(of: "%d", with: "\(trial)_\(i)")
            }
            let control = rng.pick(controls)
            statements.insert(control, at: Int.random(in: 0...statements.count, using: &rng))
            statements.append("CREATE TABLE after_control(x);")
            let db = dir.file("app.sqlite")
            #expect(try ChildProcess.strata(["migrate", "--db", db, "--migrations", migrations]).status == 0)
            try Self.write(statements.joined(separator: "\n"), to: migrations + "/0002_sneaky.sql")
            let bytes = fileBytes(db)
            let run = try ChildProcess.strata(["migrate", "--db", db, "--migrations", migrations])
            let label = "trial \(trial): \(statements.joined(separator: " "))"
            #expect(run.status == 1, "\(label): \(run)")
            #expect(run.stderr.contains("0002_sneaky"), "\(label): \(run.stderr)")
            #expect(fileBytes(db) == bytes, "\(label): the database changed")
            tally.add("refused")
        }
        tally.report("transaction control smuggled into a migration")
    }

    // MARK: 6. Migration folders that reach outside

    /// A `.sql` entry that is a link to a secret outside the folder, a dangling link, a link to a
    /// directory or a FIFO, run through a random command: refused by name, the secret never printed.
    @Test func migrationEntriesReachingOutside() throws {
        var rng = SeededRandom(seed: Self.seed &+ 5)
        let tally = Tally()
        for trial in 0..<Self.trials {
            let dir = TemporaryDirectory("strata-attack-outside")
            let secret = "SECRET_TOKEN_\(UInt64.random(in: 0...UInt64.max, using: &rng))"
            try Self.write("API_KEY=\(secret)\nnot SQL at all;\n", to: dir.file("secrets.env"))
            let migrations = dir.file("m")
            try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
            try Self.write("CREATE TABLE a(x);\n", to: migrations + "/0001_a.sql")
            let entry = migrations + "/0002_x.sql"
            let kind = rng.pick([
                "link to a secret", "relative link to a secret", "dangling link", "link to a directory", "FIFO",
            ])
            switch kind {
            case "link to a secret":
                try FileManager.default.createSymbolicLink(atPath: entry, withDestinationPath: dir.file("secrets.env"))
            case "relative link to a secret":
                try FileManager.default.createSymbolicLink(atPath: entry, withDestinationPath: "../secrets.env")
            case "dangling link":
                try FileManager.default.createSymbolicLink(atPath: entry, withDestinationPath: dir.file("missing.sql"))
            case "link to a directory":
                try FileManager.default.createSymbolicLink(atPath: entry, withDestinationPath: dir.path)
            default: #expect(mkfifo(entry, 0o600) == 0)
            }
            let schema = dir.file("schema.sql")
            try Self.write("CREATE TABLE a(x);", to: schema)
            let db = dir.file("app.sqlite")
            let command = rng.pick([
                ["migrate", "--db", db, "--migrations", migrations],
                ["migrate", "--db", db, "--migrations", migrations, "--dry-run"],
                ["status", "--db", db, "--migrations", migrations],
                ["check", "--migrations", migrations, "--schema", schema],
                ["new", "--migrations", migrations, "--schema", schema, "--name", "next"],
            ])
            let run = try ChildProcess.strata(command)
            let label = "trial \(trial) (\(kind), \(command[0]))"
            #expect(run.status == 1, "\(label): \(run)")
            #expect(run.stderr.contains("0002_x.sql"), "\(label): \(run.stderr)")
            #expect(!run.stdout.contains(secret) && !run.stderr.contains(secret), "\(label): the secret was printed")
            tally.add("refused")
        }
        tally.report("migration entries reaching outside")
    }

    // MARK: 7. Two migrate runs at once

    /// Two `strata migrate` processes on one database, the second started after a random delay,
    /// with a migration that takes a while: both succeed and each migration is applied once.
    @Test func twoMigrateRunsAtOnce() throws {
        var rng = SeededRandom(seed: Self.seed &+ 6)
        let tally = Tally()
        for trial in 0..<Self.trials {
            let dir = TemporaryDirectory("strata-attack-twice")
            let migrations = dir.file("m")
            try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
            try Self.write("CREATE TABLE a(x);\n", to: migrations + "/0001_a.sql")
            try Self.write(
                "CREATE TABLE big(x);\nWITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100000) INSERT INTO big SELECT i FROM c;\n",
                to: migrations + "/0002_big.sql")
            try Self.write("INSERT INTO a VALUES (1);\n", to: migrations + "/0003_row.sql")
            let db = dir.file("app.sqlite")
            let outputs = [TemporaryDirectory("strata-attack-twice-1"), TemporaryDirectory("strata-attack-twice-2")]
            let first = try ChildProcess.launch(
                "strata", ["migrate", "--db", db, "--migrations", migrations], output: outputs[0])
            let delay = UInt32.random(in: 0...120_000, using: &rng)
            usleep(delay)
            let second = try ChildProcess.launch(
                "strata", ["migrate", "--db", db, "--migrations", migrations], output: outputs[1])
            let runs = [
                ChildProcess.result(of: first, output: outputs[0]), ChildProcess.result(of: second, output: outputs[1]),
            ]
            let label = "trial \(trial) (second after \(delay / 1000) ms)"
            for run in runs { #expect(run.status == 0, "\(label): \(run)") }
            let database = try Database(path: db)
            #expect(
                try database.fetchColumn(
                    String.self, sql: "SELECT identifier FROM strata_migrations ORDER BY identifier")
                    == ["0001_a", "0002_big", "0003_row"], "\(label)")
            #expect(try database.fetchValue(Int.self, sql: "SELECT count(*) FROM big") == 100_000, "\(label)")
            #expect(try database.fetchValue(Int.self, sql: "SELECT count(*) FROM a") == 1, "\(label)")
            database.close()
            tally.add(runs[1].stdout.contains("up to date") ? "second found nothing to do" : "both applied some")
        }
        tally.report("two migrate runs at once")
    }

    // MARK: 8. Desired schemas that try to run code

    /// A random hostile statement from ``runawaySchemas`` (code in CREATE TABLE AS, endless CTEs,
    /// ATTACH, load_extension, huge statements...) among random ordinary ones, through a random
    /// command, bounded in time and memory: refused naming the statement, or (for the lawful ones)
    /// planned without running what they declare; the database never changes.
    @Test func desiredSchemasThatTryToRunCode() throws {
        var rng = SeededRandom(seed: Self.seed &+ 7)
        let tally = Tally()
        let ordinary = [
            "CREATE TABLE n%d(id INTEGER PRIMARY KEY, v TEXT NOT NULL DEFAULT '');",
            "CREATE INDEX t_b_%d ON t(b);", "CREATE VIEW v%d AS SELECT id FROM t;",
        ]
        for trial in 0..<Self.trials {
            let dir = TemporaryDirectory("strata-attack-code")
            let path = try HostileSchemaInputTests.database(in: dir)
            let hostile = rng.pick(runawaySchemas)
            var statements = (0..<Int.random(in: 0...3, using: &rng)).map {
                rng.pick(ordinary).replacingOccurrences(of: "%d", with: "\($0)")
            }
            // First: most hostile schemas declare the table `t` the ordinary statements use.
            statements.insert(hostile.sql(in: dir), at: 0)
            let schema = dir.file("hostile.sql")
            try Self.write(statements.joined(separator: "\n"), to: schema)
            let command = rng.pick(["plan", "apply", "apply --dry-run"]).split(separator: " ").map(String.init)
            let bytes = fileBytes(path)
            let r = try ChildProcess.strata(
                command + ["--db", path, "--schema", schema, "--allow-destructive"], seconds: 90, memoryKiB: 1_000_000)
            let label = "trial \(trial) (\(hostile.name), \(command.joined(separator: " ")))"
            #expect(!r.timedOut, "\(label): \(r)")
            #expect(!FileManager.default.fileExists(atPath: dir.file("evil.db")), "\(label): ATTACH created a file")
            if hostile.mentions != nil {
                #expect(r.result.status == 1, "\(label): \(r)")
                #expect(
                    r.result.stderr.hasPrefix("strata: \(schema): statement "),
                    "\(label): \(r.result.stderr.prefix(300))")
                #expect(fileBytes(path) == bytes, "\(label): the database changed")
                tally.add("refused")
            } else {
                #expect(r.result.status == 0, "\(label): \(r)")
                let db = try Database(path: path)
                #expect(
                    try db.fetchAll(sql: "SELECT id, b FROM t ORDER BY id").map(\.values) == [[1, "x"], [2, .null]],
                    "\(label)")
                db.close()
                tally.add("lawful, nothing ran")
            }
        }
        tally.report("desired schemas that try to run code")
    }
}
