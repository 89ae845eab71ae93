import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// Features newer than the floor (3.26) are refused with one line naming the feature and both
/// versions, on a real old SQLite (the matrix) and under a lowered `capabilityLimit`.
@Suite("Version-gated schema features")
struct VersionGatingTests {

    @Test func featuresAreFoundFromTheStatementsTokens() {
        #expect(SchemaStatementChecks.features(of: "CREATE TABLE t(a INT, b INT AS (a * 2))") == [.generatedColumns])
        #expect(
            SchemaStatementChecks.features(of: "CREATE TABLE t(a INT, b INT GENERATED ALWAYS AS (a) STORED)")
                == [.generatedColumns])
        #expect(SchemaStatementChecks.features(of: "CREATE TABLE t(a INT) STRICT") == [.strictTables])
        #expect(
            SchemaStatementChecks.features(of: "CREATE INDEX i ON t(data ->> '$.name')") == [.jsonOperators])
        // AS inside parentheses is not a generated column; nor is a table named "strict".
        #expect(
            SchemaStatementChecks.features(
                of: "CREATE TABLE strict(a TEXT DEFAULT (CAST(1 AS TEXT)) CHECK (CAST(a AS INT) > 0))"
            )
            .isEmpty)
        #expect(SchemaStatementChecks.features(of: "CREATE VIEW v AS SELECT 1 AS one").isEmpty)
    }

    @Test func messagesNameTheFeatureAndBothVersions() {
        #expect(
            SQLiteFeature.generatedColumns.unavailableMessage(SQLiteVersion(3, 28))
                == "generated columns need SQLite 3.31.0 or newer; this SQLite is 3.28.0")
        #expect(
            SQLiteFeature.dropColumn.unavailableMessage(SQLiteVersion(3, 28))
                == "ALTER TABLE DROP COLUMN needs SQLite 3.35.0 or newer; this SQLite is 3.28.0")
        let caps = SQLiteCapabilities(version: SQLiteVersion(3, 36))
        #expect(caps.supports(.returning) && !caps.supports(.strictTables))
        let error = #expect(throws: SQLiteError.self) { try caps.require(.strictTables) }
        #expect(error?.message == "STRICT tables need SQLite 3.37.0 or newer; this SQLite is 3.36.0")
    }

    /// The planner refuses, before anything runs, a desired table the connection's SQLite
    /// cannot hold; the database is unchanged.
    @Test(arguments: [
        ("CREATE TABLE t(a INT, b INT AS (a + 1))", SQLiteVersion(3, 30), "generated columns need SQLite 3.31.0"),
        ("CREATE TABLE t(a INT) STRICT", SQLiteVersion(3, 36), "STRICT tables need SQLite 3.37.0"),
    ])
    func plannerRefusesFeaturesBeyondTheLimit(desired: String, limit: SQLiteVersion, message: String) throws {
        // The desired SQL must load on this runtime first (the matrix's oldest lacks both).
        guard SQLiteVersion.runtime >= SQLiteVersion(3, 37) else { return }
        let dir = TemporaryDirectory("strata-gating")
        let path = dir.file("db.sqlite")
        var config = Configuration()
        config.capabilityLimit = limit
        let db = try Database(path: path, configuration: config)
        defer { db.close() }
        try db.execute(sql: "CREATE TABLE keep(x); INSERT INTO keep VALUES (1)")
        let before = try DatabaseContents(db)
        let error = #expect(throws: SchemaError.self) { try db.migrateSchema(to: "CREATE TABLE keep(x);\n" + desired) }
        #expect(error?.code == .featureUnavailable)
        #expect(error?.message.contains("table t: \(message)") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("this SQLite is \(limit)") == true)
        #expect(try DatabaseContents(db) == before)
    }

    /// On a runtime without the feature, the desired SQL itself is refused with Strata's line, not
    /// SQLite's parser message. Runs in the real-versions matrix (3.28 lacks both).
    @Test(
        .enabled(if: SQLiteVersion.runtime < SQLiteVersion(3, 31), "the runtime has generated columns and STRICT"),
        arguments: [
            ("CREATE TABLE t(a INT, b INT AS (a + 1))", "generated columns need SQLite 3.31.0"),
            ("CREATE TABLE t(a INT) STRICT", "STRICT tables need SQLite 3.37.0"),
        ])
    func desiredSchemaRefusesFeaturesTheRuntimeLacks(sql: String, message: String) throws {
        let error = #expect(throws: SchemaError.self) { try DatabaseSchema(sql: sql) }
        #expect(error?.code == .featureUnavailable)
        #expect(error?.message.contains("statement 1") == true)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }

    // MARK: Double-quoted strings before 3.29

    static let old = SQLiteVersion(3, 28)

    func unresolved(_ sql: String, columns: [String]? = nil) -> String? {
        SchemaStatementChecks.unresolvedDoubleQuotedName(sql, runtime: Self.old, columnsOf: { _ in columns })
    }

    @Test func misspelledDoubleQuotedNamesAreFoundBefore329() {
        #expect(
            unresolved(#"CREATE TABLE t(amount INT CHECK ("amout" > 0))"#)?.hasPrefix(#""amout" is not a column"#)
                == true)
        #expect(unresolved(#"CREATE TABLE t(a INT, b INT DEFAULT ("x"))"#)?.contains(#""x""#) == true)
        #expect(unresolved(#"CREATE TABLE t(a INT, b INT AS ("aa" + 1))"#)?.contains(#""aa""#) == true)
        #expect(unresolved(#"CREATE TABLE t(a INT, CONSTRAINT c CHECK ("b" <> ''))"#)?.contains(#""b""#) == true)
        #expect(
            unresolved(#"CREATE INDEX i ON t(lower("nmae"))"#, columns: ["name"])?.contains(
                "\"nmae\" is not a column of t") == true)
        #expect(unresolved(#"CREATE INDEX i ON t(name) WHERE "deleted" = 0"#, columns: ["name"]) != nil)
    }

    @Test func correctDoubleQuotedNamesPass() {
        #expect(
            unresolved(
                #"CREATE TABLE "t"("Amount" INT CHECK ("amount" > 0), "b" TEXT COLLATE "NOCASE" CHECK ("t"."b" <> ''))"#
            ) == nil)
        #expect(unresolved(#"CREATE TABLE t(a INT, b INT DEFAULT 'x', FOREIGN KEY ("a") REFERENCES "p"("id"))"#) == nil)
        #expect(
            unresolved(#"CREATE INDEX i ON t("name" COLLATE "nocase") WHERE "name" IS NOT NULL"#, columns: ["name"])
                == nil)
        // From 3.29 SQLite refuses them itself: nothing to check.
        #expect(
            SchemaStatementChecks.unresolvedDoubleQuotedName(
                #"CREATE TABLE t(a CHECK ("typo"))"#, runtime: SQLiteVersion(3, 29), columnsOf: { _ in nil }) == nil)
    }

    /// On every runtime a misspelled double-quoted column in a CHECK is refused, naming it: by
    /// Strata's check before 3.29, by SQLite's "no such column" from 3.29.
    @Test func misspelledCheckColumnIsRefusedOnEveryVersion() {
        let error = #expect(throws: SchemaError.self) {
            try DatabaseSchema(sql: #"CREATE TABLE account(amount INT CHECK ("amout" > 0))"#)
        }
        #expect(error?.code == .invalidSQL)
        #expect(error?.message.contains("amout") == true, "\(error?.message ?? "")")
    }
}
