import ArgumentParser
import Foundation
import Strata
import StrataMigrations
import StrataSQLite
import StrataTesting

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
            On any failure the migration folder and the archive are left as they were; a squash \
            killed midway leaves a journal (.strata-squash-journal) that the next squash finishes or \
            undoes first (other commands refuse the folder until then). Every file is flushed to disk \
            before it is renamed into place. Run again on the squashed folder, it has nothing to do.
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
        switch try SquashFiles.recoverIfInterrupted(in: folder) {
        case .finished?:
            CLIOutput.note("\(folder): finished a squash that was interrupted after its baseline was written")
        case .undone?: CLIOutput.note("\(folder): undid a squash that was interrupted; nothing of it is left")
        case nil: break
        }
        let directory = try migrationsArguments.load()
        if let existing = directory.baselineFile, let header = existing.baseline,
            let last = header.covers.last, SquashCommand.names(last, through)
        {
            CLIOutput.print(
                "Nothing to do: \(existing.path) already replaces \(CLIOutput.count(header.covers.count, "migration")) (\(header.covers[0]) ... \(last))."
            )
            return
        }
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
            "Wrote \(FilePath.join(folder, baselineName)): replaces \(CLIOutput.count(covered.count, "migration")) (\(covered[0].identifier) ... \(target))\(kept)"
        )
    }

    /// Whether `argument` (an identifier, a file name or a number, as `--through` takes it) names
    /// the migration `identifier`.
    static func names(_ identifier: String, _ argument: String) -> Bool {
        if identifier == argument || identifier + ".sql" == argument { return true }
        let digits = identifier.prefix(while: { $0.isASCII && $0.isNumber })
        guard let number = Int(argument), let own = Int(digits) else { return false }
        return number == own
    }

    /// The SQL of the baseline: the tables of the combined schema of the files up to `target`,
    /// the rows they left (as INSERT statements), then the indexes, views and triggers. A trigger
    /// the migrations created does not fire on the rows the baseline inserts: they are the final
    /// rows already.
    static func baselineBody(directory: MigrationDirectory, through target: String) throws -> String {
        let scratch = try migrated(directory, through: target)
        defer { scratch.close() }
        let schema = try CLIError.reporting { try DatabaseSchema.read(from: scratch) }
        var out = DatabaseSchema(tables: schema.tables).sql
        if !out.hasSuffix("\n") { out += "\n" }
        out += try CLIError.reporting { try rowInserts(scratch, schema: schema) }
        out += DatabaseSchema(indexes: schema.indexes, views: schema.views, triggers: schema.triggers).sql
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

    /// The statements that put back every row of `schema`'s tables: `INSERT INTO "t"(...)
    /// VALUES(...);` per row of an ordinary table (rowid tables with their rowids, in rowid
    /// order; WITHOUT ROWID tables in primary-key order; generated columns left to SQLite), the
    /// AUTOINCREMENT counters, then the full-text and R*Tree tables: rows inserted through the
    /// table (which builds its index and shadow tables), an external-content index rebuilt from
    /// its table. Values are written exactly: reals by `SQLValue.exactRealLiteral` (a decimal
    /// only when it is the double's exact value; infinities as `9e999`), text with NUL
    /// characters as `char(0)` pieces, text that is not UTF-8 as `CAST(X'..' AS TEXT)`, blobs as
    /// `X'..'`. A table whose rows cannot be read back (another module's virtual table, a
    /// contentless full-text table) is refused, naming it.
    static func rowInserts(_ db: Database, schema: DatabaseSchema) throws -> String {
        var out = ""
        var virtualTables = ""
        for table in schema.tables {
            let quotedTable = SQLLiteral.quote(identifier: table.name)
            let count = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM main.\(quotedTable)") ?? 0
            guard count > 0 else { continue }
            if table.isVirtual {
                virtualTables += try virtualTableRows(db, table)
                continue
            }
            var columns = table.storedColumns.map(\.name)
            var order: [String] = []
            if table.hasRowID {
                if let rowid = TableRowComparison.rowIDName(table) {
                    if table.rowIDAliasColumn == nil { columns.insert(rowid, at: 0) }
                    order = [rowid]
                }
            } else {
                order = table.columns.filter { $0.primaryKeyPosition > 0 }
                    .sorted { $0.primaryKeyPosition < $1.primaryKeyPosition }.map(\.name)
            }
            out += try inserts(db, into: table.name, columns: columns, order: order)
        }
        // AUTOINCREMENT counters: a fresh install must not hand out the ids of rows the
        // migrations deleted.
        let hasSequence =
            try db.fetchValue(
                Bool.self, sql: "SELECT count(*) > 0 FROM main.sqlite_master WHERE name = 'sqlite_sequence'")
            ?? false
        if hasSequence {
            for row in try db.fetchAll(sql: "SELECT name, seq FROM main.sqlite_sequence ORDER BY rowid") {
                guard case .text(let name) = row.value(at: 0), schema.table(named: name) != nil else { continue }
                let literal = Self.literal(of: .text(name), type: "text")
                out += "DELETE FROM sqlite_sequence WHERE name = \(literal);\n"
                out +=
                    "INSERT INTO sqlite_sequence(name, seq) VALUES(\(literal), \(Self.literal(of: row.value(at: 1), type: "")));\n"
            }
        }
        return out + virtualTables
    }

    /// The rows of a virtual table that has some, or a refusal naming it.
    static func virtualTableRows(_ db: Database, _ table: TableInfo) throws -> String {
        let module = (table.module ?? "").lowercased()
        let quotedTable = SQLLiteral.quote(identifier: table.name)
        let columns = try db.fetchColumn(
            String.self, sql: "SELECT name FROM pragma_table_xinfo(?1, 'main') WHERE hidden <> 1 ORDER BY cid",
            arguments: [table.name])
        switch module {
        case "fts5", "fts4", "fts3":
            let options = table.sql.lowercased().filter { !$0.isWhitespace }
            if options.contains("content=''") || options.contains("content=\"\"") {
                throw CLIError(
                    message:
                        "table \(table.name): a contentless full-text table with rows; their text cannot be read back, so a baseline cannot carry them (squash through a migration before its rows are written)"
                )
            }
            if options.contains("content=") {
                // External content: the rows are the content table's (carried with it); the
                // index is built again from them.
                return "INSERT INTO \(quotedTable)(\(quotedTable)) VALUES('rebuild');\n"
            }
            return try inserts(db, into: table.name, columns: ["rowid"] + columns, order: ["rowid"])
        case "rtree", "rtree_i32":
            return try inserts(db, into: table.name, columns: columns, order: columns.prefix(1).map { $0 })
        default:
            throw CLIError(
                message:
                    "table \(table.name): a virtual table (module \(table.module ?? "?")) with rows; a baseline carries the rows of ordinary, full-text and R*Tree tables only"
            )
        }
    }

    /// One `INSERT` per row of `table`, of `columns`, in `order`.
    static func inserts(_ db: Database, into table: String, columns: [String], order: [String]) throws -> String {
        let quoted = columns.map { SQLLiteral.quote(identifier: $0) }
        let selection = quoted.map { "\($0), typeof(\($0))" }.joined(separator: ", ")
        let orderBy =
            order.isEmpty ? "" : " ORDER BY " + order.map { SQLLiteral.quote(identifier: $0) }.joined(separator: ", ")
        let quotedTable = SQLLiteral.quote(identifier: table)
        let prefix = "INSERT INTO \(quotedTable)(\(quoted.joined(separator: ", "))) VALUES("
        var out = ""
        for row in try db.fetchAll(sql: "SELECT \(selection) FROM main.\(quotedTable)\(orderBy)") {
            out += prefix
            for index in 0..<columns.count {
                if index > 0 { out += ", " }
                let type: String
                if case .text(let name) = row.value(at: 2 * index + 1) { type = name } else { type = "" }
                out += literal(of: row.value(at: 2 * index), type: type)
            }
            out += ");\n"
        }
        return out
    }

    /// `value` as an SQL literal that stores the same value with the same storage class (`type`,
    /// its `typeof`); SQLite's own `quote()` writes an infinity as `Inf`, which is not SQL, and
    /// cuts text at its first NUL character.
    static func literal(of value: SQLValue, type: String) -> String {
        func hex(_ bytes: [UInt8]) -> String {
            let digits = Array("0123456789ABCDEF".utf8)
            var out = [UInt8]()
            out.reserveCapacity(bytes.count * 2)
            for byte in bytes {
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0F)])
            }
            return String(decoding: out, as: UTF8.self)
        }
        switch value {
        case .null: return "NULL"
        case .integer(let i): return String(i)
        case .real(let d):
            // Not the shortest decimal: SQLite's conversion reads some as a neighbouring double.
            return SQLValue.exactRealLiteral(d)
        case .text(let s):
            return s.split(separator: "\u{0}", omittingEmptySubsequences: false)
                .map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }
                .joined(separator: " || char(0) || ")
        case .blob(let bytes):
            // Text that is not UTF-8 reads as bytes; its storage class says it was text.
            return type == "text" ? "CAST(X'\(hex(bytes))' AS TEXT)" : "X'\(hex(bytes))'"
        }
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
        // Every row of every table, read again independently of the INSERTs above.
        if let difference = try CLIError.reporting({
            try TableRowComparison.firstDifference(
                expected: original, actual: fresh, schema: expected, expectedName: "the originals'",
                actualName: "the baseline's")
        }) {
            throw CLIError(message: "\(name): the baseline's rows differ from the originals': \(difference)")
        }
    }
}

