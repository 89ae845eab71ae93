import CSQLite

/// Helpers over SQLite's own SQL text functions.
public enum SQLiteText {
    /// True when `sql` ends with a complete statement, as SQLite decides it (`sqlite3_complete`):
    /// semicolons inside strings, comments and trigger bodies do not end a statement.
    /// See <https://www.sqlite.org/c3ref/complete.html>.
    public static func isComplete(_ sql: String) -> Bool {
        sqlite3_complete(sql) != 0
    }
}
