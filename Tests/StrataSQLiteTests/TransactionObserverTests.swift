import Foundation
import StrataTestSupport
import Testing

@testable import StrataSQLite

/// Records what a connection reports: events per committed transaction, rollbacks.
final class RecordingObserver: TransactionObserver {
    var pending: [DatabaseEvent] = []
    var committed: [[DatabaseEvent]] = []
    var rollbacks = 0
    var filter: (DatabaseEvent) -> Bool = { _ in true }

    func observes(_ event: DatabaseEvent) -> Bool { filter(event) }
    func databaseDidChange(_ event: DatabaseEvent) { pending.append(event) }
    func databaseDidCommit(_ db: Database) {
        committed.append(pending)
        pending = []
    }
    func databaseDidRollback(_ db: Database) {
        rollbacks += 1
        pending = []
    }
}

@Suite("Transaction observers")
struct TransactionObserverTests {
    func makeDatabase() throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE tag(name TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID;
                CREATE TABLE other(x);
                """)
        return db
    }

    @Test func eachRowOfACommittedTransactionThenTheCommit() throws {
        let db = try makeDatabase()
        let observer = RecordingObserver()
        db.add(transactionObserver: observer)
        try db.transaction {
            try db.execute(sql: "INSERT INTO player(id, name) VALUES (1, 'a'), (2, 'b')")
            try db.execute(sql: "UPDATE player SET name = 'c' WHERE id = 2")
            try db.execute(sql: "DELETE FROM player WHERE id = 1")
            #expect(observer.committed.isEmpty)  // nothing committed yet
        }
        #expect(
            observer.committed == [
                [
                    DatabaseEvent(kind: .insert, table: "player", rowID: 1),
                    DatabaseEvent(kind: .insert, table: "player", rowID: 2),
                    DatabaseEvent(kind: .update, table: "player", rowID: 2),
                    DatabaseEvent(kind: .delete, table: "player", rowID: 1),
                ]
            ])
        // An autocommit statement is a transaction of its own.
        try db.execute(sql: "INSERT INTO player(id, name) VALUES (7, 'x')")
        #expect(observer.committed.last == [DatabaseEvent(kind: .insert, table: "player", rowID: 7)])
        #expect(observer.rollbacks == 0)
    }

    @Test func rolledBackTransactionIsReportedAsSuchAndNotCommitted() throws {
        let db = try makeDatabase()
        let observer = RecordingObserver()
        db.add(transactionObserver: observer)
        #expect(throws: CancellationError.self) {
            try db.transaction {
                try db.execute(sql: "INSERT INTO player(name) VALUES ('a')")
                throw CancellationError()
            }
        }
        #expect(observer.committed.isEmpty)
        #expect(observer.rollbacks == 1)
        // A failing autocommit statement commits nothing either.
        try db.execute(sql: "INSERT INTO player(id, name) VALUES (1, 'a')")
        #expect(throws: SQLiteError.self) {
            try db.execute(sql: "INSERT INTO player(id, name) VALUES (2, 'b'), (1, 'duplicate')")
        }
        try #require(observer.committed.count == 1)
        #expect(observer.committed[0] == [DatabaseEvent(kind: .insert, table: "player", rowID: 1)])
        #expect(observer.pending.isEmpty)
    }

    @Test func withoutRowIDTableIsReportedTableLevel() throws {
        let db = try makeDatabase()
        let observer = RecordingObserver()
        db.add(transactionObserver: observer)
        try db.execute(sql: "INSERT INTO tag(name, n) VALUES ('swift', 1)")
        #expect(observer.committed == [[DatabaseEvent(kind: .update, table: "tag", rowID: nil)]])
        // Through a cached statement (compiled once, run again) too.
        for n in 2...3 {
            try db.cachedStatement(sql: "UPDATE tag SET n = ? WHERE name = 'swift'").execute(n)
        }
        #expect(observer.committed.count == 3)
        #expect(observer.committed.allSatisfy { $0 == [DatabaseEvent(kind: .update, table: "tag", rowID: nil)] })
    }

    @Test func deleteWithoutWhereReportsEveryRow() throws {
        let db = try makeDatabase()
        try db.execute(sql: "INSERT INTO player(id, name) VALUES (1, 'a'), (2, 'b'), (3, 'c')")
        let observer = RecordingObserver()
        db.add(transactionObserver: observer)
        try db.execute(sql: "DELETE FROM player")  // the truncate optimization would hide the rows
        try #require(observer.committed.count == 1)
        #expect(Set(observer.committed[0].compactMap(\.rowID)) == [1, 2, 3])
        #expect(observer.committed[0].allSatisfy { $0.kind == .delete })
        // DROP TABLE and DROP VIEW still work while observing: SQLite asks DELETE on the dropped
        // object for them, and would skip the drop on the answer that keeps DELETE row by row.
        try db.execute(sql: "CREATE VIEW v AS SELECT * FROM other; CREATE TEMP TABLE scratch(x)")
        try db.execute(sql: "DROP VIEW v; DROP TABLE other; DROP TABLE temp.scratch; DELETE FROM tag")
        #expect(
            try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name IN ('other', 'v')") == 0)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_temp_master") == 0)
    }

    @Test func filterAndRemoval() throws {
        let db = try makeDatabase()
        let observer = RecordingObserver()
        observer.filter = { $0.table == "other" }
        db.add(transactionObserver: observer)
        db.add(transactionObserver: observer)  // twice: once
        try db.execute(sql: "INSERT INTO player(name) VALUES ('a'); INSERT INTO other VALUES (1)")
        #expect(observer.committed.map(\.count) == [0, 1])
        db.remove(transactionObserver: observer)
        try db.execute(sql: "INSERT INTO other VALUES (2)")
        #expect(observer.committed.count == 2)
        #expect(db.hooks.observers.isEmpty)
    }

    @Test func triggerChangesAreReported() throws {
        let db = try makeDatabase()
        try db.execute(sql: "CREATE TRIGGER t AFTER INSERT ON player BEGIN INSERT INTO other VALUES (new.id); END")
        let observer = RecordingObserver()
        db.add(transactionObserver: observer)
        try db.execute(sql: "INSERT INTO player(id, name) VALUES (5, 'a')")
        try #require(observer.committed.count == 1)
        #expect(Set(observer.committed[0].map(\.table)) == ["player", "other"])
    }

    /// A COMMIT refused by a deferred foreign key is not a commit: the observer hears the rollback.
    @Test func failedCommitIsReportedAsRollback() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE parent(id INTEGER PRIMARY KEY);
                CREATE TABLE child(parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                """)
        let observer = RecordingObserver()
        db.add(transactionObserver: observer)
        #expect(throws: SQLiteError.self) {
            try db.transaction { try db.execute(sql: "INSERT INTO child VALUES (42)") }
        }
        #expect(observer.committed.isEmpty)
        #expect(observer.rollbacks == 1)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM child") == 0)
    }

    /// Writes fail with SQLITE_FULL on a small file system: every commit the observer hears is
    /// in the file, and no failed write is reported as committed.
    @Test func diskFullWriteIsNeverReportedCommitted() throws {
        let fs = try SmallFileSystem(kilobytes: 320)
        let db = try Database(path: fs.file("full.sqlite"))
        try db.execute(sql: "CREATE TABLE big(b BLOB)")
        let observer = RecordingObserver()
        db.add(transactionObserver: observer)
        var committed = 0
        var failures = 0
        for _ in 0..<200 where failures < 3 {
            do {
                try db.transaction { try db.execute(sql: "INSERT INTO big VALUES (zeroblob(20000))") }
                committed += 1
            } catch let error as SQLiteError {
                #expect(error.resultCode == .SQLITE_FULL, "\(error)")
                failures += 1
            }
        }
        #expect(failures > 0)
        #expect(observer.committed.count == committed)
        #expect(observer.pending.isEmpty)
        db.close()
        let reopened = try Database(path: fs.file("full.sqlite"))
        #expect(try reopened.fetchValue(Int.self, sql: "SELECT count(*) FROM big") == committed)
    }
}