/// The file operations of `strata squash`: durable, journaled, finished or undone after a kill.
enum SquashFiles {
    /// `path` as the baseline's header names it: relative to the migration folder when both are
    /// relative or both absolute, else absolute.
    static func reference(to path: String, from folder: String) throws -> String {
        // `URL.standardized` would read a folder named `~` as the home folder: FilePath's arithmetic.
        let target = standardized(path)
        let base = standardized(folder)
        var common = 0
        while common < min(target.count, base.count), target[common] == base[common] { common += 1 }
        if common == target.count {
            throw CLIError(
                message: "--archive \(path): the archive cannot be the migration folder or one that contains it")
        }
        let up = Array(repeating: "..", count: base.count - common)
        return (up + target[common...]).joined(separator: "/")
    }

    /// The journal `strata squash` writes in the migration folder before its first change and
    /// removes after its last: a squash killed in between is finished or undone by the next one
    /// (``recoverIfInterrupted(in:)``), and every other command refuses the folder meanwhile.
    static let journalName = MigrationDirectory.squashJournalName
    /// The hidden folder the covered files are moved to until the baseline is in place.
    static let stagingName = ".strata-squash-staging"

    /// What a squash in progress changes: enough to finish it or undo it after a kill.
    struct Journal: Codable, Equatable {
        /// The baseline's file name, and the SHA-256 of its bytes (a baseline in place with these
        /// bytes means the squash reached its commit point).
        var baseline: String
        var digest: String
        /// The covered files' names, moved to the staging folder before the commit point.
        var covered: [String]
        /// The archive folder (absolute), whether this squash created it, and the copies it wrote
        /// there (copies that existed before are not listed and never removed).
        var archive: String?
        var archiveCreated: Bool
        var archiveCopies: [String]
    }

