import StrataSQLite

/// Options for planning a schema change.
///
/// ```swift
/// var options = SchemaChangeOptions(allowDestructive: true)
/// options.renames = [.column("name", to: "full_name", inTable: "user")]
/// ```
public struct SchemaChangeOptions: Sendable, Hashable {
    /// Allow dropping tables, columns and virtual tables. Off by default: such a plan is refused
    /// with every destructive change listed.
    public var allowDestructive: Bool
    /// Renames, the API equivalent of `-- @renamed from=OLD` hints.
    public var renames: [SchemaRename]
    /// Use native ALTER TABLE where it gives exactly the desired table (the default). Off, every
    /// changed table is rebuilt.
    public var useNativeAlter: Bool
    /// Make every difference of a stored name a change, letter case included. Off by default:
    /// SQLite matches names ignoring ASCII case, and so does the plan, so a table or column whose
    /// stored name differs from the desired one by case alone is left as it is, unless a
    /// `-- @renamed from=OLD` hint or a rename option names it (a case-only rename, always applied).
    /// On, the stored names of tables and columns (what `sqlite_schema` and `PRAGMA table_info`
    /// report) and of indexes, views and triggers must be exactly the desired ones: tables and
    /// columns are renamed (a table through a temporary name, as SQLite refuses a rename to the
    /// same name in another case), indexes, views and triggers are dropped and created again.
    /// Names inside the text of statements (a view's `SELECT`, a `REFERENCES` clause) are still
    /// compared ignoring case: SQLite resolves them so.
    public var exactNames: Bool
    /// The most rows counted for a table's estimate (``PlanEstimate``) when the database has no
    /// `sqlite_stat1` entry for it. Counting stops there, so planning stays cheap on a large
    /// table: a table with more rows is extrapolated from the span of its rowids
    /// (``PlanEstimate/RowSource/rowIDSpan``), or, without rowids, reports this many as a lower
    /// bound (``PlanEstimate/rowsAreLowerBound``). Default ``defaultEstimateCountLimit``.
    public var estimateCountLimit: Int

    /// 100,000 rows: a few milliseconds of counting.
    public static let defaultEstimateCountLimit = 100_000
    /// Rebuild every table that needs a rebuild online (off by default): the new table is filled
    /// in batches (see ``onlineBatchTime``), each in a short write transaction of its own, while
    /// triggers mirror the app's writes to the old table into it; then one short transaction swaps
    /// the tables with the same guards and checks as an offline rebuild. The app's writes wait for
    /// one batch at most, not for the whole copy. Only a table with a rowid whose rowid the rebuild
    /// keeps can be rebuilt online: planning refuses any other (`unsupported`, naming the table).
    /// Applying such a plan inside a transaction is refused too. See the LargeDatabases article.
    public var online: Bool
    /// With ``online`` off: rebuild online only the tables whose estimated rows
    /// (``PlanStep/estimate``) reach this many, offline the others. Without statistics the
    /// tables are counted as far as this many rows (above ``estimateCountLimit``), so the choice
    /// never rests on an extrapolation. Nil (the default): only ``online`` decides.
    public var onlineRowThreshold: Int?
    /// The rows every batch of an online rebuild copies, in a write transaction of its own. Nil
    /// (the default): the batches adapt to ``onlineBatchTime``, starting at
    /// ``defaultOnlineBatchSize`` rows.
    public var onlineBatchSize: Int?
    /// With ``onlineBatchSize`` nil: about how long each batch of an online rebuild holds the
    /// write lock. After each batch the next one's rows are scaled by this time over the time the
    /// batch took (at most halved or doubled, between ``onlineBatchRowRange``'s bounds), so that
    /// the app's writers wait about as long on a slow device as on a fast one. Default 25 ms.
    public var onlineBatchTime: Duration

    /// 2,000 rows: a few milliseconds per batch, and the first batch's rows when they adapt.
    public static let defaultOnlineBatchSize = 2_000
    /// 25 ms: a writer's wait stays well under 100 ms (SQLite's busy handler polls).
    public static let defaultOnlineBatchTime = Duration.milliseconds(25)
    /// The fewest and most rows of an adapting batch.
    public static let onlineBatchRowRange = 100...200_000

