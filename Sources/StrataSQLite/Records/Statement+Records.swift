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
            // `bindValue` without its `source` (an `Any?` made and destroyed per value).
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let i): rc = sqlite3_bind_int64(handle, index, i)
            case .real(let d):
                if d.isNaN { throw unstorableError(at: index, nil) }
                rc = sqlite3_bind_double(handle, index, d)
            case .text, .blob: rc = bindBytes(value, at: index)
            }
            if rc != SQLITE_OK { throw bindingError(rc) }
        }
        boundArguments = StatementArguments(values)
        try runFromReset()
    }
}
