import StrataSQLite
import Testing

@Suite("SQLite version and capabilities")
struct CapabilityTests {
    /// What SQLite brought when (from its release notes), the oracle for the flags.
    struct Features: Equatable, CustomStringConvertible {
        var renameColumn = false, generatedColumns = false, dropColumn = false, returning = false
        var strictTables = false, alterConstraints = false

        /// The features of SQLite `version`.
        static func of(_ version: SQLiteVersion) -> Features {
            var f = Features()
            if version >= SQLiteVersion(3, 25, 0) { f.renameColumn = true }
            if version >= SQLiteVersion(3, 31, 0) { f.generatedColumns = true }
            if version >= SQLiteVersion(3, 35, 0) {
                f.dropColumn = true
                f.returning = true
            }
            if version >= SQLiteVersion(3, 37, 0) { f.strictTables = true }
            if version >= SQLiteVersion(3, 53, 0) { f.alterConstraints = true }
            return f
        }

        /// The flags of `caps`.
        init(_ caps: SQLiteCapabilities) {
            renameColumn = caps.supportsRenameColumn
            generatedColumns = caps.supportsGeneratedColumns
            dropColumn = caps.supportsDropColumn
            returning = caps.supportsReturning
            strictTables = caps.supportsStrictTables
            alterConstraints = caps.supportsAlterConstraints
        }

        init() {}

        var description: String {
            "rename \(renameColumn), generated \(generatedColumns), drop \(dropColumn), returning \(returning), "
                + "strict \(strictTables), alter constraints \(alterConstraints)"
        }
    }

    /// Limits around each feature's release; the effective version is the lower of the limit and
    /// the runtime (a limit above the real version cannot add features the library lacks).
    static let limits: [SQLiteVersion?] = [
        nil, SQLiteVersion(3, 24, 0), SQLiteVersion(3, 25, 0), SQLiteVersion(3, 30, 1), SQLiteVersion(3, 31, 0),
        SQLiteVersion(3, 34, 1), SQLiteVersion(3, 35, 0), SQLiteVersion(3, 37, 0), SQLiteVersion(3, 52, 0),
        SQLiteVersion(3, 53, 0), SQLiteVersion(9, 0, 0),
    ]

    @Test(arguments: limits)
    func capabilityLimit(_ limit: SQLiteVersion?) throws {
        var config = Configuration()
        config.capabilityLimit = limit
        let db = try Database(inMemory: config)
        let caps = db.capabilities
        let effective = min(limit ?? .runtime, .runtime)
        #expect(caps.version == effective)
        #expect(Features(caps) == Features.of(effective))
        #expect(caps.supportsTableListPragma == caps.supportsStrictTables)
        #expect(caps.supports(.generatedColumns) == caps.supportsGeneratedColumns)
        #expect(caps.supports(.strictTables) == caps.supportsStrictTables)
        #expect(caps.supports(.dropColumn) == caps.supportsDropColumn)
        #expect(caps.supports(.returning) == caps.supportsReturning)
        #expect(caps.supports(.alterConstraints) == caps.supportsAlterConstraints)
        // The real library is unchanged: the limit only steers Strata's choices.
        #expect(db.sqliteVersion == .runtime)
    }

    /// What the runtime's capabilities advertise works on it, and what they deny fails.
    @Test func advertisedFeaturesWork() throws {
        let db = try Database(inMemory: Configuration())
        let caps = db.capabilities
        try db.execute(sql: "CREATE TABLE t(a, b)")
        if caps.supportsRenameColumn { try db.execute(sql: "ALTER TABLE t RENAME COLUMN a TO c") }
        if caps.supportsDropColumn {
            try db.execute(sql: "ALTER TABLE t DROP COLUMN b")
        } else {
            #expect(throws: SQLiteError.self) { try db.execute(sql: "ALTER TABLE t DROP COLUMN b") }
        }
        if caps.supportsReturning {
            #expect(try db.fetchValue(Int.self, sql: "INSERT INTO t(c) VALUES (5) RETURNING c") == 5)
        } else {
            #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO t(c) VALUES (5) RETURNING c") }
        }
        let strict = "CREATE TABLE s(x INT) STRICT"
        if caps.supportsStrictTables {
            try db.execute(sql: strict)
        } else {
            #expect(throws: SQLiteError.self) { try db.execute(sql: strict) }
        }
        let generated = "CREATE TABLE g(x, y AS (x + 1))"
        if caps.supportsGeneratedColumns {
            try db.execute(sql: generated)
        } else {
            #expect(throws: SQLiteError.self) { try db.execute(sql: generated) }
        }
        #expect(
            try db.fetchColumn(String.self, sql: "SELECT name FROM pragma_table_info('t')")
                == (caps.supportsDropColumn ? ["c"] : ["c", "b"]))
    }

    @Test func versionParsingAndOrder() {
        #expect(SQLiteVersion(number: 3_040_001) == SQLiteVersion(3, 40, 1))
        #expect(SQLiteVersion(3, 9, 0) < SQLiteVersion(3, 10, 0))
        #expect(SQLiteVersion(3, 40, 1) > SQLiteVersion(3, 40))
        #expect(SQLiteVersion(3, 40, 1).description == "3.40.1")
    }
}
