import Foundation
import StrataSQLite
import Testing

/// Checks that matter when the suite runs against real SQLite builds (`scripts/sqlite-versions.sh`).
@Suite("Real SQLite versions")
struct RealSQLiteVersionTests {
    /// The matrix script sets STRATA_EXPECT_SQLITE_VERSION: the library loaded through
    /// LD_LIBRARY_PATH must be the one under test, not the system's.
    static let expected = ProcessInfo.processInfo.environment["STRATA_EXPECT_SQLITE_VERSION"]

    @Test(.enabled(if: expected != nil, "STRATA_EXPECT_SQLITE_VERSION is unset: the system SQLite runs"))
    func runtimeIsTheVersionUnderTest() {
        #expect(SQLiteVersion.runtime.description == Self.expected)
    }

    /// The matrix's 3.54.0 is SQLite3 Multiple Ciphers: there the encryption tests
    /// (`.requiresEncryption`: the rekey's, the encrypted verify's) must run, not be skipped
    /// because the build lost its cipher.
    @Test(.enabled(if: expected == "3.54.0", "only the matrix's SQLite3 Multiple Ciphers build encrypts"))
    func theCipherBuildOfTheMatrixEncrypts() {
        #expect(Database.supportsEncryption, "SQLite \(SQLiteVersion.runtime) loaded without sqlite3_key_v2")
    }

    @Test func versionsBelowTheFloorAreRefusedWithOneLine() throws {
        let error = #expect(throws: SQLiteError.self) { try SQLiteVersion.checkSupported(SQLiteVersion(3, 22, 0)) }
        #expect(error?.resultCode == .SQLITE_ERROR)
        #expect(error?.message == "SQLite 3.22.0 is too old: Strata needs SQLite 3.26.0 or newer")
        try SQLiteVersion.checkSupported(SQLiteVersion(3, 26, 0))
        try SQLiteVersion.checkSupported(.runtime)
    }

    /// `changes` and `totalChanges` work whether or not the library has the 64-bit entry points
    /// (3.37): the binary links neither by name.
    @Test func changeCountsOnEveryVersion() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "INSERT INTO t VALUES (1), (2), (3)")
        #expect(db.changes == 3)
        try db.execute(sql: "UPDATE t SET x = x + 1 WHERE x > 1")
        #expect(db.changes == 2)
        #expect(db.totalChanges == 5)
    }
}
