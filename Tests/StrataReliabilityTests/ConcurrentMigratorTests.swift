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
@Suite struct ConcurrentMigratorTests {
    static let setups = [
        MigratorSetup(name: "ledger, one transaction per migration", helperArguments: []),
        MigratorSetup(name: "ledger, one transaction for all", helperArguments: ["--single-transaction"]),
        MigratorSetup(name: "user_version, one transaction per migration", helperArguments: ["--user-version"]),
        MigratorSetup(name: "user_version, one transaction for all", helperArguments: ["--user-version", "--single-transaction"]),
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
                try ChildProcess.launch("StrataTestHelper", ["migrate", path, folder.path] + setup.helperArguments, output: $0)
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
                #expect(try db.fetchColumn(String.self, sql: "SELECT identifier FROM strata_migrations ORDER BY rowid") == identifiers, "\(label)")
            }
            #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM big") == 200000, "\(label)")
            #expect(try db.fetchColumn(String.self, sql: "SELECT msg FROM log") == ["once"], "\(label)")
        }
    }
}
