import Foundation
import StrataSQLite
import StrataSchema

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
    /// The baseline header of a file written by `strata squash`, or nil for an ordinary migration.
    public let baseline: MigrationBaselineHeader?
    /// True for a declarative entry: a folder `NNNN_name/` holding `schema.sql` (``sql``) and
    /// optionally `data.sql` (``dataSQL``).
    public let isDeclarative: Bool
    /// The data step (`data.sql`) of a declarative entry, or nil.
    public let dataSQL: String?
    /// The options of a declarative entry: `-- strata:allow-destructive` on a line of its own in
    /// `schema.sql` allows its drops.
    public var schemaOptions: SchemaChangeOptions {
        let allows = sql.split(whereSeparator: \.isNewline).contains {
            $0.trimmingCharacters(in: .whitespaces) == "-- strata:allow-destructive"
        }
        return SchemaChangeOptions(allowDestructive: allows)
    }

    init(
        number: Int, fileName: String, path: String, sql: String, baseline: MigrationBaselineHeader? = nil,
        isDeclarative: Bool = false, dataSQL: String? = nil
    ) {
        self.number = number
        self.fileName = fileName
        self.path = path
        self.sql = sql
        self.baseline = baseline
        self.isDeclarative = isDeclarative
        self.dataSQL = dataSQL
    }

    /// The migration identifier: the file name without `.sql` (`0003_add_email`), or a declarative
    /// entry's folder name.
    public var identifier: String { isDeclarative ? fileName : String(fileName.dropLast(4)) }

    /// The migration that runs this file's SQL; for a declarative entry, the declarative
    /// migration to `schema.sql` with `data.sql` as its data step.
    public var migration: Migration {
        guard isDeclarative else { return Migration(identifier, sql: sql) }
        if let dataSQL { return Migration(identifier, schema: sql, options: schemaOptions, dataSQL: dataSQL) }
        return Migration(identifier, schema: sql, options: schemaOptions)
    }
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
/// an interrupted `strata squash` left its journal (`.strata-squash-journal`) in the folder, when
/// a file is not UTF-8, or when a `.sql` entry is not a regular file inside the folder: a
/// symbolic link is followed only to a regular file inside the folder (a subfolder included);
/// one that leads outside, or to a FIFO, a device or a directory, is refused without reading
/// its target. Other files (a README, dot files) are ignored.
public struct MigrationDirectory: Sendable {
    /// The folder's path.
    public let path: String
    /// The migration files, in numeric order (a baseline, when there is one, first).
    public let files: [MigrationFile]
    /// The original migrations of the baseline that are still available: the files of the
    /// archive folder its header names (empty without a baseline or an archive).
    public let archivedOriginals: [MigrationFile]

    /// The journal `strata squash` keeps in the folder while it works: a folder holding one is
    /// refused until the squash is finished or undone.
    package static let squashJournalName = ".strata-squash-journal"

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
        if names.contains(MigrationDirectory.squashJournalName) {
            // Midway through a squash the folder may hold neither the old migrations nor the
            // baseline that replaces them: a migrator loaded from it could skip migrations.
            let journal = MigrationDirectory.entryPath(MigrationDirectory.squashJournalName, in: path)
            throw MigrationError(
                .invalidMigrationFile,
                "\(journal): a `strata squash` was interrupted in this folder; run the same squash command again "
                    + "to finish or undo it (until then the folder may lack migrations)",
                migrations: [journal])
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
            let filePath = MigrationDirectory.entryPath(name, in: path)
            let data = try MigrationDirectory.readEntry(name, folder: path, resolvedFolder: resolvedFolder)
            guard let sql = String(validatingUTF8Data: data) else {
                throw MigrationError(.invalidMigrationFile, "\(name): not valid UTF-8 text", migrations: [name])
            }
            let header = try MigrationBaselineHeader(parsing: sql, fileName: name)
            files.append(MigrationFile(number: number, fileName: name, path: filePath, sql: sql, baseline: header))
        }
        for name in names.sorted() where !name.hasPrefix(".") && !name.lowercased().hasSuffix(".sql") {
            guard let number = MigrationDirectory.number(ofEntryName: name),
                let info = try? FileSystem.info(
                    MigrationDirectory.entryPath(name, in: path), followingLinks: false),
                info.kind == .directory
            else { continue }
            files.append(
                try MigrationDirectory.declarativeEntry(
                    name, number: number, folder: path, resolvedFolder: resolvedFolder))
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
        if let misplaced = files.dropFirst().first(where: { $0.baseline != nil }) {
            throw MigrationError(
                .invalidMigrationFile,
                "\(misplaced.fileName): a baseline must be the first migration of the folder (after it: \(files[0].fileName))",
                migrations: [misplaced.fileName])
        }
        self.files = files
        self.archivedOriginals = try MigrationDirectory.loadArchive(of: files.first, folder: path)
    }

