import Foundation
import StrataTestSupport
import Testing

@testable import StrataSQLite

/// Consistent reads: ``DatabaseSnapshot`` and `concurrentRead` after a write. Every wait is
/// bounded: the futures are awaited, the snapshot reads run on their own connection.
@Suite("Snapshots and concurrent reads")
struct SnapshotTests {
    static func makePool(_ directory: TemporaryDirectory) throws -> DatabasePool {
        try DatabasePool(path: directory.file("snapshot.sqlite")) { db in
            try db.execute(
                sql: """
                    CREATE TABLE item(id INTEGER PRIMARY KEY, value INTEGER NOT NULL);
                    INSERT INTO item(value) VALUES (1), (2), (3);
                    """)
        }
    }

    static let count: @Sendable (Database) throws -> Int = { db in
        try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item") ?? -1
    }

    @Test func aSnapshotReadsTheStateItWasMadeAtWhileWritesGoOn() async throws {
        let directory = TemporaryDirectory()
        let pool = try Self.makePool(directory)
        let snapshot = try pool.makeSnapshot()
        let writes = 30
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<writes {
                group.addTask {
                    try await pool.write { db in try db.execute(sql: "INSERT INTO item(value) VALUES (0)") }
                }
                group.addTask {
                    // Both reads of one access see the same fixed state, whatever was committed.
                    let (count, sum) = try await snapshot.read { db in
                        (try Self.count(db), try db.fetchValue(Int.self, sql: "SELECT sum(value) FROM item"))
                    }
                    #expect(count == 3)
                    #expect(sum == 6)
                }
            }
            try await group.waitForAll()
        }
        #expect(try await snapshot.read(Self.count) == 3)
        #expect(try await pool.read(Self.count) == 3 + writes)
        // A snapshot made now sees every write.
        let later = try pool.makeSnapshot()
        #expect(try await later.read(Self.count) == 3 + writes)
        await later.close()
        await snapshot.close()
        await #expect(throws: DatabaseAccessError.self) { try await snapshot.read(Self.count) }
        await pool.close()
    }

    @Test func aSnapshotRefusesToEndItsTransactionOrToWrite() async throws {
        let directory = TemporaryDirectory()
        let pool = try Self.makePool(directory)
        let snapshot = try pool.makeSnapshot()
        try await pool.write { db in try db.execute(sql: "DELETE FROM item") }
        for sql in ["COMMIT", "ROLLBACK", "BEGIN", "SAVEPOINT s", "INSERT INTO item(value) VALUES (9)"] {
            await #expect(throws: SQLiteError.self, "\(sql)") {
                try await snapshot.read { db in try db.execute(sql: sql) }
            }
        }
        // Still the state from before the DELETE.
        #expect(try await snapshot.read(Self.count) == 3)
        await snapshot.close()
        await pool.close()
    }

    @Test func makingASnapshotOfAClosedPoolThrows() async throws {
        let directory = TemporaryDirectory()
        let pool = try Self.makePool(directory)
        await pool.close()
        #expect(throws: DatabaseAccessError.self) { try pool.makeSnapshot() }
    }

    @Test func aSnapshotWaitsForThePreparationAndReportsItsFailure() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("failed.sqlite")) { db in
            throw PlannedFailure(reason: "migration")
        }
        #expect {
            try pool.makeSnapshot()
        } throws: { error in
            (error as? DatabaseAccessError)?.code == .preparationFailed
        }
        await pool.close()
    }

    @Test func concurrentReadSeesTheStateOfTheCallNotLaterWrites() async throws {
        let directory = TemporaryDirectory()
        let pool = try Self.makePool(directory)
        let future = try await pool.writeWithoutTransaction { db in
            try db.execute(sql: "DELETE FROM item")
            let future = pool.concurrentRead(Self.count)
            for _ in 0..<5 { try db.execute(sql: "INSERT INTO item(value) VALUES (7)") }
            return future
        }
        #expect(try await future.value == 0)
        #expect(try await pool.read(Self.count) == 5)
        await pool.close()
    }

    @Test func asyncConcurrentReadHandsAConnectionOnTheSnapshot() async throws {
        let directory = TemporaryDirectory()
        let pool = try Self.makePool(directory)
        let seen = LockedValue<[Int]>([])
        let done = DatabaseFuture<Void>()
        try await pool.writeWithoutTransaction { db in
            try db.execute(sql: "INSERT INTO item(value) VALUES (4)")
            pool.asyncConcurrentRead { result in
                let count = (try? result.get()).flatMap { try? Self.count($0) } ?? -1
                seen.withLock { $0.append(count) }
                done.complete(.success(()))
            }
            try db.execute(sql: "DELETE FROM item")
        }
        try await done.value
        #expect(seen.withLock { $0 } == [4])
        #expect(try await pool.read(Self.count) == 0)
        #expect(pool.readers.busyCount == 0)
        await pool.close()
    }

    @Test func concurrentReadMisuseIsAnErrorNotADeadlock() async throws {
        let directory = TemporaryDirectory()
        let pool = try Self.makePool(directory)
        // Inside a transaction: the reader could not see the uncommitted write.
        let inside = try await pool.write { db in
            try db.execute(sql: "INSERT INTO item(value) VALUES (4)")
            return pool.concurrentRead(Self.count)
        }
        await #expect {
            try await inside.value
        } throws: { error in
            (error as? DatabaseAccessError)?.code == .transactionLeftOpen
        }
        // Not on the writer at all.
        let outside = pool.concurrentRead(Self.count)
        await #expect {
            try await outside.value
        } throws: { error in
            (error as? DatabaseAccessError)?.code == .reentrantAccess
        }
        let onReader = try await pool.read { _ in pool.concurrentRead(Self.count) }
        await #expect(throws: DatabaseAccessError.self) { try await onReader.value }
        await pool.close()
    }
}
