import Foundation
import StrataMigrations
import StrataSQLite
import StrataTestSupport

/// Every schema object and every row of every table, as text: equal snapshots mean an
/// unchanged database (the ledger and `user_version` included).
func snapshot(_ db: Database) throws -> [String] {
    var lines = try db.fetchAll(sql: "SELECT type, name, sql FROM sqlite_master ORDER BY type, name").map { "\($0)" }
    lines.append("user_version=\(try db.fetchValue(Int.self, sql: "PRAGMA user_version") ?? 0)")
    for table in try db.fetchColumn(
        String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    {
        for row in try db.fetchAll(sql: "SELECT * FROM \"\(table)\" ORDER BY rowid") {
            lines.append("\(table): \(row)")
        }
    }
    return lines
}

/// Collects migration events from any thread.
final class EventRecorder: Sendable {
    private let events = LockedValue<[MigrationEvent]>([])
    var handler: @Sendable (MigrationEvent) -> Void { { event in self.events.withLock { $0.append(event) } } }
    var lines: [String] { events.withLock { $0.map(\.description) } }
    var all: [MigrationEvent] { events.withLock { $0 } }
}

/// A migrator with three small migrations: player, team with a foreign key, an index.
func sampleMigrator() -> Migrator {
    var migrator = Migrator()
    migrator.registerMigration(
        "0001_create_team", sql: "CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL);")
    migrator.registerMigration(
        "0002_create_player",
        sql: """
            CREATE TABLE player(
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                team_id INTEGER REFERENCES team(id));
            """)
    migrator.registerMigration("0003_seed") { db in
        try db.execute(
            sql: "INSERT INTO team(id, name) VALUES (1, 'red'); INSERT INTO player(name, team_id) VALUES ('Ann', 1)")
    }
    return migrator
}
