import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

/// A record that logs every persistence callback, in GRDB's order.
private final class CallLog: @unchecked Sendable {
    var calls: [String] = []
}

private struct Event: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "event"
    var id: Int64?
    var name: String
    var createdAt: String?
    /// Not a column.
    var log: CallLog?
    var failIn: String?

    enum CodingKeys: String, CodingKey { case id, name, createdAt }

    init(id: Int64? = nil, name: String, log: CallLog, failIn: String? = nil) {
        self.id = id
        self.name = name
        self.log = log
        self.failIn = failIn
    }

    struct Failure: Error, Equatable { var callback: String }

    func record(_ callback: String) throws {
        log?.calls.append(callback)
        if failIn == callback { throw Failure(callback: callback) }
    }

    mutating func willInsert(_ db: Database) throws {
        try record("willInsert")
        createdAt = "2026-01-01"
    }
    func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
        try record("aroundInsert.before")
        _ = try insert()
        try record("aroundInsert.after")
    }
    mutating func didInsert(_ inserted: InsertionSuccess) {
        log?.calls.append("didInsert")
        id = inserted.rowID
    }
    func willUpdate(_ db: Database, columns: Set<String>) throws {
        try record("willUpdate(\(columns.sorted().joined(separator: ",")))")
    }
    func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
        try record("aroundUpdate.before")
        _ = try update()
        try record("aroundUpdate.after")
    }
    func didUpdate(_ updated: PersistenceSuccess) { log?.calls.append("didUpdate") }
    func willSave(_ db: Database) throws { try record("willSave") }
    func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
        try record("aroundSave.before")
        _ = try save()
        try record("aroundSave.after")
    }
    func didSave(_ saved: PersistenceSuccess) { log?.calls.append("didSave") }
    func willDelete(_ db: Database) throws { try record("willDelete") }
    func aroundDelete(_ db: Database, delete: () throws -> Bool) throws {
        try record("aroundDelete.before")
        _ = try delete()
        try record("aroundDelete.after")
    }
    func didDelete(deleted: Bool) { log?.calls.append("didDelete(\(deleted))") }
}

/// An `around` callback that forgets to call its function.
private struct Forgetful: Codable, MutablePersistableRecord {
    static let databaseTableName = "event"
    var id: Int64?
    var name: String
    func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {}
}

@Suite("Record persistence callbacks")
struct RecordCallbackTests {
    static let insertCalls = [
        "willSave", "aroundSave.before", "willInsert", "aroundInsert.before", "aroundInsert.after", "didInsert",
        "aroundSave.after", "didSave",
    ]
    static let updateCalls = [
        "willSave", "aroundSave.before", "willUpdate(createdAt,name)", "aroundUpdate.before", "aroundUpdate.after",
        "didUpdate", "aroundSave.after", "didSave",
    ]

