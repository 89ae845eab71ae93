import Foundation
import StrataTestSupport
import Testing

@testable import StrataSQLite

/// Region tracking: which commits make a ``ValueObservation`` fetch again. Each case registers
/// the observation's own observer on a connection, runs a fetch as the observation does (its
/// region from the authorizer, or narrowed), then a write, and reads whether the observer
/// asked for a fetch: the signal stream is finished afterwards, so the answer never depends on
/// timing.
@Suite("Observation regions")
struct ObservationRegionTests {
    static let schema = """
        CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT, score INTEGER, team TEXT);
        CREATE TABLE tag(name TEXT PRIMARY KEY, color TEXT) WITHOUT ROWID;
        CREATE TABLE log(player INTEGER, what TEXT);
        INSERT INTO player(id, name, score, team) VALUES (1, 'a', 10, 'red'), (2, 'b', 20, 'blue');
        INSERT INTO tag VALUES ('x', 'red');
        """

    /// Whether `write`, after a fetch that ran `fetch`, signals the observation.
    static func signals(
        _ db: Database, region: DatabaseRegion? = nil, fetch: (Database) throws -> Void,
        write: (Database) throws -> Void
    ) async throws -> Bool {
        let (stream, changed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let observer = ObservationObserver(changed)
        db.add(transactionObserver: observer)
        observer.fetchWillStart()
        let (_, read) = try db.trackingReads { try db.transaction(.deferred) { try fetch(db) } }
        observer.fetchDidEnd(reading: region ?? read)
        try write(db)
        observer.stop()
        db.remove(transactionObserver: observer)
        var iterator = stream.makeAsyncIterator()
        return await iterator.next() != nil
    }

    static func makeDatabase() throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: schema)
        return db
    }

    static func readNames(_ db: Database) throws {
        _ = try db.fetchColumn(String.self, sql: "SELECT name FROM player ORDER BY id")
    }

    @Test func theRegionHoldsTheColumnsRead() throws {
        let db = try Self.makeDatabase()
        let (_, region) = try db.trackingReads {
            try db.fetchAll(sql: "SELECT name FROM player WHERE score > 5")
        }
        #expect(region.columns(of: "player") == ["name", "score"])
        #expect(region.columns(of: "PLAYER") == ["name", "score"])
        #expect(region.rowIDs(of: "player") == nil)
        #expect(region.columns(of: "tag") == [])
        let (_, all) = try db.trackingReads { try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") }
        #expect(all.columns(of: "player") == nil, "count(*) reads the whole table: \(all)")
        #expect(region.description == "player(name, score)")
    }

    @Test func anUpdateOfAnotherColumnDoesNotSignal() async throws {
        let db = try Self.makeDatabase()
        #expect(
            try await !Self.signals(db, fetch: Self.readNames) { db in
                try db.execute(sql: "UPDATE player SET score = score + 1")
            })
        #expect(
            try await Self.signals(db, fetch: Self.readNames) { db in
                try db.execute(sql: "UPDATE player SET name = 'z' WHERE id = 2")
            })
        // Both columns in one statement: the column read counts.
        #expect(
            try await Self.signals(db, fetch: Self.readNames) { db in
                try db.execute(sql: "UPDATE player SET score = 1, name = 'y' WHERE id = 1")
            })
        // Columns named in another case still match (SQLite's names are case-insensitive).
        #expect(
            try await Self.signals(db, fetch: Self.readNames) { db in
                try db.execute(sql: "UPDATE player SET NAME = 'w' WHERE id = 1")
            })
    }

    @Test func insertsAndDeletesSignalWhateverTheColumns() async throws {
        let db = try Self.makeDatabase()
        #expect(
            try await Self.signals(db, fetch: Self.readNames) { db in
                try db.execute(sql: "INSERT INTO player(name, score) VALUES ('n', 1)")
            })
        #expect(
            try await Self.signals(db, fetch: Self.readNames) { db in
                try db.execute(sql: "DELETE FROM player WHERE id = 2")
            })
        // DELETE without WHERE (the truncate optimization is off while observing).
        #expect(
            try await Self.signals(db, fetch: Self.readNames) { db in
                try db.execute(sql: "DELETE FROM player")
            })
    }

    static func readPlayerOne(_ db: Database) throws {
        try db.observingRows([1], of: "player") {
            _ = try db.fetchOne(sql: "SELECT name, score FROM player WHERE id = ?", arguments: [1])
        }
    }

    @Test func aKeyRegionIgnoresOtherRows() async throws {
        let db = try Self.makeDatabase()
        let (_, region) = try db.trackingReads { try Self.readPlayerOne(db) }
        #expect(region.rowIDs(of: "player") == [1])
        #expect(region.description == "player(id, name, score)[#1]")
        #expect(
            try await !Self.signals(db, fetch: Self.readPlayerOne) { db in
                try db.execute(sql: "UPDATE player SET score = 99 WHERE id = 2")
            })
        #expect(
            try await Self.signals(db, fetch: Self.readPlayerOne) { db in
                try db.execute(sql: "UPDATE player SET score = 99 WHERE id = 1")
            })
        // Another column of the same row: no fetch.
        #expect(
            try await !Self.signals(db, fetch: Self.readPlayerOne) { db in
                try db.execute(sql: "UPDATE player SET team = 'green' WHERE id = 1")
            })
        // A row inserted elsewhere, or deleted elsewhere: no fetch; the row itself: fetch.
        #expect(
            try await !Self.signals(db, fetch: Self.readPlayerOne) { db in
                try db.execute(sql: "INSERT INTO player(id, name) VALUES (7, 'g')")
            })
        #expect(
            try await !Self.signals(db, fetch: Self.readPlayerOne) { db in
                try db.execute(sql: "DELETE FROM player WHERE id = 7")
            })
        #expect(
            try await Self.signals(db, fetch: Self.readPlayerOne) { db in
                try db.execute(sql: "DELETE FROM player WHERE id = 1")
            })
        #expect(
            try await Self.signals(db, fetch: Self.readPlayerOne) { db in
                try db.execute(sql: "INSERT INTO player(id, name) VALUES (1, 'back')")
            })
    }

    @Test func aKeyRegionFallsBackWhereRowsCannotBeTrusted() async throws {
        let db = try Self.makeDatabase()
        // An UPDATE that writes the key moves the row to another rowid: the old one is gone.
        #expect(
            try await Self.signals(db, fetch: Self.readPlayerOne) { db in
                try db.execute(sql: "UPDATE player SET id = 5 WHERE id = 2")
            })
        try db.execute(sql: "UPDATE player SET id = 2 WHERE id = 5")
        // REPLACE deletes conflicting rows without telling the update hook.
        try db.execute(sql: "CREATE UNIQUE INDEX player_name ON player(name)")
        #expect(
            try await Self.signals(db, fetch: Self.readPlayerOne) { db in
                try db.execute(sql: "INSERT OR REPLACE INTO player(id, name) VALUES (9, 'a')")
            })
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player WHERE id = 1") == 0)
        // A table whose own constraint REPLACEs: any insert may delete rows unseen.
        try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, code TEXT UNIQUE ON CONFLICT REPLACE)")
        try db.execute(sql: "INSERT INTO item VALUES (1, 'c')")
        let readItemOne: (Database) throws -> Void = { db in
            try db.observingRows([1], of: "item") {
                _ = try db.fetchOne(sql: "SELECT code FROM item WHERE id = 1")
            }
        }
        #expect(
            try await Self.signals(db, fetch: readItemOne) { db in
                try db.execute(sql: "INSERT INTO item VALUES (2, 'c')")
            })
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item WHERE id = 1") == 0)
    }

    @Test func withoutRowIDTablesAreTrackedTableByTable() async throws {
        let db = try Self.makeDatabase()
        let readColor: (Database) throws -> Void = { db in
            try db.observingRows([1], of: "tag") {
                _ = try db.fetchOne(sql: "SELECT color FROM tag WHERE name = 'x'")
            }
        }
        // Rowids do not apply: any write to the table counts, even another row or column.
        #expect(
            try await Self.signals(db, fetch: readColor) { db in
                try db.execute(sql: "INSERT INTO tag VALUES ('y', 'blue')")
            })
        #expect(
            try await Self.signals(db, fetch: readColor) { db in
                try db.execute(sql: "UPDATE tag SET name = 'z' WHERE name = 'y'")
            })
        #expect(
            try await !Self.signals(db, fetch: readColor) { db in
                try db.execute(sql: "UPDATE player SET name = 'q'")
            })
    }

    @Test func aWriteThroughATriggerCountsWithItsColumns() async throws {
        let db = try Self.makeDatabase()
        try db.execute(
            sql: """
                CREATE TRIGGER log_score AFTER INSERT ON log BEGIN
                    UPDATE player SET score = score + 1 WHERE id = NEW.player;
                END
                """)
        let readScores: (Database) throws -> Void = { db in
            _ = try db.fetchColumn(Int.self, sql: "SELECT score FROM player")
        }
        #expect(
            try await Self.signals(db, fetch: readScores) { db in
                try db.execute(sql: "INSERT INTO log VALUES (1, 'goal')")
            })
        // The trigger writes score only: a fetch of names is not refreshed.
        #expect(
            try await !Self.signals(db, fetch: Self.readNames) { db in
                try db.execute(sql: "INSERT INTO log VALUES (1, 'goal')")
            })
        // Nor one of another row, by key.
        #expect(
            try await !Self.signals(db, fetch: Self.readPlayerOne) { db in
                try db.execute(sql: "INSERT INTO log VALUES (2, 'goal')")
            })
        #expect(
            try await Self.signals(db, fetch: Self.readPlayerOne) { db in
                try db.execute(sql: "INSERT INTO log VALUES (1, 'goal')")
            })
    }

    @Test func foreignKeyActionsDropColumnPrecision() async throws {
        let db = try Self.makeDatabase()
        try db.execute(sql: "PRAGMA foreign_keys = ON")
        try db.execute(
            sql: """
                CREATE TABLE team(name TEXT PRIMARY KEY);
                INSERT INTO team VALUES ('red'), ('blue');
                CREATE TABLE member(id INTEGER PRIMARY KEY, label TEXT,
                    team TEXT REFERENCES team(name) ON UPDATE CASCADE);
                INSERT INTO member VALUES (1, 'm', 'red');
                """)
        let readTeams: (Database) throws -> Void = { db in
            _ = try db.fetchColumn(String.self, sql: "SELECT team FROM member")
        }
        // The cascade writes member.team, which no authorizer request names.
        #expect(
            try await Self.signals(db, fetch: readTeams) { db in
                try db.execute(sql: "UPDATE team SET name = 'green' WHERE name = 'red'")
            })
        #expect(try db.fetchValue(String.self, sql: "SELECT team FROM member") == "green")
    }

    @Test func aSchemaChangeSignals() async throws {
        let db = try Self.makeDatabase()
        #expect(
            try await Self.signals(db, fetch: Self.readNames) { db in
                try db.execute(sql: "ALTER TABLE player ADD COLUMN extra TEXT")
            })
        #expect(
            try await Self.signals(db, fetch: Self.readNames) { db in
                try db.execute(sql: "DROP TABLE log")
            })
        // An index changes no value: still refreshed only for what SQLite reports as schema DDL
        // on tables, so CREATE INDEX alone does not signal.
        #expect(
            try await !Self.signals(db, fetch: Self.readNames) { db in
                try db.execute(sql: "CREATE INDEX player_score ON player(score)")
            })
    }

    @Test func hostileNamesAreTrackedLikeOthers() async throws {
        let db = try Self.makeDatabase()
        try db.execute(
            sql: #"CREATE TABLE "Order ""Items""" (id INTEGER PRIMARY KEY, "Sel ect" TEXT, "where" INTEGER);"#
                + #"INSERT INTO "Order ""Items""" VALUES (1, 'a', 1), (2, 'b', 2);"#)
        let readOne: (Database) throws -> Void = { db in
            try db.observingRows([1], of: #"ORDER "items""#) {
                _ = try db.fetchOne(sql: #"SELECT "Sel ect" FROM "Order ""Items""" WHERE id = 1"#)
            }
        }
        let (_, region) = try db.trackingReads { try readOne(db) }
        #expect(region.columns(of: #"Order "Items""#) == ["id", "sel ect"])
        #expect(region.rowIDs(of: #"order "items""#) == [1])
        #expect(
            try await !Self.signals(db, fetch: readOne) { db in
                try db.execute(sql: #"UPDATE "Order ""Items""" SET "where" = 5 WHERE id = 1"#)
            })
        #expect(
            try await !Self.signals(db, fetch: readOne) { db in
                try db.execute(sql: #"UPDATE "Order ""Items""" SET "Sel ect" = 'x' WHERE id = 2"#)
            })
        #expect(
            try await Self.signals(db, fetch: readOne) { db in
                try db.execute(sql: #"UPDATE "Order ""Items""" SET "SEL ECT" = 'x' WHERE id = 1"#)
            })
    }

    @Test func anUpsertIsAnUpdateOfItsColumns() async throws {
        let db = try Self.makeDatabase()
        let upsert = "INSERT INTO player(id, name) VALUES (1, 'n') ON CONFLICT(id) DO UPDATE SET score = 0"
        #expect(try await !Self.signals(db, fetch: Self.readNames) { db in try db.execute(sql: upsert) })
        #expect(
            try await Self.signals(db, fetch: Self.readNames) { db in
                try db.execute(
                    sql: "INSERT INTO player(id, name) VALUES (1, 'n') ON CONFLICT(id) DO UPDATE SET name = 'u'")
            })
    }

    @Test func aRolledBackWriteAndAnotherTableDoNotSignal() async throws {
        let db = try Self.makeDatabase()
        #expect(
            try await !Self.signals(db, fetch: Self.readNames) { db in
                try? db.transaction(.immediate) {
                    try db.execute(sql: "UPDATE player SET name = 'never'")
                    throw CancellationError()
                }
                try db.execute(sql: "INSERT INTO log VALUES (1, 'x')")
            })
    }

    @Test func anExplicitRegionReplacesWhatTheFetchRead() async throws {
        let db = try Self.makeDatabase()
        let region = DatabaseRegion(table: "Player", columns: ["Score"], rowIDs: [2])
        #expect(
            try await !Self.signals(db, region: region, fetch: Self.readNames) { db in
                try db.execute(sql: "UPDATE player SET name = 'x'")
            })
        #expect(
            try await Self.signals(db, region: region, fetch: Self.readNames) { db in
                try db.execute(sql: "UPDATE player SET score = 0 WHERE id = 2")
            })
        #expect(
            try await Self.signals(db, region: .fullDatabase, fetch: Self.readNames) { db in
                try db.execute(sql: "INSERT INTO log VALUES (1, 'x')")
            })
        #expect(region.union(.fullDatabase).isFullDatabase)
        #expect(DatabaseRegion().isEmpty)
    }

    @Test func aBulkWriteForgetsItsRowsButStillSignals() async throws {
        let db = try Self.makeDatabase()
        #expect(
            try await Self.signals(db, fetch: Self.readPlayerOne) { db in
                try db.transaction(.immediate) {
                    let insert = try db.makeStatement(sql: "INSERT INTO player(id, score) VALUES (?, 0)")
                    for id in 3...(DatabaseChanges.rowIDLimit + 10) { try insert.execute(Int64(id)) }
                }
            })
    }

    // MARK: End to end: fetches counted

    /// Counts the fetches of an observation: after the first value, commits that touched other
    /// columns or rows cause none; the next relevant commit causes exactly one.
    @Test func fetchesAreCountedEndToEnd() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("regions.sqlite")) { db in
            try db.execute(sql: Self.schema)
        }
        let fetches = LockedValue(0)
        let observation = ValueObservation.tracking { db in
            fetches.withLock { $0 += 1 }
            return try db.observingRows([1], of: "player") {
                try db.fetchValue(String.self, sql: "SELECT name FROM player WHERE id = 1") ?? ""
            }
        }
        var values = observation.values(in: pool).makeAsyncIterator()
        #expect(try await values.next() == "a")
        for _ in 0..<5 {
            try await pool.write { db in
                try db.execute(sql: "UPDATE player SET score = score + 1 WHERE id = 1")  // other column
                try db.execute(sql: "UPDATE player SET name = 'other' WHERE id = 2")  // other row
                try db.execute(sql: "INSERT INTO log VALUES (1, 'x')")  // other table
            }
        }
        try await pool.write { db in try db.execute(sql: "UPDATE player SET name = 'changed' WHERE id = 1") }
        #expect(try await values.next() == "changed")
        #expect(fetches.withLock { $0 } == 2)
        await pool.close()
    }
}
