import Foundation
import StrataSQLite
import StrataSchema
import StrataTestSupport
import Testing

/// The upgrade airbag behind the declarative engine (issue 38): `migrateSchema(to:options:safety:)`
/// keeps a restore point before a plan that can lose data, counts launches, restores a crash loop
/// and holds the same desired schema back, while another desired schema upgrades; the plan's
/// estimate states the restore point's cost.
@Suite("Declarative upgrade airbag")
struct DeclarativeUpgradeAirbagTests {
    static let version1 = """
        CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, legacy TEXT NOT NULL DEFAULT '');
        CREATE TABLE audit(n INTEGER);
        CREATE TRIGGER note_audit AFTER INSERT ON note BEGIN INSERT INTO audit VALUES (new.id); END;
        """
    /// Drops `note.legacy` (a rebuild or a native DROP COLUMN: it can lose data), adds a table.
    static let version2 = """
        CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
        CREATE TABLE audit(n INTEGER);
        CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TRIGGER note_audit AFTER INSERT ON note BEGIN INSERT INTO audit VALUES (new.id); END;
        """
    /// A fixed build: keeps `legacy`, adds the table and a column.
    static let version2Fixed = """
        CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, legacy TEXT NOT NULL DEFAULT '', pinned INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE audit(n INTEGER);
        CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TRIGGER note_audit AFTER INSERT ON note BEGIN INSERT INTO audit VALUES (new.id); END;
        """

    /// The upgrades drop a column: allowed.
    static let allow = SchemaChangeOptions(allowDestructive: true)

    /// A database at version 1 with rows, and its contents.
    static func databaseAtVersion1(_ dir: TemporaryDirectory) throws -> (path: String, before: DatabaseContents) {
        let path = dir.file("app.sqlite")
        let db = try Database(path: path)
        defer { db.close() }
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        try db.migrateSchema(to: version1)
        try db.execute(sql: "INSERT INTO note(title, legacy) VALUES ('first', 'a'), ('it''s', 'b'), ('third', 'c')")
        return (path, try DatabaseContents(db))
    }

    /// Launches of a build that migrates to `desired` and never reports a successful launch:
    /// the outcome of each; `afterFirst` runs on the first launch's connection after its upgrade.
    static func crashingLaunches(
        _ path: String, _ desired: String, safety: UpgradeSafety, count: Int,
        afterFirst: (Database) throws -> Void = { _ in }
    ) throws -> [UpgradeOutcome] {
        var outcomes: [UpgradeOutcome] = []
        for launch in 1...count {
            let db = try Database(path: path)
            defer { db.close() }
            outcomes.append(try db.migrateSchema(to: desired, options: allow, safety: safety))
            if launch == 1 { try afterFirst(db) }
        }
        return outcomes
    }

