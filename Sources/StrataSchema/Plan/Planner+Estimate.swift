import StrataSQLite

/// The cost of each step before it runs (``PlanEstimate``), computed after the proof: rows from
/// `sqlite_stat1` or a count that stops at the limit, bytes from the first pages or rows of each
/// table. Nothing here reads more than `limit + 1` rows or a few hundred pages of a table.
struct PlanEstimator {
    let db: Database
    let live: DatabaseSchema
    let desired: DatabaseSchema
    /// Desired table key -> live table name, for the tables renamed by the plan.
    let liveNames: [String: String]
    let limit: Int

    /// The largest row count an estimate holds (2^48): a count or a `sqlite_stat1` entry above it
    /// (a forged one) is taken as this, so sums and products of counts never overflow.
    static let largestCount = 1 << 48

    /// Rows sampled for the bytes of a row and of an index entry.
    static let sampleRows = 1000
    /// `dbstat` entries (pages) sampled for the bytes of a row.
    static let samplePages = 256

    private let cache = Cache()

    private final class Cache {
        var rows = [String: (count: Int, lowerBound: Bool, source: PlanEstimate.RowSource)]()
        var rowBytes = [String: (row: Double, source: PlanEstimate.ByteSource)]()
        var indexBytes = [String: Double]()
        var statistics: [String: Int]?
        var usesDBStat: Bool?
        /// The file's bytes (pages times page size), read once per plan.
        var fileBytes: Double?
    }

    init(db: Database, live: DatabaseSchema, desired: DatabaseSchema, tableRenames: [String: String], limit: Int) {
        self.db = db
        self.live = live
        self.desired = desired
        var liveNames = [String: String]()
        for (liveKey, desiredName) in tableRenames {
            if let t = live.table(named: liveKey) { liveNames[desiredName.asciiLowercased()] = t.name }
        }
        self.liveNames = liveNames
        self.limit = min(max(1, limit), Self.largestCount)
    }

    /// The live table that `name` (a name in the plan: live, or desired after a rename) is, if any.
    func liveTable(_ name: String) -> TableInfo? {
        if let renamed = liveNames[name.asciiLowercased()] { return live.table(named: renamed) }
        return live.table(named: name)
    }

    /// The estimate of `step`.
    func estimate(_ step: PlanStep) throws -> PlanEstimate {
        switch step.kind {
        case .rebuildTable:
            let old = step.parts.lazy.compactMap { part -> String? in
                if case .drop(let drop) = part { return drop.name }
                return nil
            }.first
            guard let old, let table = liveTable(old), !table.isVirtual else { return .zero }
            let indexes = step.parts.compactMap { part -> IndexInfo? in
                if case .createIndex(let index) = part { return index }
                return nil
            }
            return try writing(table, indexes: indexes, copies: true)
        case .createIndex:
            let index = step.parts.lazy.compactMap { part -> IndexInfo? in
                if case .createIndex(let index) = part { return index }
                return nil
            }.first
            guard let index, let table = liveTable(index.table), !table.isVirtual else { return .zero }
            return try writing(table, indexes: [index], copies: false)
        case .dropColumn:
            guard let table = liveTable(tableName(of: step)), !table.isVirtual else { return .zero }
            return try writing(table, indexes: [], copies: true)
        case .addConstraint, .setNotNull:
            guard let table = liveTable(tableName(of: step)), !table.isVirtual else { return .zero }
            let rows = try rowCount(table)
            return PlanEstimate(rows: rows.count, rowsAreLowerBound: rows.lowerBound, rowSource: rows.source)
        case .rebuildFullTextIndex, .createVirtualTable:
            guard
                let content = step.parts.lazy.compactMap({ part -> String? in
                    if case .rebuildFullTextIndex(let ddl) = part { return ddl.table }
                    return nil
                }).first.flatMap({ fts in contentTable(of: fts) }),
                let table = liveTable(content), !table.isVirtual
            else { return .zero }
            let rows = try rowCount(table)
            let bytes = try rowBytes(table)
            return PlanEstimate(
                rows: rows.count, rowsAreLowerBound: rows.lowerBound, rowSource: rows.source,
                bytes: Int64(Double(rows.count) * bytes.row), byteSource: bytes.source, indexes: 1,
                indexEntries: rows.count)
        default:
            return .zero
        }
    }

