import CSQLite

extension Database {
    /// Runs `body` with SQLite's legacy double-quoted string literals accepted on this
    /// connection (`SQLITE_DBCONFIG_DQS_DDL` and `_DML` on), then restores
    /// ``Configuration/acceptsDoubleQuotedStringLiterals``.
    ///
    /// The schema engine uses it while it plans and applies: a stored schema that relies on
    /// the misfeature (`CHECK (kind <> "draft")`, a trigger inserting `"created"`) was accepted by
    /// SQLite when it was created, and re-creating those objects as stored must keep working
    /// under the strict default. New SQL the engine runs comes from a desired schema already
    /// parsed strictly, or is written by Strata with every identifier quoted.
    /// See <https://www.sqlite.org/quirks.html#double_quoted_string_literals_are_accepted>.
    package func acceptingDoubleQuotedStringLiterals<T>(_ body: () throws -> T) rethrows -> T {
        if configuration.acceptsDoubleQuotedStringLiterals { return try body() }
        strata_db_config_dqs(handle, 1)
        defer { strata_db_config_dqs(handle, 0) }
        return try body()
    }
}
