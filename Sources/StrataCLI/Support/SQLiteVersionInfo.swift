import Strata

enum SQLiteVersionInfo {
    static var runtime: String { SQLiteVersion.runtime.description }
}
