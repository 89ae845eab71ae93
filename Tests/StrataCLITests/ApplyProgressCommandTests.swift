import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata apply` shows a progress line on stderr only when stderr is a terminal (issue 15).
@Suite("Apply progress")
struct ApplyProgressCommandTests {
    static let live = """
        CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL);
        CREATE INDEX item_name ON item(name);
        """
    static let desired = live.replacingOccurrences(of: "price REAL", with: "price NUMERIC")

    func fixture() throws -> (TemporaryDirectory, db: String, schema: String) {
        let dir = TemporaryDirectory("strata-progress")
        let db = try Database(path: dir.file("app.sqlite"))
        try db.execute(sql: Self.live)
        try db.execute(
            sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
                INSERT INTO item SELECT i, 'item ' || i, i * 0.5 FROM n
                """)
        db.close()
        let schema = dir.file("schema.sql")
        try Data(Self.desired.utf8).write(to: URL(fileURLWithPath: schema))
        return (dir, dir.file("app.sqlite"), schema)
    }

    @Test func noProgressOutputWhenStderrIsNotATerminal() throws {
        let (dir, db, schema) = try fixture()
        defer { withExtendedLifetime(dir) {} }
        let result = try StrataProcess.run(["apply", "--db", db, "--schema", schema])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        #expect(result.stdout.hasSuffix("Applied 1 change to \(db).\n"), "\(result)")
    }

    /// Runs `strata apply` on a pseudo-terminal through util-linux's `script`.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"),
            "needs /usr/bin/script (util-linux) for a pseudo-terminal"))
    func aProgressLineOnATerminalThatIsErasedAtTheEnd() throws {
        let (dir, db, schema) = try fixture()
        let strata = try ChildProcess.executable("strata").path
        // `script` runs the command on a pseudo-terminal and copies what it writes to our stdout.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "'\(strata)' apply --db '\(db)' --schema '\(schema)'", "/dev/null"]
        let outputPath = dir.file("tty-output")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        BoundedWait.exit(of: process)
        let output = String(decoding: try Data(contentsOf: URL(fileURLWithPath: outputPath)), as: UTF8.self)
        let result = "status \(process.terminationStatus): \(output.debugDescription)"
        #expect(process.terminationStatus == 0, "\(result)")
        #expect(output.contains("[1/1] rebuild table item: 20,000 of 20,000 rows copied (100%)"), "\(result)")
        #expect(output.contains("\r\u{1B}[K- rebuild table item"), "the line is erased before the summary: \(result)")
        #expect(
            try Database(path: db).fetchValue(
                String.self, sql: "SELECT type FROM pragma_table_info('item') WHERE name = 'price'") == "NUMERIC")
    }
}
