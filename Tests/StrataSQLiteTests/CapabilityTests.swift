import StrataSQLite
import Testing

@Suite("SQLite version and capabilities")
struct CapabilityTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var limit: SQLiteVersion?
        var renameColumn: Bool
        var dropColumn: Bool
        var returning: Bool
        var strictTables: Bool
        var alterConstraints: Bool
        var testDescription: String { limit.map { "limit \($0)" } ?? "runtime" }
    }

    // The runtime here is 3.40.1 (at least 3.37 is assumed by these expectations).
    static let cases: [Case] = [
        Case(limit: nil, renameColumn: true, dropColumn: true, returning: true, strictTables: true,
             alterConstraints: SQLiteVersion.runtime >= SQLiteVersion(3, 53)),
        Case(limit: SQLiteVersion(3, 24, 0), renameColumn: false, dropColumn: false, returning: false,
             strictTables: false, alterConstraints: false),
        Case(limit: SQLiteVersion(3, 25, 0), renameColumn: true, dropColumn: false, returning: false,
             strictTables: false, alterConstraints: false),
        Case(limit: SQLiteVersion(3, 34, 1), renameColumn: true, dropColumn: false, returning: false,
             strictTables: false, alterConstraints: false),
        Case(limit: SQLiteVersion(3, 35, 0), renameColumn: true, dropColumn: true, returning: true,
             strictTables: false, alterConstraints: false),
        Case(limit: SQLiteVersion(3, 37, 0), renameColumn: true, dropColumn: true, returning: true,
             strictTables: true, alterConstraints: false),
        // A limit above the real version cannot add features the library lacks.
        Case(limit: SQLiteVersion(9, 0, 0), renameColumn: true, dropColumn: true, returning: true,
             strictTables: true, alterConstraints: SQLiteVersion.runtime >= SQLiteVersion(3, 53)),
    ]

    @Test(arguments: cases)
    func capabilityLimit(_ c: Case) throws {
        var config = Configuration()
        config.capabilityLimit = c.limit
        let db = try Database(inMemory: config)
        let caps = db.capabilities
        #expect(caps.version == min(c.limit ?? .runtime, .runtime))
        #expect(caps.supportsRenameColumn == c.renameColumn)
        #expect(caps.supportsDropColumn == c.dropColumn)
        #expect(caps.supportsReturning == c.returning)
        #expect(caps.supportsStrictTables == c.strictTables)
        #expect(caps.supportsTableListPragma == c.strictTables)
        #expect(caps.supportsAlterConstraints == c.alterConstraints)
        // The real library is unchanged: the limit only steers Strata's choices.
        #expect(db.sqliteVersion == .runtime)
    }

    @Test func advertisedFeaturesWork() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(a, b)")
        if db.capabilities.supportsRenameColumn { try db.execute(sql: "ALTER TABLE t RENAME COLUMN a TO c") }
        if db.capabilities.supportsDropColumn { try db.execute(sql: "ALTER TABLE t DROP COLUMN b") }
        if db.capabilities.supportsReturning {
            #expect(try db.fetchValue(Int.self, sql: "INSERT INTO t(c) VALUES (5) RETURNING c") == 5)
        }
        if db.capabilities.supportsStrictTables { try db.execute(sql: "CREATE TABLE s(x INT) STRICT") }
        #expect(try db.fetchColumn(String.self, sql: "SELECT name FROM pragma_table_info('t')") == ["c"])
    }

    @Test func versionParsingAndOrder() {
        #expect(SQLiteVersion(number: 3_040_001) == SQLiteVersion(3, 40, 1))
        #expect(SQLiteVersion(3, 9, 0) < SQLiteVersion(3, 10, 0))
        #expect(SQLiteVersion(3, 40, 1) > SQLiteVersion(3, 40))
        #expect(SQLiteVersion(3, 40, 1).description == "3.40.1")
    }
}
