import Foundation
import Strata
import StrataTestSupport
import Testing

/// One declarative-engine scenario: a database built from `before`, evolved to `after`.
struct DeclarativeCase: Sendable, CustomTestStringConvertible {
    struct Check: Sendable {
        var sql: String
        var rows: [[SQLValue]]

        static func check(_ sql: String, _ rows: [[SQLValue]]) -> Check { Check(sql: sql, rows: rows) }
    }

    var name: String
    var before: String
    var after: String
    var allowDestructive = false
    /// Expected step kinds on the newest SQLite (nil: not checked).
    var kinds: [PlanStep.Kind]? = nil
    /// The step kinds expected instead where the connection lacks a feature (the first listed
    /// feature it lacks decides): a rebuild instead of DROP COLUMN before 3.35, for instance.
    var kindsWithout: [(feature: SQLiteFeature, kinds: [PlanStep.Kind])] = []
    /// The features newer than Strata's floor that the desired schema uses. Where the connection
    /// lacks one, planning must fail with `.featureUnavailable` naming it, the database unchanged.
    /// (A case whose `before` needs a feature goes in a list of its own, whose test is gated with
    /// `.requiresSQLite`: see `generatedColumnCases`.)
    var features: [SQLiteFeature] = []
    /// Queries run after applying, with their expected rows.
    var checks: [Check] = []
    /// The error planning must fail with (the database must stay byte-identical).
    var error: SchemaError.Code? = nil
    /// A fragment the error message must contain.
    var errorMentions: [String] = []

    var testDescription: String { name }
}

/// Runs `c` against a fresh file database; `capabilityLimit` forces the old-SQLite path, and
/// `legacyAlterTable` a connection with `PRAGMA legacy_alter_table = ON`.
func run(_ c: DeclarativeCase, capabilityLimit: SQLiteVersion? = nil, legacyAlterTable: Bool = false) throws {
    let dir = TemporaryDirectory("strata-engine")
    let path = dir.file("db.sqlite")
    var config = Configuration()
    config.capabilityLimit = capabilityLimit
    if legacyAlterTable { config.setupSQL.append("PRAGMA legacy_alter_table = ON") }
    let db = try Database(path: path, configuration: config)
    try db.execute(sql: c.before)
    let snapshotBefore = try DatabaseContents(db)
    let bytesBefore = fileBytes(path)
    let options = SchemaChangeOptions(allowDestructive: c.allowDestructive)

    var c = c
    if let missing = c.features.first(where: { !db.capabilities.supports($0) }) {
        // Strata refuses the feature by name, before SQLite's parser sees it (the version named
        // is the runtime's when it lacks the feature, else the limit's).
        c.error = .featureUnavailable
        c.errorMentions = ["\(missing.name) need", "SQLite \(missing.version) or newer; this SQLite is "]
    }
    if let expected = c.error {
        do {
            let plan = try db.planSchemaChange(to: c.after, options: options)
            try db.applySchemaChange(plan)
            Issue.record("\(c.name): expected \(expected), but the plan applied:\n\(plan.summary)")
        } catch let error as SchemaError {
            #expect(error.code == expected, "\(c.name): \(error)")
            for fragment in c.errorMentions {
                #expect(error.message.contains(fragment), "\(c.name): `\(fragment)` not in: \(error.message)")
            }
        }
        #expect(try DatabaseContents(db) == snapshotBefore, "\(c.name): database changed on failure")
        #expect(fileBytes(path) == bytesBefore, "\(c.name): file bytes changed on failure")
        return
    }

    let plan = try db.planSchemaChange(to: c.after, options: options)
    if var kinds = c.kinds, capabilityLimit == nil, !legacyAlterTable {
        if let older = c.kindsWithout.first(where: { !db.capabilities.supports($0.feature) }) { kinds = older.kinds }
        #expect(plan.steps.map(\.kind) == kinds, "\(c.name): plan was\n\(plan.summary)")
    }
    try db.applySchemaChange(plan)
    try verifyAfterApply(c, db: db)
    db.close()

    // Reopen: the changes are on disk.
    let reopened = try Database(path: path, configuration: config)
    defer { reopened.close() }
    #expect(
        try DatabaseSchema.read(from: reopened) == DatabaseSchema(sql: c.after),
        "\(c.name): schema differs after reopen")
    #expect(
        try reopened.planSchemaChange(to: c.after, options: options).isEmpty, "\(c.name): replan not empty after reopen"
    )
}

func verifyAfterApply(_ c: DeclarativeCase, db: Database) throws {
    let desired = try DatabaseSchema(sql: c.after)
    let live = try DatabaseSchema.read(from: db)
    #expect(desired.differences(from: live).isEmpty, "\(c.name): \(desired.differences(from: live))")
    for check in c.checks {
        let rows = try db.fetchAll(sql: check.sql).map(\.values)
        #expect(rows == check.rows, "\(c.name): `\(check.sql)` gave \(rows)")
    }
    let again = try db.planSchemaChange(to: c.after, options: SchemaChangeOptions(allowDestructive: c.allowDestructive))
    #expect(again.isEmpty, "\(c.name): second plan not empty:\n\(again.summary)")
    #expect(try db.fetchAll(sql: "PRAGMA foreign_key_check").isEmpty, "\(c.name): foreign key violations")
    #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
    let temps = try db.fetchColumn(String.self, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'strata_tmp%'")
    #expect(temps.isEmpty, "\(c.name): temporary tables left: \(temps)")
    #expect(try db.foreignKeysEnabled(), "\(c.name): foreign keys not restored")
}
