import StrataSQLite

/// What a plan, or one of its steps, will cost before it runs: the rows it copies or reads, the
/// bytes it writes, the index entries it builds and the foreign keys it checks.
///
/// Every ``Plan`` carries one per step (``PlanStep/estimate``) and in total (``Plan/estimate``),
/// computed while planning without scanning a large table:
///
/// - **Rows** come from `sqlite_stat1` when the database has one (after `ANALYZE`: ``rowSource``
///   is ``RowSource/statistics``; it is as old as the last `ANALYZE`), otherwise from a count
///   that stops at ``SchemaChangeOptions/estimateCountLimit`` (``RowSource/count``). A table
///   with more rows is extrapolated from the span of its rowids (``RowSource/rowIDSpan``: the
///   first rows' density times the span from the first rowid to the last, two b-tree descents);
///   a `WITHOUT ROWID` table with more rows reports the limit and ``rowsAreLowerBound``.
/// - **Bytes** are the rows times the bytes per row of the table's first pages, read from the
///   `dbstat` virtual table when SQLite is compiled with it (``ByteSource/pages``), otherwise
///   from the lengths of the values of the first rows (``ByteSource/sampledValues``), plus the
///   index entries times the lengths of their columns' values in those rows.
/// - **Indexes** are the indexes the step creates; ``indexEntries`` the entries they hold.
/// - **Foreign keys** checked after the change are those of the tables the plan touches
///   (``foreignKeyCheckTables``, never the whole database), and ``foreignKeyCheckRows`` the rows
///   of those tables.
///
/// ```swift
/// let plan = try db.planSchemaChange(to: desiredSQL)
/// for step in plan.steps where step.estimate.rows > 0 {
///     print(step.summary, step.estimate)          // "... ≈ 12.4 M rows, ≈ 2.1 GB, 3 indexes"
/// }
/// print(plan.estimate.expectedDuration())         // at the documented default rate
/// ```
///
/// An estimate is a guide for deciding whether to run a change now (see
/// ``StrataSQLite/Database/migrateSchema(to:options:budget:rate:)``), not a promise: statistics can be stale,
/// and the speed of a device differs (``Rate/calibrated()`` measures it).
public struct PlanEstimate: Sendable, Hashable, CustomStringConvertible {
    /// Where ``rows`` comes from.
    public enum RowSource: String, Sendable, Hashable {
        /// The step reads or writes no rows.
        case none
        /// `sqlite_stat1`, written by `ANALYZE`.
        case statistics
        /// A count, stopped at the count limit.
        case count
        /// A count that reached the count limit, extrapolated over the table's rowids: the first
        /// rows' rows per rowid times the span from the first rowid to the last. Exact for a
        /// table whose rows were only appended; more than the rows when many were deleted after
        /// the first ones (never fewer than the rows counted, never more than twice what the
        /// file can hold).
        case rowIDSpan = "rowid span"
    }

    /// Where ``bytes`` comes from.
    public enum ByteSource: String, Sendable, Hashable {
        /// The step writes no rows.
        case none
        /// The sizes of the table's first pages (the `dbstat` virtual table).
        case pages
        /// The lengths of the values of the table's first rows.
        case sampledValues = "sampled values"
    }

    /// Rows the step copies (a rebuild, a native DROP COLUMN, which rewrites every row), indexes
    /// (CREATE INDEX, a full-text index rebuilt from its content) or checks (SQLite 3.53's ADD
    /// CONSTRAINT and SET NOT NULL read every row).
    public var rows: Int
    /// True when ``rows`` is the count limit: the table has at least that many rows (a
    /// `WITHOUT ROWID` table, or one whose columns shadow `rowid`, `_rowid_` and `oid`).
    public var rowsAreLowerBound: Bool
    public var rowSource: RowSource
    /// Bytes written: the rows copied and the index entries built (estimated, see above).
    public var bytes: Int64
    public var byteSource: ByteSource
    /// Indexes created.
    public var indexes: Int
    /// Entries written into those indexes (rows × indexes for a rebuild).
    public var indexEntries: Int
    /// Tables whose foreign keys are checked after the change (only on ``Plan/estimate``).
    public var foreignKeyCheckTables: [String]
    /// Rows of ``foreignKeyCheckTables`` (each checked against its parent).
    public var foreignKeyCheckRows: Int
    /// The disk a restore point written before the plan takes (only on ``Plan/estimate``): the
    /// database's pages times the page size, what the upgrade airbag's copy (SQLite's backup
    /// API, `UpgradeSafety`, `strata apply --restore-point`) writes; main database file only
    /// (a WAL's frames not yet checkpointed are in the copy's pages). Its time is ``restorePointDuration(at:)``; it is
    /// not part of ``expectedDuration(at:)``, ``isZero`` or ``description``, since a plan applied
    /// without a restore point does not pay it. Zero for an empty plan.
    public var restorePointBytes: Int64

