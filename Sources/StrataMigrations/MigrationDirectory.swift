import Foundation
import StrataSQLite

/// One migration file: `NNNN_name.sql` or `NNNN-name.sql`.
public struct MigrationFile: Hashable, Sendable {
    /// The number at the start of the file name (`0003_add_email.sql` → 3).
    public let number: Int
    /// The file name, such as `0003_add_email.sql`.
    public let fileName: String
    /// The full path of the file.
    public let path: String
    /// The file's SQL text.
    public let sql: String

    /// The migration identifier: the file name without `.sql` (`0003_add_email`).
    public var identifier: String { String(fileName.dropLast(4)) }

    /// The migration that runs this file's SQL.
    public var migration: Migration { Migration(identifier, sql: sql) }
}

/// A folder of migration files, loaded and checked: `DIR/NNNN_name.sql` (or `NNNN-name.sql`),
/// applied in numeric order. Apps and the `strata` command line share this loader.
///
/// ```swift
/// let directory = try MigrationDirectory(path: "Migrations")
/// var migrator = Migrator()
/// migrator.registerMigrations(from: directory)
/// try migrator.migrate(db)
/// ```
///
/// Loading fails, naming the file, when a `.sql` file's name does not start with a number
/// followed by `_` or `-`, when two files share a number, when the numbering has a gap, when
/// a file is not UTF-8, or when a `.sql` entry is not a regular file inside the folder: a
/// symbolic link is followed only to a regular file inside the folder (a subfolder included);
/// one that leads outside, or to a FIFO, a device or a directory, is refused without reading
/// its target. Other files (a README, dot files) are ignored.
public struct MigrationDirectory: Sendable {
    /// The folder's path.
    public let path: String
    /// The migration files, in numeric order.
    public let files: [MigrationFile]

    /// Loads and checks the migration files in the folder at `path`.
    public init(path: String) throws {
        self.path = path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw MigrationError(.invalidMigrationFile, "\(path): no such migrations folder", migrations: [path])
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw MigrationError(
                .invalidMigrationFile, "\(path): cannot list the folder: \(error.localizedDescription)",
                migrations: [path], underlyingError: error)
        }
        let (resolvedFolder, reason) = MigrationDirectory.resolvedPath(path)
        guard let resolvedFolder else {
            throw MigrationError(
                .invalidMigrationFile, "\(path): cannot resolve the folder's path (\(reason))", migrations: [path])
        }
        var files: [MigrationFile] = []
        for name in names.sorted() where !name.hasPrefix(".") && name.lowercased().hasSuffix(".sql") {
            guard let number = MigrationDirectory.number(ofFileName: name) else {
                throw MigrationError(
                    .invalidMigrationFile,
                    "\(name): not a migration file name (expected NNNN_name.sql or NNNN-name.sql)", migrations: [name])
            }
            let filePath = URL(fileURLWithPath: path).appendingPathComponent(name).path
            let data = try MigrationDirectory.readEntry(name, folder: path, resolvedFolder: resolvedFolder)
            guard let sql = String(validatingUTF8Data: data) else {
                throw MigrationError(.invalidMigrationFile, "\(name): not valid UTF-8 text", migrations: [name])
            }
            files.append(MigrationFile(number: number, fileName: name, path: filePath, sql: sql))
        }
        files.sort { ($0.number, $0.fileName) < ($1.number, $1.fileName) }
        for (previous, file) in zip(files, files.dropFirst()) {
            if file.number == previous.number {
                throw MigrationError(
                    .invalidMigrationFile,
                    "\(file.fileName): duplicate migration number \(file.number) (also \(previous.fileName))",
                    migrations: [file.fileName, previous.fileName])
            }
            if file.number != previous.number + 1 {
                throw MigrationError(
                    .invalidMigrationFile,
                    "\(file.fileName): gap in the numbering (after \(previous.fileName), expected number \(previous.number + 1))",
                    migrations: [file.fileName, previous.fileName])
            }
        }
        self.files = files
    }

    /// The migrations of the files, in order.
    public var migrations: [Migration] { files.map(\.migration) }

    /// The file name for a new migration called `name`: the next number, zero-padded like the
    /// last file (four digits for the first), then `_` and the name in lowercase with runs of
    /// other characters turned into `_`.
    ///
    /// ```swift
    /// directory.nextFileName(for: "Add email")   // "0004_add_email.sql"
    /// ```
    public func nextFileName(for name: String) -> String {
        let number = (files.last?.number ?? 0) + 1
        let width = files.last.map { $0.fileName.prefix(while: { $0.isASCII && $0.isNumber }).count } ?? 4
        let digits = String(number)
        let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
        return "\(padded)_\(MigrationDirectory.slug(name)).sql"
    }

    /// `name` in lowercase ASCII letters, digits and single underscores.
    static func slug(_ name: String) -> String {
        var out = ""
        for scalar in name.lowercased().unicodeScalars {
            if scalar.isASCII, CharacterSet.alphanumerics.contains(scalar) {
                out.unicodeScalars.append(scalar)
            } else if !out.isEmpty, !out.hasSuffix("_") {
                out += "_"
            }
        }
        while out.hasSuffix("_") { out.removeLast() }
        return out.isEmpty ? "migration" : out
    }

    /// The leading number of `NNNN_name.sql` / `NNNN-name.sql`, or nil for another name.
    static func number(ofFileName name: String) -> Int? {
        let digits = name.prefix(while: { $0.isASCII && $0.isNumber })
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        let rest = name.dropFirst(digits.count)
        guard let separator = rest.first, separator == "_" || separator == "-", rest.count > 5 else { return nil }
        return Int(digits)
    }
}

extension String {
    /// The text of `data` if it is valid UTF-8, else nil (no replacement characters).
    init?(validatingUTF8Data data: Data) {
        var bytes = [UInt8](data)
        if bytes.starts(with: SQLiteText.utf8ByteOrderMark) { bytes.removeFirst(3) }
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        self = text
    }
}
