import Foundation
import Strata

/// A schema change to check: a database built from `before` and `data`, evolved to `after`
/// with destructive changes allowed.
struct SchemaChangeCase: Sendable, CustomStringConvertible {
    var before: String
    var data: [String]
    var after: String

    var description: String {
        "-- before\n\(before)\n-- data\n\(data.joined(separator: ";\n"))\n-- after\n\(after)"
    }
}

/// What happened to a case.
enum SchemaChangeOutcome: Sendable, Equatable {
    /// Applied and every property held.
    case applied(steps: Int)
    /// Refused for a reason that lies in the data (a constraint the rows break), database unchanged.
    case rejected(SchemaError.Code)
    /// A property failed: `kind` classifies it (for shrinking), `detail` explains it.
    case failed(kind: String, detail: String)

    var failureKind: String? {
        if case .failed(let kind, _) = self { return kind }
        return nil
    }
}

/// The properties of one schema change: the schema equals `after`, every kept column keeps its
/// values (converted by the new column's affinity, NULLs backfilled with a new default), a second
/// plan is empty, integrity and foreign keys hold, no temporary table is left; a refusal leaves
/// the database exactly as it was.
enum SchemaChangeCheck {
    static let dataCodes: Set<SchemaError.Code> = [.preflightFailed, .applyFailed, .foreignKeyViolation]

    static func run(_ c: SchemaChangeCase, capabilityLimit: SQLiteVersion? = nil) -> SchemaChangeOutcome {
        do {
            return try check(c, capabilityLimit: capabilityLimit)
        } catch {
            return .failed(kind: "unexpected error", detail: "\(error)")
        }
    }

    private static func check(_ c: SchemaChangeCase, capabilityLimit: SQLiteVersion?) throws -> SchemaChangeOutcome {
        var config = Configuration()
        config.capabilityLimit = capabilityLimit
        let db = try Database(inMemory: config)
        defer { db.close() }
        do {
            try db.execute(sql: c.before)
        } catch {
            return .failed(kind: "invalid before", detail: "\(error)")
        }
        for insert in c.data { try? db.execute(sql: insert) }
        let desired: DatabaseSchema
        do {
            desired = try DatabaseSchema(sql: c.after)
        } catch {
            return .failed(kind: "invalid after", detail: "\(error)")
        }
        let live = try DatabaseSchema.read(from: db)
        let kept = try KeptColumns.capture(db: db, live: live, desired: desired)
        let snapshot = try DatabaseState(db)
        // SQLite 3.40 lets a violating row in when a BEFORE INSERT trigger runs an UPDATE on a
        // table with ON UPDATE actions: such violations exist before the change and may remain.
        let violationsBefore = try db.fetchAll(sql: "PRAGMA foreign_key_check").count
        // SQLite 3.28 leaves rows out of an index on an expression over a REAL column holding
        // integral values (`length(c)` computed on 43 and on 43.0): integrity_check reports them
        // before any change, and the same complaints may remain after.
        let integrityBefore = Set(try integrityProblems(db))

        let options = SchemaChangeOptions(allowDestructive: true)
        let plan: Plan
        do {
            plan = try db.planSchemaChange(to: desired, options: options)
            try db.applySchemaChange(plan)
        } catch let error as SchemaError where dataCodes.contains(error.code) && isAboutData(error) {
            if try DatabaseState(db) != snapshot {
                return .failed(kind: "changed on refusal", detail: "\(error.code): \(error.message)")
            }
            return .rejected(error.code)
        } catch let error as SchemaError {
            return .failed(kind: "error \(error.code)", detail: error.message)
        }

        let after = try DatabaseSchema.read(from: db)
        let differences = desired.differences(from: after)
        if !differences.isEmpty {
            return .failed(
                kind: "schema differs",
                detail: differences.joined(separator: "; ") + "\nplan:\n" + plan.statements.joined(separator: ";\n"))
        }
        if let problem = try kept.verify(db: db) { return .failed(kind: "values changed", detail: problem) }
        let again = try db.planSchemaChange(to: desired, options: options)
        if !again.isEmpty { return .failed(kind: "second plan not empty", detail: again.summary) }
        let integrity = try integrityProblems(db).filter { !integrityBefore.contains($0) }
        if !integrity.isEmpty { return .failed(kind: "integrity", detail: integrity.joined(separator: "; ")) }
        let violations = try db.fetchAll(sql: "PRAGMA foreign_key_check")
        if violations.count > violationsBefore {
            return .failed(
                kind: "foreign keys", detail: "\(violationsBefore) violations before, now \(violations.map(\.values))")
        }
        let temps: [String] = try db.fetchColumn(sql: "SELECT name FROM sqlite_master WHERE name LIKE 'strata_tmp%'")
        if !temps.isEmpty { return .failed(kind: "temporary table left", detail: "\(temps)") }
        if !(try db.foreignKeysEnabled()) { return .failed(kind: "foreign keys not restored", detail: "") }
        return .applied(steps: plan.steps.count)
    }

