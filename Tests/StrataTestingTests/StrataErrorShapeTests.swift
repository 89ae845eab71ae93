import Foundation
import Strata
import StrataSQLite
import StrataTestSupport
import StrataTesting
import Testing

/// Every error type of every library module has the one shape of ``StrataError`` (issue 27):
/// a code whose description is its name, a message, the culprit the message names first, one
/// cause, and the one description `culprit: message (cause)` rendered by `StrataErrorText.line`
/// (the parts a message already says in its own words left out). One real failure of each type,
/// checked through the protocol.
@Suite("Every error: one shape (code, culprit: message (cause))")
struct StrataErrorShapeTests {
    /// What a type's description shows besides its message.
    enum Opening {
        /// `culprit: message`.
        case culprit
        /// Another label (the record type) opens the line.
        case label(String)
        /// The message names the culprit first in its own words.
        case inMessage
    }

    /// Checks the shared shape of `error`: a named code, a one-line message, a culprit the
    /// description names, and the description rendered by the one function. Generic over the
    /// concrete type, so a type that does not conform does not compile here.
    private func checkShape<E: StrataError>(
        _ error: E, opening: Opening, showsCause: Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let code = "\(error.code)"
        #expect(!code.isEmpty, "\(E.self): empty code", sourceLocation: sourceLocation)
        #expect(
            !code.contains(" ") || E.self == SQLiteError.self, "\(E.self): code \(code)", sourceLocation: sourceLocation
        )
        #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        #expect(!error.message.contains("\n"), "\(E.self): message on several lines", sourceLocation: sourceLocation)
        let culprit = try #require(error.culprit, "\(E.self) names no culprit", sourceLocation: sourceLocation)
        #expect(
            error.description.contains(culprit), "\(E.self): description does not name \(culprit)",
            sourceLocation: sourceLocation)
        let opening: String? =
            switch opening {
            case .culprit: culprit
            case .label(let label): label
            case .inMessage: nil
            }
        let expected = StrataErrorText.line(
            opening: opening, message: error.message, cause: showsCause ? error.underlyingError : nil)
        #expect(error.description.hasPrefix(expected), "\(E.self)", sourceLocation: sourceLocation)
        // Through the existential, as a caller that handles any Strata error sees it.
        let any = try #require(error as any Error as? any StrataError, sourceLocation: sourceLocation)
        #expect(any.message == error.message && any.culprit == error.culprit, sourceLocation: sourceLocation)
        #expect(any.description == error.description, sourceLocation: sourceLocation)
    }

    @Test func theOneRenderingLeavesOutMissingParts() {
        struct Cause: Error, CustomStringConvertible { var description: String { "disk full" } }
        #expect(
            StrataErrorText.line(opening: "a.sqlite", message: "cannot write", cause: Cause())
                == "a.sqlite: cannot write (disk full)")
        #expect(StrataErrorText.line(opening: nil, message: "cannot write", cause: nil) == "cannot write")
        #expect(StrataErrorText.line(opening: "", message: "cannot write", cause: nil) == "cannot write")
    }

    @Test func namedCodesPrintTheirNames() {
        #expect("\(BackupError.Code.destinationExists)" == "destinationExists")
        #expect("\(DatabaseAccessError.Code.preparationFailed)" == "preparationFailed")
        #expect("\(RecordError.Code.recordNotFound)" == "recordNotFound")
        #expect("\(RowDecodingError.Code.typeMismatch)" == "typeMismatch")
        #expect("\(SchemaError.Code.invalidSQL)" == "invalid-sql")
        #expect("\(SchemaDefinitionError.Code.invalidDefinition)" == "invalid-definition")
        #expect("\(MigrationError.Code.checksumMismatch)" == "checksumMismatch")
        #expect("\(HistoryError.Code.invalidHistory)" == "invalidHistory")
        #expect("\(UpgradeFailure.Kind.foreignKey)" == "foreign-key")
        // A code can be made from its name (codes are open: new ones may be added).
        #expect(BackupError.Code(rawValue: "destinationExists") == .destinationExists)
        #expect(MigrationError.Code(rawValue: "migrationFailed") == .migrationFailed)
    }

    @Test func sqliteError() throws {
        let db = try Database(inMemory: Configuration())
        let error = try #require(throws: SQLiteError.self) { try db.execute(sql: "SELECT * FROM nowhere") }
        // The leaf: its description opens with the result code, then SQLite's message and the SQL.
        #expect(error.description.hasPrefix("SQLITE_ERROR (1): \(error.message)"))
        #expect(error.description.contains("SELECT * FROM nowhere"))
        #expect(error.underlyingError == nil)
        #expect(try #require(error as any Error as? any StrataError).culprit == "SELECT * FROM nowhere")
    }

    @Test func backupError() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("taken.sqlite")
        try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        let db = try Database(inMemory: Configuration())
        let error = try #require(throws: BackupError.self) { try db.backup(toPath: path) }
        try checkShape(error, opening: .culprit, showsCause: false)
        #expect(error.description == "\(path): \(error.message)")
    }

    @Test func databaseAccessErrorShowsItsCause() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("app.sqlite")
        let queue = try DatabaseQueue(path: path) { db in try db.execute(sql: "SELECT * FROM nowhere") }
        let error = try #require(throws: DatabaseAccessError.self) { try queue.read { _ in 1 } }
        try checkShape(error, opening: .culprit, showsCause: true)
        let cause = try #require(error.underlyingError as? SQLiteError)
        #expect(error.description == "\(path): \(error.message) (\(cause))")
    }

    @Test func recordError() throws {
        struct Note: Codable, FetchableRecord, PersistableRecord {
            var id: Int64
            var body: String
        }
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
        let error = try #require(throws: RecordError.self) { try Note(id: 42, body: "x").update(db) }
        #expect(error.code == .recordNotFound)
        try checkShape(error, opening: .label("Note"), showsCause: false)
    }

    @Test func rowDecodingError() throws {
        let db = try Database(inMemory: Configuration())
        let row = try #require(try db.fetchOne(sql: "SELECT 'x' AS name"))
        let error = try #require(throws: RowDecodingError.self) { let _: Int = try row["name"] }
        try checkShape(error, opening: .inMessage, showsCause: false)
        #expect(error.description == error.message)
    }

    @Test func schemaError() throws {
        let error = try #require(throws: SchemaError.self) {
            try DatabaseSchema(sql: "CREATE TABLE a(x);\nCREATE TABLE b(id INTEGER PRIMARY KEY,, x);")
        }
        try checkShape(error, opening: .inMessage, showsCause: false)
        // The message quotes SQLite's own; the cause is kept whole.
        #expect(error.underlyingError is SQLiteError)
        #expect(error.underlying != nil)
    }

    @Test func schemaDefinitionError() throws {
        let db = try Database(inMemory: Configuration())
        let error = try #require(throws: SchemaDefinitionError.self) { try db.create(table: "empty") { _ in } }
        try checkShape(error, opening: .inMessage, showsCause: false)
    }

    @Test func migrationError() throws {
        let db = try Database(inMemory: Configuration())
        var migrator = Migrator()
        migrator.registerMigration("0001_broken", sql: "INSERT INTO nowhere VALUES (1);")
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        try checkShape(error, opening: .inMessage, showsCause: false)
        #expect(error.underlyingError is SQLiteError)
    }

    @Test func historyError() throws {
        let dir = TemporaryDirectory()
        let folder = dir.file("no-such-history")
        let error = try #require(throws: HistoryError.self) { try MigrationHistory(folder: folder) }
        #expect(error.code == .invalidHistory)
        #expect(error.culprit == folder)
        try checkShape(error, opening: .inMessage, showsCause: false)
    }

    @Test func upgradeVerificationErrorAndItsFailures() throws {
        let dir = TemporaryDirectory()
        let history = dir.file("history")
        var old = Migrator()
        old.registerMigration("0001_note", sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);")
        try MigrationHistory.record(old, to: history)
        // Head rebuilds the table by hand and loses the values of a column the history's rows
        // fill (a migration's own UPDATE or DELETE would be a note, not a failure).
        var head = Migrator()
        head.registerMigration(
            "0001_note", sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);")
        head.registerMigration(
            "0002_rebuild",
            sql: """
                CREATE TABLE note_new(id INTEGER PRIMARY KEY, body TEXT);
                INSERT INTO note_new(id) SELECT id FROM note;
                DROP TABLE note;
                ALTER TABLE note_new RENAME TO note;
                """)
        let error = try #require(throws: UpgradeVerificationError.self) {
            try MigrationHistory(folder: history).verifyUpgrades(to: head)
        }
        #expect(error.code == .upgradesFailed)
        try checkShape(error, opening: .inMessage, showsCause: false)
        let failure = try #require(error.underlyingError as? UpgradeFailure)
        #expect(failure.code == failure.kind)
        try checkShape(failure, opening: .inMessage, showsCause: false)
    }

    // MARK: Bounded texts (issue 37, item 5)

    /// The bound on every error text: 2,000 characters for a description, 1,000 for a message.
    static let descriptionBound = 2_000
    static let messageBound = 1_000
    static let huge = String(repeating: "a", count: 750_000)

    /// Checks that `error`'s message and description are bounded and mark the cut with the
    /// number of characters left out.
    private func checkBounded(_ error: any Error, sourceLocation: SourceLocation = #_sourceLocation) {
        let description = "\(error)"
        #expect(
            description.count <= Self.descriptionBound, "\(type(of: error)): \(description.count)",
            sourceLocation: sourceLocation)
        #expect(
            description.contains("more characters)"), "\(type(of: error)): \(description.prefix(300))",
            sourceLocation: sourceLocation)
        if let error = error as? any StrataError {
            #expect(
                error.message.count <= Self.messageBound, "\(type(of: error)): \(error.message.count)",
                sourceLocation: sourceLocation)
        }
    }

    @Test func boundedCutsWithTheNumberLeftOut() {
        #expect(StrataErrorText.bounded("short", limit: 100) == "short")
        let cut = StrataErrorText.bounded(Self.huge, limit: 1_000)
        #expect(cut.count <= 1_000 && cut.count > 900)
        #expect(cut.hasPrefix("aaaa") && cut.hasSuffix("… (749,040 more characters)"))
        #expect(StrataErrorText.grouped(1_234_567) == "1,234,567" && StrataErrorText.grouped(12) == "12")
        // The one rendering bounds each part: at most 2,000 characters however long the parts.
        struct Cause: Error, CustomStringConvertible {
            var description: String { String(repeating: "c", count: 50_000) }
        }
        let line = StrataErrorText.line(opening: Self.huge, message: Self.huge, cause: Cause())
        #expect(line.count <= Self.descriptionBound)
        #expect(line.components(separatedBy: "more characters)").count == 4)
    }

    /// Huge input through each library front: the errors quote a bounded part of it, and keep
    /// it whole where they hold it as data.
    @Test func errorsOverHugeInputAreBounded() throws {
        let db = try Database(inMemory: Configuration())
        // SQLite quotes an unrecognized token whole: a 750,000-character string literal.
        let bad = "SELECT '" + Self.huge
        let sqlite = try #require(throws: SQLiteError.self) { try db.execute(sql: bad) }
        checkBounded(sqlite)
        #expect(sqlite.sql == bad)  // the statement, whole
        #expect((sqlite.culprit ?? "").count <= 250)
        let huge = try #require(throws: SQLiteError.self) { try db.execute(sql: "SELEC " + Self.huge) }
        checkBounded(huge)
        // A desired schema of one huge bad statement, and a huge table name.
        let schema = try #require(throws: SchemaError.self) {
            try DatabaseSchema(sql: "CREATE TABLE t(x TEXT DEFAULT '" + Self.huge + ");")
        }
        checkBounded(schema)
        let name = try #require(throws: SchemaError.self) {
            try DatabaseSchema(sql: "CREATE TABLE " + Self.huge + "(id INTEGER PRIMARY KEY,, x);")
        }
        checkBounded(name)
        // A migration whose statement is huge.
        var migrator = Migrator()
        migrator.registerMigration("0001_huge", sql: "INSERT INTO nowhere VALUES ('" + Self.huge + "');")
        checkBounded(try #require(throws: MigrationError.self) { try migrator.migrate(db) })
        // A huge column name read as the wrong type.
        let row = try #require(try db.fetchOne(sql: "SELECT 'x' AS \"" + Self.huge + "\""))
        checkBounded(try #require(throws: RowDecodingError.self) { let _: Int = try row[Self.huge] })
        // A huge table name in the DSL.
        checkBounded(try #require(throws: SchemaDefinitionError.self) { try db.create(table: Self.huge) { _ in } })
        // A history folder at a huge path.
        checkBounded(try #require(throws: HistoryError.self) { try MigrationHistory(folder: "/" + Self.huge) })
    }

    /// Every error type with a public initializer, given a huge message: bounded when made.
    @Test func everyErrorTypeBoundsItsMessage() {
        checkBounded(SQLiteError(resultCode: .SQLITE_ERROR, message: Self.huge, sql: Self.huge))
        checkBounded(SchemaError(code: .invalidSQL, message: Self.huge, culprit: Self.huge))
        checkBounded(BackupError(code: .destinationExists, path: Self.huge, message: Self.huge))
        checkBounded(DatabaseAccessError(code: .preparationFailed, path: Self.huge, message: Self.huge))
        checkBounded(RecordError(code: .recordNotFound, recordType: Self.huge, tableName: "t", message: Self.huge))
    }
}
