import Foundation
import Strata
import StrataTestSupport
import Testing

/// `--trace` prints each statement run on the database to stderr; stdout and the exit code are
/// those of the same command without it.
@Suite("strata --trace")
struct TraceCommandTests {
    @Test func applyWithTracePrintsItsStatementsToStandardError() throws {
        let dir = TemporaryDirectory("strata-cli")
        let db = dir.file("app.sqlite")
        let schema = dir.file("schema.sql")
        try Data("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);\n".utf8)
            .write(to: URL(fileURLWithPath: schema))
        let apply = try ChildProcess.strata(["apply", "--db", db, "--schema", schema, "--trace"])
        #expect(apply.status == 0, "\(apply)")
        let traced = apply.stderr.split(separator: "\n").filter { $0.hasPrefix("trace: ") }
        #expect(
            traced.contains { $0.contains("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)") }, "\(apply)"
        )
        #expect(!apply.stdout.contains("trace: "))
        // Without the flag: nothing traced.
        let dump = try ChildProcess.strata(["dump", "--db", db])
        #expect(dump.status == 0)
        #expect(!dump.stderr.contains("trace: "))
        let tracedDump = try ChildProcess.strata(["dump", "--db", db, "--trace"])
        #expect(tracedDump.stdout == dump.stdout)
        #expect(tracedDump.stderr.contains("trace: "))
    }
}