    @Test func aCrashLoopRestoresHoldsTheDesiredSchemaBackAndAnotherDesiredSchemaUpgrades() throws {
        let dir = TemporaryDirectory("declarative-loop")
        let (path, before) = try Self.databaseAtVersion1(dir)
        let safety = UpgradeSafety(restorePoints: .whenDestructiveOrDataSteps, crashLoopLaunches: 2)
        // Launch 1 upgrades (the plan drops a column: a restore point) and crashes; launch 2 opens
        // (the fast path: nothing to plan) and crashes; launch 3 restores before anything else.
        let outcomes = try Self.crashingLaunches(path, Self.version2, safety: safety, count: 3)
        #expect(outcomes.map(\.kind) == [.upgraded, .upToDate, .restored], "\(outcomes.map(\.message))")
        let point = try #require(outcomes[0].restorePoint, "\(outcomes[0].restorePointReason ?? "")")
        #expect(outcomes[0].restorePointReason?.contains("can lose data") == true)
        #expect(point.fromVersion.hasPrefix("schema "))
        #expect(outcomes[0].applied == [point.toVersion])
        let held = try #require(outcomes[2].heldBack)
        #expect(outcomes[2].message.contains("opened 2 times without a successful launch"))
        #expect(outcomes[2].restored?.isExact == true)
        #expect(held.toVersion == point.toVersion)
        do {
            let db = try Database(path: path)
            defer { db.close() }
            #expect(try DatabaseContents(db) == before)
        }
        // Launch 4 of the same build: not retried; the file is version 1 still.
        do {
            let db = try Database(path: path)
            defer { db.close() }
            let outcome = try db.migrateSchema(to: Self.version2, options: Self.allow, safety: safety)
            #expect(outcome.kind == .heldBack, "\(outcome.message)")
            #expect(outcome.heldBack?.key == held.key)
            #expect(try DatabaseContents(db) == before)
            // The DatabaseSchema form has the same identity: held back too.
            let parsed = try db.migrateSchema(
                to: try DatabaseSchema(sql: Self.version2), options: Self.allow, safety: safety)
            #expect(parsed.kind == .heldBack, "\(parsed.message)")
            #expect(try DatabaseContents(db) == before)
        }
        // A build with another desired schema upgrades normally.
        let db = try Database(path: path)
        defer { db.close() }
        let outcome = try db.migrateSchema(to: Self.version2Fixed, options: Self.allow, safety: safety)
        #expect(outcome.kind == .upgraded, "\(outcome.message)")
        #expect(try db.fetchColumn(String.self, sql: "SELECT legacy FROM note ORDER BY id") == ["a", "b", "c"])
        #expect(try db.fetchColumn(Int.self, sql: "SELECT pinned FROM note ORDER BY id") == [0, 0, 0])
        #expect(try UpgradeStatus(forDatabaseAt: path).heldBack.map(\.key) == [held.key])
    }

    /// The SchemaDefinition form: a restore point before its destructive plan, then the same
    /// definition held back after a crash loop, like the SQL form.
    @Test func theSchemaDefinitionFormUpgradesBehindTheAirbagAndIsHeldBackAfterACrashLoop() throws {
        let dir = TemporaryDirectory("declarative-definition")
        let (path, before) = try Self.databaseAtVersion1(dir)
        let definition = SchemaDefinition { s in
            s.table("note") { t in
                t.column("id", .integer).primaryKey()
                t.column("title", .text).notNull()
            }
            s.table("audit") { t in t.column("n", .integer) }
        }
        let safety = UpgradeSafety(restorePoints: .whenDestructiveOrDataSteps, crashLoopLaunches: 1)
        var kinds: [UpgradeOutcome.Kind] = []
        for _ in 1...3 {
            let db = try Database(path: path)
            defer { db.close() }
            let outcome = try db.migrateSchema(to: definition, options: Self.allow, safety: safety)
            kinds.append(outcome.kind)
            if kinds.count == 1 { #expect(outcome.restorePoint != nil, "\(outcome.restorePointReason ?? "")") }
        }
        #expect(kinds == [.upgraded, .restored, .heldBack])
        let db = try Database(path: path)
        defer { db.close() }
        #expect(try DatabaseContents(db) == before)
    }

    /// Rows written after the upgrade are carried back by the crash loop's restore (not exact:
    /// the dropped column is added back); the upgrade's identity is still the same, so it stays
    /// held back.
    @Test func aCarriedBackRestoreStillHoldsTheSameDesiredSchemaBack() throws {
        let dir = TemporaryDirectory("declarative-carry")
        let (path, _) = try Self.databaseAtVersion1(dir)
        let safety = UpgradeSafety(restorePoints: .whenDestructiveOrDataSteps, crashLoopLaunches: 2)
        let outcomes = try Self.crashingLaunches(path, Self.version2, safety: safety, count: 4) { db in
            try db.execute(sql: "INSERT INTO note(id, title) VALUES (10, 'written after')")
            try db.execute(sql: "UPDATE note SET title = 'edited' WHERE id = 2")
        }
        #expect(outcomes.map(\.kind) == [.upgraded, .upToDate, .restored, .heldBack], "\(outcomes.map(\.message))")
        #expect(outcomes[2].restored?.isExact == false)
        #expect(outcomes[3].heldBack?.key == outcomes[2].heldBack?.key)
        let db = try Database(path: path)
        defer { db.close() }
        let rows = try db.fetchAll(sql: "SELECT id, title, legacy FROM note ORDER BY id").map {
            [$0.value(at: 0), $0.value(at: 1), $0.value(at: 2)]
        }
        #expect(
            rows == [
                [.integer(1), .text("first"), .text("a")], [.integer(2), .text("edited"), .text("b")],
                [.integer(3), .text("third"), .text("c")], [.integer(10), .text("written after"), .text("")],
            ])
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(!(try db.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master").contains("tag")))
    }

    /// The identity is the schema it starts from, the desired schema and the options that change
    /// the plan: the same desired schema held back on one file upgrades another file that starts
    /// elsewhere, and the SchemaDefinition-free forms agree.
    @Test func theHeldBackIdentityNamesTheStartingSchemaTheDesiredSchemaAndThePlanOptions() throws {
        let dir = TemporaryDirectory("declarative-identity")
        let (path, _) = try Self.databaseAtVersion1(dir)
        let db = try Database(path: path)
        defer { db.close() }
        let plan = try db.planSchemaChange(to: Self.version2, options: Self.allow)
        let key = Database.declarativeUpgrade(plan, options: Self.allow).key
        #expect(
            key
                == Database.declarativeUpgrade(
                    try db.planSchemaChange(to: Self.version2, options: Self.allow), options: Self.allow
                ).key)
        #expect(
            key
                != Database.declarativeUpgrade(
                    try db.planSchemaChange(to: Self.version2Fixed, options: Self.allow), options: Self.allow
                ).key)
        var native = Self.allow
        native.useNativeAlter.toggle()
        #expect(key != Database.declarativeUpgrade(plan, options: native).key)
        // Another starting schema (one more table) is another upgrade.
        let other = try Database(path: dir.file("other.sqlite"))
        defer { other.close() }
        try other.migrateSchema(to: Self.version1 + "\nCREATE TABLE extra(x);")
        let otherPlan = try other.planSchemaChange(to: Self.version2 + "\nCREATE TABLE extra(x);", options: Self.allow)
        #expect(key != Database.declarativeUpgrade(otherPlan, options: Self.allow).key)
        // The same statements listed in another order, or spelled with other spacing, are the same schema.
        let reordered = try DatabaseSchema(sql: Self.version2)
        #expect(Database.schemaDigest(reordered) == Database.schemaDigest(plan.desired))
    }

