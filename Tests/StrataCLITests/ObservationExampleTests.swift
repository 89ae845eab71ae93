import Foundation
import StrataTestSupport
import Testing

/// The observation guide's first example (`Sources/StrataSQLite/StrataSQLite.docc/ObservingChanges.md`)
/// is a complete program: `Examples/observation/main.swift`
/// holds it verbatim (checked here), and running it prints what its comments promise.
@Suite("Observation example")
struct ObservationExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let guide = "Sources/StrataSQLite/StrataSQLite.docc/ObservingChanges.md"

    /// The first ```swift block of the observation guide.
    static func guideBlock() throws -> String {
        let readme = try String(contentsOf: root.appendingPathComponent(guide), encoding: .utf8)
        guard let section = readme.range(of: "# Observation"),
            let open = readme.range(of: "```swift\n", range: section.upperBound..<readme.endIndex),
            let close = readme.range(of: "\n```\n", range: open.upperBound..<readme.endIndex)
        else {
            Issue.record("\(guide) has no ```swift block")
            return ""
        }
        return String(readme[open.upperBound..<close.lowerBound]) + "\n"
    }

    @Test func theProgramIsTheGuideExample() throws {
        let program = try String(
            contentsOf: Self.root.appendingPathComponent("Examples/observation/main.swift"), encoding: .utf8)
        #expect(program == (try Self.guideBlock()))
    }

    @Test func itPrintsWhatItsCommentsPromise() throws {
        let directory = TemporaryDirectory("strata-observation")
        let run = try ChildProcess.run("strata-observation", [], in: directory.url.path)
        #expect(run.status == 0, "\(run)")
        // "[] : the current value, at once", then "["milk"] : after the commit".
        #expect(run.stdout == "[]\n[\"milk\"]\n", "\(run)")
        #expect(run.stderr.isEmpty, "\(run)")
        // A second run on the same file starts from the note the first one added.
        let again = try ChildProcess.run("strata-observation", [], in: directory.url.path)
        #expect(again.stdout == "[\"milk\"]\n[\"milk\", \"milk\"]\n", "\(again)")
    }
}
