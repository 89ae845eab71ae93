import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata generate swift`, run as a user runs it: the file written is the library's output,
/// `--check` exits 1 on a stale or missing file and 0 on a current one, and every failure names
/// its file and leaves the output file as it was (bytes compared).
@Suite("strata generate swift")
struct GenerateSwiftCommandTests {
    static let schema = """
        CREATE TABLE folder (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE note (id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folder(id), "the title" TEXT);
        """

    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    private func expected(_ text: String = schema, records: Bool = false) throws -> String {
        try DatabaseSchema(sql: text).swiftSource(SwiftSourceOptions(records: records))
    }

    @Test func writesTheLibrarysOutputAndChecksIt() throws {
        let work = TemporaryDirectory()
        let schema = work.file("schema.sql")
        let out = work.file("Schema.swift")
        try write(Self.schema, to: schema)

        let written = try StrataProcess.run(["generate", "swift", "--schema", schema, "--records", "--out", out])
        #expect(written.exitCode == 0, "\(written)")
        #expect(written.stdout == "Wrote \(out) (2 tables, 0 views).\n")
        #expect(fileBytes(out) == Data(try expected(records: true).utf8))

        let check = try StrataProcess.run([
            "generate", "swift", "--schema", schema, "--records", "--check", "--out", out,
        ])
        #expect(check.exitCode == 0, "\(check)")
        #expect(check.stdout == "OK: \(out) is up to date with \(schema).\n")

        // Without --records the file is stale; --check says so, names the file, changes nothing.
        let before = fileBytes(out)
        let stale = try StrataProcess.run(["generate", "swift", "--schema", schema, "--check", "--out", out])
        #expect(stale.exitCode == 1, "\(stale)")
        #expect(stale.stderr.contains("strata: \(out): is out of date with \(schema)"), "\(stale)")
        #expect(stale.stderr.contains("strata generate swift --schema \(schema) --out \(out)"), "\(stale)")
        #expect(fileBytes(out) == before)

        // Running again with the same input leaves the file alone.
        let again = try StrataProcess.run(["generate", "swift", "--schema", schema, "--records", "--out", out])
        #expect(again.exitCode == 0, "\(again)")
        #expect(again.stdout == "\(out) is up to date with \(schema); not rewritten.\n")
        #expect(fileBytes(out) == before)
    }

    @Test func renamedColumnMakesTheFileStale() throws {
        let work = TemporaryDirectory()
        let schema = work.file("schema.sql")
        let out = work.file("Schema.swift")
        try write(Self.schema, to: schema)
        #expect(try StrataProcess.run(["generate", "swift", "--schema", schema, "--out", out]).exitCode == 0)
        try write(Self.schema.replacingOccurrences(of: "\"the title\"", with: "heading"), to: schema)
        let before = fileBytes(out)
        let check = try StrataProcess.run(["generate", "swift", "--schema", schema, "--check", "--out", out])
        #expect(check.exitCode == 1, "\(check)")
        #expect(check.stderr.contains("\(out): is out of date"), "\(check)")
        #expect(fileBytes(out) == before)
        // Regenerated, the old name is gone and the new one is there.
        #expect(try StrataProcess.run(["generate", "swift", "--schema", schema, "--out", out]).exitCode == 0)
        let text = String(decoding: fileBytes(out), as: UTF8.self)
        #expect(text.contains(#"static let heading = Column("heading")"#))
        #expect(!text.contains("theTitle"))
    }

    @Test func checkOfAMissingFileFailsAndCreatesNothing() throws {
        let work = TemporaryDirectory()
        let schema = work.file("schema.sql")
        let out = work.file("Missing.swift")
        try write(Self.schema, to: schema)
        let check = try StrataProcess.run(["generate", "swift", "--schema", schema, "--check", "--out", out])
        #expect(check.exitCode == 1, "\(check)")
        #expect(check.stderr.contains("strata: \(out): does not exist"), "\(check)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func stdoutByDefaultAndWithDash() throws {
        let work = TemporaryDirectory()
        let schema = work.file("schema.sql")
        try write(Self.schema, to: schema)
        for extra in [[], ["--out", "-"]] {
            let result = try StrataProcess.run(["generate", "swift", "--schema", schema] + extra)
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stdout == (try expected()))
            #expect(result.stderr.isEmpty)
        }
        let check = try StrataProcess.run(["generate", "swift", "--schema", schema, "--check"])
        #expect(check.exitCode == 1, "\(check)")
        #expect(check.stderr.contains("--check needs --out FILE"), "\(check)")
    }

    @Test func errorsNameTheFileAndLeaveTheOutputAlone() throws {
        let work = TemporaryDirectory()
        let out = work.file("Schema.swift")
        try write("// hand-written\n", to: out)
        let before = fileBytes(out)

        let missing = work.file("nope.sql")
        let noSchema = try StrataProcess.run(["generate", "swift", "--schema", missing, "--out", out])
        #expect(noSchema.exitCode == 1, "\(noSchema)")
        #expect(noSchema.stderr == "strata: \(missing): no such schema file\n")

        let bad = work.file("bad.sql")
        try write("CREATE TABLE ok (a TEXT);\nCREATE TABLE broken (a TEXT REFERENCES nowhere(id));\n", to: bad)
        let invalid = try StrataProcess.run(["generate", "swift", "--schema", bad, "--records", "--out", out])
        #expect(invalid.exitCode == 1, "\(invalid)")
        #expect(invalid.stderr.hasPrefix("strata: \(bad): table broken"), "\(invalid)")
        #expect(invalid.stderr.contains("nowhere"), "\(invalid)")
        let syntax = work.file("syntax.sql")
        try write("CREATE TABLE ok (a TEXT);\nCREATE TABLE (a TEXT);\n", to: syntax)
        let unparsable = try StrataProcess.run(["generate", "swift", "--schema", syntax, "--out", out])
        #expect(unparsable.exitCode == 1, "\(unparsable)")
        #expect(unparsable.stderr.hasPrefix("strata: \(syntax): statement 2"), "\(unparsable)")
        #expect(fileBytes(out) == before)

        // An output path that is a directory.
        let schema = work.file("schema.sql")
        try write(Self.schema, to: schema)
        let directory = work.file("dir.swift")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let notAFile = try StrataProcess.run(["generate", "swift", "--schema", schema, "--out", directory])
        #expect(notAFile.exitCode == 1, "\(notAFile)")
        #expect(notAFile.stderr.contains("\(directory): is a directory"), "\(notAFile)")

        // A folder that does not exist.
        let nowhere = work.file("no/such/folder/Schema.swift")
        let unwritable = try StrataProcess.run(["generate", "swift", "--schema", schema, "--out", nowhere])
        #expect(unwritable.exitCode == 1, "\(unwritable)")
        #expect(unwritable.stderr.hasPrefix("strata: \(nowhere): cannot write the Swift file"), "\(unwritable)")
        #expect(fileBytes(out) == before)
    }

    @Test func jsonDocument() throws {
        let work = TemporaryDirectory()
        let schema = work.file("schema.sql")
        let out = work.file("Schema.swift")
        try write(Self.schema, to: schema)
        let written = try StrataProcess.run(["generate", "swift", "--schema", schema, "--out", out, "--format", "json"])
        #expect(written.exitCode == 0, "\(written)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(written.stdout.utf8)) as? [String: Any])
        #expect(document["out"] as? String == out)
        #expect(document["schema"] as? String == schema)
        #expect(document["upToDate"] as? Bool == false)
        #expect(document["written"] as? Bool == true)
        #expect(document["tables"] as? Int == 2)
        #expect(document["records"] as? Bool == false)

        let printed = try StrataProcess.run(["generate", "swift", "--schema", schema, "--format", "json"])
        let source = try #require(
            try JSONSerialization.jsonObject(with: Data(printed.stdout.utf8)) as? [String: Any])
        #expect(source["source"] as? String == (try expected()))

        let check = try StrataProcess.run([
            "generate", "swift", "--schema", schema, "--records", "--check", "--out", out, "--format", "json",
        ])
        #expect(check.exitCode == 1, "\(check)")
        let stale = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any])
        #expect(stale["upToDate"] as? Bool == false)
    }

    /// The checked-in file of GeneratedSchemaTests is what the CLI writes.
    @Test func checkedInRoundTripFileIsCurrent() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let folder = root.appendingPathComponent("GeneratedSchemaTests")
        let check = try StrataProcess.run([
            "generate", "swift", "--schema", folder.appendingPathComponent("schema.sql").path, "--records", "--check",
            "--out", folder.appendingPathComponent("Schema.swift").path,
        ])
        #expect(check.exitCode == 0, "\(check)")
    }
}