    /// Writes the baseline, moves (or removes) the covered files: all of it, or nothing. Every
    /// write, move and removal is durable (`DurableFile`: flushed file, rename, flushed folder).
    /// The commit point is the baseline's rename into the folder; a journal written first lets a
    /// later run finish (after the commit point) or undo (before it) a squash that was killed.
    static func replace(
        covered: [MigrationFile], with baseline: (name: String, data: Data), in folder: String,
        archiving archived: [MigrationFile], to archive: String?
    ) throws {
        let fm = FileManager.default
        func path(_ dir: String, _ name: String) -> String { FilePath.join(dir, name) }
        // Checks before any change.
        var archiveExists = false
        var copies: [MigrationFile] = []
        if let archive {
            var isDirectory: ObjCBool = false
            archiveExists = fm.fileExists(atPath: archive, isDirectory: &isDirectory)
            if archiveExists, !isDirectory.boolValue {
                throw CLIError(message: "--archive \(archive): exists and is not a folder")
            }
            for file in archived {
                let destination = path(archive, file.fileName)
                guard fm.fileExists(atPath: destination) else {
                    copies.append(file)
                    continue
                }
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
        if let name = covered.map(\.fileName).first(where: { $0.contains("\n") }) {
            throw CLIError(message: "\(path(folder, name)): a file name with a line break cannot be squashed")
        }
        let journal = Journal(
            baseline: baseline.name, digest: SHA256.hexDigest(of: Array(baseline.data)),
            covered: covered.map(\.fileName),
            archive: archive.map { "/" + standardized($0).joined(separator: "/") },
            archiveCreated: archive != nil && !archiveExists, archiveCopies: copies.map(\.fileName))
        let journalPath = path(folder, journalName)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try durably { try DurableFile.write(Array(try encoder.encode(journal)), to: journalPath, replacing: false) }

        let staging = path(folder, stagingName)
        do {
            // 1. The archive and its copies (read back: the archive holds the very bytes the
            // ledgers' checksums were made of).
            if let archive {
                if !archiveExists {
                    try durably {
                        try DurableFile.makeDirectory(archive, activity: "--archive: cannot create the folder")
                    }
                }
                for file in copies {
                    let destination = path(archive, file.fileName)
                    let bytes = try readBytes(file.path)
                    try durably { try DurableFile.write(Array(bytes), to: destination, replacing: false) }
                    guard try readBytes(destination) == bytes else {
                        throw CLIError(
                            message: "\(destination): the copy differs from \(file.path) (checksum mismatch)")
                    }
                }
            }
            // 2. The baseline, in a staging folder the loader ignores.
            try durably { try DurableFile.makeDirectory(staging, activity: "cannot create the staging folder") }
            try durably {
                try DurableFile.write(Array(baseline.data), to: path(staging, baseline.name), replacing: false)
            }
            // 3. The covered files out of the folder, into the staging folder; both folders flushed.
            for file in covered {
                try durably { try DurableFile.renameWithoutSync(file.path, to: path(staging, file.fileName)) }
            }
            try durably { try DurableFile.synchronizeDirectory(staging) }
            try durably { try DurableFile.synchronizeDirectory(folder) }
        } catch {
            do {
                _ = try finishOrUndo(journal, in: folder)
            } catch let undo {
                throw CLIError(
                    message:
                        "\(error)\nstrata: undoing the squash failed too: \(undo); run the same `strata squash` again to finish undoing it"
                )
            }
            throw error
        }
        // 4. The commit point: the baseline in place (a move that never replaces, both folders flushed).
        do {
            try durably {
                try DurableFile.move(path(staging, baseline.name), to: path(folder, baseline.name), replacing: false)
            }
        } catch {
            if !fm.fileExists(atPath: path(folder, baseline.name)) {
                _ = try? finishOrUndo(journal, in: folder)
            }
            throw error
        }
        // 5. Done: the staged originals are no longer needed (copied to the archive when asked).
        do {
            _ = try finishOrUndo(journal, in: folder)
        } catch {
            CLIOutput.note(
                "\(error); the squash is complete, run the same `strata squash` again to remove what is left")
        }
    }

    /// What ``recoverIfInterrupted(in:)`` did.
    enum Recovery: Equatable {
        case finished, undone
    }

    /// Finishes (the baseline is in place with the journal's bytes) or undoes (it is not) the
    /// squash `journal` describes, then removes the journal. Idempotent: a kill during it leaves
    /// a state it handles again.
    static func finishOrUndo(_ journal: Journal, in folder: String) throws -> Recovery {
        let fm = FileManager.default
        func path(_ dir: String, _ name: String) -> String { FilePath.join(dir, name) }
        let staging = path(folder, stagingName)
        let placed = fm.contents(atPath: path(folder, journal.baseline)).map {
            SHA256.hexDigest(of: Array($0)) == journal.digest
        }
        let committed = placed ?? false
        if !committed {
            // Back to the folder: the covered files still in the staging folder.
            for name in journal.covered where fm.fileExists(atPath: path(staging, name)) {
                if !fm.fileExists(atPath: path(folder, name)) {
                    try durably { try DurableFile.renameWithoutSync(path(staging, name), to: path(folder, name)) }
                }
            }
            try durably { try DurableFile.synchronizeDirectory(folder) }
            // The archive copies this squash wrote (the same bytes as the originals, now back).
            if let archive = journal.archive, fm.fileExists(atPath: archive) {
                for name in journal.archiveCopies {
                    let copy = path(archive, name)
                    if let bytes = fm.contents(atPath: copy), bytes == fm.contents(atPath: path(folder, name)) {
                        try durably { try DurableFile.removeWithoutSync(copy) }
                    }
                }
                try removeTemporaryFiles(in: archive, for: Set(journal.archiveCopies))
                try durably { try DurableFile.synchronizeDirectory(archive) }
                if journal.archiveCreated, (try? fm.contentsOfDirectory(atPath: archive))?.isEmpty == true {
                    try durably { try DurableFile.removeDirectory(archive) }
                }
            }
        }
        if committed, let archive = journal.archive, fm.fileExists(atPath: archive) {
            // A copy's temporary name left when its removal failed (the copy itself is in place).
            try removeTemporaryFiles(in: archive, for: Set(journal.archiveCopies))
            try durably { try DurableFile.synchronizeDirectory(archive) }
        }
        // The staging folder: what the squash put there (covered files after the commit point,
        // the baseline's name, temporary files of its writes).
        if fm.fileExists(atPath: staging) {
            for name in journal.covered + [journal.baseline] {
                try durably { try DurableFile.removeWithoutSync(path(staging, name)) }
            }
            try removeTemporaryFiles(in: staging, for: Set([journal.baseline]))
            try durably { try DurableFile.removeDirectory(staging, activity: "cannot remove the staging folder") }
        }
        try durably { try DurableFile.remove(path(folder, journalName), activity: "cannot remove the journal") }
        return committed ? .finished : .undone
    }

    /// Before a squash: finishes or undoes one that was killed in `folder` (its journal is
    /// there), and removes the temporary file of a journal being written when it was killed.
    /// Returns what was done, nil when nothing was interrupted.
    static func recoverIfInterrupted(in folder: String) throws -> Recovery? {
        try removeTemporaryFiles(in: folder, for: [journalName])
        let journalPath = FilePath.join(folder, journalName)
        guard FileManager.default.fileExists(atPath: journalPath) else { return nil }
        let journal: Journal
        do {
            journal = try JSONDecoder().decode(Journal.self, from: try readBytes(journalPath))
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(
                message:
                    "\(journalPath): the journal of an interrupted squash cannot be read (\(error)); restore the folder from version control and remove it"
            )
        }
        return try finishOrUndo(journal, in: folder)
    }

    /// The refusal of every other command while a squash is unfinished in `folder`.
    static func refuseIfInterrupted(_ folder: String) throws {
        let journalPath = FilePath.join(folder, journalName)
        if FileManager.default.fileExists(atPath: journalPath) {
            throw CLIError(
                message:
                    "\(journalPath): a `strata squash` was interrupted in this folder; run the same squash command again to finish or undo it"
            )
        }
    }

    /// Removes `DurableFile`'s temporary files for `names` in `folder` (left by a killed write).
    private static func removeTemporaryFiles(in folder: String, for names: Set<String>) throws {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for entry in entries where DurableFile.isTemporaryName(entry) {
            guard let range = entry.range(of: ".strata-tmp-") else { continue }
            if names.contains(String(entry[entry.index(after: entry.startIndex)..<range.lowerBound])) {
                try durably { try DurableFile.removeWithoutSync(FilePath.join(folder, entry)) }
            }
        }
    }

    /// Runs a `DurableFile` operation, its failure as the CLI's error (the file, the system call,
    /// the operating system's message).
    @discardableResult
    static func durably<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DurableFile.Failure {
            throw CLIError(message: error.description)
        }
    }

    static func readBytes(_ path: String) throws -> Data {
        do {
            guard let data = FileManager.default.contents(atPath: path) else { throw CocoaError(.fileReadUnknown) }
            return data
        } catch {
            throw CLIError(message: "\(path): cannot read the file (\(error.localizedDescription))")
        }
    }

    /// The components of `path` from the root, `.` and `..` resolved by spelling (as the baseline's
    /// header and the journal have always named them) and no `~` expanded.
    static func standardized(_ path: String) -> [String] {
        FilePath.lexicalComponents(FilePath.absolute(path, currentDirectory: FileManager.default.currentDirectoryPath))
    }

    static func checksum(_ data: Data) -> String {
        String(Migration("x", sql: String(decoding: data, as: UTF8.self)).checksum?.prefix(12) ?? "")
    }
}