    public init(
        allowDestructive: Bool = false, renames: [SchemaRename] = [], useNativeAlter: Bool = true,
        exactNames: Bool = false, estimateCountLimit: Int = SchemaChangeOptions.defaultEstimateCountLimit,
        online: Bool = false, onlineRowThreshold: Int? = nil,
        onlineBatchSize: Int? = nil, onlineBatchTime: Duration = SchemaChangeOptions.defaultOnlineBatchTime
    ) {
        self.allowDestructive = allowDestructive
        self.renames = renames
        self.useNativeAlter = useNativeAlter
        self.exactNames = exactNames
        self.estimateCountLimit = estimateCountLimit
        self.online = online
        self.onlineRowThreshold = onlineRowThreshold
        self.onlineBatchSize = onlineBatchSize
        self.onlineBatchTime = onlineBatchTime
    }

    /// True when a rebuild may go online (``online`` or an ``onlineRowThreshold``).
    var considersOnline: Bool { online || onlineRowThreshold != nil }
}

/// A rename the planner should apply instead of a drop and a create.
public struct SchemaRename: Sendable, Hashable, CustomStringConvertible {
    /// For a column rename, the table (its desired name); nil for a table rename.
    public var table: String?
    public var from: String
    public var to: String

    /// Table `from` is now called `to`.
    public static func table(_ from: String, to: String) -> SchemaRename {
        SchemaRename(table: nil, from: from, to: to)
    }

    /// Column `from` of `table` is now called `to`.
    public static func column(_ from: String, to: String, inTable table: String) -> SchemaRename {
        SchemaRename(table: table, from: from, to: to)
    }

    public var description: String {
        if let table { return "column \(table).\(from) -> \(to)" }
        return "table \(from) -> \(to)"
    }
}

/// The ordered steps that turn a live database into the desired schema, proven on a
/// schema-only copy before it is returned.
///
/// ```swift
/// let plan = try db.planSchemaChange(to: desiredSQL)
/// print(plan.summary)
/// try db.applySchemaChange(plan)
/// ```
public struct Plan: Sendable, CustomStringConvertible {
    public var steps: [PlanStep]
    /// Every destructive change, one line each.
    public var destructiveChanges: [String]
    /// What the plan changes, as the planner saw it: tables created, dropped and changed (with
    /// renames resolved), and indexes, views and triggers (empty for an empty plan).
    public let diff: SchemaDiff
    /// The schema the plan starts from.
    ///
    /// For the empty plan of the launch fast path (``isVerifiedByFingerprint``), the desired
    /// schema (the live one was verified equal to it), parsed from the desired SQL when read.
    public var base: DatabaseSchema { schemas.base }
    /// The schema the plan produces (parsed from the desired SQL when read, for the empty plan of
    /// the launch fast path).
    public var desired: DatabaseSchema { schemas.desired }
    /// True when `migrateSchema(to:)` found, from the fingerprint it keeps in the database, that
    /// the live schema is what a previous plan of the same desired SQL produced, and returned this
    /// empty plan without planning (see `migrateSchema(to:options:)`).
    public var isVerifiedByFingerprint: Bool {
        if case .unchanged = schemas { return true }
        return false
    }
    private let schemas: Schemas
    /// Tables whose foreign keys are checked after applying (final names).
    let foreignKeyCheckTables: [String]
    /// Child tables whose foreign keys reference a table that a step drops or rebuilds.
    let childrenOfRebuiltTables: [String]
    /// Renamed tables: lowercased live name -> desired name.
    let tableRenames: [String: String]
    /// The FTS tables over external content whose content the plan touches: checked with the FTS
    /// module's `integrity-check` after the steps, inside the applying transaction.
    let fullTextChecks: [FullTextContent]

    /// True when there is nothing to do.
    public var isEmpty: Bool { steps.isEmpty }

    /// What the whole plan will cost before it runs: the sum of its steps' estimates
    /// (``PlanStep/estimate``) and the foreign-key check that follows them, scoped to the tables
    /// the plan touches (``PlanEstimate/foreignKeyCheckTables``). See ``PlanEstimate``.
    ///
    /// ```swift
    /// let plan = try db.planSchemaChange(to: desiredSQL)
    /// print(plan.estimate)                        // "≈ 1.2 M rows, ≈ 96 MB, 2 indexes, ..."
    /// print(plan.estimate.expectedDuration())
    /// ```
    public var estimate: PlanEstimate {
        var total = steps.reduce(PlanEstimate.zero) { $0 + $1.estimate } + foreignKeyCheckEstimate
        total.restorePointBytes = steps.isEmpty ? 0 : restorePointBytes
        return total
    }
    /// ``PlanEstimate/restorePointBytes``: the base database's pages times the page size.
    var restorePointBytes: Int64 = 0
    /// The foreign-key check's part of ``estimate``.
    var foreignKeyCheckEstimate = PlanEstimate.zero
    /// The rows an online rebuild copies per transaction (``SchemaChangeOptions/onlineBatchSize``;
    /// nil: they adapt to ``onlineBatchTime``).
    var onlineBatchSize: Int?
    /// ``SchemaChangeOptions/onlineBatchTime``.
    var onlineBatchTime = SchemaChangeOptions.defaultOnlineBatchTime

