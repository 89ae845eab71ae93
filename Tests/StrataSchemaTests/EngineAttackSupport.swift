import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import StrataSchema

/// What every engine attack suite shares: hostile but valid inputs against the declarative engine.
/// Each attack checks the rows, the schema after applying (equal to the desired one, and a second
/// plan empty) and, on a failure, the culprit and an unchanged database. The suites are laid out by
/// the engine phase they attack and tagged `attack`; `swift test --filter AttackTests` runs them all
/// (with the command-line attacks of StrataReliabilityTests).
protocol EngineAttackSuite {
    /// Lives as long as the test (each test has its own instance), so do its databases.
    var dir: TemporaryDirectory { get }
}

extension EngineAttackSuite {
    /// Creates `before` with raw SQL (so the live schema keeps its exact text), inserts `rows`,
    /// plans `after` and applies it, then checks the schema equals the desired one and that a
    /// second plan is empty.
    @discardableResult
    func attack(
        _ before: String, rows: String = "", to after: String, options: SchemaChangeOptions = SchemaChangeOptions(),
        configuration: Configuration = Configuration()
    ) throws -> (Plan, Database) {
        let db = try Database(path: dir.file("\(UUID().uuidString).sqlite"), configuration: configuration)
        if !before.isEmpty { try db.execute(sql: before) }
        if !rows.isEmpty { try db.execute(sql: rows) }
        let plan = try db.planSchemaChange(to: after, options: options)
        try db.applySchemaChange(plan)
        let live = try DatabaseSchema.read(from: db)
        let desired = try DatabaseSchema(sql: after)
        #expect(live.differences(from: desired).isEmpty, "\(live.differences(from: desired))\n\(plan.sqlScript())")
        #expect(try db.planSchemaChange(to: after).isEmpty, "a second plan is not empty:\n\(plan.sqlScript())")
        #expect(try db.fetchColumn(String.self, sql: "PRAGMA integrity_check") == ["ok"])
        #expect(try db.fetchAll(sql: "PRAGMA foreign_key_check").isEmpty)
        return (plan, db)
    }

    func rows(_ db: Database, _ sql: String) throws -> [[SQLValue]] {
        try db.fetchAll(sql: sql).map(\.values)
    }

    /// `migrateSchema(to:options:)` on `db` must fail, leaving every row and the schema as they
    /// were; returns the error for the caller's checks of its code and culprit.
    func refusal(
        _ db: Database, to desired: String, options: SchemaChangeOptions = SchemaChangeOptions(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> SchemaError {
        let before = try DatabaseContents(db)
        let error = try #require(throws: SchemaError.self, sourceLocation: sourceLocation) {
            try db.migrateSchema(to: desired, options: options)
        }
        #expect(try DatabaseContents(db) == before, sourceLocation: sourceLocation)
        return error
    }
}