    @Test func thePolicyKeepsNoRestorePointForAnAdditivePlanAndSaysWhy() throws {
        let dir = TemporaryDirectory("declarative-policy")
        let (path, before) = try Self.databaseAtVersion1(dir)
        let db = try Database(path: path)
        defer { db.close() }
        let additive = Self.version1 + "\nCREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT);"
        let outcome = try db.migrateSchema(
            to: additive, safety: UpgradeSafety(restorePoints: .whenDestructiveOrDataSteps))
        #expect(outcome.kind == .upgraded)
        #expect(outcome.restorePoint == nil)
        #expect(outcome.restorePointReason?.contains("only adds") == true)
        #expect(try RestorePoint.all(forDatabaseAt: path).isEmpty)
        // Under the size limit's policy: none above it, the reason naming the limit.
        let limited = try db.migrateSchema(
            to: Self.version2, options: Self.allow, safety: UpgradeSafety(maximumRestorePointBytes: 512))
        #expect(limited.kind == .upgraded)
        #expect(limited.restorePoint == nil)
        #expect(limited.restorePointReason?.contains("above the limit of 512") == true)
        // An unchanged desired schema is up to date: no restore point, nothing recorded anew.
        #expect(try db.migrateSchema(to: Self.version2, options: Self.allow, safety: UpgradeSafety()).kind == .upToDate)
        #expect(try DatabaseContents(db) != before)
    }

