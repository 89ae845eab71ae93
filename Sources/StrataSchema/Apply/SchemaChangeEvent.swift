import StrataSQLite

/// What a plan being applied reports to a progress callback: each step as it starts and
/// finishes, the rows a rebuild has copied so far, and each index as it is built.
///
/// ```swift
/// try db.applySchemaChange(plan) { event in
///     switch event {
///     case .rowsCopied(let table, let copied, let total): print("\(table): \(copied)/\(total)")
///     default: print(event)
///     }
///     if userCancelled { throw CancellationError() }  // rolls the whole plan back
/// }
/// ```
public enum SchemaChangeEvent: Sendable, Hashable, CustomStringConvertible {
    /// Step `index` (from 0) of `count` starts.
    case stepStarted(PlanStep, index: Int, count: Int)
    /// A rebuild of `table` has copied `copied` of its `total` rows (reported about every
    /// 10,000 virtual-machine instructions while the copy runs, then once at the end).
    case rowsCopied(table: String, copied: Int, total: Int)
    /// Index `name` on `table` was built.
    case indexBuilt(name: String, table: String)
    /// Step `index` of `count` is done (its changes are committed with the rest of the plan).
    case stepFinished(PlanStep, index: Int, count: Int)

    public var description: String {
        switch self {
        case .stepStarted(let step, let index, let count): return "[\(index + 1)/\(count)] \(step.summary)"
        case .rowsCopied(let table, let copied, let total): return "\(table): \(copied) of \(total) rows copied"
        case .indexBuilt(let name, let table): return "index \(name) on \(table) built"
        case .stepFinished(let step, let index, let count): return "[\(index + 1)/\(count)] done: \(step.summary)"
        }
    }
}

/// Runs a plan's statements with progress reporting (see ``SchemaChangeEvent``).
struct ProgressReporter {
    let report: (SchemaChangeEvent) throws -> Void

    /// Runs `sql`, a statement of `part`, read as the value it was rendered from: a rebuild's
    /// copy (``RebuildCopyDDL``) reports the rows copied, and an error thrown by the callback
    /// interrupts the copy and is rethrown as is; an index of the desired schema is reported
    /// once built.
    func run(_ sql: String, of part: PlanStep.Part, in db: Database) throws {
        let source: String
        switch part {
        case .copyRows(let copy):
            source = copy.source
        case .createIndex(let index):
            try db.execute(sql: sql)
            try report(.indexBuilt(name: index.name, table: index.table))
            return
        default:
            try db.execute(sql: sql)
            return
        }
        let total = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM main.\(SQL.quoteIdentifier(source))") ?? 0
        let statement = try db.makeStatement(sql: sql)
        var failure: (any Error)?
        var reported = -1
        try report(.rowsCopied(table: source, copied: 0, total: total))
        do {
            try db.withProgressHandler({
                let copied = min(statement.fullScanStepCount, total)
                guard copied != reported else { return true }
                reported = copied
                do {
                    try report(.rowsCopied(table: source, copied: copied, total: total))
                    return true
                } catch {
                    failure = error
                    return false
                }
            }) {
                try statement.execute(arguments: StatementArguments())
            }
        } catch {
            // The callback's error, not the SQLITE_INTERRUPT it caused.
            throw failure ?? error
        }
        if let failure { throw failure }
        try report(.rowsCopied(table: source, copied: total, total: total))
    }
}
