import CSQLite

extension Database {
    /// Applies the configuration's settings for untrusted SQL: defensive mode, trusted schema,
    /// the FTS3 tokenizer switch, run-time limits and the statement instruction limit.
    func applySafetySettings() throws {
        let runtime = SQLiteVersion.runtime
        if configuration.defensive {
            // "The SQLITE_DBCONFIG_DEFENSIVE option activates or deactivates the 'defensive' flag
            // for a database connection. When the defensive flag is enabled, language features
            // that allow ordinary SQL to deliberately corrupt the database file are disabled."
            // https://www.sqlite.org/c3ref/c_dbconfig_defensive.html
            let rc = strata_db_config_defensive(handle, 1)
            if rc != SQLITE_OK, runtime >= SQLiteVersion(3, 26) { throw connection.error(code: rc, sql: nil) }
        }
        if !configuration.trustedSchema {
            // "When the SQLITE_DBCONFIG_TRUSTED_SCHEMA option is disabled, SQLite will only run
            // SQL functions and virtual tables that are marked SQLITE_INNOCUOUS from the schema"
            // (3.31.0). Older libraries reject the option: they have no such checks to turn on.
            if strata_db_config_trusted_schema(handle, 0) != SQLITE_OK {
                // "PRAGMA trusted_schema": the same switch; unknown pragmas are ignored, so this
                // is harmless on SQLite without the feature. https://www.sqlite.org/pragma.html#pragma_trusted_schema
                try execute(sql: "PRAGMA trusted_schema = OFF")
            }
        }
        if let on = configuration.fts3TokenizerRegistration {
            let rc = strata_db_config_fts3_tokenizer(handle, on ? 1 : 0)
            if rc != SQLITE_OK, runtime >= SQLiteVersion(3, 12) { throw connection.error(code: rc, sql: nil) }
        }
        for (limit, value) in configuration.limits {
            // "Attempts to increase a limit above its hard upper bound are silently truncated to
            // the hard upper bound." https://www.sqlite.org/c3ref/limit.html
            sqlite3_limit(handle, limit.rawValue, Int32(clamping: max(0, value)))
        }
        if let limit = configuration.statementInstructionLimit {
            let budget = InstructionBudget(limit: max(1, limit))
            connection.instructionBudget = budget
            // "The parameter N is the approximate number of virtual machine instructions that are
            // evaluated between successive invocations of the callback X. [...] If the progress
            // callback returns non-zero, the operation is interrupted."
            // https://www.sqlite.org/c3ref/progress_handler.html
            install(budget)
        }
    }

    /// Makes `budget` the connection's progress handler (it interrupts a statement that runs
    /// longer than the configured instruction limit).
    func install(_ budget: InstructionBudget) {
        sqlite3_progress_handler(
            handle, budget.interval,
            { context in
                guard let context else { return 0 }
                return Unmanaged<InstructionBudget>.fromOpaque(context).takeUnretainedValue().spend()
            },
            Unmanaged.passUnretained(budget).toOpaque())
    }

    /// The current value of a run-time limit (`sqlite3_limit` with a negative new value).
    ///
    /// ```swift
    /// let longest = db.limit(.length)
    /// ```
    /// See <https://www.sqlite.org/c3ref/limit.html>.
    public func limit(_ limit: Configuration.Limit) -> Int {
        guard !isClosed else { return 0 }
        // "If the new limit is a negative number, the limit is unchanged."
        return Int(sqlite3_limit(handle, limit.rawValue, -1))
    }

    /// Runs `body` with SQLite's defensive mode off on this connection (it forbids `PRAGMA
    /// writable_schema` and writes of `PRAGMA schema_version`), turning it on again after when it
    /// was on. For Strata's own edits of a table's stored definition (an online rebuild's swap
    /// giving the new table its foreign keys), never for SQL from elsewhere.
    /// See <https://www.sqlite.org/c3ref/c_dbconfig_defensive.html#sqlitedbconfigdefensive>.
    package func withDefensiveModeOff<T>(_ body: () throws -> T) throws -> T {
        var state: Int32 = 0
        guard strata_db_config_defensive_state(handle, &state) == SQLITE_OK else {
            throw SQLiteError(resultCode: .SQLITE_ERROR, message: "cannot read the connection's defensive mode")
        }
        guard state != 0 else { return try body() }
        guard strata_db_config_defensive(handle, 0) == SQLITE_OK else {
            throw SQLiteError(resultCode: .SQLITE_ERROR, message: "cannot turn the connection's defensive mode off")
        }
        defer { _ = strata_db_config_defensive(handle, 1) }
        return try body()
    }

    /// Whether `PRAGMA writable_schema` is on for this connection, read without running SQL
    /// (`SQLITE_DBCONFIG_WRITABLE_SCHEMA` with -1); nil when it cannot be told (SQLite before
    /// 3.28, a closed connection). While it is on, SQLite skips the schema objects it cannot load
    /// instead of failing, so what introspection sees is no longer a function of `sqlite_master`.
    /// See <https://www.sqlite.org/c3ref/c_dbconfig_defensive.html#sqlitedbconfigwritableschema>.
    package var isSchemaWritable: Bool? {
        guard !isClosed else { return nil }
        var state: Int32 = 0
        guard strata_db_config_writable_schema_state(handle, &state) == SQLITE_OK else { return nil }
        return state != 0
    }
}

/// Counts the virtual-machine instructions of the running statement for
/// ``Configuration/statementInstructionLimit``: SQLite's progress handler calls ``spend()``
/// every ``interval`` instructions, and a statement's first step calls ``restart()``.
final class InstructionBudget {
    let limit: Int
    let interval: Int32
    private var used = 0
    /// True once the running statement went over the limit (until the next statement starts).
    private(set) var isExhausted = false

    init(limit: Int) {
        self.limit = limit
        self.interval = Int32(min(limit, 1000))
    }

    func restart() {
        used = 0
        isExhausted = false
    }

    /// Returns 1 (interrupt) once the statement went over the limit, else 0.
    func spend() -> Int32 {
        used += Int(interval)
        if used > limit { isExhausted = true }
        return isExhausted ? 1 : 0
    }

    /// The error message of a statement stopped by the limit.
    var message: String {
        "interrupted: the statement ran more than \(limit) virtual machine instructions (the connection's statementInstructionLimit)"
    }
}
