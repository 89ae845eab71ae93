import Foundation
import StrataTestSupport
import Testing

/// Error texts over huge input through the command line (issue 37, item 5): a 750,000-character
/// statement in a schema file or a migration, a huge table name. Every line printed for the
/// error on stderr, and the `error` of each JSON outcome, is at most 2,000 characters (after
/// `strata: `) and marks the cut with the number of characters left out.
@Suite("Huge input: bounded error texts through the command line")
struct HugeInputErrorCommandTests {
    static let huge = String(repeating: "a", count: 750_000)

    private func checkBounded(
        _ r: StrataProcess.Result, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(r.status == 1, "\(what): exit \(r.status)", sourceLocation: sourceLocation)
        #expect(
            r.stderr.count + r.stdout.count < 10_000, "\(what): \(r.stderr.count) + \(r.stdout.count) characters",
            sourceLocation: sourceLocation)
        for line in r.stderr.split(separator: "\n") {
            #expect(line.count <= 2_008, "\(what): a line of \(line.count) characters", sourceLocation: sourceLocation)
        }
        #expect(
            r.stderr.contains("more characters)"), "\(what): \(r.stderr.prefix(400))", sourceLocation: sourceLocation)
    }

    /// The `error` strings of a JSON document.
    private func jsonErrors(_ stdout: String) throws -> [String] {
        let document = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        var found: [String] = []
        func walk(_ value: Any) {
            if let object = value as? [String: Any] {
                for (key, item) in object {
                    if key == "error", let text = item as? String { found.append(text) } else { walk(item) }
                }
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        walk(document)
        return found
    }

    @Test func hugeSchemaFilesMigrationsAndNames() throws {
        let dir = TemporaryDirectory("strata-huge")
        let write = { (text: String, name: String) in
            try Data(text.utf8).write(to: URL(fileURLWithPath: dir.file(name)))
        }
        try write("CREATE TABLE t(x TEXT DEFAULT '" + Self.huge + ");\n", "huge.sql")
        try write("CREATE TABLE " + Self.huge + "(id INTEGER PRIMARY KEY,, x);\n", "name.sql")
        try write("CREATE TABLE t(id INTEGER PRIMARY KEY);\n", "small.sql")
        try FileManager.default.createDirectory(atPath: dir.file("migrations"), withIntermediateDirectories: false)
        try write("INSERT INTO nowhere VALUES ('" + Self.huge + "');\n", "migrations/0001_huge.sql")
        let db = dir.file("app.sqlite")
        for (arguments, json) in [
            (["plan", "--db", db, "--schema", dir.file("huge.sql")], false),
            (["plan", "--db", db, "--schema", dir.file("name.sql")], false),
            (["apply", "--db", db, "--schema", dir.file("huge.sql"), "--format", "json"], true),
            // A schema that does not parse fails before the batch starts: no JSON document.
            (
                [
                    "apply", "--db", db, "--db", dir.file("b.sqlite"), "--schema", dir.file("name.sql"), "--format",
                    "json",
                ], false
            ),
            (["migrate", "--db", db, "--migrations", dir.file("migrations"), "--format", "json"], true),
            (["migrate", "--db", db, "--migrations", dir.file("migrations")], false),
            (["check", "--migrations", dir.file("migrations"), "--schema", dir.file("huge.sql")], false),
            (["lint", "--schema", dir.file("huge.sql"), "--to", dir.file("small.sql")], false),
            (["new", "--migrations", dir.file("migrations"), "--schema", dir.file("huge.sql"), "--name", "x"], false),
        ] {
            let r = try StrataProcess.run(arguments)
            let what = arguments.prefix(1).joined() + " " + (arguments.last ?? "")
            checkBounded(r, what)
            if json {
                let errors = try jsonErrors(r.stdout)
                #expect(!errors.isEmpty, "\(what): no error in \(r.stdout.prefix(400))")
                for error in errors {
                    #expect(error.count <= 2_000 && error.contains("more characters)"), "\(what): \(error.prefix(300))")
                }
            }
        }
    }
}
