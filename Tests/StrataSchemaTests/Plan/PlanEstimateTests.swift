import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// The cost before the work (issue 29): every plan carries an estimate per step and in total,
/// from `sqlite_stat1` or a bounded count, with bytes from the first pages or rows, and reading
/// it changes nothing.
@Suite("Plan estimates")
struct PlanEstimateTests {
    /// Whether this SQLite has the `dbstat` table Strata reads pages from: 3.31 or newer (where a
    /// `name` constraint narrows it) and compiled in (the real-SQLite matrix's 3.28.0 has neither).
    static func dbstatReadable(_ db: Database) -> Bool {
        SQLiteVersion.runtime >= SQLiteVersion(3, 31)
            && (try? db.fetchValue(Int.self, sql: "SELECT count(*) FROM (SELECT 1 FROM dbstat LIMIT 1)")) != nil
    }

    static func live(_ table: String) -> String {
        let t = SQL.quoteIdentifier(table)
        return """
            CREATE TABLE \(t)(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL);
            CREATE INDEX \(SQL.quoteIdentifier(table + " name")) ON \(t)(name);
            CREATE INDEX \(SQL.quoteIdentifier(table + " price")) ON \(t)(price);
            """
    }

    static func desired(_ table: String) -> String {
        live(table).replacingOccurrences(of: "price REAL", with: "price NUMERIC")
    }

    func makeDatabase(_ dir: TemporaryDirectory, table: String = "item", rows: Int) throws -> Database {
        let db = try Database(path: dir.file("app.sqlite"))
        try db.execute(sql: Self.live(table))
        try insert(rows, into: table, from: 1, db)
        return db
    }

    func insert(_ rows: Int, into table: String, from first: Int, _ db: Database) throws {
        try db.execute(
            sql: """
                WITH RECURSIVE n(i) AS (SELECT \(first) UNION ALL SELECT i + 1 FROM n WHERE i < \(first + rows - 1))
                INSERT INTO \(SQL.quoteIdentifier(table))(id, name, price) SELECT i, 'item number ' || i, i * 0.5 FROM n
                """)
    }

    /// The bytes of `table` and its indexes as `dbstat` reports them, every page.
    func actualBytes(_ table: String, _ db: Database) throws -> Int64 {
        try db.fetchValue(
            Int64.self,
            sql: "SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = ?)",
            arguments: [table])
            ?? 0
    }

