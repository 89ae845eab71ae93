import Foundation
import StrataSQLite
import StrataSchema
import Testing

/// `Plan.compatibility(policy:)`: every code with a change that gives it and a near miss that does not.
@Suite("Compatibility lint")
struct CompatibilityLintTests {
    struct Case: Sendable, CustomStringConvertible {
        var code: CompatibilityFinding.Code
        var policy: CompatibilityPolicy = .previousVersion
        var old: String
        var positive: String
        var negative: String
        /// The old schema of the negative case, when it differs.
        var negativeOld: String? = nil
        var description: String { "\(code.rawValue) (\(policy.rawValue))" }
    }

    static let a = "CREATE TABLE a(id INTEGER PRIMARY KEY, x TEXT, n INTEGER NOT NULL DEFAULT 0, r REAL);"
    static func a(_ columns: String, _ rest: String = "") -> String {
        "CREATE TABLE a(id INTEGER PRIMARY KEY, \(columns))\(rest);"
    }
    static let base = "x TEXT, n INTEGER NOT NULL DEFAULT 0, r REAL"
    static let index = "CREATE INDEX a_x ON a(x);"
    static let uniqueIndex = "CREATE UNIQUE INDEX a_x ON a(x);"
    static let trigger = "CREATE TRIGGER t AFTER INSERT ON a BEGIN UPDATE a SET n = 1 WHERE id = new.id; END;"
    static let trigger2 = "CREATE TRIGGER t AFTER INSERT ON a BEGIN UPDATE a SET n = 2 WHERE id = new.id; END;"
    static let view = "CREATE VIEW v AS SELECT id, x FROM a;"
    static let b = "CREATE TABLE b(id INTEGER PRIMARY KEY, a_id INTEGER);"

