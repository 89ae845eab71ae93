import Foundation
import StrataSQLite
import StrataSchema
import StrataTestSupport
import Testing

/// `Plan.compatibility(policy:)`: every code with a change that gives it and a near miss that does not.
@Suite("Compatibility lint")
struct CompatibilityLintTests {
    typealias Case = CompatibilityLintCases.Case
    static let a: String = CompatibilityLintCases.a
    static func a(_ columns: String, _ rest: String = "") -> String { CompatibilityLintCases.a(columns, rest) }
    static let cases = CompatibilityLintCases.cases

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
        let (major, minor) = c.minimumSQLiteVersion
        guard SQLiteVersion.runtime >= SQLiteVersion(major, minor) else { return }
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
