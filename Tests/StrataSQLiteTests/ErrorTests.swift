import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@Suite("Errors: distinct, readable, never a crash")
struct ErrorTests {
    @Test func fileThatIsNotADatabase() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("notes.txt")
        try Data(String(repeating: "These are plain notes, not a database.\n", count: 100).utf8)
            .write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: SQLiteError.self) { try Database(path: path) }
        #expect(error.resultCode == .SQLITE_NOTADB)
        #expect(error.message == "file is not a database: \(path)")
        #expect(error.description.hasPrefix("SQLITE_NOTADB (26): file is not a database: \(path)"))
        // The file is left as it was.
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("These are plain notes"))
    }

    @Test func shortGarbageFileIsNotADatabaseEither() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("short.db")
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: SQLiteError.self) { try Database(path: path) }
        #expect(error.resultCode == .SQLITE_NOTADB)
        #expect(error.message == "file is not a database: \(path)")
    }

    @Test func syntaxError() throws {
        let db = try Database(inMemory: Configuration())
        let sql = "SELEC name FROM player"
        for attempt in [
            { try db.execute(sql: sql) },
            { _ = try db.makeStatement(sql: sql) },
            { _ = try db.fetchAll(sql: sql) },
        ] as [() throws -> Void] {
            let error = try #require(throws: SQLiteError.self) { try attempt() }
            #expect(error.resultCode == .SQLITE_ERROR)
            #expect(error.message == "near \"SELEC\": syntax error")
            #expect(error.sql == sql)
            #expect(error.description == "SQLITE_ERROR (1): near \"SELEC\": syntax error - while executing `\(sql)`")
        }
        let missing = try #require(throws: SQLiteError.self) { try db.execute(sql: "SELECT * FROM nowhere") }
        #expect(missing.message == "no such table: nowhere")
    }

    struct ConstraintCase: Sendable, CustomTestStringConvertible {
        var sql: String
        var code: ResultCode
        /// SQLite's message, or its start where the rest varies between versions.
        var message: String
        var exact = true
        var testDescription: String { code.name ?? "\(code)" }
    }

    static let constraintCases = [
        ConstraintCase(
            sql: "INSERT INTO t(id, x) VALUES (2, 'taken')", code: .SQLITE_CONSTRAINT_UNIQUE,
            message: "UNIQUE constraint failed: t.x"),
        ConstraintCase(
            sql: "INSERT INTO t(id, x) VALUES (1, 'new')", code: .SQLITE_CONSTRAINT_PRIMARYKEY,
            message: "UNIQUE constraint failed: t.id"),
        ConstraintCase(
            sql: "INSERT INTO t(id, x, n) VALUES (3, 'y', NULL)", code: .SQLITE_CONSTRAINT_NOTNULL,
            message: "NOT NULL constraint failed: t.n"),
        ConstraintCase(
            sql: "INSERT INTO t(id, x, n) VALUES (3, 'y', -1)", code: .SQLITE_CONSTRAINT_CHECK,
            // SQLite names the table ("t") before 3.32, the expression ("n >= 0") later.
            message: "CHECK constraint failed: ", exact: false),
        ConstraintCase(
            sql: "INSERT INTO child(parent) VALUES (42)", code: .SQLITE_CONSTRAINT_FOREIGNKEY,
            message: "FOREIGN KEY constraint failed"),
    ]

    @Test(arguments: constraintCases)
    func constraintViolation(_ c: ConstraintCase) throws {
        try checkConstraintViolation(c)
    }

    @Test(.requiresSQLite(3, 37, "STRICT tables"))
    func strictTypeViolation() throws {
        try checkConstraintViolation(
            ConstraintCase(
                sql: "INSERT INTO strict(i) VALUES ('abc')", code: .SQLITE_CONSTRAINT_DATATYPE,
                message: "cannot store TEXT value in INT column strict.i"))
    }

    func checkConstraintViolation(_ c: ConstraintCase) throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE t(id INTEGER PRIMARY KEY, x TEXT UNIQUE, n INTEGER NOT NULL DEFAULT 0 CHECK (n >= 0));
                INSERT INTO t(id, x) VALUES (1, 'taken');
                CREATE TABLE child(parent INTEGER REFERENCES t(id));
                """)
        if c.code == .SQLITE_CONSTRAINT_DATATYPE { try db.execute(sql: "CREATE TABLE strict(i INT) STRICT") }
        let before = try db.fetchValue(Int.self, sql: "SELECT (SELECT count(*) FROM t) + (SELECT count(*) FROM child)")
        let error = try #require(throws: SQLiteError.self) { try db.execute(sql: c.sql) }
        #expect(error.resultCode == .SQLITE_CONSTRAINT)
        #expect(error.extendedResultCode == c.code)
        let message = error.message
        #expect(c.exact ? message == c.message : message.hasPrefix(c.message) && message.count > c.message.count)
        #expect(error.sql == c.sql)
        #expect(
            error.description
                == "\(c.code.name ?? "unnamed code") (\(c.code.rawValue)): \(message) - while executing `\(c.sql)`")
        let after = try db.fetchValue(Int.self, sql: "SELECT (SELECT count(*) FROM t) + (SELECT count(*) FROM child)")
        #expect(before == after)
    }

    @Test func resultCodesMatchTheirPrimaryCode() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(x UNIQUE); INSERT INTO t VALUES (1)")
        do {
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            Issue.record("no error")
        } catch let error as SQLiteError {
            switch error.extendedResultCode {
            case .SQLITE_BUSY: Issue.record("matched BUSY")
            case .SQLITE_CONSTRAINT: #expect(error.extendedResultCode.rawValue == 2067)
            default: Issue.record("no match for \(error)")
            }
            #expect(ResultCode.SQLITE_CONSTRAINT_UNIQUE ~= error.extendedResultCode)
            #expect(!(ResultCode.SQLITE_CONSTRAINT_CHECK ~= error.extendedResultCode))
            #expect(!error.isBusy)
        }
        #expect(ResultCode.SQLITE_CONSTRAINT.description == "constraint failed (code 19)")
        #expect(ResultCode(rawValue: 9999).name == nil)
    }

    @Test func busyWhileAnotherConnectionWrites() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("busy.sqlite")
        let writer = try Database(path: path)
        try writer.execute(sql: "CREATE TABLE t(x)")
        var config = Configuration()
        config.busyTimeout = 0.05
        let other = try Database(path: path, configuration: config)
        try writer.execute(sql: "BEGIN IMMEDIATE")
        let error = try #require(throws: SQLiteError.self) { try other.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(error.resultCode == .SQLITE_BUSY)
        #expect(error.isBusy)
        #expect(error.message == "database is locked")
        #expect(error.description == "SQLITE_BUSY (5): database is locked - while executing `INSERT INTO t VALUES (1)`")
        try writer.execute(sql: "COMMIT")
        try other.execute(sql: "INSERT INTO t VALUES (1)")  // free again
        #expect(try writer.fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 1)
    }

    @Test func openingADatabaseLockedExclusively() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("exclusive.sqlite")
        let owner = try Database(path: path)
        try owner.execute(sql: "CREATE TABLE t(x); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1)")
        var config = Configuration()
        config.busyTimeout = 0
        let error = try #require(throws: SQLiteError.self) { try Database(path: path, configuration: config) }
        #expect(error.resultCode == .SQLITE_BUSY)
        #expect(error.message == "database is locked: \(path)")
        try owner.execute(sql: "COMMIT")
        #expect(try Database(path: path, configuration: config).fetchValue(Int.self, sql: "SELECT x FROM t") == 1)
    }

    @Test(.enabled(if: getuid() != 0, "root writes to read-only files anyway"))
    func readOnlyFile() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("locked.sqlite")
        try Database(path: path).execute(sql: "CREATE TABLE t(x)")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        let db = try Database(path: path)  // read-write requested: SQLite falls back to read-only
        #expect(db.isReadOnly)
        let error = try #require(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(error.resultCode == .SQLITE_READONLY)
        #expect(error.message == "attempt to write a readonly database")
    }

    @Test func immutableURIIsReadOnly() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("immutable.sqlite")
        try Database(path: path).execute(sql: "CREATE TABLE t(x)")
        var config = Configuration()
        config.uriFilenames = true
        let db = try Database(path: "file:\(path)?immutable=1", configuration: config)
        let error = try #require(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(error.resultCode == .SQLITE_READONLY)
        #expect(
            error.description
                == "SQLITE_READONLY (8): attempt to write a readonly database - while executing `INSERT INTO t VALUES (1)`"
        )
    }

    @Test func closedConnection() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("closed.sqlite")
        let db = try Database(path: path)
        try db.execute(sql: "CREATE TABLE t(x)")
        let statement = try db.makeStatement(sql: "INSERT INTO t VALUES (?)")
        db.close()
        db.close()  // harmless
        #expect(db.isClosed)
        let expected = "connection to \(path) is closed"
        let attempts: [(String, () throws -> Void)] = [
            ("execute", { try db.execute(sql: "SELECT 1") }),
            ("fetchAll", { _ = try db.fetchAll(sql: "SELECT 1") }),
            ("makeStatement", { _ = try db.makeStatement(sql: "SELECT 1") }),
            ("transaction", { try db.transaction {} }),
            ("statement.execute", { try statement.execute(1) }),
            ("statement.bind", { try statement.bind([1]) }),
            ("backup", { try db.backup(to: try Database(inMemory: Configuration())) }),
        ]
        for (name, attempt) in attempts {
            let error = try #require(throws: SQLiteError.self, "\(name)") { try attempt() }
            #expect(error.resultCode == .SQLITE_MISUSE, "\(name)")
            #expect(error.message == expected, "\(name)")
        }
        #expect(db.changes == 0)
        #expect(db.totalChanges == 0)
        #expect(db.lastInsertRowID == 0)
        #expect(!db.isInTransaction)
        #expect(db.isReadOnly)
        db.interrupt()  // does nothing, does not crash
    }

    @Test func boundValuesStayOutOfDescriptionsUnlessPublic() throws {
        for isPublic in [false, true] {
            var config = Configuration()
            config.publicStatementArguments = isPublic
            let db = try Database(inMemory: config)
            try db.execute(sql: "CREATE TABLE user(email TEXT UNIQUE)")
            try db.execute(sql: "INSERT INTO user VALUES (?)", arguments: ["secret@example.com"])
            let error = try #require(throws: SQLiteError.self) {
                try db.cachedStatement(sql: "INSERT INTO user VALUES (?)").execute(arguments: ["secret@example.com"])
            }
            #expect(error.message == "UNIQUE constraint failed: user.email")
            let base =
                "SQLITE_CONSTRAINT_UNIQUE (2067): UNIQUE constraint failed: user.email - while executing `INSERT INTO user VALUES (?)`"
            if isPublic {
                #expect(error.description == base + " with arguments ['secret@example.com']")
            } else {
                #expect(error.description == base)
                #expect(!"\(error)".contains("secret"))
            }
            // Argument errors follow the same rule.
            let range = try #require(throws: SQLiteError.self) {
                try db.execute(sql: "SELECT ?", arguments: ["secret@example.com", "other secret"])
            }
            #expect(range.arguments == ["secret@example.com", "other secret"])
            #expect(range.description.contains("secret") == isPublic, "public: \(isPublic)")
        }
    }
}
