import StrataSQLite
import StrataTestSupport
import Testing

struct Boom: Error, Equatable {}

@Suite("Transactions and savepoints")
struct TransactionTests {
    func makeDatabase() throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(x INTEGER)")
        return db
    }

    func values(_ db: Database) throws -> [Int] {
        try db.fetchColumn(Int.self, sql: "SELECT x FROM t ORDER BY rowid")
    }

    @Test func commitsWhenTheClosureReturns() throws {
        let db = try makeDatabase()
        let result = try db.transaction {
            #expect(db.isInTransaction)
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            return "done"
        }
        #expect(result == "done")
        #expect(!db.isInTransaction)
        #expect(try values(db) == [1])
    }

    @Test func rollsBackWhenTheClosureThrows() throws {
        let db = try makeDatabase()
        #expect(throws: Boom()) {
            try db.transaction {
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try values(db) == [])
    }

    @Test func rollsBackWhenAStatementFails() throws {
        let db = try makeDatabase()
        try db.execute(sql: "CREATE UNIQUE INDEX tx ON t(x)")
        let error = try #require(throws: SQLiteError.self) {
            try db.transaction {
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                try db.execute(sql: "INSERT INTO t VALUES (1)")
            }
        }
        #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
        #expect(try values(db) == [])
    }

    @Test func nestedCallsBecomeSavepoints() throws {
        let db = try makeDatabase()
        try db.transaction(.immediate) {
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            try db.transaction {  // a savepoint: commits with the outer transaction
                try db.execute(sql: "INSERT INTO t VALUES (2)")
            }
            // The inner failure undoes only the inner work. (do/catch, not #expect(throws:): nested
            // in this closure, the macro ran the wrong closure with Swift 6.3.1.)
            do {
                try db.transaction(.exclusive) {
                    try db.execute(sql: "INSERT INTO t VALUES (3)")
                    try db.savepoint {
                        try db.execute(sql: "INSERT INTO t VALUES (4)")
                    }
                    throw Boom()
                }
                Issue.record("the inner transaction did not throw")
            } catch {
                #expect(error is Boom)
            }
            #expect(db.isInTransaction)
            try db.execute(sql: "INSERT INTO t VALUES (5)")
        }
        #expect(try values(db) == [1, 2, 5])
    }

    @Test func outerRollbackUndoesReleasedSavepoints() throws {
        let db = try makeDatabase()
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.savepoint { try db.execute(sql: "INSERT INTO t VALUES (1)") }
                try db.transaction { try db.execute(sql: "INSERT INTO t VALUES (2)") }
                throw Boom()
            }
        }
        #expect(try values(db) == [])
    }

    @Test func savepointOutsideATransaction() throws {
        let db = try makeDatabase()
        try db.savepoint { try db.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(throws: Boom.self) {
            try db.savepoint {
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                throw Boom()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try values(db) == [1])
    }

    @Test func failedCommitRollsBack() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE parent(id INTEGER PRIMARY KEY);
                CREATE TABLE child(p INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                """)
        // A deferred foreign key is checked at COMMIT (or at the RELEASE of an outermost savepoint).
        let attempts: [(String, () throws -> Void)] = [
            ("transaction", { try db.transaction { try db.execute(sql: "INSERT INTO child VALUES (42)") } }),
            ("savepoint", { try db.savepoint { try db.execute(sql: "INSERT INTO child VALUES (42)") } }),
        ]
        for (name, attempt) in attempts {
            let error = try #require(throws: SQLiteError.self, "\(name)") { try attempt() }
            #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY, "\(name)")
            #expect(error.message == "FOREIGN KEY constraint failed", "\(name)")
            #expect(!db.isInTransaction, "\(name)")
            #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM child") == 0, "\(name)")
        }
    }

    @Test func deepNesting() throws {
        let db = try makeDatabase()
        func nest(_ depth: Int) throws {
            try db.transaction {
                try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [depth])
                if depth < 20 { try? nest(depth + 1) }
                if depth.isMultiple(of: 5) { throw Boom() }
            }
        }
        try nest(1)
        #expect(try values(db) == [1, 2, 3, 4])
    }

    struct KindCase: Sendable, CustomTestStringConvertible {
        var kind: TransactionKind
        var otherCanRead: Bool
        var otherCanWrite: Bool
        var testDescription: String { kind.rawValue }
    }

    /// In rollback-journal mode: DEFERRED takes no lock until used, IMMEDIATE takes the write lock
    /// (readers still read), EXCLUSIVE keeps readers out too.
    /// See <https://www.sqlite.org/lang_transaction.html>.
    @Test(arguments: [
        KindCase(kind: .deferred, otherCanRead: true, otherCanWrite: true),
        KindCase(kind: .immediate, otherCanRead: true, otherCanWrite: false),
        KindCase(kind: .exclusive, otherCanRead: false, otherCanWrite: false),
    ])
    func kinds(_ c: KindCase) throws {
        let dir = TemporaryDirectory()
        let path = dir.file("kinds.sqlite")
        let db = try Database(path: path)
        try db.execute(sql: "CREATE TABLE t(x)")
        var config = Configuration()
        config.busyTimeout = 0
        let other = try Database(path: path, configuration: config)
        try db.transaction(c.kind) {
            let read = Result { try other.fetchValue(Int.self, sql: "SELECT count(*) FROM t") }
            let write = Result { try other.execute(sql: "INSERT INTO t VALUES ('other')") }
            #expect(((try? read.get()) != nil) == c.otherCanRead, "\(c.kind) read")
            #expect(((try? write.get()) != nil) == c.otherCanWrite, "\(c.kind) write")
            for result in [read.map { _ in () }, write] {
                if case .failure(let error as SQLiteError) = result {
                    #expect(error.resultCode == .SQLITE_BUSY)
                    #expect(error.message == "database is locked")
                }
            }
            try db.execute(sql: "INSERT INTO t VALUES ('mine')")
        }
        #expect(
            try db.fetchColumn(String.self, sql: "SELECT x FROM t ORDER BY x")
                == (c.otherCanWrite ? ["mine", "other"] : ["mine"]))
    }

    @Test func changesTotalChangesAndLastInsertRowID() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, x)")
        #expect(db.totalChanges == 0)
        try db.execute(sql: "INSERT INTO t(x) VALUES (1), (2), (3)")
        #expect(db.changes == 3)
        #expect(db.lastInsertRowID == 3)
        try db.execute(sql: "INSERT INTO t(id, x) VALUES (100, 4)")
        #expect(db.changes == 1)
        #expect(db.lastInsertRowID == 100)
        try db.execute(sql: "UPDATE t SET x = x + 1 WHERE x > 1")
        #expect(db.changes == 3)
        try db.execute(sql: "DELETE FROM t WHERE id = 100")
        #expect(db.changes == 1)
        #expect(db.totalChanges == 8)
        #expect(db.lastInsertRowID == 100)  // unchanged by UPDATE and DELETE
    }
}