    /// ``summary`` with each step's estimate after it, when it touches rows
    /// (`- rebuild table event: ... (≈ 12.4 M rows, ≈ 2.1 GB, 3 indexes)`), and a last line with
    /// the total: what `strata plan` prints.
    public var summaryWithEstimates: String {
        if steps.isEmpty { return "No changes." }
        var lines = steps.map { step in
            (step.isDestructive ? "- [destructive] " : "- ") + step.summary
                + (step.estimate.isZero ? "" : " (\(step.estimate))")
        }
        let total = estimate
        if !total.isZero {
            let time = Self.seconds(total.expectedDuration())
            let about = time.hasPrefix("under") ? "" : total.rowsAreLowerBound ? "at least " : "about "
            lines.append("Estimated: \(total); \(about)\(time)")
        }
        return lines.joined(separator: "\n")
    }

    /// `0.4 s`, `12 s`, `3 min`.
    static func seconds(_ d: Duration) -> String {
        let s = d.inSeconds
        if s < 0.05 { return "under 0.1 s" }
        if s < 10 { return "\((s * 10).rounded() / 10) s" }
        if s < 120 { return "\(Int(s.rounded())) s" }
        return "\(Int((s / 60).rounded())) min"
    }

    private enum Schemas: Sendable {
        case planned(base: DatabaseSchema, desired: DatabaseSchema)
        /// The fast path's: the live schema equals the schema of this SQL.
        case unchanged(desiredSQL: String)

        var desired: DatabaseSchema {
            switch self {
            case .planned(_, let desired): return desired
            case .unchanged(let sql):
                // The same text parsed without error by this Strata and this SQLite when the
                // fingerprint was recorded (both are part of it): parsing it again cannot fail.
                return (try? DatabaseSchema(sql: sql)) ?? DatabaseSchema()
            }
        }

        var base: DatabaseSchema {
            switch self {
            case .planned(let base, _): return base
            case .unchanged: return desired
            }
        }
    }

    init(
        steps: [PlanStep], destructiveChanges: [String], diff: SchemaDiff, base: DatabaseSchema,
        desired: DatabaseSchema, foreignKeyCheckTables: [String], childrenOfRebuiltTables: [String],
        tableRenames: [String: String], fullTextChecks: [FullTextContent] = []
    ) {
        self.steps = steps
        self.destructiveChanges = destructiveChanges
        self.diff = diff
        self.schemas = .planned(base: base, desired: desired)
        self.foreignKeyCheckTables = foreignKeyCheckTables
        self.childrenOfRebuiltTables = childrenOfRebuiltTables
        self.tableRenames = tableRenames
        self.fullTextChecks = fullTextChecks
    }

    /// The empty plan of the launch fast path.
    init(unchangedFrom desiredSQL: String) {
        steps = []
        destructiveChanges = []
        diff = SchemaDiff()
        schemas = .unchanged(desiredSQL: desiredSQL)
        foreignKeyCheckTables = []
        childrenOfRebuiltTables = []
        tableRenames = [:]
        fullTextChecks = []
    }

    /// The SQL of every step, in order, without transaction control or `PRAGMA foreign_keys`:
    /// meant to run inside a transaction with foreign keys off (what a migration file holds).
    public var statements: [String] { steps.flatMap(\.statements) }

    /// A human summary: one line per step, destructive ones marked.
    public var summary: String {
        if steps.isEmpty { return "No changes." }
        return steps.map { ($0.isDestructive ? "- [destructive] " : "- ") + $0.summary }.joined(separator: "\n")
    }

    /// The plan as a standalone SQL script: foreign keys off, one `BEGIN IMMEDIATE` transaction,
    /// the statements, a foreign key check, `COMMIT`, foreign keys back on.
    public func sqlScript() -> String {
        if steps.isEmpty { return "-- No changes.\n" }
        var lines = ["PRAGMA foreign_keys = OFF;", "BEGIN IMMEDIATE;"]
        for step in steps {
            lines.append("")
            lines.append("-- \(step.isDestructive ? "[destructive] " : "")\(step.summary)")
            lines += step.statements.map(SQLScript.terminated)
        }
        lines.append("")
        lines.append("PRAGMA foreign_key_check;")
        lines.append("COMMIT;")
        lines.append("PRAGMA foreign_keys = ON;")
        return lines.joined(separator: "\n") + "\n"
    }

    public var description: String { summary }
}