    public init(
        rows: Int = 0, rowsAreLowerBound: Bool = false, rowSource: RowSource = .none, bytes: Int64 = 0,
        byteSource: ByteSource = .none, indexes: Int = 0, indexEntries: Int = 0, foreignKeyCheckTables: [String] = [],
        foreignKeyCheckRows: Int = 0, restorePointBytes: Int64 = 0
    ) {
        self.rows = rows
        self.rowsAreLowerBound = rowsAreLowerBound
        self.rowSource = rowSource
        self.bytes = bytes
        self.byteSource = byteSource
        self.indexes = indexes
        self.indexEntries = indexEntries
        self.foreignKeyCheckTables = foreignKeyCheckTables
        self.foreignKeyCheckRows = foreignKeyCheckRows
        self.restorePointBytes = restorePointBytes
    }

    /// Nothing to read or write.
    public static let zero = PlanEstimate()

    /// True when the step reads, writes or checks no rows.
    public var isZero: Bool { rows == 0 && indexEntries == 0 && foreignKeyCheckRows == 0 && bytes == 0 }

    /// The sum of two estimates (a lower bound when either is; the source of the larger part).
    public static func + (a: PlanEstimate, b: PlanEstimate) -> PlanEstimate {
        PlanEstimate(
            rows: a.rows + b.rows, rowsAreLowerBound: a.rowsAreLowerBound || b.rowsAreLowerBound,
            rowSource: a.rows >= b.rows ? (a.rowSource == .none ? b.rowSource : a.rowSource) : b.rowSource,
            bytes: a.bytes + b.bytes,
            byteSource: a.bytes >= b.bytes ? (a.byteSource == .none ? b.byteSource : a.byteSource) : b.byteSource,
            indexes: a.indexes + b.indexes, indexEntries: a.indexEntries + b.indexEntries,
            foreignKeyCheckTables: a.foreignKeyCheckTables
                + b.foreignKeyCheckTables.filter {
                    name in !a.foreignKeyCheckTables.contains { $0.asciiCaseInsensitiveEquals(name) }
                }, foreignKeyCheckRows: a.foreignKeyCheckRows + b.foreignKeyCheckRows,
            // One restore point of one file, however many parts the estimate has.
            restorePointBytes: max(a.restorePointBytes, b.restorePointBytes))
    }

    /// `≈ 12.4 M rows, ≈ 2.1 GB, 3 indexes` (`≥ 100 k rows` for a lower bound); the parts that
    /// are zero are left out, `no rows` when all are.
    public var description: String {
        var parts = [String]()
        if rows > 0 || rowsAreLowerBound {
            parts.append("\(rowsAreLowerBound ? "≥" : "≈") \(Self.count(rows)) row\(rows == 1 ? "" : "s")")
        }
        if bytes > 0 { parts.append("\(rowsAreLowerBound ? "≥" : "≈") \(Self.size(bytes))") }
        if indexes > 0 { parts.append("\(indexes) index\(indexes == 1 ? "" : "es")") }
        if !foreignKeyCheckTables.isEmpty {
            // Named up to three; a larger scope by its size.
            let tables =
                foreignKeyCheckTables.count <= 3
                ? foreignKeyCheckTables.joined(separator: ", ") : "\(foreignKeyCheckTables.count) tables"
            parts.append(
                "foreign keys of \(tables) checked"
                    + (foreignKeyCheckRows > 0 ? " (\(Self.count(foreignKeyCheckRows)) rows)" : ""))
        }
        return parts.isEmpty ? "no rows" : parts.joined(separator: ", ")
    }

    /// 950, 12.4 k, 12.4 M, 1.2 G.
    static func count(_ n: Int) -> String {
        scaled(Double(n), [(1e9, "G"), (1e6, "M"), (1e3, "k")], unit: "")
    }

