import Foundation
import StrataSQLite
import Testing

/// The connection settings for SQL from untrusted sources: the authorizer, the instruction limit,
/// run-time limits, defensive mode, trusted schema and the FTS3 tokenizer switch.
@Suite("Settings for untrusted SQL")
struct SafetySettingsTests {
    static let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

    @Test func authorizerSeesEachActionAndCanDeny() throws {
        let db = try Database(inMemory: Configuration())
        var requests: [Database.AuthorizationRequest] = []
        db.setAuthorizer { request in
            requests.append(request)
            return request.action == .attach ? .deny : .allow
        }
        try db.execute(sql: "CREATE TABLE t(a CHECK (length(a) < 10))")
        #expect(requests.contains(.init(action: .createTable, first: "t", database: "main")), "\(requests)")
        #expect(requests.contains(.init(action: .function, second: "length")), "\(requests)")
        #expect(requests.contains(.init(action: .read, first: "t", second: "a", database: "main")), "\(requests)")

        let error = try #require(throws: SQLiteError.self) {
            try db.execute(sql: "ATTACH DATABASE ':memory:' AS other")
        }
        #expect(error.resultCode == .SQLITE_AUTH)
        #expect(error.message == "not authorized")
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM pragma_database_list") == 1)

        db.setAuthorizer(nil)
        try db.execute(sql: "ATTACH DATABASE ':memory:' AS other")
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM pragma_database_list") == 2)
    }

    @Test func authorizerAlsoChecksStatementsCompiledBeforeIt() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
        let cached = try db.cachedStatement(sql: "SELECT a FROM t")
        #expect(try cached.fetchAll().count == 1)
        db.setAuthorizer { $0.action == .read ? .deny : .allow }
        // sqlite3_set_authorizer expires compiled statements: the next step compiles again.
        let error = try #require(throws: SQLiteError.self) { try db.cachedStatement(sql: "SELECT a FROM t").fetchAll() }
        #expect(error.resultCode == .SQLITE_AUTH)
        // `.ignore` on a column read makes it NULL instead.
        db.setAuthorizer { $0.action == .read ? .ignore : .allow }
        #expect(try db.fetchAll(sql: "SELECT a FROM t").first?.values == [.null])
    }

    @Test func instructionLimitStopsARunawayStatementOnly() throws {
        var config = Configuration()
        config.statementInstructionLimit = 2_000_000
        let db = try Database(inMemory: config)
        let start = Date()
        let error = try #require(throws: SQLiteError.self) { try db.fetchValue(Int.self, sql: Self.endless) }
        #expect(Date().timeIntervalSince(start) < 30, "the limit did not stop the statement promptly")
        #expect(error.resultCode == .SQLITE_INTERRUPT)
        #expect(error.message.contains("more than 2000000 virtual machine instructions") == true, "\(error)")
        // Each statement gets the whole budget: many small statements in a row all run.
        try db.execute(sql: "CREATE TABLE t(x)")
        let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?)")
        for i in 0..<20_000 { try insert.execute(i) }
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 20_000)
        // A statement under the limit runs to its end; a later interrupt says just "interrupted".
        #expect(try db.fetchValue(Int.self, sql: "SELECT sum(x) FROM t") == 199_990_000)
    }

    @Test func runTimeLimits() throws {
        var config = Configuration()
        config.limits = [.length: 1000, .attached: 0]
        let db = try Database(inMemory: config)
        #expect(db.limit(.length) == 1000)
        #expect(db.limit(.attached) == 0)
        #expect(try db.fetchValue(Int.self, sql: "SELECT length(zeroblob(1000))") == 1000)
        let tooBig = try #require(throws: SQLiteError.self) {
            try db.fetchValue(Int.self, sql: "SELECT length(zeroblob(1001))")
        }
        #expect(tooBig.resultCode == .SQLITE_TOOBIG)
        let attach = try #require(throws: SQLiteError.self) {
            try db.execute(sql: "ATTACH DATABASE ':memory:' AS other")
        }
        #expect(attach.message.contains("too many attached databases") == true, "\(attach)")
        // Unlimited connections keep SQLite's defaults.
        #expect(try Database(inMemory: Configuration()).limit(.attached) == 10)
    }

    @Test func defensiveModeKeepsTheSchemaReadOnly() throws {
        let sql =
            "CREATE TABLE t(a); PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE TABLE t(b)' WHERE name = 't'"
        var config = Configuration()
        config.defensive = true
        let defended = try Database(inMemory: config)
        let error = try #require(throws: SQLiteError.self) { try defended.execute(sql: sql) }
        #expect(error.message.contains("may not be modified") == true, "\(error)")
        #expect(try defended.fetchValue(String.self, sql: "SELECT sql FROM sqlite_master") == "CREATE TABLE t(a)")
        // Without it, the same SQL rewrites the schema behind SQLite's back.
        let open = try Database(inMemory: Configuration())
        try open.execute(sql: sql)
        #expect(try open.fetchValue(String.self, sql: "SELECT sql FROM sqlite_master") == "CREATE TABLE t(b)")
    }

    @Test func untrustedSchemaRunsOnlyInnocuousFunctions() throws {
        var config = Configuration()
        config.trustedSchema = false
        let db = try Database(inMemory: config)
        if db.sqliteVersion >= SQLiteVersion(3, 31) {
            #expect(try db.fetchValue(Bool.self, sql: "PRAGMA trusted_schema") == false)
        }
        #expect(try Database(inMemory: Configuration()).fetchValue(Bool.self, sql: "PRAGMA trusted_schema") != false)
    }

    @Test func fts3TokenizerRegistrationSwitch() throws {
        // Registers a second name for the real "simple" tokenizer: the pointer comes from SQLite.
        let register = "SELECT fts3_tokenizer('simple2', fts3_tokenizer('simple')) IS NOT NULL"
        var config = Configuration()
        config.fts3TokenizerRegistration = false
        let off = try Database(inMemory: config)
        let error = try #require(throws: SQLiteError.self) { try off.fetchValue(Bool.self, sql: register) }
        #expect(error.message.contains("fts3tokenize disabled") == true, "\(error)")
        config.fts3TokenizerRegistration = true
        let on = try Database(inMemory: config)
        #expect(try on.fetchValue(Bool.self, sql: register) == true)
        try on.execute(sql: "CREATE VIRTUAL TABLE f USING fts3(a, tokenize=simple2)")
    }
}
