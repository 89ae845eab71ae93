import Foundation
import StrataTestSupport
import Testing

/// The README's Swift examples are compiled: `scripts/readme-examples.sh` copies every ```swift
/// block of README.md into the `ReadmeExamples` target's main.swift (as top-level code), which
/// the package builds. These tests fail when README.md and that file part ways.
@Suite("README examples")
struct ReadmeExamplesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func runScript(_ arguments: [String], root: URL) throws -> ChildProcess.Result {
        let output = TemporaryDirectory("strata-readme")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [root.appendingPathComponent("scripts/readme-examples.sh").path] + arguments
        for file in ["stdout", "stderr"] {
            _ = FileManager.default.createFile(atPath: output.file(file), contents: nil)
        }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output.file("stdout")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: output.file("stderr")))
        try process.run()
        return ChildProcess.result(of: process, output: output)
    }

    @Test func generatedFileMatchesTheReadme() throws {
        let result = try Self.runScript(["--check"], root: Self.root)
        #expect(result.status == 0, "\(result)")
        // The program was built with the package, so every example compiled.
        #expect(throws: Never.self) { try ChildProcess.executable("ReadmeExamples") }
    }

    @Test func everySwiftBlockIsInTheProgramAndThePoolExampleIsTopLevelCode() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let program = try String(
            contentsOf: Self.root.appendingPathComponent("Tests/ReadmeExamples/main.swift"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```swift").count - 1
        #expect(blocks >= 8)
        #expect(program.components(separatedBy: "// README.md example ").count - 1 == blocks)
        // The pool example stands at the top level exactly as written, `await` and all.
        #expect(
            program.contains(
                """
                , as written (top-level code)
                import Strata

                var migrator = Migrator()
                """))
        #expect(
            program.contains(
                "\nlet pool = try DatabasePool(path: \"bank.sqlite\", migrator: migrator)\ntry await openAccounts(in: pool)\n"
            ))
        #expect(program.contains("\n    try await pool.write { db in\n"))
    }

    /// The check is not vacuous: a copy of the project whose README gained an example (or lost
    /// one) fails it, and the script brings the file up to date.
    @Test func aReadmeEditNotCarriedOverFailsTheCheck() throws {
        let copy = TemporaryDirectory("strata-readme-copy")
        let fm = FileManager.default
        let root = copy.url
        try fm.createDirectory(at: root.appendingPathComponent("scripts"), withIntermediateDirectories: true)
        try fm.createDirectory(
            at: root.appendingPathComponent("Tests/ReadmeExamples"), withIntermediateDirectories: true)
        for path in ["README.md", "scripts/readme-examples.sh", "Tests/ReadmeExamples/main.swift"] {
            try fm.copyItem(at: Self.root.appendingPathComponent(path), to: root.appendingPathComponent(path))
        }
        #expect(try Self.runScript(["--check"], root: root).status == 0)

        let readme = root.appendingPathComponent("README.md")
        var text = try String(contentsOf: readme, encoding: .utf8)
        text += "\n```swift\nlet answer = 42\n```\n"
        try text.write(to: readme, atomically: true, encoding: .utf8)
        let stale = try Self.runScript(["--check"], root: root)
        #expect(stale.status == 1, "\(stale)")
        #expect(stale.stderr.contains("run scripts/readme-examples.sh"), "\(stale)")
        #expect(stale.stderr.contains("let answer = 42"), "\(stale)")

        #expect(try Self.runScript([], root: root).status == 0)
        #expect(try Self.runScript(["--check"], root: root).status == 0)
        let program = try String(
            contentsOf: root.appendingPathComponent("Tests/ReadmeExamples/main.swift"), encoding: .utf8)
        #expect(program.hasSuffix("do {\n    let answer = 42\n}\n"))
    }
}
