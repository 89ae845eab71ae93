import Foundation
import StrataSQLite
import Testing

extension Trait where Self == ConditionTrait {
    /// Runs the test only when the loaded SQLite can encrypt (it exports `sqlite3_key_v2`): the
    /// system SQLite cannot. `scripts/sqlite-versions.sh test` runs the suite against SQLite3
    /// Multiple Ciphers 3.54.0 (SQLCipher v4 cipher), where these tests run.
    ///
    /// ```swift
    /// @Test(.requiresEncryption) func encryptedFile() throws { ... }
    /// ```
    public static var requiresEncryption: Self {
        .enabled(
            if: Database.supportsEncryption,
            Comment(
                rawValue:
                    "no encryption-capable SQLite loaded (SQLite \(SQLiteVersion.runtime) has no sqlite3_key_v2): run with "
                    + "LD_LIBRARY_PATH=$(scripts/sqlite-versions.sh path 3.54.0), as scripts/sqlite-versions.sh test does"
            ))
    }
}

/// Plaintext found in files: every file under `directory` (recursively) that starts with
/// SQLite's plaintext header `SQLite format 3\0` or holds `marker`'s bytes anywhere, one line each.
///
/// ```swift
/// #expect(plaintextLeaks(in: dir.path, marker: "SECRET-MARKER").isEmpty)
/// ```
public func plaintextLeaks(in directory: String, marker: String) -> [String] {
    let header = Data("SQLite format 3\0".utf8)
    let needle = Data(marker.utf8)
    var leaks: [String] = []
    guard let enumerator = FileManager.default.enumerator(atPath: directory) else {
        return ["\(directory): cannot list"]
    }
    for case let name as String in enumerator {
        let path = (directory as NSString).appendingPathComponent(name)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            continue
        }
        let bytes = fileBytes(path)
        if bytes.starts(with: header) { leaks.append("\(name): plaintext SQLite header") }
        if bytes.range(of: needle) != nil { leaks.append("\(name): holds the marker \(marker)") }
    }
    return leaks
}

/// The files under `directory`, for reports of what an operation created.
public func filesIn(_ directory: String) -> [String] {
    (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).sorted()
}
