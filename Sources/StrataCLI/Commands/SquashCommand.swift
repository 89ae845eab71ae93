import ArgumentParser
import Foundation
import Strata

/// `strata squash`: replaces the first migrations of a folder with one baseline file.
struct SquashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "squash",
        abstract: "Replace migrations 1...ID of a folder with one baseline file.",
        discussion: """
            Migrates a scratch database through the files up to ID and writes NNNN_baseline.sql \
            (NNNN: ID's number): a `-- strata:baseline` header listing the identifiers it covers, then the \
            CREATE statements of the combined schema and INSERTs of the rows those migrations left. The \
            baseline is proven before anything is written (a database made from it equals one made \
            from the originals, schema and rows). New databases run the baseline; databases that \
            applied every covered migration skip it; a database stopped in the middle runs the \
            originals from --archive (the folder the covered files are moved to), or, without it, is \
            refused, naming the oldest version still supported (--oldest-supported, default ID). \
            On any failure the migration folder and the archive are left as they were.
            """)

    @OptionGroup var migrationsArguments: MigrationsArguments

    @Option(
        name: .customLong("through"),
        help: ArgumentHelp("The last migration the baseline replaces (identifier or number).", valueName: "id"))
    var through: String

    @Option(
        name: .customLong("archive"),
        help: ArgumentHelp(
            "Move the covered files to this folder (created if needed); the folder's baseline names it.",
            valueName: "archive"))
    var archive: String?

    @Option(
        name: .customLong("oldest-supported"),
        help: ArgumentHelp(
            "The oldest covered migration a database may have stopped at (with --archive: only the originals after it are kept).",
            valueName: "id"))
    var oldestSupported: String?

    func run() throws {
        let folder = migrationsArguments.path
        let directory = try migrationsArguments.load()
        if let existing = directory.baselineFile {
            throw CLIError(
                message:
                    "\(existing.path): the folder already starts with a baseline; squashing a squashed folder again is not supported"
            )
        }
        let target = try MigrationFolder.resolveTarget(through, in: directory)
        guard let last = directory.files.firstIndex(where: { $0.identifier == target }) else {
            throw CLIError(message: "\(through): no migration with this identifier or number in \(folder)")
        }
        let covered = Array(directory.files[...last])
        if let entry = covered.first(where: \.isDeclarative) {
            throw CLIError(
                message:
                    "\(entry.path): a declarative folder entry (schema.sql, data.sql); squash covers .sql files only, squash through the migration before it"
            )
        }
        var oldest: String?
        var oldestIndex = last
        if let oldestSupported {
            let resolved = try MigrationFolder.resolveTarget(oldestSupported, in: directory)
            guard let index = covered.firstIndex(where: { $0.identifier == resolved }) else {
                throw CLIError(
                    message:
                        "--oldest-supported \(oldestSupported): not one of the migrations 1...\(target) being squashed")
            }
            if archive == nil, index != last {
                throw CLIError(
                    message:
                        "--oldest-supported \(oldestSupported): databases stopped there need the originals after it; give --archive DIR"
                )
            }
            oldest = resolved
            oldestIndex = index
        }
        // Originals kept in the archive: all of them, or those after the oldest supported one.
        let archived = archive == nil ? [] : Array(covered[(oldestSupported == nil ? 0 : oldestIndex + 1)...])
        let archiveReference = try archive.map { try SquashFiles.reference(to: $0, from: folder) }

        let body = try SquashCommand.baselineBody(directory: directory, through: target)
        let header = MigrationBaselineHeader(
            covers: covered.map(\.identifier), oldestSupported: oldest, archive: archiveReference)
        let text = header.text + body
        let digits = covered[last].fileName.prefix(while: { $0.isASCII && $0.isNumber })
        let baselineName = "\(digits)_baseline.sql"
        try SquashCommand.proveBaseline(
            text: text, name: baselineName, header: header, directory: directory, through: target)

        try SquashFiles.replace(
            covered: covered, with: (baselineName, Data(text.utf8)), in: folder, archiving: archived, to: archive)
        let kept =
            archive.map { " (\(CLIOutput.count(archived.count, "original")) moved to \($0))" } ?? ""
        CLIOutput.print(
            "Wrote \((folder as NSString).appendingPathComponent(baselineName)): replaces \(CLIOutput.count(covered.count, "migration")) (\(covered[0].identifier) ... \(target))\(kept)"
        )
    }

    /// The SQL of the baseline: the combined schema of the files up to `target`, then the rows
    /// they left, as INSERT statements.
    static func baselineBody(directory: MigrationDirectory, through target: String) throws -> String {
        let scratch = try migrated(directory, through: target)
        defer { scratch.close() }
        let schema = try CLIError.reporting { try DatabaseSchema.read(from: scratch) }
        var out = schema.sql
        if !out.hasSuffix("\n") { out += "\n" }
        out += try CLIError.reporting { try rowInserts(scratch, schema: schema) }
        return out
    }

    /// A private in-memory database migrated through the files up to `target`.
    static func migrated(_ directory: MigrationDirectory, through target: String) throws -> Database {
        let scratch = try DatabaseOpener.scratch()
        var migrator = Migrator()
        migrator.registerMigrations(from: directory)
        _ = try CLIError.reporting { try migrator.migrate(scratch, upTo: target) }
        return scratch
    }

    /// `INSERT INTO "t"(...) VALUES(...);` for every row of every ordinary table, in rowid (or
    /// primary key) order; a virtual table with rows is refused, naming it.
    static func rowInserts(_ db: Database, schema: DatabaseSchema) throws -> String {
        var out = ""
        for table in schema.tables {
            let quotedTable = SQLLiteral.quote(identifier: table.name)
            let count = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM \(quotedTable)") ?? 0
            guard count > 0 else { continue }
            if table.isVirtual {
                throw CLIError(
                    message:
                        "table \(table.name): a virtual table with rows; a baseline carries the rows of ordinary tables only"
                )
            }
            let columns = table.storedColumns.map { SQLLiteral.quote(identifier: $0.name) }
            let values = columns.map { "quote(\($0))" }.joined(separator: " || ',' || ")
            let order = table.hasRowID ? "rowid" : (1...columns.count).map(String.init).joined(separator: ", ")
            let rows = try db.fetchColumn(
                String.self, sql: "SELECT \(values) FROM \(quotedTable) ORDER BY \(order)")
            let prefix = "INSERT INTO \(quotedTable)(\(columns.joined(separator: ", "))) VALUES("
            for row in rows { out += prefix + row + ");\n" }
        }
        return out
    }

    /// Runs the baseline on an empty database and compares it with the originals' result (schema
    /// and rows); refuses, naming the first difference, before anything is written.
    static func proveBaseline(
        text: String, name: String, header: MigrationBaselineHeader, directory: MigrationDirectory,
        through target: String
    ) throws {
        let original = try migrated(directory, through: target)
        defer { original.close() }
        let fresh = try DatabaseOpener.scratch()
        defer { fresh.close() }
        var migrator = Migrator()
        migrator.registerBaseline(
            Migration(String(name.dropLast(4)), sql: text), covering: header.covers,
            oldestSupported: header.oldestSupported)
        do {
            _ = try migrator.migrate(fresh)
        } catch {
            throw CLIError(message: "\(name): the baseline does not run on an empty database: \(error)")
        }
        let expected = try CLIError.reporting { try DatabaseSchema.read(from: original) }
        let actual = try CLIError.reporting { try DatabaseSchema.read(from: fresh) }
        if let difference = actual.differences(from: expected).first {
            throw CLIError(message: "\(name): the baseline's schema differs from the originals': \(difference)")
        }
        let expectedRows = try CLIError.reporting { try rowInserts(original, schema: expected) }
        let actualRows = try CLIError.reporting { try rowInserts(fresh, schema: actual) }
        if expectedRows != actualRows {
            throw CLIError(message: "\(name): the baseline's rows differ from the originals'")
        }
    }
}

