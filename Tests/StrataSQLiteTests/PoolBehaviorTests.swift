import Foundation
import StrataTestSupport
import Testing

@testable import StrataSQLite

@Suite("Pool behavior", .timeLimit(.minutes(3)))
struct PoolBehaviorTests {
    @Test func poolUsesWALAndTheConfiguredSynchronousMode() async throws {
        let directory = TemporaryDirectory()
        for mode in [SynchronousMode.normal, .full] {
            var poolConfiguration = PoolConfiguration()
            poolConfiguration.synchronous = mode
            let pool = try DatabasePool(path: directory.file("\(mode).sqlite"), poolConfiguration: poolConfiguration)
            let journal = try await pool.read { db in try db.fetchValue(String.self, sql: "PRAGMA journal_mode") }
            let synchronous = try await pool.write { db in try db.fetchValue(Int.self, sql: "PRAGMA synchronous") }
            #expect(journal == "wal", "\(mode)")
            #expect(synchronous == (mode == .normal ? 1 : 2), "\(mode)")
            await pool.close()
        }
    }

    @Test func readersRefuseWrites() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("ro.sqlite"), prepare: Bank.create)
        let error = await caughtError {
            try await pool.read { db in try db.execute(sql: "DELETE FROM account") }
        }
        let sqliteError = try #require(error as? SQLiteError)
        #expect(sqliteError.resultCode == .SQLITE_READONLY)
        #expect(sqliteError.sql == "DELETE FROM account")
        #expect(try await pool.read { db in try Bank.balances(db).count } == Bank.accountCount)
        await pool.close()
    }

    @Test func inMemoryPoolIsRefusedWithAClearError() throws {
        #expect {
            _ = try DatabasePool(path: ":memory:")
        } throws: { error in
            let error = error as? DatabaseAccessError
            return error?.code == .walUnavailable
                && error?.message == "DatabasePool needs WAL mode but the journal mode stayed 'memory'"
                    + " (use DatabaseQueue for an in-memory database)"
        }
    }

    @Test func zeroReadersIsRefused() throws {
        var poolConfiguration = PoolConfiguration()
        poolConfiguration.maximumReaderCount = 0
        let directory = TemporaryDirectory()
        #expect {
            _ = try DatabasePool(path: directory.file("x.sqlite"), poolConfiguration: poolConfiguration)
        } throws: { error in
            (error as? DatabaseAccessError)?.message == "maximumReaderCount must be at least 1, got 0"
        }
    }

    @Test func openingANonDatabaseFailsInInit() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("text.sqlite")
        try Data(String(repeating: "not a database ", count: 100).utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try DatabasePool(path: path)
        } throws: { error in
            let error = error as? SQLiteError
            return error?.resultCode == .SQLITE_NOTADB && (error?.message ?? "").hasSuffix(path)
                && error?.culprit == path
        }
    }

    @Test func writeRollsBackWhenTheClosureThrows() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("rollback.sqlite"), prepare: Bank.create)
        let error = await caughtError {
            try await pool.write { db in
                try Bank.apply(0, db)
                throw PlannedFailure(reason: "halfway")
            }
        }
        #expect(error.map { "\($0)" } == "planned failure: halfway")
        #expect(try await pool.read { db in try Bank.transferCount(db) } == 0)
        await pool.close()
    }

    @Test func writeWithoutTransactionRollsBackATransactionLeftOpen() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("open.sqlite")
        let pool = try DatabasePool(path: path, prepare: Bank.create)
        let error = await caughtError {
            try await pool.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE; UPDATE transfer_count SET value = 99")
            }
        }
        let accessError = try #require(error as? DatabaseAccessError)
        #expect(accessError.code == .transactionLeftOpen)
        #expect("\(accessError)".hasPrefix("\(path): writeWithoutTransaction: the closure returned"))
        #expect(try await pool.read { db in try Bank.transferCount(db) } == 0)
        // The writer is usable again, and VACUUM (which needs no transaction) works.
        try await pool.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
        try await pool.write { db in try Bank.apply(0, db) }
        #expect(try await pool.read { db in try Bank.transferCount(db) } == 1)
        await pool.close()
    }

    @Test func synchronousAccessFromInsideAClosureIsRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("reentrant.sqlite")
        let pool = try DatabasePool(path: path, prepare: Bank.create)
        defer { pool.close() }
        #expect {
            try pool.write { _ in try pool.read { db in try Bank.transferCount(db) } }
        } throws: { error in
            let error = error as? DatabaseAccessError
            return error?.code == .reentrantAccess
                && error?.message.hasPrefix("DatabasePool.read called from inside a closure") == true
        }
        #expect {
            try pool.read { _ in try pool.write { _ in } }
        } throws: { error in
            (error as? DatabaseAccessError)?.code == .reentrantAccess
        }
        #expect(try pool.read { db in try Bank.transferCount(db) } == 0)
    }

    @Test func worksThroughTheDatabaseWriterProtocol() async throws {
        let directory = TemporaryDirectory()
        let writers: [any DatabaseWriter] = [
            try DatabasePool(path: directory.file("pool.sqlite"), prepare: Bank.create),
            try DatabaseQueue(prepare: Bank.create),
        ]
        for writer in writers {
            try await writer.write { db in try Bank.apply(3, db) }
            let balances = try await writer.read { db in try Bank.balances(db) }
            var expected = Array(repeating: Bank.initialBalance, count: Bank.accountCount)
            expected[3] -= 4  // transfer 3 moves 4 from account 3 to account 4
            expected[4] += 4
            #expect(balances == expected, "\(type(of: writer))")
            await writer.close()
        }
    }
}
