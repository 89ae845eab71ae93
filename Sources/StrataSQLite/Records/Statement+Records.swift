import CSQLite

extension Statement {
    /// How many times SQLite recompiled the statement after a schema change.
    /// See <https://www.sqlite.org/c3ref/c_stmtstatus_counter.html>.
    var reprepareCount: Int32 { sqlite3_stmt_status(handle, Int32(SQLITE_STMTSTATUS_REPREPARE), 0) }

    /// Binds `values` to parameters 1, 2, ... and runs the statement to completion: the record
    /// insert path. The values are kept for error messages.
    func execute(values: [SQLValue]) throws {
        try checkValueCount(values.count)
        if !isAtStart { resetHandle() }
        var index: Int32 = 0
        for value in values {
            index += 1
            try bindValue(value, at: index)
        }
        boundArguments = StatementArguments(values)
        try runFromReset()
    }
}
