import CSQLite

extension Database {
    /// Runs `body` with SQLite's progress handler calling `handler` about every `instructions`
    /// virtual-machine instructions of the statements it runs; `handler` returning `false`
    /// interrupts the running statement, which then fails with `SQLITE_INTERRUPT`.
    ///
    /// The connection's ``Configuration/statementInstructionLimit`` stays enforced while `body`
    /// runs, and its handler is back in place afterwards.
    ///
    /// ```swift
    /// let statement = try db.makeStatement(sql: "INSERT INTO copy SELECT * FROM item")
    /// try db.withProgressHandler({ print(statement.fullScanStepCount); return !cancelled }) {
    ///     try statement.execute()
    /// }
    /// ```
    /// See <https://www.sqlite.org/c3ref/progress_handler.html>.
    public func withProgressHandler<T>(
        every instructions: Int = 10_000, _ handler: @escaping () -> Bool, _ body: () throws -> T
    ) rethrows -> T {
        let budget = connection.instructionBudget
        // With an instruction budget, the handler runs at the budget's interval so that every
        // call spends it exactly as the budget's own handler would.
        let interval = budget?.interval ?? Int32(clamping: max(1, instructions))
        let box = ProgressBox { budget?.spend() == 1 ? false : handler() }
        let context = Unmanaged.passRetained(box)
        sqlite3_progress_handler(
            handle, interval,
            { context in
                guard let context else { return 0 }
                return Unmanaged<ProgressBox>.fromOpaque(context).takeUnretainedValue().call() ? 0 : 1
            },
            context.toOpaque())
        defer {
            if let budget {
                install(budget)
            } else {
                sqlite3_progress_handler(handle, 0, nil, nil)
            }
            context.release()
        }
        return try body()
    }
}

/// The progress handler's closure, kept alive while it is installed.
private final class ProgressBox {
    let call: () -> Bool
    init(_ call: @escaping () -> Bool) { self.call = call }
}

extension Statement {
    /// How many times the statement has stepped forward in a table or index as part of a full
    /// scan so far (`SQLITE_STMTSTATUS_FULLSCAN_STEP`): for `INSERT INTO t2 SELECT ... FROM t1`,
    /// the rows of `t1` read so far. Readable from a progress handler while the statement runs.
    ///
    /// ```swift
    /// let copied = statement.fullScanStepCount
    /// ```
    /// See <https://www.sqlite.org/c3ref/c_stmtstatus_counter.html>.
    public var fullScanStepCount: Int {
        Int(sqlite3_stmt_status(handle, Int32(SQLITE_STMTSTATUS_FULLSCAN_STEP), 0))
    }
}