    /// 512 B, 12.4 kB, 2.1 GB (powers of 1000).
    static func size(_ n: Int64) -> String {
        scaled(Double(n), [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")], unit: " B")
    }

    private static func scaled(_ value: Double, _ steps: [(Double, String)], unit: String) -> String {
        for (limit, suffix) in steps where value >= limit {
            let scaled = value / limit
            let rounded = (scaled * 10).rounded() / 10
            let text = rounded >= 100 ? String(Int(rounded)) : String(format1: rounded)
            return "\(text) \(suffix)"
        }
        return "\(Int(value))\(unit)"
    }
}

extension String {
    /// `12.4`, `3.0` → `3`: one decimal, without Foundation.
    fileprivate init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(tenths % 10)"
    }
}

// MARK: - Time

extension PlanEstimate {
    /// How rows and bytes convert to time on a device: what ``expectedDuration(at:)`` divides by.
    ///
    /// The default is set from case 3 of the benchmarks on the benchmark machine (release build:
    /// a rebuild of a 4,000,000-row table with two indexes, 19.1 s in the README's Benchmarks
    /// table; the default expects 17.7 s; figures in Benchmarks/README.md ("Plan estimates: accuracy and cost")). Phones and
    /// small machines are slower: measure the device with ``calibrated()`` (tens of milliseconds
    /// in memory), or scale the default.
    public struct Rate: Sendable, Hashable {
        /// Rows copied (or read, or rewritten) per second, each row's bytes aside.
        public var rowsPerSecond: Double
        /// Bytes of rows and index entries written per second.
        public var bytesPerSecond: Double
        /// Index entries sorted and written per second.
        public var indexEntriesPerSecond: Double
        /// Rows whose foreign keys are checked per second.
        public var foreignKeyRowsPerSecond: Double
        /// Bytes of a restore point written per second (``restorePointDuration(at:)``): the
        /// backup API's page copy, flushed to disk, then read back once for its checksum.
        public var restorePointBytesPerSecond: Double

        public init(
            rowsPerSecond: Double, bytesPerSecond: Double, indexEntriesPerSecond: Double,
            foreignKeyRowsPerSecond: Double, restorePointBytesPerSecond: Double = Rate.defaultRestorePointBytesPerSecond
        ) {
            self.rowsPerSecond = rowsPerSecond
            self.bytesPerSecond = bytesPerSecond
            self.indexEntriesPerSecond = indexEntriesPerSecond
            self.foreignKeyRowsPerSecond = foreignKeyRowsPerSecond
            self.restorePointBytesPerSecond = restorePointBytesPerSecond
        }

        /// The default ``restorePointBytesPerSecond``: 200 MB/s, a page copy being cheaper per
        /// byte than the rows a rebuild writes (``bytesPerSecond``), but written twice over
        /// (the copy and its flush) and read once (its checksum).
        public static let defaultRestorePointBytesPerSecond: Double = 200_000_000

        /// Measured on the benchmark machine (see the type's documentation).
        public static let `default` = Rate(
            rowsPerSecond: 1_000_000, bytesPerSecond: 100_000_000, indexEntriesPerSecond: 750_000,
            foreignKeyRowsPerSecond: 2_000_000)

        /// This rate with every figure multiplied by `factor` (0.25: a device four times slower).
        public func scaled(by factor: Double) -> Rate {
            Rate(
                rowsPerSecond: rowsPerSecond * factor, bytesPerSecond: bytesPerSecond * factor,
                indexEntriesPerSecond: indexEntriesPerSecond * factor,
                foreignKeyRowsPerSecond: foreignKeyRowsPerSecond * factor,
                restorePointBytesPerSecond: restorePointBytesPerSecond * factor)
        }
    }

    /// The time the plan or step is expected to take at `rate`: rows, bytes, index entries and
    /// foreign-key rows each divided by their rate, added.
    public func expectedDuration(at rate: Rate = .default) -> Duration {
        func seconds(_ amount: Double, _ perSecond: Double) -> Double {
            perSecond > 0 ? amount / perSecond : 0
        }
        let total =
            seconds(Double(rows), rate.rowsPerSecond) + seconds(Double(bytes), rate.bytesPerSecond)
            + seconds(Double(indexEntries), rate.indexEntriesPerSecond)
            + seconds(Double(foreignKeyCheckRows), rate.foreignKeyRowsPerSecond)
        return .nanoseconds(Int64(min(total * 1e9, Double(Int64.max / 2))))
    }

    /// The time a restore point written before the plan is expected to take at `rate`:
    /// ``restorePointBytes`` divided by ``Rate/restorePointBytesPerSecond``. Add it to
    /// ``expectedDuration(at:)`` when the upgrade keeps one.
    ///
    /// ```swift
    /// let plan = try db.planSchemaChange(to: desiredSQL)
    /// print(plan.estimate.restorePointBytes, plan.estimate.restorePointDuration())
    /// ```
    public func restorePointDuration(at rate: Rate = .default) -> Duration {
        let seconds =
            rate.restorePointBytesPerSecond > 0 ? Double(restorePointBytes) / rate.restorePointBytesPerSecond : 0
        return .nanoseconds(Int64(min(seconds * 1e9, Double(Int64.max / 2))))
    }
}
