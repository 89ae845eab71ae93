import Foundation
import Strata
import StrataTestSupport
import Testing

/// How the two racing processes keep their ledger.
struct MigratorSetup: Sendable, CustomTestStringConvertible {
    var name: String
    var helperArguments: [String]
    var testDescription: String { name }
}

/// Two processes migrate the same database at once, as two instances of an app launching
/// together do: whichever gets the write lock second sees what the first applied and skips it.
@Suite("Concurrent migrators")
struct ConcurrentMigratorTests {
    static let setups = [
        MigratorSetup(name: "ledger, one transaction per migration", helperArguments: []),
        MigratorSetup(name: "ledger, one transaction for all", helperArguments: ["--single-transaction"]),
        MigratorSetup(name: "user_version, one transaction per migration", helperArguments: ["--user-version"]),
        MigratorSetup(
            name: "user_version, one transaction for all", helperArguments: ["--user-version", "--single-transaction"]),
    ]

    static let files = [
        // Slow enough that the second process reads the ledger before the first one commits.
        "0001_slow.sql": """
        CREATE TABLE big(n INTEGER NOT NULL);
        WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000)
        INSERT INTO big(n) SELECT i FROM c;
        """,
        "0002_index.sql": "CREATE INDEX big_n ON big(n);",
        "0003_log.sql": "CREATE TABLE log(msg TEXT); INSERT INTO log VALUES ('once');",
    ]

    @Test(arguments: setups)
    func eachMigrationIsAppliedOnce(_ setup: MigratorSetup) throws {
        let folder = TemporaryDirectory("strata-race-migrations")
        for (name, text) in Self.files { try Data(text.utf8).write(to: URL(fileURLWithPath: folder.file(name))) }
        let identifiers = ["0001_slow", "0002_index", "0003_log"]
        for round in 1...3 {
            let work = TemporaryDirectory("strata-race")
            let path = work.file("app.sqlite")
            let outputs = [TemporaryDirectory("strata-race-out"), TemporaryDirectory("strata-race-out")]
            let processes = try outputs.map {
                try ChildProcess.launch(
                    "StrataTestHelper", ["migrate", path, folder.path] + setup.helperArguments, output: $0)
            }
            let results = zip(processes, outputs).map { ChildProcess.result(of: $0, output: $1) }
            let label = "\(setup.name), round \(round)"
            for r in results { #expect(r.status == 0 && r.stdout.hasSuffix("done\n"), "\(label): \(r)") }
            let applied = results.flatMap { $0.stdout.split(separator: "\n") }
                .filter { $0.hasPrefix("applied ") }.map { String($0.dropFirst("applied ".count)) }
            #expect(applied.sorted() == identifiers, "\(label): \(results)")

            let db = try Database(path: path)
            defer { db.close() }
            if setup.helperArguments.contains("--user-version") {
                #expect(try db.fetchValue(Int.self, sql: "PRAGMA user_version") == 3, "\(label)")
            } else {
                #expect(
                    try db.fetchColumn(String.self, sql: "SELECT identifier FROM strata_migrations ORDER BY rowid")
                        == identifiers, "\(label)")
            }
            #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM big") == 200000, "\(label)")
            #expect(try db.fetchColumn(String.self, sql: "SELECT msg FROM log") == ["once"], "\(label)")
        }
    }

    /// Runs two helpers with `arguments` while a third process holds the write lock, so both read
    /// the database before either can write; releases the lock once both started, and returns
    /// their results.
    static func raceBehindALock(_ path: String, _ arguments: [String]) throws -> [ChildProcess.Result] {
        let holderOutput = TemporaryDirectory("strata-race-holder")
        let holderInput = Pipe()
        let holder = try ChildProcess.launch(
            "StrataTestHelper", ["hold-until-input", path], output: holderOutput, stdin: holderInput)
        func output(_ dir: TemporaryDirectory) -> String {
            String(decoding: fileBytes(dir.file("stdout")), as: UTF8.self)
        }
        func waitFor(_ text: String, in dir: TemporaryDirectory, of process: Process) {
            for _ in 0..<1000 where !output(dir).contains(text) && process.isRunning { usleep(10_000) }
        }
        waitFor("locked", in: holderOutput, of: holder)
        let outputs = [TemporaryDirectory("strata-race-out"), TemporaryDirectory("strata-race-out")]
        let racers = try outputs.map { try ChildProcess.launch("StrataTestHelper", arguments, output: $0) }
        for (racer, dir) in zip(racers, outputs) { waitFor("started", in: dir, of: racer) }
        usleep(300_000)  // both read the ledger, then wait in BEGIN IMMEDIATE
        holderInput.fileHandleForWriting.write(Data("\n".utf8))
        let held = ChildProcess.result(of: holder, output: holderOutput)
        #expect(held.status == 0, "\(held)")
        return zip(racers, outputs).map { ChildProcess.result(of: $0, output: $1) }
    }

