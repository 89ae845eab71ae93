import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// SQLite 3.53's ALTER TABLE forms (ADD CONSTRAINT ... CHECK, DROP CONSTRAINT, ALTER COLUMN
/// SET/DROP NOT NULL) replace a rebuild when the trial on the copy gives exactly the desired table.
/// They run in the real-versions matrix on 3.54.0; on older runtimes they are skipped.
@Suite("SQLite 3.53 constraint forms")
struct NativeConstraintFormTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var before: String
        var after: String
        var kinds: [PlanStep.Kind]
        var testDescription: String { name }
    }

    static let rows = "INSERT INTO item VALUES (1, 5, 'pen'), (2, 7, 'ink');"

    static let cases: [Case] = [
        Case(
            name: "add a table CHECK",
            before: "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT);",
            after: "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT, CHECK (qty > 0));",
            kinds: [.addConstraint]),
        Case(
            name: "add a named CHECK",
            before: "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT);",
            after:
                "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT, CONSTRAINT positive CHECK (qty > 0));",
            kinds: [.addConstraint]),
        Case(
            name: "drop a named CHECK",
            before:
                "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT, CONSTRAINT positive CHECK (qty > 0));",
            after: "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT);",
            kinds: [.dropConstraint]),
        Case(
            name: "set NOT NULL",
            before: "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT);",
            after: "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT NOT NULL);",
            kinds: [.setNotNull]),
        Case(
            name: "drop NOT NULL",
            before: "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT NOT NULL, name TEXT);",
            after: "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT);",
            kinds: [.dropNotNull]),
        Case(
            name: "add a column and a CHECK together",
            before: "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT);",
            after: "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT, note TEXT, CHECK (qty < 100));",
            kinds: [.addConstraint, .addColumn]),
        // An unnamed CHECK cannot be dropped natively; a column CHECK cannot be added natively
        // (ADD CONSTRAINT writes a table constraint): both stay rebuilds.
        Case(
            name: "drop an unnamed CHECK",
            before: "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT, CHECK (qty > 0));",
            after: "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT);",
            kinds: [.rebuildTable]),
        Case(
            name: "add a column CHECK",
            before: "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT);",
            after: "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT CHECK (qty > 0), name TEXT);",
            kinds: [.rebuildTable]),
    ]

    static func database(_ sql: String, limit: SQLiteVersion? = nil) throws -> (Database, TemporaryDirectory, String) {
        let dir = TemporaryDirectory("strata-native-constraints")
        let path = dir.file("db.sqlite")
        var config = Configuration()
        config.capabilityLimit = limit
        let db = try Database(path: path, configuration: config)
        try db.execute(sql: sql + rows)
        return (db, dir, path)
    }

    @Test(.requiresSQLite(3, 53, "ALTER TABLE ADD CONSTRAINT"), arguments: cases)
    func nativeWhenTheTrialIsExact(_ c: Case) throws {
        let (db, dir, _) = try Self.database(c.before)
        defer {
            db.close()
            _ = dir
        }
        let rowsBefore = try db.fetchAll(sql: "SELECT * FROM item ORDER BY id").map(\.values)
        let plan = try db.planSchemaChange(to: c.after)
        #expect(plan.steps.map(\.kind) == c.kinds, "\(plan.summary)")
        try db.applySchemaChange(plan)
        #expect(try DatabaseSchema.read(from: db).differences(from: DatabaseSchema(sql: c.after)).isEmpty)
        #expect(try db.fetchAll(sql: "SELECT id, qty, name FROM item ORDER BY id").map(\.values) == rowsBefore)
    }

    /// Below 3.53 (here simulated by the capability limit) every one of these is a rebuild.
    @Test(arguments: cases)
    func rebuildBelow353(_ c: Case) throws {
        let (db, dir, _) = try Self.database(c.before, limit: SQLiteVersion(3, 52))
        defer {
            db.close()
            _ = dir
        }
        let plan = try db.planSchemaChange(to: c.after)
        #expect(plan.steps.map(\.kind) == [.rebuildTable], "\(plan.summary)")
    }

    /// Rows that break the new constraint, arriving after planning, fail the apply and leave the
    /// file byte-identical: ADD CHECK names its step (SQLite checks the rows itself); SET NOT NULL
    /// carries the rebuild's no-NULLs guard, which names the column and counts the rows.
    @Test(
        .requiresSQLite(3, 53, "ALTER TABLE ADD CONSTRAINT"),
        arguments: [
            (
                "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT, CHECK (qty > 4));",
                "add constraint to table item: CHECK (qty > 4): the existing rows do not fit the new definition",
                SchemaError.Code.applyFailed
            ),
            (
                "CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT NOT NULL);",
                "table item: column name becomes NOT NULL but rows hold NULL", SchemaError.Code.preflightFailed
            ),
        ])
    func rowsThatBreakTheConstraintFailTheApply(desired: String, message: String, code: SchemaError.Code) throws {
        let (db, dir, path) = try Self.database("CREATE TABLE item(id INTEGER PRIMARY KEY, qty INT, name TEXT);")
        defer {
            db.close()
            _ = dir
        }
        // The plan is made on rows that fit; rows that do not arrive before it is applied.
        let plan = try db.planSchemaChange(to: desired)
        #expect(plan.steps.map(\.kind) != [.rebuildTable])
        try db.execute(sql: "INSERT INTO item VALUES (3, 1, NULL)")
        let before = try DatabaseContents(db)
        let bytes = fileBytes(path)
        let error = #expect(throws: SchemaError.self) { try db.applySchemaChange(plan) }
        #expect(error?.code == code)
        #expect(error?.underlying?.resultCode == .SQLITE_CONSTRAINT)
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
        #expect(try DatabaseContents(db) == before)
        #expect(fileBytes(path) == bytes)
    }
}