    @Test func aRestoreAfterADeclarativeUpgradeThatDroppedAColumnGivesBackTheSchemaAndEveryRow() throws {
        let dir = TemporaryDirectory("declarative-restore")
        let (path, before) = try Self.databaseAtVersion1(dir)
        let db = try Database(path: path)
        defer { db.close() }
        let outcome = try db.migrateSchema(to: Self.version2, options: Self.allow, safety: UpgradeSafety())
        #expect(outcome.restorePoint != nil)
        #expect(try db.fetchColumn(String.self, sql: "SELECT name FROM pragma_table_info('note')") == ["id", "title"])
        let report = try db.restore()
        #expect(report.isExact)
        #expect(try DatabaseContents(db) == before)
        #expect(try UpgradeStatus(forDatabaseAt: path).lastUpgrade?.phase == .restored)
    }

    /// A plan made before another connection brought the file to the desired schema: decided
    /// again under the restore folder's lock, nothing runs and no restore point of the upgraded
    /// file is written.
    @Test func aPlanOvertakenByAnotherConnectionRunsNothingAndKeepsNoRestorePoint() throws {
        let dir = TemporaryDirectory("declarative-overtaken")
        let (path, _) = try Self.databaseAtVersion1(dir)
        let db = try Database(path: path)
        defer { db.close() }
        let plan = try db.planSchemaChange(to: Self.version2, options: Self.allow)
        #expect(!plan.isEmpty)
        do {
            let other = try Database(path: path)
            defer { other.close() }
            #expect(
                try other.migrateSchema(to: Self.version2, options: Self.allow, safety: UpgradeSafety()).kind
                    == .upgraded)
        }
        let points = try RestorePoint.all(forDatabaseAt: path)
        let after = try DatabaseContents(db)
        let outcome = try db.applySchemaChange(
            plan, safety: UpgradeSafety(), countingLaunch: false, recordingFingerprintOf: nil, options: Self.allow)
        #expect(outcome.kind == .upToDate, "\(outcome.message)")
        #expect(outcome.restorePoint == nil)
        #expect(try RestorePoint.all(forDatabaseAt: path) == points)
        #expect(try DatabaseContents(db) == after)
    }

    /// The plan's estimate states the restore point's disk cost (the file's pages, what the
    /// airbag's copy writes) and its time at the rate model; an empty plan costs nothing.
    @Test func thePlansEstimateStatesTheRestorePointsCostAndTime() throws {
        let dir = TemporaryDirectory("declarative-estimate")
        let (path, _) = try Self.databaseAtVersion1(dir)
        let db = try Database(path: path)
        defer { db.close() }
        try db.execute(
            sql: """
                WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000)
                INSERT INTO note(title, legacy) SELECT printf('note %d %s', i, hex(randomblob(30))), 'x' FROM c
                """)
        let pages = try #require(try db.fetchValue(Int64.self, sql: "PRAGMA page_count"))
        let pageSize = try #require(try db.fetchValue(Int64.self, sql: "PRAGMA page_size"))
        let plan = try db.planSchemaChange(to: Self.version2, options: Self.allow)
        let estimate = plan.estimate
        #expect(estimate.restorePointBytes == pages * pageSize)
        #expect(estimate.restorePointBytes > 100_000)
        let rate = PlanEstimate.Rate.default
        let seconds = Double(estimate.restorePointBytes) / rate.restorePointBytesPerSecond
        #expect(abs(estimate.restorePointDuration(at: rate).inSecondsForTest - seconds) < 1e-6)
        let slower = rate.scaled(by: 0.25)
        #expect(abs(estimate.restorePointDuration(at: slower).inSecondsForTest - seconds * 4) < 1e-6)
        // The plan's own time does not include it (a plan applied without a restore point).
        var without = estimate
        without.restorePointBytes = 0
        #expect(estimate.expectedDuration() == without.expectedDuration())
        // Steps carry none, an empty plan none.
        #expect(plan.steps.allSatisfy { $0.estimate.restorePointBytes == 0 })
        #expect(try db.planSchemaChange(to: Self.version1).estimate.restorePointBytes == 0)
        // The restore point the airbag writes is the size the estimate said.
        let outcome = try db.migrateSchema(to: Self.version2, options: Self.allow, safety: UpgradeSafety())
        let point = try #require(outcome.restorePoint)
        #expect(point.bytes == estimate.restorePointBytes)
    }
}

extension Duration {
    fileprivate var inSecondsForTest: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