    /// The files of the archive folder that `baseline`'s header names, checked against its covered list.
    private static func loadArchive(of first: MigrationFile?, folder: String) throws -> [MigrationFile] {
        guard let first, let header = first.baseline, let archive = header.archive else { return [] }
        let archivePath =
            archive.hasPrefix("/") ? archive : MigrationDirectory.entryPath(archive, in: folder)
        let directory: MigrationDirectory
        do {
            directory = try MigrationDirectory(path: archivePath)
        } catch let error as MigrationError {
            throw MigrationError(
                .invalidMigrationFile,
                "\(first.fileName): its archive \(archive) cannot be read: \(error.message)",
                migrations: [first.fileName],
                underlyingError: error)
        }
        let covered = Set(header.covers)
        if let stray = directory.files.first(where: { !covered.contains($0.identifier) }) {
            throw MigrationError(
                .invalidMigrationFile,
                "\(first.fileName): its archive \(archive) holds \(stray.fileName), which the baseline does not cover",
                migrations: [first.fileName, stray.fileName])
        }
        return directory.files
    }

    /// The migrations of the files, in order.
    public var migrations: [Migration] { files.map(\.migration) }

    /// The baseline file (the first one) when the folder was squashed, or nil.
    public var baselineFile: MigrationFile? { files.first.flatMap { $0.baseline == nil ? nil : $0 } }

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

    /// A declarative entry: the folder `name` holding `schema.sql` and optionally `data.sql`
    /// (read as the folder's files are: regular files inside the migration folder).
    static func declarativeEntry(
        _ name: String, number: Int, folder: String, resolvedFolder: String
    ) throws
        -> MigrationFile
    {
        let entryPath = MigrationDirectory.entryPath(name, in: folder)
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: entryPath)) ?? []
        guard contents.contains("schema.sql") else {
            throw MigrationError(
                .invalidMigrationFile,
                "\(name): a migration folder entry must hold schema.sql (and optionally data.sql); it holds \(contents.isEmpty ? "nothing" : contents.sorted().joined(separator: ", "))",
                migrations: [name])
        }
        if let stray = contents.sorted().first(where: {
            !$0.hasPrefix(".") && $0 != "schema.sql" && $0 != "data.sql" && $0.lowercased().hasSuffix(".sql")
        }) {
            throw MigrationError(
                .invalidMigrationFile, "\(name)/\(stray): a migration folder entry holds only schema.sql and data.sql",
                migrations: [name])
        }
        func text(_ file: String) throws -> String {
            let data = try readEntry("\(name)/\(file)", folder: folder, resolvedFolder: resolvedFolder)
            guard let text = String(validatingUTF8Data: data) else {
                throw MigrationError(.invalidMigrationFile, "\(name)/\(file): not valid UTF-8 text", migrations: [name])
            }
            return text
        }
        let schema = try text("schema.sql")
        let data = contents.contains("data.sql") ? try text("data.sql") : nil
        return MigrationFile(
            number: number, fileName: name, path: entryPath, sql: schema, isDeclarative: true, dataSQL: data)
    }

    /// The leading number of a declarative entry's folder name `NNNN_name` / `NNNN-name`, or nil.
    static func number(ofEntryName name: String) -> Int? {
        let digits = name.prefix(while: { $0.isASCII && $0.isNumber })
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        let rest = name.dropFirst(digits.count)
        guard let separator = rest.first, separator == "_" || separator == "-", rest.count > 1 else { return nil }
        return Int(digits)
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