/// The file operations of `strata squash`, all undone on a failure.
enum SquashFiles {
    /// `path` as the baseline's header names it: relative to the migration folder when both are
    /// relative or both absolute, else absolute.
    static func reference(to path: String, from folder: String) throws -> String {
        let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        let base = URL(fileURLWithPath: folder).standardizedFileURL.pathComponents
        var common = 0
        while common < min(target.count, base.count), target[common] == base[common] { common += 1 }
        if common == target.count {
            throw CLIError(
                message: "--archive \(path): the archive cannot be the migration folder or one that contains it")
        }
        let up = Array(repeating: "..", count: base.count - common)
        return (up + target[common...]).joined(separator: "/")
    }

    /// Writes the baseline, moves (or removes) the covered files: all of it, or nothing.
    static func replace(
        covered: [MigrationFile], with baseline: (name: String, data: Data), in folder: String,
        archiving archived: [MigrationFile], to archive: String?
    ) throws {
        let fm = FileManager.default
        var undo: [() -> Void] = []
        func rollback() { for step in undo.reversed() { step() } }
        func path(_ dir: String, _ name: String) -> String { (dir as NSString).appendingPathComponent(name) }
        do {
            // Checks before any change.
            if let archive {
                var isDirectory: ObjCBool = false
                if fm.fileExists(atPath: archive, isDirectory: &isDirectory), !isDirectory.boolValue {
                    throw CLIError(message: "--archive \(archive): exists and is not a folder")
                }
                for file in archived {
                    let destination = path(archive, file.fileName)
                    guard fm.fileExists(atPath: destination) else { continue }
                    guard let existing = fm.contents(atPath: destination) else {
                        throw CLIError(message: "\(destination): already exists and cannot be read")
                    }
                    let original = try readBytes(file.path)
                    if existing != original {
                        throw CLIError(
                            message:
                                "\(destination): already exists with other contents (checksum \(SquashFiles.checksum(existing)), \(file.fileName) has \(SquashFiles.checksum(original))); nothing was changed"
                        )
                    }
                }
            }
            if fm.fileExists(atPath: path(folder, baseline.name)),
                !covered.contains(where: { $0.fileName == baseline.name })
            {
                throw CLIError(message: "\(path(folder, baseline.name)): already exists")
            }
            // 1. The archive and its copies.
            if let archive {
                if !fm.fileExists(atPath: archive) {
                    do {
                        try fm.createDirectory(atPath: archive, withIntermediateDirectories: false)
                    } catch {
                        throw CLIError(
                            message: "--archive \(archive): cannot create the folder (\(error.localizedDescription))")
                    }
                    undo.append { try? fm.removeItem(atPath: archive) }
                }
                for file in archived {
                    let destination = path(archive, file.fileName)
                    if fm.fileExists(atPath: destination) { continue }  // the same bytes, checked above
                    let bytes = try readBytes(file.path)
                    let temporary = path(archive, ".strata-squash-\(file.fileName).tmp")
                    try write(bytes, to: temporary)
                    undo.append { try? fm.removeItem(atPath: temporary) }
                    try move(temporary, to: destination)
                    undo.removeLast()
                    undo.append { try? fm.removeItem(atPath: destination) }
                    // Read back: the archive holds the very bytes the ledgers' checksums were made of.
                    guard try readBytes(destination) == bytes else {
                        throw CLIError(
                            message: "\(destination): the copy differs from \(file.path) (checksum mismatch)")
                    }
                }
            }
            // 2. The baseline, under a name the loader ignores.
            let temporary = path(folder, ".strata-squash-\(baseline.name).tmp")
            try write(baseline.data, to: temporary)
            undo.append { try? fm.removeItem(atPath: temporary) }
            // 3. The covered files out of the folder, into a staging folder the loader ignores.
            let staging = path(folder, ".strata-squash-staging")
            do {
                try fm.createDirectory(atPath: staging, withIntermediateDirectories: false)
            } catch {
                throw CLIError(message: "\(staging): cannot create the staging folder (\(error.localizedDescription))")
            }
            undo.append { try? fm.removeItem(atPath: staging) }
            for file in covered {
                let staged = path(staging, file.fileName)
                try move(file.path, to: staged)
                undo.append { try? fm.moveItem(atPath: staged, toPath: file.path) }
            }
            // 4. The baseline in place.
            let final = path(folder, baseline.name)
            try move(temporary, to: final)
            undo.append { try? fm.moveItem(atPath: final, toPath: temporary) }
            // Done: the staged originals are no longer needed (copied to the archive when asked).
            undo.removeAll()
            do {
                try fm.removeItem(atPath: staging)
            } catch {
                CLIOutput.note("\(staging): could not be removed (\(error.localizedDescription)); delete it")
            }
        } catch {
            rollback()
            throw error
        }
    }

    static func readBytes(_ path: String) throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError(message: "\(path): cannot read the file (\(error.localizedDescription))")
        }
    }

    static func write(_ data: Data, to path: String) throws {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .withoutOverwriting)
        } catch {
            throw CLIError(message: "\(path): cannot write the file (\(error.localizedDescription))")
        }
    }

    static func move(_ from: String, to destination: String) throws {
        // rename(2): atomic within one file system, and refuses to replace a folder.
        guard rename(from, destination) == 0 else {
            throw CLIError(message: "\(destination): cannot move \(from) there (\(String(cString: strerror(errno))))")
        }
    }

    static func checksum(_ data: Data) -> String {
        String(Migration("x", sql: String(decoding: data, as: UTF8.self)).checksum?.prefix(12) ?? "")
    }
}
