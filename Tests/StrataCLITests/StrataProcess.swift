import Foundation
import StrataTestSupport

/// Runs the built `strata` executable the way a user does (see `ChildProcess` in StrataTestSupport).
enum StrataProcess {
    typealias Result = ChildProcess.Result

    /// Runs `strata arguments...` in `directory` and waits for it.
    static func run(_ arguments: [String], in directory: String? = nil) throws -> Result {
        try ChildProcess.strata(arguments, in: directory)
    }
}

/// Writes migration files into a new temporary folder.
func migrationFolder(_ files: [String: String]) throws -> TemporaryDirectory {
    let dir = TemporaryDirectory("migrations")
    for (name, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: dir.file(name))) }
    return dir
}
