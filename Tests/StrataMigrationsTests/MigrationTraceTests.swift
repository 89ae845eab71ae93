import Foundation
import StrataMigrations
import StrataSQLite
import StrataTestSupport
import Testing

@Suite("Migration tracing")
struct MigrationTraceTests {
    /// A tracer set in the configuration sees every statement of every migration, in order,
    /// among the migrator's own (ledger) statements.
    @Test func tracingShowsEveryStatementOfAMigration() throws {
        let events = LockedValue<[TraceEvent]>([])
        var configuration = Configuration()
        configuration.tracer = { event in events.withLock { $0.append(event) } }
        configuration.traceOptions = [.statements, .profile]
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("m.sqlite"), configuration: configuration)
        events.withLock { $0.removeAll() }
        try sampleMigrator().migrate(db)
        let statements = events.withLock { $0 }.filter { $0.kind == .statement }.map(\.sql)
        let expected = [
            "CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL)",
            "CREATE TABLE player(\n    id INTEGER PRIMARY KEY,\n    name TEXT NOT NULL,\n    team_id INTEGER REFERENCES team(id))",
            "INSERT INTO team(id, name) VALUES (1, 'red')",
            "INSERT INTO player(name, team_id) VALUES ('Ann', 1)",
        ]
        var positions: [Int] = []
        for sql in expected {
            let index = try #require(statements.firstIndex(of: sql), "not traced: \(sql)\nall: \(statements)")
            positions.append(index)
        }
        #expect(positions == positions.sorted())
        // The ledger's writes are traced too, and each migration statement has a profile event
        // with its duration.
        #expect(statements.contains { $0.contains("strata_migrations") })
        let profiles = events.withLock { $0 }.filter { $0.kind == .profile }
        for sql in expected {
            #expect(profiles.contains { $0.sql == sql && $0.duration != nil }, "no profile: \(sql)")
        }
    }
}
