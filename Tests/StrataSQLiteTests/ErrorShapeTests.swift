import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

/// Every error of the connection layer has the one shape of ``StrataError``: a code, a message,
/// the culprit the message names first, and the underlying error. One representative failure of
/// each type, checked through the protocol (as a caller that handles any Strata error sees it).
@Suite("Error shape: code, message, culprit, cause")
struct ErrorShapeTests {
    /// The shared properties, read through the protocol.
    private func shape(_ error: any Error) throws -> (message: String, culprit: String?, cause: (any Error)?) {
        let error = try #require(error as? any StrataError, "\(type(of: error)) is not a StrataError")
        return (error.message, error.culprit, error.underlyingError)
    }

    @Test func sqliteErrorOfAStatementNamesTheStatement() throws {
        let db = try Database(inMemory: Configuration())
        let error = try #require(throws: SQLiteError.self) { try db.execute(sql: "  SELECT * FROM nowhere  ") }
        #expect(error.code == .SQLITE_ERROR)
        #expect(error.code == error.extendedResultCode)
        let (message, culprit, cause) = try shape(error)
        #expect(message.contains("nowhere"))
        #expect(culprit == "SELECT * FROM nowhere")
        #expect(cause == nil)
    }

    @Test func sqliteErrorOfAnOpenNamesThePath() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("notes.txt")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: SQLiteError.self) { try Database(path: path) }
        #expect(error.code == .SQLITE_NOTADB)
        #expect(try shape(error).culprit == path)
    }

    @Test func sqliteErrorWithoutMessageHasSQLitesText() {
        let error = SQLiteError(resultCode: .SQLITE_BUSY)
        #expect(!error.message.isEmpty)
        #expect(error.culprit == nil)
    }

    @Test func backupErrorNamesTheBackupPath() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("taken.sqlite")
        try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        let db = try Database(inMemory: Configuration())
        let error = try #require(throws: BackupError.self) { try db.backup(toPath: path) }
        #expect(error.code == .destinationExists)
        #expect(try shape(error).culprit == path)
    }

    @Test func databaseAccessErrorNamesTheDatabaseAndKeepsTheCause() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        let queue = try DatabaseQueue(path: path) { db in try db.execute(sql: "SELECT * FROM nowhere") }
        let error = try #require(throws: DatabaseAccessError.self) { try queue.read { _ in 1 } }
        #expect(error.code == .preparationFailed)
        let (_, culprit, cause) = try shape(error)
        #expect(culprit == path)
        #expect((cause as? SQLiteError)?.culprit == "SELECT * FROM nowhere")
    }

    @Test func recordErrorNamesTheTable() throws {
        let error = RecordError(
            code: .recordNotFound, recordType: "Note", tableName: "note", key: ["id": 42],
            message: "no row in table \"note\" with id = 42")
        #expect(try shape(error).culprit == "note")
        #expect(error.underlyingError == nil)
    }

    @Test func rowDecodingErrorNamesTheColumn() throws {
        let db = try Database(inMemory: Configuration())
        let row = try #require(try db.fetchOne(sql: "SELECT 'x' AS name"))
        let error = try #require(throws: RowDecodingError.self) { let _: Int = try row["name"] }
        #expect(error.code == .typeMismatch)
        let (message, culprit, _) = try shape(error)
        #expect(culprit == "\"name\"")
        #expect(message == error.description)
    }
}
