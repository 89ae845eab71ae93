import ArgumentParser
import Foundation
import Strata
import StrataSQLite
import StrataSchema

/// `strata new`: writes the next migration file from the difference between the schema the
/// existing migrations produce and `schema.sql`.
struct NewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Write the next migration file (DIR/NNNN_name.sql) from the changes in schema.sql.",
        discussion: """
            Migrates a scratch in-memory database through every file in DIR, plans the changes that \
            turn it into schema.sql (rename hints as in `strata plan`), and writes them as the next \
            file with a header comment describing each change. Writes nothing when there is no change. \
            Exit 3 when the changes are destructive and --allow-destructive is not given.
            """)

    @OptionGroup var migrationsArguments: MigrationsArguments
    var migrationsPath: String { migrationsArguments.path }

    @OptionGroup var schemaArguments: SchemaFileArguments
    var schemaPath: String { schemaArguments.path }

    @Option(name: .customLong("name"), help: "What the migration does, for its file name (\"add book year\").")
    var name: String

    @OptionGroup var planning: PlanningArguments

    @Flag(
        name: .customLong("data"),
        help: ArgumentHelp(
            "Write a declarative entry with a data step instead: the folder DIR/NNNN_name/ holding schema.sql "
                + "(a copy of the schema) and data.sql (a skeleton listing what the expanding part adds before it "
                + "runs and what the contracting part does after)."))
    var data = false

    @Option(
        name: .customLong("min-sqlite"),
        help: ArgumentHelp(
            "The oldest SQLite the migration must run on (default \(SQLiteVersion.minimumSupported), the oldest "
                + "Strata supports). ALTER TABLE forms newer than it (DROP COLUMN 3.35, ADD CONSTRAINT and "
                + "SET/DROP NOT NULL 3.53) are written as table rebuilds.",
            valueName: "VERSION"))
    var minimumSQLite: String?

    func validate() throws {
        _ = try oldestSQLite()
    }

    /// `--min-sqlite` parsed (3.35 or 3.35.5), never below Strata's floor.
    func oldestSQLite() throws -> SQLiteVersion {
        guard let text = minimumSQLite else { return SQLiteVersion.minimumSupported }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil && $0! >= 0 }) else {
            throw ValidationError("--min-sqlite \(text): expected a version such as 3.35 or 3.35.5")
        }
        let version = SQLiteVersion(parts[0]!, parts[1]!, parts.count == 3 ? parts[2]! : 0)
        guard version >= SQLiteVersion.minimumSupported else {
            throw ValidationError(
                "--min-sqlite \(text): Strata supports SQLite \(SQLiteVersion.minimumSupported) and newer")
        }
        return version
    }

    func run() throws {
        let directory = try migrationsArguments.load()
        let options = try planning.makeOptions()
        // The desired schema is parsed once, before the migrations run.
        let desired = try planningErrors { try schemaArguments.parse() }
        // Planned for the oldest SQLite the file will meet, not for this machine's.
        let scratch = try MigrationFolder.migratedScratchDatabase(directory, oldestSQLite: try oldestSQLite())
        defer { scratch.close() }
        let plan = try planningErrors { try scratch.planSchemaChange(to: desired, options: options) }
        guard !plan.isEmpty else {
            CLIOutput.print(
                "No changes: the migrations in \(migrationsPath) already produce \(schemaPath); no file written.")
            return
        }

        if data {
            try writeDataEntry(directory: directory, scratch: scratch, options: options, plan: plan)
            return
        }
        let fileName = directory.nextFileName(for: name)
        let path = FilePath.join(migrationsPath, fileName)
        let text = NewCommand.fileText(fileName: fileName, schemaPath: schemaPath, plan: plan)
        try SquashFiles.durably {
            try DurableFile.write(
                Array(text.utf8), to: path, replacing: false, activity: "cannot write the migration file")
        }
        CLIOutput.print("Wrote \(path) (\(CLIOutput.count(plan.steps.count, "change"))):")
        CLIOutput.print(plan.summary)
        CLIOutput.print("Review it, then run: strata migrate --db PATH --migrations \(migrationsPath)")
    }

    /// `strata new --data`: the folder entry `NNNN_name/` with `schema.sql` and a `data.sql` skeleton.
    private func writeDataEntry(
        directory: MigrationDirectory, scratch: Database, options: SchemaChangeOptions, plan: Plan
    )
        throws
    {
        let schemaText = try SchemaFile.readText(schemaPath)
        let split = try planningErrors { try scratch.planExpandAndContract(to: schemaText, options: options) }
        let entryName = String(directory.nextFileName(for: name).dropLast(4))
        let entryPath = FilePath.join(migrationsPath, entryName)
        var schemaFile = schemaText
        if options.allowDestructive, !schemaFile.contains("-- strata:allow-destructive") {
            schemaFile = "-- strata:allow-destructive\n" + schemaFile
        }
        // The contracting part as it will be planned when the data step has left no rows to check:
        // the scratch database is discarded after.
        let contracting = try planningErrors {
            try scratch.applySchemaChange(split.expanding)
            return try scratch.planSchemaChange(to: schemaText, options: options)
        }
        let text = NewCommand.dataSkeleton(entryName: entryName, expanding: split.expanding, contracting: contracting)
        try NewCommand.writeEntry(
            entryPath, files: [("schema.sql", schemaFile), ("data.sql", text)], in: migrationsPath,
            name: entryName)
        CLIOutput.print(
            "Wrote \(entryPath)/schema.sql and data.sql (\(CLIOutput.count(plan.steps.count, "change"))):"
        )
        CLIOutput.print(plan.summary)
        CLIOutput.print(
            "Write the data step in data.sql, then run: strata migrate --db PATH --migrations \(migrationsPath)")
    }

    /// Writes the folder entry `entryPath` whole or not at all: its files are written durably in
    /// a hidden folder beside it (the loader skips names starting with a dot), which is renamed
    /// into place once complete; the folder is then flushed. On a failure the hidden folder is
    /// removed; a kill leaves at most the hidden folder.
    static func writeEntry(_ entryPath: String, files: [(String, String)], in folder: String, name: String) throws {
        if FileManager.default.fileExists(atPath: entryPath) {
            throw CLIError(message: "\(entryPath): already exists")
        }
        let hidden = DurableFile.temporaryPath(in: folder, for: name)
        func path(_ file: String) -> String { FilePath.join(hidden, file) }
        do {
            try SquashFiles.durably {
                try DurableFile.makeDirectory(hidden, activity: "cannot create the migration folder entry")
            }
            for (file, contents) in files {
                try SquashFiles.durably {
                    try DurableFile.write(Array(contents.utf8), to: path(file), replacing: false)
                }
            }
            try SquashFiles.durably { try DurableFile.renameWithoutSync(hidden, to: entryPath) }
        } catch {
            for (file, _) in files { _ = try? DurableFile.removeWithoutSync(path(file)) }
            try? DurableFile.removeDirectory(hidden)
            throw error
        }
        try SquashFiles.durably { try DurableFile.synchronizeDirectory(folder) }
    }

    /// The `data.sql` skeleton: what the data step can use, and what follows it.
    static func dataSkeleton(entryName: String, expanding: Plan, contracting: Plan) -> String {
        func oneLine(_ text: String) -> String { text.split(whereSeparator: \.isNewline).joined(separator: " ") }
        var lines = [
            "-- \(entryName)/data.sql: the data step, generated by `strata new --data`. Write it before committing.",
            "-- It runs inside the migration's transaction after the expanding part of schema.sql and before the",
            "-- contracting part; any failure (here or in the contracting part, e.g. a NULL left in a column that",
            "-- becomes NOT NULL) rolls the whole migration back.",
            "--",
            "-- Before this step (expanding part):",
        ]
        lines += expanding.steps.isEmpty ? ["--   (nothing)"] : expanding.steps.map { "--   - \(oneLine($0.summary))" }
        lines.append("-- After this step (contracting part, planned again against the rows this step leaves):")
        let rest = contracting.steps
        lines +=
            rest.isEmpty
            ? ["--   (nothing)"]
            : rest.map { "--   - \($0.isDestructive ? "[destructive] " : "")\(oneLine($0.summary))" }
        lines += ["", "-- INSERT INTO new_table(...) SELECT ... FROM old_table;", ""]
        return lines.joined(separator: "\n")
    }

    /// Runs `body`; its error names the schema file, on one line. A feature the oldest SQLite
    /// lacks says how to aim at a newer one.
    private func planningErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SchemaError where error.code == .featureUnavailable && minimumSQLite == nil {
            let explained = SchemaError(
                code: error.code,
                message: error.message + " (the migration is written for SQLite \(SQLiteVersion.minimumSupported) "
                    + "and newer: pass --min-sqlite with the oldest version your databases run on)",
                culprit: error.culprit)
            throw CLIError(explained, database: schemaPath, schema: schemaPath).shortened()
        } catch {
            throw CLIError(error, database: schemaPath, schema: schemaPath).shortened()
        }
    }

    /// The migration file: a header listing each change, then each step's statements under a
    /// comment naming the change.
    static func fileText(fileName: String, schemaPath: String, plan: Plan) -> String {
        func oneLine(_ text: String) -> String { text.split(whereSeparator: \.isNewline).joined(separator: " ") }
        let schemaName = FilePath.lastComponent(of: schemaPath)
        var lines = [
            "-- \(fileName): generated by `strata new` from \(schemaName). Review before committing.",
            "-- Runs inside the migration's transaction, with foreign keys off and checked before commit.",
            "--",
            "-- Changes:",
        ]
        lines += plan.steps.map { "--   - \($0.isDestructive ? "[destructive] " : "")\(oneLine($0.summary))" }
        for step in plan.steps {
            lines.append("")
            lines.append("-- \(step.isDestructive ? "[destructive] " : "")\(oneLine(step.summary))")
            lines += step.statements.map(SQLScript.terminated)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
