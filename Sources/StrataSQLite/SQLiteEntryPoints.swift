import CSQLite

/// SQLite entry points newer than Strata's floor (``SQLiteVersion/minimumSupported``), looked up
/// once at run time in the library the process loaded, so that the same binary starts on every
/// SQLite from the floor up. A `nil` entry point means the library lacks it; callers fall back.
///
/// Linking them by name would make the dynamic linker refuse to start the program on an older
/// library (`undefined symbol: sqlite3_total_changes64` below 3.37).
enum SQLiteEntryPoints {
    typealias Changes64 = @convention(c) (OpaquePointer?) -> Int64

    /// `sqlite3_changes64` (3.37.0). See <https://www.sqlite.org/c3ref/changes.html>.
    static let changes64: Changes64? = resolve("sqlite3_changes64")
    /// `sqlite3_total_changes64` (3.37.0). See <https://www.sqlite.org/c3ref/total_changes.html>.
    static let totalChanges64: Changes64? = resolve("sqlite3_total_changes64")

    /// The entry point `name` as a C function of type `T`, or nil when the library lacks it.
    static func resolve<T>(_ name: String, as type: T.Type = T.self) -> T? {
        guard let address = strata_sqlite3_symbol(name) else { return nil }
        return unsafeBitCast(address, to: type)
    }
}

extension SQLiteConnection {
    /// Rows changed by the most recent statement: `sqlite3_changes64` where the library has it,
    /// else `sqlite3_changes` (32 bits, which is all an older library counts).
    func changes() -> Int64 {
        if let changes64 = SQLiteEntryPoints.changes64 { return changes64(pointer) }
        return Int64(sqlite3_changes(pointer))
    }

    /// Rows changed since the connection opened: `sqlite3_total_changes64` or `sqlite3_total_changes`.
    func totalChanges() -> Int64 {
        if let totalChanges64 = SQLiteEntryPoints.totalChanges64 { return totalChanges64(pointer) }
        return Int64(sqlite3_total_changes(pointer))
    }
}
