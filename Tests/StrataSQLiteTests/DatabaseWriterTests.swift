import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

/// `read` and `write` are written once on `DatabaseWriter`, over each writer's
/// `readWithoutTransaction` and `writeWithoutTransaction`: the same rules hold for a queue and a
/// pool, reached through the protocol, synchronously and asynchronously.
@Suite("DatabaseWriter: read and write written once", .timeLimit(.minutes(3)))
struct DatabaseWriterTests {
    private func writers(_ directory: TemporaryDirectory) throws -> [any DatabaseWriter] {
        let create: @Sendable (Database) throws -> Void = { db in
            try db.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        }
        return [
            try DatabaseQueue(path: directory.file("queue.sqlite"), prepare: create),
            try DatabasePool(path: directory.file("pool.sqlite"), prepare: create),
        ]
    }

    private func count(_ db: Database) throws -> Int {
        try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t") ?? -1
    }

    @Test func readsAreReadOnlyAndInATransaction() async throws {
        let directory = TemporaryDirectory()
        for writer in try writers(directory) {
            let name = "\(type(of: writer))"
            #expect(try await writer.read { db in db.isInTransaction } == true, "\(name)")
            #expect(try await writer.readWithoutTransaction { db in db.isInTransaction } == false, "\(name)")
            let refused = await #expect(throws: SQLiteError.self, "\(name)") {
                try await writer.read { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
            }
            #expect(refused?.resultCode == .SQLITE_READONLY, "\(name)")
            await #expect(throws: SQLiteError.self, "\(name)") {
                try await writer.readWithoutTransaction { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
            }
            #expect(try await writer.read(count) == 1, "\(name)")
            await writer.close()
        }
    }

    @Test func writesCommitOrRollBack() async throws {
        let directory = TemporaryDirectory()
        for writer in try writers(directory) {
            let name = "\(type(of: writer))"
            try await writer.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
            struct Failure: Error {}
            await #expect(throws: Failure.self, "\(name)") {
                try await writer.write { db in
                    try db.execute(sql: "INSERT INTO t VALUES (3)")
                    throw Failure()
                }
            }
            #expect(try await writer.read(count) == 2, "\(name): the failed write was rolled back")
            // A queue's connection is writable again after its reads toggled query_only.
            try await writer.write { db in try db.execute(sql: "INSERT INTO t VALUES (4)") }
            #expect(try await writer.read(count) == 3, "\(name)")
            await writer.close()
        }
    }

    @Test func aTransactionLeftOpenByAReadIsRolledBackAndReported() async throws {
        let directory = TemporaryDirectory()
        for writer in try writers(directory) {
            let name = "\(type(of: writer))"
            let error = await #expect(throws: DatabaseAccessError.self, "\(name)") {
                try await writer.readWithoutTransaction { db in try db.execute(sql: "BEGIN") }
            }
            #expect(error?.code == .transactionLeftOpen, "\(name)")
            #expect(error?.message.hasPrefix("readWithoutTransaction:") == true, "\(name)")
            // The next accesses are not inside that transaction.
            #expect(try await writer.readWithoutTransaction { db in db.isInTransaction } == false, "\(name)")
            try await writer.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
            await writer.close()
        }
    }

    @Test func synchronousAccessFromInsideAClosureIsRefusedByName() throws {
        let directory = TemporaryDirectory()
        for writer in try writers(directory) {
            let name = "\(type(of: writer))"
            for (function, access) in [
                ("read", { try writer.read { _ in 0 } }),
                ("write", { try writer.write { _ in 0 } }),
                ("readWithoutTransaction", { try writer.readWithoutTransaction { _ in 0 } }),
            ] as [(String, () throws -> Int)] {
                let error = try writer.writeWithoutTransaction { _ in
                    #expect(throws: DatabaseAccessError.self) { _ = try access() }
                }
                #expect(error?.code == .reentrantAccess, "\(name).\(function)")
                #expect(
                    error?.message.hasPrefix("\(name).\(function) called from inside a closure") == true,
                    "\(error.map(\.message) ?? "")")
            }
            writer.close()
        }
    }
}
