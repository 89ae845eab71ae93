import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata apply --record-fingerprint` records the launch fingerprint of the schema file's text as
/// `migrateSchema(to:)` does (issue 27), so an app that then migrates to the same text takes the
/// fast path; without the flag, apply writes only the schema (an apply with nothing to do leaves
/// the file's bytes as they were).
@Suite("Apply records the launch fingerprint")
struct ApplyFingerprintCommandTests {
    static let desired = #"""
        CREATE TABLE "order item" (id INTEGER PRIMARY KEY, "select" TEXT NOT NULL DEFAULT '', price NUMERIC);
        CREATE INDEX "by ""select""" ON "order item"("select");
        """#

    func fixture(_ live: String?) throws -> (TemporaryDirectory, db: String, schema: String) {
        let dir = TemporaryDirectory("strata-apply-fingerprint")
        if let live {
            let db = try Database(path: dir.file("app.sqlite"))
            try db.execute(sql: live)
            db.close()
        }
        let schema = dir.file("schema.sql")
        try Data(Self.desired.utf8).write(to: URL(fileURLWithPath: schema))
        return (dir, dir.file("app.sqlite"), schema)
    }

    @Test(arguments: [
        // A change applied, a database created, and no change at all.
        #"CREATE TABLE "order item" (id INTEGER PRIMARY KEY, "select" TEXT NOT NULL DEFAULT '', price REAL); INSERT INTO "order item" VALUES (1, 'a', 1.5);"#,
        nil,
        desired,
    ])
    func anAppMigratingToTheSameTextAfterwardsTakesTheFastPath(live: String?) throws {
        let (dir, db, schema) = try fixture(live)
        defer { withExtendedLifetime(dir) {} }
        let result = try ChildProcess.strata(["apply", "--record-fingerprint", "--db", db, "--schema", schema])
        #expect(result.status == 0, "\(result)")
        let queue = try DatabaseQueue(path: db)
        let plan = try queue.write { try $0.migrateSchema(to: Self.desired) }
        #expect(plan.isVerifiedByFingerprint, "\(plan)")
        // Other options are another fingerprint: planned in full (and still nothing to do).
        let renamed = try queue.write {
            try $0.migrateSchema(to: Self.desired, options: .init(renames: [.table("old", to: "order item")]))
        }
        #expect(!renamed.isVerifiedByFingerprint && renamed.isEmpty, "\(renamed)")
    }

    /// Without the flag: the schema is applied, no fingerprint table is made, and an apply with
    /// nothing to do leaves the file's bytes alone.
    @Test func withoutTheFlagApplyWritesOnlyTheSchema() throws {
        let (dir, db, schema) = try fixture(
            #"CREATE TABLE "order item" (id INTEGER PRIMARY KEY, "select" TEXT NOT NULL DEFAULT '', price REAL);"#)
        defer { withExtendedLifetime(dir) {} }
        let first = try ChildProcess.strata(["apply", "--db", db, "--schema", schema])
        #expect(first.status == 0, "\(first)")
        let names = try Database(path: db).fetchColumn(String.self, sql: "SELECT name FROM sqlite_master ORDER BY name")
        #expect(names == ["by \"select\"", "order item"])
        let before = fileBytes(db)
        let second = try ChildProcess.strata(["apply", "--db", db, "--schema", schema])
        #expect(second.status == 0, "\(second)")
        #expect(fileBytes(db) == before)
        let plan = try DatabaseQueue(path: db).write { try $0.migrateSchema(to: Self.desired) }
        #expect(!plan.isVerifiedByFingerprint && plan.isEmpty, "\(plan)")
    }

    @Test func aDryRunRecordsNothing() throws {
        let (dir, db, schema) = try fixture(
            #"CREATE TABLE "order item" (id INTEGER PRIMARY KEY, "select" TEXT NOT NULL DEFAULT '', price REAL);"#)
        defer { withExtendedLifetime(dir) {} }
        let before = fileBytes(db)
        let result = try ChildProcess.strata([
            "apply", "--dry-run", "--record-fingerprint", "--db", db, "--schema", schema,
        ])
        #expect(result.status == 0, "\(result)")
        #expect(fileBytes(db) == before)
    }

    /// A refused apply writes nothing, the fingerprint included.
    @Test func aRefusedApplyRecordsNothing() throws {
        let (dir, db, schema) = try fixture(
            #"CREATE TABLE "order item" (id INTEGER PRIMARY KEY, "select" TEXT NOT NULL DEFAULT '', price NUMERIC, gone TEXT); INSERT INTO "order item" VALUES (1, 'a', 1, 'x');"#
        )
        defer { withExtendedLifetime(dir) {} }
        let before = fileBytes(db)
        let result = try ChildProcess.strata(["apply", "--record-fingerprint", "--db", db, "--schema", schema])
        #expect(result.status == 3, "\(result)")
        #expect(fileBytes(db) == before)
    }
}
