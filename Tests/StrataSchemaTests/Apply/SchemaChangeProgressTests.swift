import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// Progress on long work (issue 15): a rebuild reports its steps, the rows it copied and the
/// indexes it built; an error thrown from the callback stops it mid-copy and rolls everything back.
@Suite("Schema change progress")
struct SchemaChangeProgressTests {
    static let rows = 50_000
    static let live = """
        CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL);
        CREATE INDEX item_name ON item(name);
        CREATE INDEX item_price ON item(price);
        """
    static let desired = live.replacingOccurrences(of: "price REAL", with: "price NUMERIC")

    func makeDatabase(_ dir: TemporaryDirectory) throws -> Database {
        try ItemTableFixture.makeDatabase(dir, live: Self.live, rows: Self.rows)
    }

    struct Stop: Error, Equatable {}

    @Test func aRebuildReportsStepsRowsAndIndexes() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        var events = [SchemaChangeEvent]()
        let plan = try db.migrateSchema(to: Self.desired) { events.append($0) }
        #expect(plan.steps.map(\.kind) == [.rebuildTable])
        guard case .stepStarted(_, index: 0, count: 1)? = events.first,
            case .stepFinished(let last, index: 0, count: 1)? = events.last
        else {
            Issue.record("\(events.prefix(3)) … \(events.suffix(3))")
            return
        }
        #expect(last.kind == .rebuildTable)
        let copied = events.compactMap { event -> (String, Int, Int)? in
            if case .rowsCopied(let table, let copied, let total) = event { return (table, copied, total) }
            return nil
        }
        // Reported while the copy runs (not only at its ends), never going backwards, ending at the total.
        #expect(copied.count > 10)
        #expect(copied.allSatisfy { $0.0 == "item" && $0.2 == Self.rows })
        #expect(zip(copied, copied.dropFirst()).allSatisfy { $0.1 <= $1.1 })
        #expect(copied.first?.1 == 0 && copied.last?.1 == Self.rows)
        #expect(copied.contains { $0.1 > 0 && $0.1 < Self.rows })
        let indexes = events.compactMap { event -> String? in
            if case .indexBuilt(let name, "item") = event { return name }
            return nil
        }
        #expect(Set(indexes) == ["item_name", "item_price"])
        #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item") == Self.rows)
    }

    @Test func cancellingMidCopyRollsEverythingBack() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        let before = try DatabaseContents(db)
        var lastCopied = 0
        #expect(throws: Stop.self) {
            try db.migrateSchema(to: Self.desired) { event in
                if case .rowsCopied(_, let copied, let total) = event, copied > total / 2 {
                    lastCopied = copied
                    throw Stop()
                }
            }
        }
        #expect(lastCopied > 0 && lastCopied < Self.rows)  // stopped in the middle of the copy
        #expect(!db.isInTransaction)
        #expect(try DatabaseContents(db) == before)
        // Nothing was recorded: the next call plans and applies in full.
        let plan = try db.migrateSchema(to: Self.desired)
        #expect(!plan.isEmpty && !plan.isVerifiedByFingerprint)
    }

    @Test(arguments: ["stepStarted", "indexBuilt", "stepFinished"])
    func cancellingAtAnyOtherEventRollsEverythingBack(_ stopAt: String) throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir)
        let before = try DatabaseContents(db)
        let plan = try db.planSchemaChange(to: Self.desired)
        #expect(throws: Stop.self) {
            try db.applySchemaChange(plan) { event in
                switch event {
                case .stepStarted where stopAt == "stepStarted", .indexBuilt where stopAt == "indexBuilt",
                    .stepFinished where stopAt == "stepFinished":
                    throw Stop()
                default: break
                }
            }
        }
        #expect(try DatabaseContents(db) == before)
    }

    @Test func theInstructionLimitStillHoldsDuringAndAfterProgress() throws {
        var configuration = Configuration()
        configuration.statementInstructionLimit = 100_000
        let db = try Database(inMemory: configuration)
        let runaway = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
        var calls = 0
        #expect(throws: SQLiteError.self) {
            try db.withProgressHandler({
                calls += 1
                return true
            }) { _ = try db.fetchValue(Int.self, sql: runaway) }
        }
        #expect(calls > 0)
        #expect(throws: SQLiteError.self) { _ = try db.fetchValue(Int.self, sql: runaway) }
        #expect(try db.fetchValue(Int.self, sql: "SELECT 1") == 1)
    }

    /// Progress reads the step's values (issue 27), not its SQL: hostile names (quotes, spaces, a
    /// keyword) come out as they are, and text that only looks like a copy or an index is not one.
    @Test func progressReadsTheStepsValuesWithHostileNames() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: #"""
                CREATE TABLE "my ""item""" (id INTEGER PRIMARY KEY, "select" TEXT, price REAL);
                CREATE UNIQUE INDEX "i x" ON "my ""item"""("select");
                CREATE TABLE other(a TEXT);
                INSERT INTO "my ""item""" VALUES (1, 'a', 1.5), (2, 'b', 2.5);
                """#)
        let desired = #"""
            CREATE TABLE "my ""item""" (id INTEGER PRIMARY KEY, "select" TEXT, price NUMERIC);
            CREATE UNIQUE INDEX "i x" ON "my ""item"""("select");
            CREATE TABLE other(a TEXT, b TEXT DEFAULT 'INSERT INTO x SELECT 1 FROM y');
            CREATE INDEX "CREATE INDEX j ON k(a)" ON other(a);
            """#
        let plan = try db.planSchemaChange(to: desired)
        let rebuild = try #require(plan.steps.first { $0.kind == .rebuildTable })
        let copies = rebuild.parts.compactMap { part -> String? in
            if case .copyRows(let copy) = part { return copy.source }
            return nil
        }
        #expect(copies == [#"my "item""#])
        #expect(rebuild.temporaryTables.count == 1)
        #expect(rebuild.temporaryTables.values.first == #"my "item""#)
        // The parts render exactly the statements.
        for step in plan.steps { #expect(step.parts.flatMap(\.statements) == step.statements) }
        var events = [SchemaChangeEvent]()
        try db.applySchemaChange(plan) { events.append($0) }
        let copied = events.compactMap { event -> String? in
            if case .rowsCopied(let table, _, _) = event { return table }
            return nil
        }
        #expect(!copied.isEmpty && copied.allSatisfy { $0 == #"my "item""# }, "\(events)")
        let built = events.compactMap { event -> String? in
            if case .indexBuilt(let name, let table) = event { return "\(name) on \(table)" }
            return nil
        }
        #expect(Set(built) == [#"i x on my "item""#, "CREATE INDEX j ON k(a) on other"], "\(events)")
        #expect(try db.planSchemaChange(to: desired).isEmpty)
    }

    /// A step whose statements were edited by hand applies them as written, without the events
    /// its values would give.
    @Test func anEditedStepRunsItsTextWithoutCopyEvents() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, price REAL); INSERT INTO item VALUES (1, 2.5);")
        var plan = try db.planSchemaChange(to: "CREATE TABLE item(id INTEGER PRIMARY KEY, price NUMERIC);")
        let i = try #require(plan.steps.firstIndex { $0.kind == .rebuildTable })
        plan.steps[i].statements = plan.steps[i].statements.map { $0 }
        #expect(plan.steps[i].parts.allSatisfy { if case .verbatim = $0 { true } else { false } })
        var events = [SchemaChangeEvent]()
        try db.applySchemaChange(plan) { events.append($0) }
        #expect(!events.contains { if case .rowsCopied = $0 { true } else { false } }, "\(events)")
        #expect(try db.fetchValue(Double.self, sql: "SELECT price FROM item") == 2.5)
        #expect(try db.planSchemaChange(to: "CREATE TABLE item(id INTEGER PRIMARY KEY, price NUMERIC);").isEmpty)
    }
}

/// A plan that rebuilds or builds indexes runs with a larger page cache (the sorter of CREATE
/// INDEX is sized from it), restored on every path (issue 15).
@Suite("Page cache during an apply")
struct ApplyCacheSizeTests {
    @Test(arguments: [100, -1000, -2000])
    func theCacheSizeIsRestoredAfterSuccessAndFailure(_ setting: Int) throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("app.sqlite"))
        try db.execute(sql: SchemaChangeProgressTests.live)
        try db.execute(sql: "INSERT INTO item VALUES (1, 'a', 1.5), (2, 'a', 2.5)")
        try db.execute(sql: "PRAGMA cache_size = \(setting)")
        var seen = [Int]()
        try db.migrateSchema(to: SchemaChangeProgressTests.desired) { event in
            if case .stepStarted = event { seen.append(try db.fetchValue(Int.self, sql: "PRAGMA cache_size") ?? 0) }
        }
        #expect(seen == [-Database.applyCacheKiB])
        #expect(try db.fetchValue(Int.self, sql: "PRAGMA cache_size") == setting)
        // A rebuild failing inside the transaction (a row added after planning breaks a new UNIQUE) restores it too.
        let unique = SchemaChangeProgressTests.desired.replacingOccurrences(
            of: "name TEXT NOT NULL", with: "name TEXT NOT NULL UNIQUE")
        try db.execute(sql: "UPDATE item SET name = 'b' WHERE id = 2")
        let plan = try db.planSchemaChange(to: unique)
        try db.execute(sql: "UPDATE item SET name = 'a' WHERE id = 2")
        var started = false
        #expect(throws: SchemaError.self) {
            try db.applySchemaChange(plan) { if case .stepStarted = $0 { started = true } }
        }
        #expect(started)
        #expect(try db.fetchValue(Int.self, sql: "PRAGMA cache_size") == setting)
    }

    @Test func aLargerCacheIsLeftAlone() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("app.sqlite"))
        try db.execute(sql: SchemaChangeProgressTests.live)
        try db.execute(sql: "PRAGMA cache_size = -65536")
        var seen = [Int]()
        try db.migrateSchema(to: SchemaChangeProgressTests.desired) { event in
            if case .stepStarted = event { seen.append(try db.fetchValue(Int.self, sql: "PRAGMA cache_size") ?? 0) }
        }
        #expect(seen == [-65536])
        #expect(try db.fetchValue(Int.self, sql: "PRAGMA cache_size") == -65536)
    }
}