    static let cases: [Case] = [
        Case(code: .addTable, old: a, positive: a + b, negative: a(base + ", y TEXT")),
        Case(code: .addColumn, old: a, positive: a(base + ", y TEXT"), negative: a(base + ", y TEXT NOT NULL")),
        Case(code: .addIndex, old: a, positive: a + index, negative: a + uniqueIndex),
        Case(code: .addView, old: a, positive: a + view, negative: a + index),
        Case(code: .addTrigger, old: a, positive: a + trigger, negative: a + index),
        Case(code: .dropIndex, old: a + index, positive: a, negative: a, negativeOld: a + uniqueIndex),
        Case(code: .dropTrigger, old: a + trigger, positive: a, negative: a + trigger2),
        Case(code: .changeTrigger, old: a + trigger, positive: a + trigger2, negative: a),
        Case(
            code: .changeIndex, old: a + index, positive: a + "CREATE INDEX a_x ON a(x, n);", negative: a + uniqueIndex),
        Case(
            code: .redefineView, old: a + view, positive: a + "CREATE VIEW v AS SELECT id, x FROM a WHERE n > 0;",
            negative: a + "CREATE VIEW v AS SELECT id FROM a;"),
        Case(
            code: .changeView, old: a + view, positive: a + "CREATE VIEW v AS SELECT id FROM a;",
            negative: a + "CREATE VIEW v AS SELECT id, x FROM a WHERE n > 0;"),
        Case(code: .dropView, old: a + view, positive: a, negative: a + "CREATE VIEW v AS SELECT id FROM a;"),
        Case(
            code: .dropConstraint, old: a(base + ", UNIQUE(x)"), positive: a, negative: a(base + ", UNIQUE(x)"),
            negativeOld: a),
        Case(
            code: .changeDefault, old: a, positive: a("x TEXT, n INTEGER NOT NULL DEFAULT 1, r REAL"),
            negative: a("x TEXT, n REAL NOT NULL DEFAULT 0, r REAL")),
        Case(
            code: .widenType, old: a, positive: a("x TEXT, n REAL NOT NULL DEFAULT 0, r REAL"),
            negative: a("x TEXT, n INTEGER NOT NULL DEFAULT 0, r INTEGER")),
        Case(
            code: .narrowType, old: a, positive: a("x TEXT, n INTEGER NOT NULL DEFAULT 0, r INTEGER"),
            negative: a("x TEXT, n REAL NOT NULL DEFAULT 0, r REAL")),
        Case(
            code: .dropTable, old: a + b, positive: a,
            negative: a + "CREATE TABLE c( -- @renamed from=b\n id INTEGER PRIMARY KEY, a_id INTEGER);"),
        Case(
            code: .dropColumn, old: a, positive: a("x TEXT, n INTEGER NOT NULL DEFAULT 0"),
            negative:
                "CREATE TABLE a(id INTEGER PRIMARY KEY, x TEXT, n INTEGER NOT NULL DEFAULT 0,\n s REAL -- @renamed from=r\n);"
        ),
        Case(
            code: .renameTable, old: a + b,
            positive: a + "CREATE TABLE c( -- @renamed from=b\n id INTEGER PRIMARY KEY, a_id INTEGER);",
            negative: a + "CREATE TABLE c(id INTEGER PRIMARY KEY, a_id INTEGER);"),
        Case(
            code: .renameColumn, old: a,
            positive:
                "CREATE TABLE a(id INTEGER PRIMARY KEY, x TEXT, n INTEGER NOT NULL DEFAULT 0,\n s REAL -- @renamed from=r\n);",
            negative: a("x TEXT, n INTEGER NOT NULL DEFAULT 0, s REAL")),
        Case(
            code: .addNotNullWithoutDefault, old: a, positive: a(base + ", y TEXT NOT NULL"),
            negative: a(base + ", y TEXT NOT NULL DEFAULT ''")),
        Case(
            code: .setNotNull, old: a, positive: a("x TEXT NOT NULL, n INTEGER NOT NULL DEFAULT 0, r REAL"),
            negative: a("x TEXT DEFAULT 'a', n INTEGER NOT NULL DEFAULT 0, r REAL")),
        Case(
            code: .dropNotNull, old: a, positive: a("x TEXT, n INTEGER DEFAULT 0, r REAL"),
            negative: a("x TEXT NOT NULL, n INTEGER NOT NULL DEFAULT 0, r REAL")),
        Case(
            code: .addUnique, old: a, positive: a("x TEXT UNIQUE, n INTEGER NOT NULL DEFAULT 0, r REAL"),
            negative: a + index),
        Case(
            code: .addCheck, old: a, positive: a("x TEXT CHECK (x <> ''), n INTEGER NOT NULL DEFAULT 0, r REAL"),
            negative: a, negativeOld: a("x TEXT CHECK (x <> ''), n INTEGER NOT NULL DEFAULT 0, r REAL")),
        Case(
            code: .addForeignKey, old: a + b,
            positive: a + "CREATE TABLE b(id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a(id));",
            negative: a + "CREATE TABLE b(id INTEGER PRIMARY KEY, a_id INTEGER, c INTEGER);"),
        Case(
            code: .changeColumn, old: a, positive: a("x TEXT COLLATE NOCASE, n INTEGER NOT NULL DEFAULT 0, r REAL"),
            negative: a("x TEXT DEFAULT 'a', n INTEGER NOT NULL DEFAULT 0, r REAL")),
        Case(
            code: .changeTableOptions, old: a, positive: a("x TEXT, n INTEGER NOT NULL DEFAULT 0, r REAL", " STRICT"),
            negative: a(base + ", y TEXT")),
        Case(
            code: .dataCondition, old: a, positive: a("x TEXT NOT NULL, n INTEGER NOT NULL DEFAULT 0, r REAL"),
            negative: a(base + ", y TEXT")),
        Case(
            code: .syncUnique, policy: .sync, old: a,
            positive: a + "CREATE TABLE tag(id TEXT PRIMARY KEY NOT NULL, title TEXT UNIQUE);",
            negative: a + "CREATE TABLE tag(id TEXT PRIMARY KEY NOT NULL, title TEXT);"),
        Case(
            code: .syncNotNullWithoutReplace, policy: .sync, old: a,
            positive: a(base + ", y INTEGER NOT NULL DEFAULT 0"),
            negative: a(base + ", y INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 0")),
        Case(
            code: .syncForeignKeyAction, policy: .sync, old: a,
            positive: a + "CREATE TABLE c(id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a(id));",
            negative: a + "CREATE TABLE c(id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a(id) ON DELETE CASCADE);"),
        Case(
            code: .syncPrimaryKey, policy: .sync, old: a, positive: a + "CREATE TABLE c(a_id INTEGER, b_id INTEGER);",
            negative: a + "CREATE TABLE c(id TEXT PRIMARY KEY NOT NULL, a_id INTEGER);"),
    ]

