import StrataSQLite
import StrataTestSupport
import Testing

/// Collects what a transaction control check was shown.
private final class Seen {
    var controls: [TransactionControl] = []
}

@Suite("Database.checkingTransactionControl")
struct TransactionControlCheckTests {
    /// SQLite reports each statement's kind and savepoint name; identifiers, strings and comments
    /// that look like transaction control are not reported.
    @Test func reportsWhatSQLiteCompiles() throws {
        let db = try Database(inMemory: Configuration())
        let seen = Seen()
        try db.execute(sql: "BEGIN")
        try db.checkingTransactionControl({
            seen.controls.append($0)
            return true
        }) {
            try db.execute(
                sql: """
                    CREATE TABLE "commit"(begin, "end" DEFAULT 'COMMIT;');  -- ROLLBACK;
                    SAVEPOINT "Outer One"; SAVEPOINT two; ROLLBACK TRANSACTION TO SAVEPOINT two;
                    RELEASE "Outer One"; /* END; */
                    """)
        }
        #expect(
            seen.controls == [
                TransactionControl(kind: .savepoint, savepoint: "Outer One"),
                TransactionControl(kind: .savepoint, savepoint: "two"),
                TransactionControl(kind: .rollbackToSavepoint, savepoint: "two"),
                TransactionControl(kind: .release, savepoint: "Outer One"),
            ])
        seen.controls = []
        _ = try db.checkingTransactionControl({
            seen.controls.append($0)
            return true
        }) {
            for sql in ["COMMIT", "BEGIN IMMEDIATE", "end transaction", "ROLLBACK"] {
                _ = try db.makeStatement(sql: sql)
            }
        }
        #expect(seen.controls.map(\.kind) == [.commit, .begin, .commit, .rollback])
        #expect(seen.controls.map(\.description) == ["COMMIT", "BEGIN", "COMMIT", "ROLLBACK"])
        try db.execute(sql: "ROLLBACK")
    }

    /// A refused statement does not compile (SQLITE_AUTH) and so never runs; earlier statements of
    /// the script did run; the check is gone afterwards.
    @Test func refusedStatementsNeverRun() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "BEGIN")
        let error = try #require(throws: SQLiteError.self) {
            try db.checkingTransactionControl({ $0.kind != .commit }) {
                try db.execute(sql: "INSERT INTO t VALUES (1); COMMIT; INSERT INTO t VALUES (2);")
            }
        }
        #expect(error.resultCode == .SQLITE_AUTH)
        #expect(error.sql == "COMMIT")
        #expect(db.isInTransaction)
        #expect(try db.fetchColumn(Int.self, sql: "SELECT x FROM t") == [1])
        try db.execute(sql: "COMMIT")  // allowed again: the check is gone
        #expect(!db.isInTransaction)
    }

    /// Statements compiled before the check (cached ones too) are checked before their next run,
    /// and nested checks all apply.
    @Test func earlierStatementsAndNestedChecks() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(x)")
        let cachedCommit = try db.cachedStatement(sql: "COMMIT")
        try db.execute(sql: "BEGIN")
        #expect(throws: SQLiteError.self) {
            try db.checkingTransactionControl({ $0.kind != .commit }) { try cachedCommit.execute() }
        }
        #expect(db.isInTransaction)
        let error = try #require(throws: SQLiteError.self) {
            try db.checkingTransactionControl({ $0.kind != .commit }) {
                try db.checkingTransactionControl({ $0.kind != .savepoint }) {
                    try db.execute(sql: "SAVEPOINT s")
                }
            }
        }
        #expect(error.resultCode == .SQLITE_AUTH)
        try cachedCommit.execute()
        #expect(!db.isInTransaction)
    }
}
