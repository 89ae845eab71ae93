import Foundation
import StrataSQLite

/// The header of a baseline file in a migration folder, as `strata squash` writes it.
///
/// A baseline file is an ordinary `NNNN_name.sql` entry whose first line is
/// `-- strata:baseline`, followed by one `-- covers: IDENTIFIER` line per migration it replaces
/// (in their order), then optionally `-- oldest-supported: IDENTIFIER` and
/// `-- archive: FOLDER` (a path relative to the migration folder, or absolute). The SQL after
/// the header creates the combined schema (and the rows the covered migrations inserted). Its
/// number is the number of the last covered migration, so the files after it keep theirs.
///
/// ```sql
/// -- strata:baseline
/// -- covers: 0001_create_player
/// -- covers: 0002_add_score
/// -- archive: ../MigrationsArchive
/// CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER);
/// ```
///
/// ``Migrator/registerMigrations(from:)`` registers it with
/// ``Migrator/registerBaseline(_:covering:originals:oldestSupported:)``, the files of the archive as
/// its originals. Its checksum is the whole file's, header included.
public struct MigrationBaselineHeader: Sendable, Hashable {
    /// The first line that marks a baseline file.
    public static let marker = "-- strata:baseline"

    /// The identifiers the baseline replaces, in order.
    public var covers: [String]
    /// The oldest covered identifier a database may have stopped at, or nil.
    public var oldestSupported: String?
    /// The archive folder holding the originals, as written in the header, or nil.
    public var archive: String?

    public init(covers: [String], oldestSupported: String? = nil, archive: String? = nil) {
        self.covers = covers
        self.oldestSupported = oldestSupported
        self.archive = archive
    }

    /// The header's text (each line ends with a newline).
    public var text: String {
        var lines = [MigrationBaselineHeader.marker]
        lines += covers.map { "-- covers: \($0)" }
        if let oldestSupported { lines.append("-- oldest-supported: \(oldestSupported)") }
        if let archive { lines.append("-- archive: \(archive)") }
        return lines.map { $0 + "\n" }.joined()
    }

    /// The header of `sql`, nil when it does not start with the marker line, or an error naming
    /// the file and the line at fault.
    init?(parsing sql: String, fileName: String) throws {
        var lines = SQLiteText.droppingByteOrderMark(sql).replacingCRLF().split(
            separator: "\n", omittingEmptySubsequences: false
        )[...]
        guard let first = lines.first, first.trimmingCharacters(in: .whitespaces) == MigrationBaselineHeader.marker
        else { return nil }
        lines = lines.dropFirst()
        func refusal(_ number: Int, _ reason: String) -> MigrationError {
            MigrationError(
                .invalidMigrationFile, "\(fileName): baseline header line \(number): \(reason)", migrations: [fileName])
        }
        var covers: [String] = []
        var oldest: String?
        var archive: String?
        for (offset, line) in lines.enumerated() {
            guard line.hasPrefix("-- "), let colon = line.firstIndex(of: ":") else { break }
            let key = line[line.index(line.startIndex, offsetBy: 3)..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            let number = offset + 2
            switch key {
            case "covers":
                guard !value.isEmpty else { throw refusal(number, "an empty identifier") }
                guard !covers.contains(value) else { throw refusal(number, "\(value) is covered twice") }
                covers.append(value)
            case "oldest-supported":
                guard oldest == nil else { throw refusal(number, "oldest-supported given twice") }
                oldest = value
            case "archive":
                guard archive == nil, !value.isEmpty else { throw refusal(number, "archive given twice or empty") }
                archive = value
            default:
                throw refusal(number, "unknown key \"\(key)\" (expected covers, oldest-supported or archive)")
            }
        }
        guard !covers.isEmpty else {
            throw refusal(2, "a baseline covers no migration (expected `-- covers: ID` lines)")
        }
        if let oldest, !covers.contains(oldest) {
            throw MigrationError(
                .invalidMigrationFile, "\(fileName): oldest-supported \(oldest) is not one of the covered migrations",
                migrations: [fileName])
        }
        if covers.contains(String(fileName.dropLast(4))) {
            throw MigrationError(
                .invalidMigrationFile, "\(fileName): a baseline cannot cover its own identifier", migrations: [fileName]
            )
        }
        self.init(covers: covers, oldestSupported: oldest, archive: archive)
    }
}