    /// The migrations of a legacy database: the first two existed before the app adopted them.
    static let legacyFiles = [
        "0001_create.sql": "CREATE TABLE big(n INTEGER NOT NULL);",
        "0002_index.sql": "CREATE INDEX big_n ON big(n);",
        "0003_note.sql": "CREATE TABLE note(msg TEXT); INSERT INTO note VALUES ('once');",
    ]

    /// A database versioned by `PRAGMA user_version = 2` before the app adopted migrations
    /// (with the `log` table the lock holder writes to).
    static func legacyDatabase(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("legacy.sqlite")
        let db = try Database(path: path)
        defer { db.close() }
        try db.execute(
            sql: """
                CREATE TABLE log(who TEXT);
                CREATE TABLE big(n INTEGER NOT NULL); CREATE INDEX big_n ON big(n);
                INSERT INTO big VALUES (1), (2);
                PRAGMA user_version = 2;
                """)
        return path
    }

    /// Two instances adopting the same legacy database at once: the second sees the adoption and
    /// only the pending migration runs, once.
    @Test func adoptionRace() throws {
        let folder = TemporaryDirectory("strata-race-migrations")
        for (name, text) in Self.legacyFiles { try Data(text.utf8).write(to: URL(fileURLWithPath: folder.file(name))) }
        let dir = TemporaryDirectory("strata-race")
        let path = try Self.legacyDatabase(dir)
        let results = try Self.raceBehindALock(path, ["migrate", path, folder.path, "--adopt-user-version"])
        for r in results { #expect(r.status == 0 && r.stdout.hasSuffix("done\n"), "\(r)") }
        let applied = results.flatMap { $0.stdout.split(separator: "\n") }.filter { $0.hasPrefix("applied ") }
        #expect(applied == ["applied 0003_note"], "\(results)")
        let db = try Database(path: path)
        defer { db.close() }
        #expect(
            try db.fetchColumn(String.self, sql: "SELECT identifier FROM strata_migrations ORDER BY rowid")
                == ["0001_create", "0002_index", "0003_note"])
        #expect(
            try db.fetchColumn(Bool.self, sql: "SELECT duration_ms IS NULL FROM strata_migrations ORDER BY rowid")
                == [true, true, false], "adopted, adopted, run")
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM big") == 2, "0001 did not run again")
        #expect(try db.fetchColumn(String.self, sql: "SELECT msg FROM note") == ["once"])
    }

    /// Two processes baselining the same database at once record each migration once.
    @Test func baselineRace() throws {
        let folder = TemporaryDirectory("strata-race-migrations")
        for (name, text) in Self.legacyFiles { try Data(text.utf8).write(to: URL(fileURLWithPath: folder.file(name))) }
        let dir = TemporaryDirectory("strata-race")
        let path = try Self.legacyDatabase(dir)
        let results = try Self.raceBehindALock(path, ["baseline", path, folder.path, "0002_index"])
        for r in results { #expect(r.status == 0 && r.stdout.hasSuffix("done\n"), "\(r)") }
        let recorded = results.flatMap { $0.stdout.split(separator: "\n") }.filter { $0.hasPrefix("recorded ") }
        #expect(recorded.sorted() == ["recorded 0001_create", "recorded 0002_index"], "\(results)")
        let db = try Database(path: path)
        defer { db.close() }
        #expect(
            try db.fetchColumn(String.self, sql: "SELECT identifier FROM strata_migrations ORDER BY rowid") == [
                "0001_create", "0002_index",
            ])
    }
}