    /// The foreign-key check after the plan: `tables` (final names) that declare foreign keys
    /// (SQLite checks nothing for the others), and their rows.
    func foreignKeyCheck(_ checked: [String]) throws -> PlanEstimate {
        let tables = checked.filter { desired.table(named: $0).map { !$0.foreignKeys.isEmpty } ?? false }
        var rows = 0
        var lowerBound = false
        var source = PlanEstimate.RowSource.none
        // The scope can hold hundreds of tables: without statistics, the counts of all of them
        // together stop at the limit (the tables past it count as a lower bound of 0 rows).
        var left = limit
        for name in tables {
            guard let table = liveTable(name), !table.isVirtual else { continue }
            let count: (count: Int, lowerBound: Bool, source: PlanEstimate.RowSource)
            if let known = cache.rows[table.key] {
                count = known
            } else if let rows = try statistics()[table.key] {
                count = (rows, false, .statistics)
            } else if left > 0 {
                count = try rowCount(table, limit: left)
                left -= count.count
            } else {
                count = (0, true, .count)
            }
            rows += count.count
            lowerBound = lowerBound || count.lowerBound
            if count.source != .none { source = count.source }
        }
        return PlanEstimate(
            rows: 0, rowsAreLowerBound: lowerBound, rowSource: source, foreignKeyCheckTables: tables,
            foreignKeyCheckRows: rows)
    }

    /// The table part of a step's object (`table.column` or `table`).
    private func tableName(of step: PlanStep) -> String {
        for part in step.parts {
            switch part {
            case .dropColumn(let ddl): return ddl.table
            case .addCheckConstraint(let ddl): return ddl.table
            case .alterColumnNotNull(let ddl): return ddl.table
            default: continue
            }
        }
        return step.object
    }

    private func contentTable(of fullText: String) -> String? {
        guard let t = desired.table(named: fullText) ?? live.table(named: fullText), let f = FullTextContent(t)
        else { return nil }
        return f.content
    }

    /// Rows of `table` written again (a copy) and entries of `indexes` built.
    private func writing(_ table: TableInfo, indexes: [IndexInfo], copies: Bool) throws -> PlanEstimate {
        let rows = try rowCount(table)
        let row = try copies ? rowBytes(table) : (row: 0, source: PlanEstimate.ByteSource.sampledValues)
        var perRow = row.row
        for index in indexes { perRow += try indexEntryBytes(index, of: table) }
        return PlanEstimate(
            rows: copies ? rows.count : 0, rowsAreLowerBound: rows.lowerBound, rowSource: rows.source,
            bytes: Int64(min(Double(rows.count) * perRow, Double(Int64.max / 2))),
            byteSource: rows.count == 0 ? .none : row.source, indexes: indexes.count,
            indexEntries: rows.count * indexes.count)
    }

    // MARK: Rows

    /// The rows of `table`: `sqlite_stat1`'s count when it has one, otherwise a count that stops
    /// after `limit` rows; past it, extrapolated from the span of the rowids when the table has
    /// rowids (see ``extrapolated(_:rowid:counted:low:high:)``), a lower bound when it has not.
    func rowCount(
        _ table: TableInfo, limit: Int? = nil
    ) throws -> (
        count: Int, lowerBound: Bool, source: PlanEstimate.RowSource
    ) {
        if let known = cache.rows[table.key] { return known }
        let limit = limit ?? self.limit
        let result: (count: Int, lowerBound: Bool, source: PlanEstimate.RowSource)
        if let rows = try statistics()[table.key] {
            result = (rows, false, .statistics)
        } else if let rowid = Planner.rowIDName(table) {
            // The first rows in rowid order (the table's own b-tree, no sort): their count and
            // the span of their rowids.
            let first = try db.fetchOne(
                sql: """
                    SELECT count(*), min(r), max(r) FROM (SELECT \(rowid) AS r FROM \(SQL.quoteIdentifier(table.name))
                    ORDER BY \(rowid) LIMIT \(limit + 1))
                    """)
            let counted = try first?.decode(Int?.self, at: 0) ?? 0
            if counted > limit, let low = try first?.decode(Int64?.self, at: 1),
                let high = try first?.decode(Int64?.self, at: 2)
            {
                result = (
                    try extrapolated(table, rowid: rowid, counted: counted, low: low, high: high), false, .rowIDSpan
                )
            } else {
                result = counted > limit ? (limit, true, .count) : (counted, false, .count)
            }
        } else {
            let counted =
                try db.fetchValue(
                    Int.self,
                    sql: "SELECT count(*) FROM (SELECT 1 FROM \(SQL.quoteIdentifier(table.name)) LIMIT \(limit + 1))")
                ?? 0
            result = counted > limit ? (limit, true, .count) : (counted, false, .count)
        }
        cache.rows[table.key] = result
        return result
    }

