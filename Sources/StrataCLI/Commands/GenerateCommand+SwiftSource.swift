import ArgumentParser
import Foundation
import Strata
import StrataSQLite

extension GenerateCommand {
    /// `strata generate swift`: the Swift query types of schema.sql (`DatabaseSchema.swiftSource(_:)`).
    struct SwiftSource: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "swift",
            abstract:
                "Write the Swift query types of schema.sql: a Column enum per table and view, optionally records.",
            discussion: """
                For every table and view, an enum with one Column per column (NoteColumns.title); with \
                --records, a Codable record struct per table and view (FetchableRecord, PersistableRecord) \
                with the associations its foreign keys imply. The output is stable and formatted: commit it, \
                and run `strata generate swift --check --out FILE` in CI, which exits 1 when FILE is out of \
                date and changes nothing. The file is replaced atomically, and left as it is when already current.
                """)

        @OptionGroup var schemaArguments: SchemaFileArguments
        var schemaPath: String { schemaArguments.path }

        @Option(
            name: .customLong("out"),
            help: ArgumentHelp("The Swift file to write; - (the default) prints to stdout.", valueName: "file"))
        var out: String = "-"

        @Flag(name: .customLong("records"), help: "Also write a Codable record struct per table and view.")
        var records = false

        @Flag(
            name: .customLong("check"),
            help: "Write nothing; exit 1 when --out FILE differs from what would be written.")
        var check = false

        @OptionGroup var output: FormatArguments

        var writesToStdout: Bool { out == "-" }

        func validate() throws {
            if check && writesToStdout {
                throw ValidationError("--check needs --out FILE: the generated file to compare")
            }
            if out.isEmpty { throw ValidationError("--out: expected a file path or -") }
        }

        func run() throws {
            let schema = try schemaArguments.load()
            let source = try CLIError.reporting(database: schemaPath, schema: schemaPath) {
                try schema.swiftSource(SwiftSourceOptions(records: records))
            }
            var document = GenerateSwiftJSON(
                schema: schemaPath, out: out, records: records, tables: schema.tables.count, views: schema.views.count)
            if writesToStdout {
                if output.isJSON {
                    document.source = source
                    CLIJSON.print(document)
                } else {
                    FileHandle.standardOutput.write(Data(source.utf8))
                }
                return
            }
            let current = try existingText()
            let upToDate = current == source
            document.upToDate = upToDate
            if check {
                if output.isJSON { CLIJSON.print(document) }
                guard upToDate else {
                    let state = current == nil ? "does not exist" : "is out of date with \(schemaPath)"
                    throw CLIError(
                        message: "\(out): \(state); regenerate it with `strata generate swift --schema \(schemaPath) "
                            + "\(records ? "--records " : "")--out \(out)`")
                }
                if !output.isJSON { CLIOutput.print("OK: \(out) is up to date with \(schemaPath).") }
                return
            }
            if !upToDate { try write(source) }
            document.written = !upToDate
            if output.isJSON {
                CLIJSON.print(document)
            } else if upToDate {
                CLIOutput.print("\(out) is up to date with \(schemaPath); not rewritten.")
            } else {
                CLIOutput.print(
                    "Wrote \(out) (\(CLIOutput.count(schema.tables.count, "table")), "
                        + "\(CLIOutput.count(schema.views.count, "view"))).")
            }
        }

        /// The current text of `--out`, nil when there is no such file; errors name it.
        private func existingText() throws -> String? {
            guard FileManager.default.fileExists(atPath: out) else { return nil }
            return try SchemaFile.readText(out, what: "Swift file")
        }

        /// Writes `source` to `--out` durably (a flushed temporary file in the same folder, renamed
        /// over it, the folder flushed): a failure leaves the old file as it was.
        private func write(_ source: String) throws {
            try SquashFiles.durably {
                try DurableFile.write(Array(source.utf8), to: out, activity: "cannot write the Swift file")
            }
        }
    }

    /// `strata generate swift --format json` (documented in the CLI reference, Sources/Strata/Strata.docc/CommandLineTool.md).
    struct GenerateSwiftJSON: Encodable {
        var schema: String
        var out: String
        var records: Bool
        var tables: Int
        var views: Int
        /// With `--out FILE`: whether the file already held the generated source.
        var upToDate: Bool?
        /// With `--out FILE` and no `--check`: whether the file was written.
        var written: Bool?
        /// With `--out -`: the generated source.
        var source: String?
    }
}
