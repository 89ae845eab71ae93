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
@Suite(.serialized) struct AttackTests {
    static var trials: Int { ProcessInfo.processInfo.environment["STRATA_ATTACK_TRIALS"].flatMap { Int($0) } ?? 6 }
    static var seed: UInt64 { ProcessInfo.processInfo.environment["STRATA_ATTACK_SEED"].flatMap { UInt64($0) } ?? 11 }

    /// Outcomes per attack, for the summary line the script prints.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var counts = [String: Int]()
        func add(_ outcome: String) { lock.withLock { counts[outcome, default: 0] += 1 } }
        func report(_ attack: String) {
            let text = lock.withLock { counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
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
                    for i in 1...rows { try database.execute(sql: "INSERT INTO account VALUES (?, ?)", arguments: [i, "u\(i)@x"]) }
                    if collide {
                        // Two rows with one email, and one row that the CHECK refuses.
                        let i = Int.random(in: 1...rows, using: &rng)
                        let j = (i % rows) + 1
                        try database.execute(sql: "UPDATE account SET email = ? WHERE id = ?", arguments: ["u\(i)@x", j])
                        try database.execute(
                            sql: "UPDATE account SET email = 'bad' WHERE id = ?", arguments: [Int.random(in: 1...rows, using: &rng)])
                    }
                }
                database.close()
            }
            let clause = rng.pick(clauses)
            let schema = dir.file("schema.sql")
            try Self.write(
                "CREATE TABLE account(id INTEGER NOT NULL PRIMARY KEY, \(clause))\(withoutRowID ? " WITHOUT ROWID" : "");",
                to: schema)
            let before = try DatabaseSnapshot(try Database(path: db))
            let bytes = fileBytes(db)
            let run = try ChildProcess.strata(["apply", "--db", db, "--schema", schema])
            let label = "trial \(trial) (\(clause), \(rows) rows, collide \(collide), wal \(wal))"
            let after = try Database(path: db)
            defer { after.close() }
            if run.status == 0 {
                tally.add("applied")
                // Every row kept, value for value.
                #expect(try DatabaseSnapshot(after).rows["account"]?.map { Array($0.suffix(2)) }
                    == before.rows["account"]?.map { Array($0.suffix(2)) }, "\(label): rows changed")
            } else {
                tally.add("refused")
                #expect(run.status == 1, "\(label): \(run)")
                #expect(run.stderr.hasPrefix("strata: ") && run.stderr.contains("account"), "\(label): \(run.stderr)")
                #expect(!run.stderr.contains("strata_tmp"), "\(label): \(run.stderr)")
                if !wal { #expect(fileBytes(db) == bytes, "\(label): the file changed") }
                #expect(try DatabaseSnapshot(after) == before, "\(label): the database changed")
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
                try database.execute(sql: """
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
                    let sql = try writer.fetchValue(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = 'item'") ?? ""
                    wroteIntoOldTable = !sql.contains("PRIMARY KEY")
                    try writer.execute(
                        sql: nullID ? "INSERT INTO item(id, name) VALUES (NULL, 'late')" : "INSERT INTO item(id, name) VALUES (\(rows + 1), NULL)")
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
                #expect(run.stderr.contains(nullID ? "column id becomes the INTEGER PRIMARY KEY" : "column name becomes NOT NULL"),
                        "\(label): \(run.stderr)")
                #expect(count == rows + 1, "\(label)")
                #expect(try after.fetchValue(Int.self, sql: "SELECT count(*) FROM item WHERE \(nullID ? "id" : "name") IS NULL") == 1, "\(label)")
                tally.add(run.stderr.contains("found inside the applying transaction") ? "refused inside the transaction" : "refused by the preflight")
            } else {
                #expect(run.status == 0, "\(label): \(run)")
                #expect(try after.fetchValue(Int.self, sql: "SELECT count(*) FROM item WHERE id <= \(rows) AND name = 'n' || id") == rows, "\(label)")
                if nullID {
                    // Inserted into the new table: SQLite gives the NULL id a fresh rowid, as it should there.
                    #expect(writeError == nil && count == rows + 1, "\(label)")
                } else {
                    #expect(writeError != nil && count == rows, "\(label): a NULL name must be refused by the new table")
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
    @Test(.enabled(if: SmallFilesystem.isAvailable, "mounting a tmpfs needs root"))
    func diskFillsUp() throws {
        var rng = SeededRandom(seed: Self.seed &+ 2)
        let tally = Tally()
        let dir = TemporaryDirectory("strata-attack-full")
        var templates = [String]()
        for wal in [false, true] {
            let path = dir.file("template-\(wal).sqlite")
            let db = try Database(path: path)
            if wal { _ = try db.fetchValue(String.self, sql: "PRAGMA journal_mode = WAL") }
            try db.execute(sql: """
                CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT);
                WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
                INSERT INTO t(a, b) SELECT printf('%0120d', x), printf('%0160d', x) FROM c;
                PRAGMA wal_checkpoint(TRUNCATE);
                """)
            db.close()
            templates.append(path)
        }
        let schema = dir.file("schema.sql")
        try Self.write("CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT); CREATE INDEX ta ON t(a); CREATE INDEX tb ON t(b);", to: schema)
        let migrations = dir.file("migrations")
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
        try Self.write(
            "CREATE TABLE copy(id INTEGER PRIMARY KEY, a TEXT, b TEXT);\nINSERT INTO copy SELECT * FROM t;\nCREATE INDEX copy_a ON copy(a);\n",
            to: migrations + "/0001_copy.sql")
        for trial in 0..<Self.trials {
            let wal = rng.chance(50)
            let migrate = rng.chance(50)
            let size = Int.random(in: 6_500...16_000, using: &rng)
            let fs = try #require(SmallFilesystem(kibibytes: size))
            let db = fs.file("app.sqlite")
            let original = fileBytes(templates[wal ? 1 : 0])
            try original.write(to: URL(fileURLWithPath: db))
            let before = try DatabaseSnapshot(try Database(path: db))
            let run = try ChildProcess.strata(
                migrate ? ["migrate", "--db", db, "--migrations", migrations] : ["apply", "--db", db, "--schema", schema])
            let label = "trial \(trial) (\(migrate ? "migrate" : "apply"), \(wal ? "WAL" : "rollback journal"), \(size) KiB)"
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
                #expect(try DatabaseSnapshot(after) == before, "\(label)")
                after.close()
            }
        }
        tally.report("disk fills up")
    }
}