    /// The rows of a table whose first `counted` rows (in rowid order) span the rowids
    /// `low...high`: as many rows per rowid over the span of all its rowids (the last one read by
    /// one descent of its b-tree) as over the first rows' span. Exact for a table whose rows were
    /// only appended; never below `counted`, nor above twice the rows of the table's size that
    /// fit in the whole file (a few huge rowids after dense ones would otherwise stand for
    /// trillions of rows).
    private func extrapolated(_ table: TableInfo, rowid: String, counted: Int, low: Int64, high: Int64) throws -> Int {
        let last =
            try db.fetchValue(Int64.self, sql: "SELECT max(\(rowid)) FROM \(SQL.quoteIdentifier(table.name))") ?? high
        // In Double: spans of rowids from -2^63 to 2^63 - 1 overflow Int64.
        let firstSpan = Double(high) - Double(low) + 1
        let wholeSpan = max(Double(last), Double(high)) - Double(low) + 1
        var rows = Double(counted) * wholeSpan / firstSpan
        let perRow = try rowBytes(table).row
        if perRow > 0 { rows = min(rows, 2 * (try fileBytes()) / perRow) }
        guard rows.isFinite else { return counted }
        return Int(max(Double(counted), min(rows.rounded(), Double(Self.largestCount))))
    }

    /// `sqlite_stat1`'s row count of each table (lowercased name), from the first number of its
    /// `stat` (the table's own entry, or any of its indexes': the same count). Empty when the
    /// database was never analyzed.
    private func statistics() throws -> [String: Int] {
        if let known = cache.statistics { return known }
        var result = [String: Int]()
        let analyzed =
            try db.fetchValue(
                Bool.self, sql: "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'")
            ?? false
        if analyzed {
            for row in try db.fetchAll(sql: "SELECT tbl, stat FROM sqlite_stat1") {
                guard let table = try row.decode(String?.self, at: 0), let stat = try row.decode(String?.self, at: 1),
                    let first = stat.split(separator: " ").first, let rows = Int(first), rows >= 0
                else { continue }
                let key = table.asciiLowercased()
                result[key] = min(max(result[key] ?? 0, rows), Self.largestCount)
            }
        }
        cache.statistics = result
        return result
    }

    /// The file's bytes: its pages times their size (a restore point's size).
    func databaseFileBytes() throws -> Double { try fileBytes() }

    /// The file's bytes: its pages times their size.
    private func fileBytes() throws -> Double {
        if let known = cache.fileBytes { return known }
        let bytes =
            try db.fetchValue(
                Double.self, sql: "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size")
            ?? 0
        cache.fileBytes = bytes
        return bytes
    }

    // MARK: Bytes

