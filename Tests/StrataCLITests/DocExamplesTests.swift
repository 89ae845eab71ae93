import Foundation
import StrataTestSupport
import Testing

/// Every ```swift block of the Markdown pages (README.md, the DocC catalogs, the other pages) is
/// a file of the `DocExamples` target, with only the imports the block shows
/// (`scripts/doc-examples.sh` writes them): an example that no longer compiles, or that uses a
/// name it does not import, breaks the build. These tests fail when a page and the generated
/// files part ways, and run every complete program, comparing what it prints with its page.
@Suite("Documentation examples")
struct DocExamplesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Example: Decodable {
        var name: String
        var page: String
        var line: Int
        var kind: String
        var output: String?
        var reason: String?
    }

    static func runScript(_ script: String, _ arguments: [String], root: URL) throws -> ChildProcess.Result {
        let output = TemporaryDirectory("strata-doc-examples")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [root.appendingPathComponent(script).path] + arguments
        for file in ["stdout", "stderr"] {
            _ = FileManager.default.createFile(atPath: output.file(file), contents: nil)
        }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output.file("stdout")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: output.file("stderr")))
        try process.run()
        return ChildProcess.result(of: process, output: output)
    }

    /// Runs `DocExamples arguments...` in `directory`, killed after `seconds`.
    static func runExamples(
        _ arguments: [String], in directory: String, seconds: Double = 60
    ) throws -> (
        result: ChildProcess.Result, timedOut: Bool
    ) {
        let output = TemporaryDirectory("strata-doc-example-run")
        let process = try ChildProcess.launch("DocExamples", arguments, output: output, in: directory)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        let timedOut = process.isRunning
        if timedOut { process.terminate() }
        return (ChildProcess.result(of: process, output: output), timedOut)
    }

    static func examples() throws -> [Example] {
        let directory = TemporaryDirectory("strata-doc-examples-list")
        let list = try runExamples(["--list"], in: directory.url.path)
        withExtendedLifetime(directory) {}
        #expect(list.result.status == 0, "\(list.result)")
        return try JSONDecoder().decode([Example].self, from: Data(list.result.stdout.utf8))
    }

    @Test func generatedFilesMatchThePages() throws {
        let result = try Self.runScript("scripts/doc-examples.sh", ["--check"], root: Self.root)
        #expect(result.status == 0, "\(result)")
        // The old name still works.
        #expect(try Self.runScript("scripts/readme-examples.sh", ["--check"], root: Self.root).status == 0)
    }

    @Test func everyPageAndBlockIsCovered() throws {
        let examples = try Self.examples()
        let pages = Set(examples.map(\.page))
        for page in [
            "README.md", "Sources/StrataSQLite/StrataSQLite.docc/RecordsAndValues.md",
            "Sources/StrataSQLite/StrataSQLite.docc/ConnectionLayer.md",
            "Sources/StrataMigrations/StrataMigrations.docc/Migrations.md",
        ] {
            #expect(pages.contains(page), "\(page) has no example in DocExamples")
        }
        for page in pages {
            let text = try String(contentsOf: Self.root.appendingPathComponent(page), encoding: .utf8)
            let blocks = text.components(separatedBy: "\n").filter {
                $0.trimmingCharacters(in: .whitespaces) == "```swift"
            }
            #expect(examples.filter { $0.page == page }.count == blocks.count, "\(page)")
        }
        // Only manifests and deliberate compile errors are skipped, each with its reason.
        for skipped in examples where skipped.kind == "skip" {
            #expect(skipped.reason?.isEmpty == false, "\(skipped.page):\(skipped.line)")
        }
        #expect(examples.filter { $0.kind == "skip" }.count <= 3)
        #expect(examples.filter { $0.kind == "program" }.count >= 10)
    }

    /// Every fragment runs after its preludes, in an empty directory, without throwing (what it
    /// prints depends on the preludes, so it is not compared).
    /// The pages are written for a current SQLite: their examples use generated columns (3.31) and
    /// upsert on any unique key (3.35), so they run on 3.35 and later (the real-SQLite matrix also
    /// runs the suite on 3.28.0, where they compile but are not run).
    @Test(.requiresSQLite(3, 35, "the pages' examples (generated columns, upsert on any key)"))
    func everyFragmentRunsAfterItsPreludes() throws {
        let fragments = try Self.examples().filter { $0.kind == "fragment" }
        #expect(fragments.count >= 20)
        for fragment in fragments {
            let directory = TemporaryDirectory("strata-doc-fragment")
            let (result, timedOut) = try Self.runExamples([fragment.name], in: directory.url.path)
            withExtendedLifetime(directory) {}
            let place = "\(fragment.page):\(fragment.line) (\(fragment.name))"
            #expect(!timedOut, "\(place) still running after 60 s\n\(result)")
            #expect(result.status == 0, "\(place)\n\(result)")
        }
    }

    /// Every complete program runs in an empty directory and prints exactly what its page says.
    /// The pages are written for a current SQLite: their examples use generated columns (3.31) and
    /// upsert on any unique key (3.35), so they run on 3.35 and later (the real-SQLite matrix also
    /// runs the suite on 3.28.0, where they compile but are not run).
    @Test(.requiresSQLite(3, 35, "the pages' examples (generated columns, upsert on any key)"))
    func everyProgramPrintsWhatItsPageSays() throws {
        let programs = try Self.examples().filter { $0.kind == "program" }
        #expect(!programs.isEmpty)
        for program in programs {
            let directory = TemporaryDirectory("strata-doc-example")
            let (result, timedOut) = try Self.runExamples([program.name], in: directory.url.path)
            withExtendedLifetime(directory) {}
            let place = "\(program.page):\(program.line) (\(program.name))"
            #expect(!timedOut, "\(place) still running after 60 s\n\(result)")
            #expect(result.status == 0, "\(place)\n\(result)")
            #expect(result.stdout == (program.output ?? ""), "\(place)\n\(result)")
        }
    }

    /// The README example that once failed with `cannot find type 'Date' in scope` shows
    /// `import Foundation`, and its generated file has exactly the block's imports.
    @Test func aFileHasOnlyTheImportsItsBlockShows() throws {
        let examples = try Self.examples()
        for example in examples where example.kind == "program" || example.kind == "no-run" {
            let file = try String(
                contentsOf: Self.root.appendingPathComponent("Tests/DocExamples/\(example.name).swift"), encoding: .utf8
            )
            let page = try String(contentsOf: Self.root.appendingPathComponent(example.page), encoding: .utf8)
            let lines = page.components(separatedBy: "\n")
            guard example.line < lines.count else {
                Issue.record("\(example.page) has no line \(example.line)")
                continue
            }
            var shown: [String] = []
            for line in lines[example.line...] {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed == "```" { break }
                if trimmed.hasPrefix("import ") { shown.append(trimmed) }
            }
            let imported = file.components(separatedBy: "\n").filter { $0.hasPrefix("import ") }
            #expect(imported == shown, "\(example.page):\(example.line)")
        }
    }

    /// The check is not vacuous: a copy of the project whose page gained an example fails it,
    /// marker mistakes fail with a message saying what to do, and the script brings it up to date.
    @Test func aPageEditNotCarriedOverFailsTheCheck() throws {
        let copy = TemporaryDirectory("strata-doc-examples-copy")
        let fm = FileManager.default
        let root = copy.url
        try fm.createDirectory(at: root.appendingPathComponent("scripts"), withIntermediateDirectories: true)
        for path in [
            "scripts/doc-examples.sh", "scripts/doc-examples.py", "scripts/readme-examples.sh",
            "scripts/doc-example-preludes.swift", "Tests/DocExamples",
        ] + Set(try Self.examples().map(\.page)).sorted() {
            try fm.createDirectory(
                at: root.appendingPathComponent(path).deletingLastPathComponent(), withIntermediateDirectories: true)
            try fm.copyItem(at: Self.root.appendingPathComponent(path), to: root.appendingPathComponent(path))
        }
        let check = { try Self.runScript("scripts/doc-examples.sh", ["--check"], root: root) }
        #expect(try check().status == 0)

        let readme = root.appendingPathComponent("README.md")
        let original = try String(contentsOf: readme, encoding: .utf8)
        // A program that prints, with no output marker: refused, naming the page and line.
        try (original + "\n```swift\nprint(42)\n```\n").write(to: readme, atomically: true, encoding: .utf8)
        let unmarked = try check()
        #expect(unmarked.status == 1, "\(unmarked)")
        #expect(unmarked.stderr.contains("README.md:"), "\(unmarked)")
        #expect(unmarked.stderr.contains("<!-- doc-example: output"), "\(unmarked)")
        // A fragment naming a prelude that does not exist.
        try (original + "\n<!-- doc-example: fragment(nosuch) -->\n```swift\nlet answer = db\n```\n").write(
            to: readme, atomically: true, encoding: .utf8)
        let unknown = try check()
        #expect(unknown.status == 1, "\(unknown)")
        #expect(unknown.stderr.contains("unknown prelude `nosuch`"), "\(unknown)")

        // A new fragment: the files are stale until the script runs.
        try (original + "\n<!-- doc-example: fragment(db) -->\n```swift\nlet answer = db\n```\n").write(
            to: readme, atomically: true, encoding: .utf8)
        let stale = try check()
        #expect(stale.status == 1, "\(stale)")
        #expect(stale.stderr.contains("run scripts/doc-examples.sh"), "\(stale)")
        #expect(stale.stderr.contains("let answer = db"), "\(stale)")
        #expect(try Self.runScript("scripts/doc-examples.sh", [], root: root).status == 0)
        #expect(try check().status == 0)
        let files = try fm.contentsOfDirectory(atPath: root.appendingPathComponent("Tests/DocExamples").path)
        let added = try files.filter { $0.hasPrefix("README_") }.map {
            try String(contentsOf: root.appendingPathComponent("Tests/DocExamples/\($0)"), encoding: .utf8)
        }.filter { $0.contains("let answer = db") }
        #expect(added.count == 1)
        #expect(added.first?.contains("import Strata\n") == true)
        #expect(added.first?.contains("let db = try Database(inMemory: Configuration())") == true)
    }
}