    func database() throws -> Database {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: "CREATE TABLE event(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, createdAt TEXT)")
        return db
    }

    @Test func insertCallsInGRDBOrder() throws {
        let db = try database()
        let log = CallLog()
        var event = Event(name: "launch", log: log)
        try event.insert(db)
        #expect(log.calls == Self.insertCalls)
        #expect(event.id == 1)
        // willInsert changed the record before it was encoded.
        #expect(try db.fetchValue(String.self, sql: "SELECT createdAt FROM event") == "2026-01-01")
    }

    @Test func updateCallsInGRDBOrderWithTheWrittenColumns() throws {
        let db = try database()
        var event = Event(name: "launch", log: CallLog())
        try event.insert(db)
        let log = CallLog()
        event.log = log
        event.name = "landing"
        try event.update(db)
        #expect(log.calls == Self.updateCalls)
        log.calls = []
        try event.update(db, columns: ["name"])
        #expect(log.calls[2] == "willUpdate(name)")
    }

    @Test func saveOfANewRecordWithAKeyTriesTheUpdateThenInserts() throws {
        let db = try database()
        let log = CallLog()
        var event = Event(id: 7, name: "launch", log: log)
        try event.save(db)
        // GRDB's order: the update's will/around start, then the insert's callbacks.
        #expect(
            log.calls == [
                "willSave", "aroundSave.before", "willUpdate(createdAt,name)", "aroundUpdate.before",
                "willInsert", "aroundInsert.before", "aroundInsert.after", "didInsert", "aroundSave.after", "didSave",
            ])
        #expect(try db.fetchValue(Int64.self, sql: "SELECT id FROM event") == 7)
        log.calls = []
        try event.save(db)
        #expect(log.calls == Self.updateCalls)
        log.calls = []
        var fresh = Event(name: "orbit", log: log)
        try fresh.save(db)
        #expect(log.calls == Self.insertCalls)
    }

    @Test func upsertCallsAsInsert() throws {
        let db = try database()
        let log = CallLog()
        var event = Event(name: "launch", log: log)
        // A named key: any SQLite Strata supports (upsert(db) needs 3.35 on this table, whose
        // name is UNIQUE).
        try event.upsert(db, onConflict: ["name"])
        #expect(log.calls == Self.insertCalls)
        log.calls = []
        try event.upsert(db, onConflict: ["name"])  // the update path: the same callbacks
        #expect(log.calls == Self.insertCalls)
        #expect(event.id == 1)
    }

    @Test func deleteCalls() throws {
        let db = try database()
        var event = Event(name: "launch", log: CallLog())
        try event.insert(db)
        let log = CallLog()
        event.log = log
        #expect(try event.delete(db))
        #expect(log.calls == ["willDelete", "aroundDelete.before", "aroundDelete.after", "didDelete(true)"])
        log.calls = []
        #expect(try !event.delete(db))
        #expect(log.calls.last == "didDelete(false)")
    }

    /// A throwing `willSave` stops every write before anything is written: schema and rows compared.
    @Test(arguments: ["insert", "update", "save", "upsert", "updateChanges"])
    func throwingWillSaveLeavesNothingWritten(operation: String) throws {
        let db = try database()
        var existing = Event(name: "launch", log: CallLog())
        try existing.insert(db)
        let before = try DatabaseContents(db)
        let log = CallLog()
        var event = Event(id: operation == "insert" ? nil : existing.id, name: "renamed", log: log, failIn: "willSave")
        let error = #expect(throws: Event.Failure.self) {
            switch operation {
            case "insert": try event.insert(db)
            case "update": try event.update(db)
            case "save": try event.save(db)
            case "upsert": try event.upsert(db)
            default:
                var old = event
                old.name = "launch"
                try event.updateChanges(db, from: old)
            }
        }
        #expect(error == Event.Failure(callback: "willSave"))
        #expect(log.calls == ["willSave"])
        #expect(try DatabaseContents(db) == before)
    }

    /// An error thrown after the statement ran (by an `around` callback) leaves nothing written
    /// when the connection was in autocommit mode: the operation ran in a savepoint.
    @Test(arguments: ["aroundSave.after", "aroundInsert.after", "aroundUpdate.after", "aroundDelete.after"])
    func errorAfterTheStatementLeavesNothingWritten(callback: String) throws {
        let db = try database()
        var existing = Event(name: "launch", log: CallLog())
        try existing.insert(db)
        let before = try DatabaseContents(db)
        var event = Event(id: existing.id, name: "renamed", log: CallLog(), failIn: callback)
        #expect(throws: Event.Failure.self) {
            switch callback {
            case "aroundInsert.after":
                event.id = nil
                try event.insert(db)
            case "aroundDelete.after": try event.delete(db)
            default: try event.update(db)
            }
        }
        #expect(!db.isInTransaction)
        #expect(try DatabaseContents(db) == before)
    }

    @Test func anAroundCallbackThatDoesNotCallItsFunctionIsReported() throws {
        let db = try database()
        var record = Forgetful(id: nil, name: "x")
        let error = #expect(throws: RecordError.self) { try record.insert(db) }
        #expect(error?.code == .callbackMisuse)
        #expect(error?.description.contains("Forgetful.aroundSave") == true)
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM event") == 0)
    }

    /// The unchanged record of `updateChanges` calls no callback at all (GRDB's behaviour).
    @Test func updateChangesWithoutChangeCallsNothing() throws {
        let db = try database()
        var event = Event(name: "launch", log: CallLog())
        try event.insert(db)
        let log = CallLog()
        event.log = log
        #expect(try !event.updateChanges(db) { _ in })
        #expect(log.calls.isEmpty)
        #expect(try event.updateChanges(db) { $0.name = "orbit" })
        #expect(log.calls[2] == "willUpdate(name)")
    }
}
