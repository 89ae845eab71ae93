import StrataSQLite
import Testing

extension Trait where Self == ConditionTrait {
    /// Runs the test only on an SQLite runtime of at least `major.minor`; on an older one the test
    /// is reported as skipped with `feature` and both versions named (the real-versions matrix,
    /// `scripts/sqlite-versions.sh`, runs the suite on SQLite 3.28 to 3.54).
    ///
    /// ```swift
    /// @Test(.requiresSQLite(3, 35, "RETURNING")) func returning() throws { ... }
    /// ```
    public static func requiresSQLite(_ major: Int, _ minor: Int, _ feature: String) -> Self {
        let needed = SQLiteVersion(major, minor)
        return .enabled(
            if: SQLiteVersion.runtime >= needed,
            "\(feature) needs SQLite \(needed); this runtime is \(SQLiteVersion.runtime)")
    }
}
