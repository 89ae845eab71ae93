import StrataSQLite

extension Database {
    /// The `ON CONFLICT` algorithm of a NOT NULL, UNIQUE or PRIMARY KEY constraint.
    ///
    /// ```swift
    /// t.column("email", .text).unique(onConflict: .replace) // "email" TEXT UNIQUE ON CONFLICT REPLACE
    /// ```
    ///
    /// See <https://www.sqlite.org/lang_conflict.html>.
    public enum ConflictResolution: String, Sendable, Hashable, CaseIterable {
        /// `ROLLBACK`: aborts the statement and rolls back the transaction.
        case rollback = "ROLLBACK"
        /// `ABORT`: aborts the statement and undoes its changes (SQLite's default).
        case abort = "ABORT"
        /// `FAIL`: aborts the statement, keeping the changes it already made.
        case fail = "FAIL"
        /// `IGNORE`: skips the row that violates the constraint.
        case ignore = "IGNORE"
        /// `REPLACE`: deletes the rows that conflict, then inserts.
        case replace = "REPLACE"

        /// ` ON CONFLICT X`, or "" for nil.
        static func clause(_ resolution: ConflictResolution?) -> String {
            resolution.map { " ON CONFLICT \($0.rawValue)" } ?? ""
        }
    }

    /// What happens to child rows when their parent row is deleted or its key updated.
    ///
    /// ```swift
    /// t.column("teamId", .integer).references("team", onDelete: .cascade)
    /// ```
    ///
    /// See <https://www.sqlite.org/foreignkeys.html#fk_actions>.
    public enum ForeignKeyAction: String, Sendable, Hashable, CaseIterable {
        /// `CASCADE`: deletes or updates the child rows too.
        case cascade = "CASCADE"
        /// `RESTRICT`: refuses the change while child rows exist, even with deferred checks.
        case restrict = "RESTRICT"
        /// `SET NULL`: sets the child key to NULL.
        case setNull = "SET NULL"
        /// `SET DEFAULT`: sets the child key to its column default.
        case setDefault = "SET DEFAULT"
        /// `NO ACTION`: no action; the constraint is checked as usual (SQLite's default).
        case noAction = "NO ACTION"
    }
}