    /// A refusal is about the data when SQLite reported a constraint (or a type a STRICT column
    /// cannot take), or when it comes from the preflight or the foreign key check.
    static func isAboutData(_ error: SchemaError) -> Bool {
        guard error.code == .applyFailed else { return true }
        guard let code = error.underlying?.resultCode else { return false }
        return code == .SQLITE_CONSTRAINT || code == .SQLITE_MISMATCH
    }
}

/// Every row of every table (and the schema entries), for "unchanged" comparisons. The ledger
/// `strata_migrations` counts by identifier and checksum only.
struct DatabaseState: Equatable {
    var entries: [[SQLValue]]
    var rows: [String: [[SQLValue]]]

    init(_ db: Database) throws {
        // Without Strata's launch fingerprint (written by `migrateSchema(to:)`, not by `strata
        // apply`; in the applying transaction, and never trusted without checking the schema).
        entries = try db.fetchAll(
            sql:
                "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name <> 'strata_schema_fingerprint' ORDER BY type, name"
        ).map(\.values)
        rows = [:]
        let tables: [String] = try db.fetchColumn(
            sql: """
                SELECT name FROM sqlite_master
                WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name <> 'strata_schema_fingerprint'
                """)
        for table in tables {
            let q = SQL.quoteIdentifier(table)
            let hasRowID = (try? db.makeStatement(sql: "SELECT rowid FROM \(q)")) != nil
            if table == "strata_migrations" {
                // Applied times and durations differ from run to run.
                rows[table] = try db.fetchAll(sql: "SELECT identifier, checksum FROM \(q) ORDER BY identifier").map(
                    \.values)
                continue
            }
            rows[table] = try db.fetchAll(
                sql: "SELECT \(hasRowID ? "rowid, " : "")* FROM \(q) ORDER BY \(hasRowID ? "rowid" : "1")"
            )
            .map(\.values)
        }
    }

    /// What differs, briefly (for failure messages).
    func differences(from other: DatabaseState) -> String {
        var out = [String]()
        let mine = Set(entries.map { $0.map(\.sqlLiteral).joined(separator: " | ") })
        let theirs = Set(other.entries.map { $0.map(\.sqlLiteral).joined(separator: " | ") })
        out += mine.subtracting(theirs).sorted().map { "only here: \($0)" }
        out += theirs.subtracting(mine).sorted().map { "only there: \($0)" }
        for (table, rows) in rows.sorted(by: { $0.key < $1.key }) where other.rows[table] != rows {
            let first = zip(rows, other.rows[table] ?? []).first { $0 != $1 }
            out.append(
                "table \(table): \(rows.count) vs \(other.rows[table]?.count ?? 0) rows; first difference: \(String(describing: first))"
            )
        }
        return out.joined(separator: "\n")
    }
}
