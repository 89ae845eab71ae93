import Foundation
import Strata
import StrataSQLite

/// A folder of schema files, one per shipped version (`0001.sql`, `0002.sql`, ...), meant to be
/// committed: the schema every app version left in its users' databases. ``verifyUpgrades(to:rows:seed:)-(Migrator,_,_)``
/// builds a database at each of them, fills it with generated rows, upgrades it to head and
/// checks the result.
///
/// What a version is:
/// - for a migrations folder (or a ``Migrator``), version *N* is the database after the first *N*
///   migrations, in registration order: `0003.sql` is the schema after the third migration, and
///   its first line names that migration's identifier (``record(_:to:)``, `strata history --migrations`);
/// - for a declarative app, version *N* is the desired schema of release *N*, applied by the engine
///   to an empty database (``add(schema:version:to:)``, `strata history add`).
///
/// The text of a file is stable (the same schema gives the same bytes): a header, then the schema
/// as SQLite stores it, read back in creation order.
///
/// ```swift
/// try MigrationHistory.record(migrator, to: "Tests/History")
/// try MigrationHistory(folder: "Tests/History").verifyUpgrades(to: migrator)
/// ```
public struct MigrationHistory: Sendable {
    /// One shipped version.
    public struct Version: Sendable, Hashable {
        /// The version number (the file's name).
        public let number: Int
        /// The migration the version ends with, for a history recorded from migrations (nil for
        /// a history of desired schemas).
        public let migration: String?
        /// The schema SQL of the file (header included; it is made of comments).
        public let sql: String
        /// The file.
        public let path: String
    }

    /// The folder.
    public let folder: String
    /// The versions, in increasing order.
    public let versions: [Version]

    static let headerPrefix = "-- Strata schema history: version "