    @Test func withoutStatisticsTheRowsAreCounted() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir, rows: 5000)
        let plan = try db.planSchemaChange(to: Self.desired("item"))
        let step = try #require(plan.steps.first { $0.kind == .rebuildTable })
        #expect(step.estimate.rows == 5000)
        #expect(step.estimate.rowSource == .count)
        #expect(!step.estimate.rowsAreLowerBound)
        #expect(step.estimate.indexes == 2)
        #expect(step.estimate.indexEntries == 10_000)
        // Bytes of the copy and both indexes: within 2× of what the table and its indexes hold.
        let actual = try actualBytes("item", db)
        #expect(
            step.estimate.bytes > actual / 2 && step.estimate.bytes < actual * 2, "\(step.estimate.bytes) vs \(actual)")
        #expect(step.estimate.byteSource == (Self.dbstatReadable(db) ? .pages : .sampledValues))
        #expect(plan.estimate.rows == 5000)
        #expect(plan.estimate.expectedDuration() > .zero)
        #expect(plan.summaryWithEstimates.contains("(≈ 5 k rows, ≈ "), "\(plan.summaryWithEstimates)")
        #expect(plan.summaryWithEstimates.contains("2 indexes)"))
    }

    @Test func withStatisticsTheirCountIsUsedWithoutCounting() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir, rows: 3000)
        try db.execute(sql: "ANALYZE")
        // Rows added after ANALYZE are not seen: the statistics are as old as the last ANALYZE.
        try insert(500, into: "item", from: 3001, db)
        let plan = try db.planSchemaChange(to: Self.desired("item"))
        let step = try #require(plan.steps.first)
        #expect(step.estimate.rows == 3000)
        #expect(step.estimate.rowSource == .statistics)
        #expect(!step.estimate.rowsAreLowerBound)
    }

    /// A table without rowids (`WITHOUT ROWID`, or columns that shadow `rowid`, `_rowid_` and
    /// `oid`) larger than the count limit reports the limit, as a lower bound.
    @Test(arguments: [
        "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL) WITHOUT ROWID;",
        "CREATE TABLE item(rowid INT, _rowid_ INT, oid INT, id INTEGER, name TEXT NOT NULL, price REAL);",
    ])
    func aTableWithoutRowIDsLargerThanTheLimitIsALowerBound(_ live: String) throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("app.sqlite"))
        try db.execute(sql: live)
        try insert(5000, into: "item", from: 1, db)
        let desired = live.replacingOccurrences(of: "price REAL", with: "price NUMERIC")
        var options = SchemaChangeOptions()
        options.estimateCountLimit = 1000
        let plan = try db.planSchemaChange(to: desired, options: options)
        let step = try #require(plan.steps.first)
        #expect(step.estimate.rows == 1000)
        #expect(step.estimate.rowsAreLowerBound)
        #expect(step.estimate.rowSource == .count)
        #expect(step.estimate.description.hasPrefix("≥ 1 k rows"), "\(step.estimate)")
        #expect(plan.estimate.rowsAreLowerBound)
        #expect(plan.summaryWithEstimates.contains("Estimated: ≥ 1 k rows"), "\(plan.summaryWithEstimates)")
        // Exactly at the limit is not a lower bound.
        options.estimateCountLimit = 5000
        let exact = try db.planSchemaChange(to: desired, options: options)
        #expect(exact.steps.first?.estimate.rows == 5000)
        #expect(exact.steps.first?.estimate.rowsAreLowerBound == false)
        // A limit of zero or less counts one row at most, never a negative LIMIT.
        options.estimateCountLimit = -5
        let tiny = try db.planSchemaChange(to: desired, options: options)
        #expect(tiny.steps.first?.estimate.rows == 1)
        #expect(tiny.steps.first?.estimate.rowsAreLowerBound == true)
    }

    /// Past the count limit, a table with rowids is extrapolated from their span: exact for rows
    /// only appended, close for rowids spread evenly, above the rows (never below the count) when
    /// rows were deleted after the first ones; planning still reads no more than the limit's rows.
    @Test func aTableLargerThanTheLimitIsExtrapolatedFromItsRowIDs() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir, rows: 5000)
        var options = SchemaChangeOptions()
        options.estimateCountLimit = 1000
        func estimate() throws -> PlanEstimate {
            try #require(try db.planSchemaChange(to: Self.desired("item"), options: options).steps.first).estimate
        }
        var e = try estimate()
        #expect(e.rows == 5000)
        #expect(!e.rowsAreLowerBound)
        #expect(e.rowSource == .rowIDSpan)
        #expect(e.description.hasPrefix("≈ 5 k rows"), "\(e)")
        // Even a limit of one row extrapolates from the two rows read.
        options.estimateCountLimit = -5
        #expect(try estimate().rows == 5000)
        options.estimateCountLimit = 1000

        // Rowids spread evenly (every seventh, from a large first one): within 2×.
        try db.execute(sql: "DELETE FROM item")
        try db.execute(
            sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)
                INSERT INTO item(id, name, price) SELECT 1000000000 + 7 * i + (i % 5), 'n' || i, i FROM n
                """)
        e = try estimate()
        #expect(e.rows > 3000 && e.rows < 12_000, "\(e)")

        // Most rows after the first ones deleted: above the rows, never below the count.
        try db.execute(sql: "DELETE FROM item WHERE id > 1000000000 + 7 * 1500 AND id % 10 != 0")
        e = try estimate()
        #expect(e.rows >= 1001 && e.rows <= 6100, "\(e)")

        // A huge rowid after dense ones, then the smallest one before them: capped by what the
        // file can hold (far below 2^48), and no overflow over the widest span.
        for id in ["9223372036854775807", "-9223372036854775808"] {
            try db.execute(sql: "INSERT INTO item(id, name, price) VALUES (\(id), 'far', 1)")
            e = try estimate()
            let fileBytes = try #require(
                try db.fetchValue(
                    Int.self, sql: "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size"))
            #expect(e.rows >= 1001 && e.rows <= fileBytes, "\(id): \(e), file \(fileBytes) bytes")
            #expect(e.bytes > 0 && e.bytes < Int64(fileBytes) * 10, "\(id): \(e)")
        }
    }

    @Test(arguments: [#"we"ird ta'ble; DROP TABLE x --"#, "select", "dbstat", "Stat 1 'x' ANALYZE"])
    func aHostileTableName(_ name: String) throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir, table: name, rows: 1200)
        try db.execute(sql: "ANALYZE")
        let before = try DatabaseContents(db)
        let bytes = fileBytes(dir.file("app.sqlite"))
        let plan = try db.planSchemaChange(to: Self.desired(name))
        let step = try #require(plan.steps.first { $0.kind == .rebuildTable })
        #expect(step.estimate.rows == 1200)
        #expect(step.estimate.rowSource == .statistics)
        #expect(step.estimate.bytes > 0)
        // A table called dbstat shadows the virtual table: the bytes come from the sampled values.
        #expect(step.estimate.byteSource == (name != "dbstat" && Self.dbstatReadable(db) ? .pages : .sampledValues))
        // Planning (and its estimate) wrote nothing.
        #expect(try DatabaseContents(db) == before)
        #expect(fileBytes(dir.file("app.sqlite")) == bytes)
        try db.applySchemaChange(plan)
        #expect(try db.planSchemaChange(to: Self.desired(name)).isEmpty)
    }

    @Test func aNewIndexBuildsEntriesWithoutCopyingRows() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir, rows: 2000)
        let plan = try db.planSchemaChange(
            to: Self.live("item") + "\nCREATE INDEX item_both ON item(name, price);")
        let step = try #require(plan.steps.first)
        #expect(step.kind == .createIndex)
        #expect(step.estimate.rows == 0)
        #expect(step.estimate.indexes == 1)
        #expect(step.estimate.indexEntries == 2000)
        #expect(step.estimate.bytes > 2000 * 10)
    }

    @Test func stepsThatTouchNoRowsCostNothing() throws {
        let dir = TemporaryDirectory()
        let db = try makeDatabase(dir, rows: 2000)
        let plan = try db.planSchemaChange(
            to: Self.live("item").replacingOccurrences(of: "price REAL", with: "price REAL, note TEXT")
                + "\nCREATE TABLE other(id INTEGER PRIMARY KEY);")
        #expect(Set(plan.steps.map(\.kind)) == [.addColumn, .createTable])
        #expect(plan.steps.allSatisfy { $0.estimate == .zero })
        #expect(plan.estimate.rows == 0)
        #expect(!plan.summaryWithEstimates.contains("Estimated"))
    }

    @Test func foreignKeyChecksAreScopedToTheTouchedTables() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("app.sqlite"))
        let schema = """
            CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE player(id INTEGER PRIMARY KEY, team_id INTEGER REFERENCES team(id));
            CREATE TABLE league(id INTEGER PRIMARY KEY);
            CREATE TABLE fixture(id INTEGER PRIMARY KEY, league_id INTEGER REFERENCES league(id));
            """
        try db.execute(sql: schema)
        try db.execute(sql: "INSERT INTO team(id) VALUES (1), (2); INSERT INTO player(team_id) VALUES (1), (2), (1)")
        try db.execute(sql: "INSERT INTO league(id) VALUES (1); INSERT INTO fixture(league_id) VALUES (1)")
        let plan = try db.planSchemaChange(
            to: schema.replacingOccurrences(of: "name TEXT", with: "name TEXT NOT NULL DEFAULT ''"))
        #expect(plan.steps.map(\.kind) == [.rebuildTable])
        // player references the rebuilt team; fixture and league are untouched.
        #expect(plan.estimate.foreignKeyCheckTables == ["player"])
        #expect(plan.estimate.foreignKeyCheckRows == 3)
    }

    /// The foreign-key scope can hold many tables: without statistics their counts together stop
    /// at the limit, so planning never counts more than that for it.
    @Test func theForeignKeyScopeCountsNoMoreThanTheLimitInAll() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("app.sqlite"))
        var schema = "CREATE TABLE parent(id INTEGER PRIMARY KEY, name TEXT);\n"
        for i in 1...5 {
            schema += "CREATE TABLE child\(i)(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id));\n"
        }
        try db.execute(sql: schema)
        try db.execute(sql: "INSERT INTO parent(id) VALUES (1)")
        for i in 1...5 {
            try db.execute(
                sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) "
                    + "INSERT INTO child\(i)(parent_id) SELECT 1 FROM n")
        }
        let desired = schema.replacingOccurrences(of: "name TEXT", with: "name TEXT NOT NULL DEFAULT ''")
        var options = SchemaChangeOptions()
        options.estimateCountLimit = 250
        let plan = try db.planSchemaChange(to: desired, options: options)
        #expect(plan.estimate.foreignKeyCheckTables.count == 5)
        // child1 and child2 counted whole (200 rows), child3 counted to the 50 left and
        // extrapolated from its rowids (100), child4 and child5 not counted (a lower bound).
        #expect(plan.estimate.foreignKeyCheckRows == 300)
        #expect(plan.estimate.rowsAreLowerBound)
        #expect(plan.estimate.description.contains("foreign keys of 5 tables checked"), "\(plan.estimate)")
        // With statistics, every table's count, without counting.
        try db.execute(sql: "ANALYZE")
        let analyzed = try db.planSchemaChange(to: desired, options: options)
        #expect(analyzed.estimate.foreignKeyCheckRows == 500)
        #expect(!analyzed.estimate.rowsAreLowerBound)
    }

    @Test func descriptionAndArithmetic() {
        let big = PlanEstimate(
            rows: 12_400_000, rowSource: .statistics, bytes: 2_100_000_000, byteSource: .pages, indexes: 3,
            indexEntries: 37_200_000)
        #expect(big.description == "≈ 12.4 M rows, ≈ 2.1 GB, 3 indexes")
        #expect(PlanEstimate(rows: 1, bytes: 20).description == "≈ 1 row, ≈ 20 B")
        #expect(PlanEstimate.zero.description == "no rows")
        let sum = big + PlanEstimate(rows: 10, rowsAreLowerBound: true, foreignKeyCheckTables: ["a"])
        #expect(sum.rows == 12_400_010 && sum.rowsAreLowerBound && sum.indexes == 3)
        #expect(sum.foreignKeyCheckTables == ["a"])
        // Time: each amount over its rate, added; a rate scaled by a half doubles it.
        let rate = PlanEstimate.Rate(
            rowsPerSecond: 1000, bytesPerSecond: 1_000_000, indexEntriesPerSecond: 500, foreignKeyRowsPerSecond: 100)
        let e = PlanEstimate(rows: 1000, bytes: 1_000_000, indexEntries: 500, foreignKeyCheckRows: 100)
        #expect(e.expectedDuration(at: rate) == .seconds(4))
        #expect(e.expectedDuration(at: rate.scaled(by: 0.5)) == .seconds(8))
        // Absurd values stay finite.
        let huge = PlanEstimate(rows: Int.max / 2, bytes: Int64.max / 2)
        #expect(huge.expectedDuration(at: rate) > .seconds(1_000_000))
    }
}