    static func findings(_ old: String, _ new: String, policy: CompatibilityPolicy) throws -> [CompatibilityFinding] {
        let db = try Database(inMemory: Configuration())
        defer { db.close() }
        try db.applySchemaChange(try db.planSchemaChange(to: old))
        let plan = try db.planSchemaChange(to: new, options: SchemaChangeOptions(allowDestructive: true))
        return plan.compatibility(policy: policy).findings
    }

    @Test func everyCodeHasACase() {
        #expect(Set(Self.cases.map(\.code)) == Set(CompatibilityFinding.Code.allCases))
    }

    @Test(arguments: cases) func positiveAndNegative(_ c: Case) throws {
        let positive = try Self.findings(c.old, c.positive, policy: c.policy)
        #expect(positive.contains { $0.code == c.code }, "\(positive)")
        let negative = try Self.findings(c.negativeOld ?? c.old, c.negative, policy: c.policy)
        #expect(!negative.contains { $0.code == c.code }, "\(negative)")
        // Every non-safe finding says what to do instead.
        for finding in positive where finding.level != .safe {
            #expect(finding.saferSequence?.isEmpty == false, "\(finding)")
        }
    }

    @Test func levelsFollowThePolicy() throws {
        let drop = try Self.findings(Self.a, Self.a("x TEXT, n INTEGER NOT NULL DEFAULT 0"), policy: .previousVersion)
        #expect(drop.map(\.description) == ["breaking drop-column a.r: older versions still read and write a.r"])
        #expect(drop.first?.saferSequence?.contains("expand and contract") == true)
        let defaultChange = Self.a("x TEXT, n INTEGER NOT NULL DEFAULT 1, r REAL")
        #expect(try Self.findings(Self.a, defaultChange, policy: .previousVersion).map(\.level) == [.safe])
        #expect(try Self.findings(Self.a, defaultChange, policy: .strict).map(\.level) == [.breaking])
        let notNull = Self.a("x TEXT NOT NULL, n INTEGER NOT NULL DEFAULT 0, r REAL")
        let levels = try Self.findings(Self.a, notNull, policy: .previousVersion).map {
            "\($0.code.rawValue):\($0.level.rawValue)"
        }
        #expect(levels == ["set-not-null:breaking", "data-condition:data-dependent"])
        // A new table with a UNIQUE column: safe for older versions, breaking for a synced store.
        let tag = Self.a + "CREATE TABLE tag(id TEXT PRIMARY KEY NOT NULL, title TEXT UNIQUE);"
        #expect(try Self.findings(Self.a, tag, policy: .previousVersion).map(\.code) == [.addTable])
        let sync = try Self.findings(Self.a, tag, policy: .sync)
        #expect(sync.map(\.code) == [.addTable, .syncUnique])
        #expect(sync.last?.level == .breaking)
        let report = CompatibilityReport(policy: .sync, findings: sync)
        #expect(report.highestLevel == .breaking)
        #expect(report.findings(atLeast: .dataDependent).map(\.code) == [.syncUnique])
    }

    @Test func hostileNamesAndRenamedConstraintsAreNotChanges() throws {
        let old = "CREATE TABLE \"select\"(id INTEGER PRIMARY KEY, \"we\"\"ird col\" TEXT, UNIQUE(\"we\"\"ird col\"));"
        let new =
            "CREATE TABLE \"select\"(id INTEGER PRIMARY KEY,\n \"new name\" TEXT, -- @renamed from=\"we\"\"ird col\"\nUNIQUE(\"new name\"));"
        let findings = try Self.findings(old, new, policy: .previousVersion)
        #expect(findings.map(\.code) == [.renameColumn], "\(findings)")
        #expect(findings.first?.object == "select.new name")
    }
}