    /// Reads the history in `folder`: its files named with digits and `.sql` (`0007.sql`).
    /// Throws ``HistoryError`` naming the folder or the file at fault.
    public init(folder: String) throws {
        self.folder = folder
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else {
            throw HistoryError(.invalidHistory, "\(folder): no such history folder", culprit: folder)
        }
        guard isDirectory.boolValue else {
            throw HistoryError(.invalidHistory, "\(folder): is a file, not a history folder", culprit: folder)
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw HistoryError(
                .invalidHistory, "\(folder): cannot list the history folder (\(error.localizedDescription))",
                culprit: folder, underlyingError: error)
        }
        var versions = [Version]()
        var seen = [Int: String]()
        for name in names.sorted() where name.hasSuffix(".sql") {
            let stem = name.dropLast(4)
            guard !stem.isEmpty, stem.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(stem), number > 0
            else {
                throw HistoryError(
                    .invalidHistory, "\(folder)/\(name): not a history file name (expected digits, as in 0007.sql)",
                    culprit: "\(folder)/\(name)")
            }
            if let other = seen[number] {
                throw HistoryError(
                    .invalidHistory, "\(folder)/\(name): version \(number) is also \(other)",
                    culprit: "\(folder)/\(name)")
            }
            seen[number] = name
            let path = FilePath.join(folder, name)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw HistoryError(.invalidHistory, "\(path): cannot read the history file", culprit: path)
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw HistoryError(.invalidHistory, "\(path): the history file is not UTF-8 text", culprit: path)
            }
            versions.append(Version(number: number, migration: Self.migration(inHeaderOf: text), sql: text, path: path))
        }
        guard !versions.isEmpty else {
            throw HistoryError(
                .invalidHistory, "\(folder): the history folder holds no version (0001.sql, ...)", culprit: folder)
        }
        self.versions = versions.sorted { $0.number < $1.number }
    }

    /// The file name of `version`: `0007.sql` (at least four digits).
    public static func fileName(for version: Int) -> String {
        let digits = String(version)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + ".sql"
    }

    /// The stable text of a history file: its header, then `schema`'s SQL.
    public static func fileText(version: Int, migration: String?, schema: DatabaseSchema) -> String {
        var header = headerPrefix + "\(version)"
        if let migration {
            header += ", after migration \(migration)"
        }
        header += ".\n-- Written by `strata history`: commit it, never edit it.\n"
        return schema.isEmpty ? header : header + "\n" + schema.sql
    }

    /// The migration named in the header of a history file, if any.
    static func migration(inHeaderOf text: String) -> String? {
        guard let line = text.split(separator: "\n", maxSplits: 1).first, line.hasPrefix(headerPrefix),
            let range = line.range(of: ", after migration ")
        else { return nil }
        var name = line[range.upperBound...]
        if name.hasSuffix(".") { name = name.dropLast() }
        return name.isEmpty ? nil : String(name)
    }

    /// Writes one file per migration of `migrator` into `folder` (created if needed): version *N*
    /// is the schema after migrations 1 to *N*, each built by the migrator on an empty database.
    /// Files whose text is already the same are left alone. Returns the paths written.
    @discardableResult
    public static func record(_ migrator: Migrator, to folder: String) throws -> [String] {
        guard !migrator.migrations.isEmpty else {
            throw HistoryError(.invalidRequest, "the migrator has no migration to record")
        }
        try createFolder(folder)
        let db = try Database(inMemory: Configuration())
        defer { db.close() }
        var written = [String]()
        for (i, identifier) in migrator.identifiers.enumerated() {
            do {
                try migrator.migrate(db, upTo: identifier)
            } catch {
                throw HistoryError(
                    .buildFailed, "migration \(identifier): cannot build version \(i + 1): \(error)",
                    culprit: identifier,
                    underlyingError: error)
            }
            let text = fileText(version: i + 1, migration: identifier, schema: try DatabaseSchema.read(from: db))
            if let path = try write(text, version: i + 1, to: folder) { written.append(path) }
        }
        return written
    }

    /// Writes version `version` of a declarative app: `schemaSQL` applied by the engine to an
    /// empty database, read back. Returns the path (nil when the file already held that text).
    @discardableResult
    public static func add(schema schemaSQL: String, version: Int, to folder: String) throws -> String? {
        guard version > 0 else {
            throw HistoryError(
                .invalidRequest, "version \(version): a version is a number from 1", culprit: "version \(version)")
        }
        try createFolder(folder)
        let schema = try schemaOfEngine(applying: schemaSQL)
        return try write(fileText(version: version, migration: nil, schema: schema), version: version, to: folder)
    }

    /// The schema the engine makes of `sql` on an empty database.
    static func schemaOfEngine(applying sql: String) throws -> DatabaseSchema {
        let db = try Database(inMemory: Configuration())
        defer { db.close() }
        try db.applySchemaChange(try db.planSchemaChange(to: sql))
        return try DatabaseSchema.read(from: db)
    }

    private static func createFolder(_ folder: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw HistoryError(.invalidHistory, "\(folder): is a file, not a history folder", culprit: folder)
            }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw HistoryError(
                .writeFailed, "\(folder): cannot create the history folder (\(error.localizedDescription))",
                culprit: folder, underlyingError: error)
        }
        // The new folder's name made durable before files are written in it.
        do throws(DurableFile.Failure) {
            try DurableFile.synchronizeDirectory(FilePath.parent(of: folder))
        } catch {
            throw HistoryError(.writeFailed, error.description, culprit: folder, underlyingError: error)
        }
    }

    private static func write(_ text: String, version: Int, to folder: String) throws -> String? {
        let path = FilePath.join(folder, fileName(for: version))
        let data = Data(text.utf8)
        if FileManager.default.contents(atPath: path) == data { return nil }
        do throws(DurableFile.Failure) {
            try DurableFile.write(Array(data), to: path, activity: "cannot write the history file")
        } catch {
            throw HistoryError(.writeFailed, error.description, culprit: path, underlyingError: error)
        }
        return path
    }
}

/// A history folder or file that cannot be read or written, a version that cannot be built, a
/// request that names no version; the message names the culprit first.
public struct HistoryError: StrataError {
    /// What kind of failure this is. New codes may be added.
    public struct Code: StrataErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The history folder or one of its files is missing, unreadable or misnamed.
        public static let invalidHistory = Code(rawValue: "invalidHistory")
        /// The call cannot be done as asked: a version that is not a number from 1, a version the
        /// history or the migrator does not have, a database path that already exists.
        public static let invalidRequest = Code(rawValue: "invalidRequest")
        /// A version could not be built (a migration failed), or a fresh install failed.
        public static let buildFailed = Code(rawValue: "buildFailed")
        /// The history folder or a history file could not be written.
        public static let writeFailed = Code(rawValue: "writeFailed")
    }

    /// What kind of failure this is.
    public let code: Code
    /// One line, naming the culprit first.
    public let message: String
    /// The folder, file, migration or version the message names first.
    public let culprit: String?
    /// The error behind this one (the migration's, the file system's), if any.
    public let underlyingError: (any Error)?

    init(_ code: Code, _ message: String, culprit: String? = nil, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = StrataErrorText.bounded(message)
        self.culprit = culprit
        self.underlyingError = underlyingError
    }

    /// The ``message``, which names its culprit first and quotes its cause.
    public var description: String { describe(culprit: nil, cause: nil) }
}
