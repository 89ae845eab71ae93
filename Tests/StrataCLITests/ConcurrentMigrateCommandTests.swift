import Foundation
import Strata
import StrataTestSupport
import Testing

/// Two `strata migrate` processes started at once on the same database (two app instances
/// launching together behave the same): each migration is applied once, and both succeed.
@Suite("Concurrent strata migrate")
struct ConcurrentMigrateCommandTests {
    @Test func concurrentMigrateAppliesEachMigrationOnce() throws {
        let folder = try migrationFolder([
            "0001_slow.sql": """
            CREATE TABLE big(n INTEGER NOT NULL);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000)
            INSERT INTO big(n) SELECT i FROM c;
            """,
            "0002_index.sql": "CREATE INDEX big_n ON big(n);\n",
            "0003_more.sql": """
            CREATE TABLE more(n INTEGER);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 50000)
            INSERT INTO more(n) SELECT i FROM c;
            """,
        ])
        let identifiers = ["0001_slow", "0002_index", "0003_more"]
        for round in 1...4 {
            let work = TemporaryDirectory("strata-concurrent")
            let db = work.file("app.sqlite")
            let outputs = [TemporaryDirectory("strata-child"), TemporaryDirectory("strata-child")]
            let processes = try outputs.map {
                try ChildProcess.launch("strata", ["migrate", "--db", db, "--migrations", folder.path], output: $0)
            }
            let results = zip(processes, outputs).map { ChildProcess.result(of: $0, output: $1) }
            for r in results {
                #expect(r.status == 0, "round \(round): \(r)")
                #expect(r.stderr == "", "round \(round): \(r)")
            }
            // Between them, the two processes applied each migration once.
            let applied = results.flatMap { $0.stdout.split(separator: "\n") }
                .filter { $0.hasPrefix("Applied 0") }
                .map { String($0.dropFirst("Applied ".count).prefix(while: { $0 != " " })) }
            #expect(applied.sorted() == identifiers, "round \(round): \(results)")
            let database = try Database(path: db)
            defer { database.close() }
            #expect(
                try database.fetchColumn(String.self, sql: "SELECT identifier FROM strata_migrations ORDER BY rowid")
                    == identifiers)
            #expect(try database.fetchValue(Int.self, sql: "SELECT count(*) FROM big") == 200000)
            #expect(try database.fetchValue(Int.self, sql: "SELECT count(*) FROM more") == 50000)
        }
    }
}