    /// The bytes of one row of `table`: its first leaf pages' bytes per cell with `dbstat`
    /// (SQLite 3.31+, when compiled in and no table of the database is called `dbstat`),
    /// otherwise the lengths of the values of its first rows plus a record header.
    private func rowBytes(_ table: TableInfo) throws -> (row: Double, source: PlanEstimate.ByteSource) {
        if let known = cache.rowBytes[table.key] { return known }
        let sampled = try sampledBytes(table.storedColumns, of: table)
        var result: (row: Double, source: PlanEstimate.ByteSource) = (sampled, .sampledValues)
        if try usesDBStat() {
            // The first pages of the table's b-tree, depth first: the root, interior pages and
            // leaves (with their overflow pages). Bytes of the pages over the cells of the leaves.
            let pages = try db.fetchOne(
                sql: """
                    SELECT sum(pgsize), sum(CASE WHEN pagetype = 'leaf' THEN ncell ELSE 0 END)
                    FROM (SELECT pgsize, ncell, pagetype FROM dbstat WHERE name = ? LIMIT \(Self.samplePages))
                    """, arguments: [table.name])
            if let pages, let bytes = try pages.decode(Int64?.self, at: 0),
                let cells = try pages.decode(Int64?.self, at: 1), cells > 0
            {
                result = (Double(bytes) / Double(cells), .pages)
            }
        }
        cache.rowBytes[table.key] = result
        return result
    }

    /// The bytes of one entry of `index`: the lengths of its columns' values in the table's first
    /// rows, plus the rowid and a record header.
    private func indexEntryBytes(_ index: IndexInfo, of table: TableInfo) throws -> Double {
        if let known = cache.indexBytes[index.key] { return known }
        let columns = index.columns.compactMap { name in
            name.flatMap { n in table.columns.first { $0.name.asciiCaseInsensitiveEquals(n) } }
        }
        let expressions = index.columns.count - columns.count
        // An expression's value is taken as 8 bytes.
        let bytes = try sampledBytes(columns, of: table) + 8 * Double(expressions) + 8
        cache.indexBytes[index.key] = bytes
        return bytes
    }

    /// The mean length of `columns`' values in the first ``sampleRows`` rows of `table`, plus one
    /// header byte per column and a few for the record: 0 for an empty table.
    private func sampledBytes(_ columns: [ColumnInfo], of table: TableInfo) throws -> Double {
        guard !columns.isEmpty else { return 0 }
        let lengths = columns.map { "coalesce(length(CAST(\(SQL.quoteIdentifier($0.name)) AS BLOB)), 0)" }
        let sql =
            "SELECT avg(" + lengths.joined(separator: " + ") + ") FROM (SELECT * FROM "
            + SQL.quoteIdentifier(table.name) + " LIMIT \(Self.sampleRows))"
        guard let mean = try db.fetchValue(Double.self, sql: sql) else { return 0 }
        return mean + Double(columns.count) + 4
    }

    /// True when `dbstat` can be read: SQLite 3.31 or newer (where a `name` constraint makes it
    /// read that b-tree alone), compiled with it, and no table of the database shadows its name.
    private func usesDBStat() throws -> Bool {
        if let known = cache.usesDBStat { return known }
        var result = false
        if SQLiteVersion.runtime >= SQLiteVersion(3, 31), live.table(named: "dbstat") == nil,
            live.views.allSatisfy({ !$0.name.asciiCaseInsensitiveEquals("dbstat") })
        {
            result = (try? db.fetchValue(Int.self, sql: "SELECT count(*) FROM (SELECT 1 FROM dbstat LIMIT 1)")) != nil
        }
        cache.usesDBStat = result
        return result
    }
}

extension Planner {
    /// Each step's estimate and the total (``PlanEstimate``), on the assembled plan.
    func estimated(_ plan: Plan) throws -> Plan {
        // An online threshold is decided by a count that goes as far as the threshold, never by
        // an extrapolation (which can say fewer rows than there are).
        let limit =
            options.online
            ? options.estimateCountLimit
            : max(options.estimateCountLimit, min(options.onlineRowThreshold ?? 0, PlanEstimator.largestCount))
        let estimator = PlanEstimator(
            db: db, live: live, desired: desired, tableRenames: plan.tableRenames, limit: limit)
        var plan = plan
        for i in plan.steps.indices {
            plan.steps[i].estimate = try estimator.estimate(plan.steps[i])
        }
        plan.foreignKeyCheckEstimate = try estimator.foreignKeyCheck(plan.foreignKeyCheckTables)
        // What a restore point before the plan writes: the backup API copies every page.
        if !plan.steps.isEmpty { plan.restorePointBytes = Int64(try estimator.databaseFileBytes()) }
        return plan
    }
}
