import Foundation
import Strata

/// Cases 7 and 8's record, as a Strata user would declare it: `Codable` does all the work.
struct StrataWide: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "wide"
    var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9: Int64
    var sum: Int64 { c0 &+ c1 &+ c2 &+ c3 &+ c4 &+ c5 &+ c6 &+ c7 &+ c8 &+ c9 }

    init(_ i: Int) {
        let b = Int64(i) * 10
        (c0, c1, c2, c3, c4) = (b, b + 1, b + 2, b + 3, b + 4)
        (c5, c6, c7, c8, c9) = (b + 5, b + 6, b + 7, b + 8, b + 9)
    }
}

/// Each case as a Strata user would write it.
enum StrataCases {
    static func open(_ path: String) throws -> Database {
        var configuration = Configuration()
        configuration.setupSQL = Fixtures.setupStatements
        return try Database(path: path, configuration: configuration)
    }

    /// Case 1: one transaction, one prepared statement, the parameter-pack `execute` fast path.
    static func insert(_ db: Database, rows: Int) throws {
        try db.transaction(.immediate) {
            let insert = try db.makeStatement(sql: Fixtures.insertSQL)
            for i in 0..<rows {
                let b = Int64(i) * 10
                try insert.execute(b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7, b + 8, b + 9)
            }
        }
    }

    /// Case 2: zero-copy rows, every value read by index or by column name.
    static func fetch(_ db: Database, byName: Bool) throws -> Int64 {
        let statement = try db.makeStatement(sql: Fixtures.selectSQL)
        var sum: Int64 = 0
        if byName {
            let names = Fixtures.columnNames
            try statement.forEachRow { row in
                for name in names { sum &+= try row[name] as Int64 }
            }
        } else {
            try statement.forEachRow { row in
                for i in 0..<10 { sum &+= try row[i] as Int64 }
            }
        }
        return sum
    }

    /// Cases 3 and 4: plan and apply, the whole public path.
    static func migrateSchema(path: String, to desired: String, useNativeAlter: Bool = true) throws -> Plan {
        let db = try open(path)
        let plan = try db.planSchemaChange(to: desired, options: SchemaChangeOptions(useNativeAlter: useNativeAlter))
        try db.applySchemaChange(plan)
        return plan
    }

    /// The statements Strata would run, for the raw C API to run directly.
    static func plannedStatements(path: String, to desired: String, useNativeAlter: Bool) throws -> [String] {
        let db = try open(path)
        return try db.planSchemaChange(to: desired, options: SchemaChangeOptions(useNativeAlter: useNativeAlter))
            .statements
    }

    static func rowCount(path: String) throws -> Int {
        try open(path).fetchValue(Int.self, sql: "SELECT count(*) FROM item") ?? 0
    }

    // MARK: Case 5

    static func makeMigrator() -> Migrator {
        var migrator = Migrator()
        for (identifier, sql) in Fixtures.migrations { migrator.registerMigration(identifier, sql: sql) }
        return migrator
    }

    static func openQueue(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.setupSQL = Fixtures.setupStatements
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Applies every migration (setup, untimed).
    static func applyAllMigrations(path: String) throws {
        let applied = try makeMigrator().migrate(try openQueue(path))
        guard applied.count == Fixtures.migrationCount else { throw BenchError("strata migrated \(applied.count)") }
    }

    /// The start-up check: nothing is pending.
    static func checkMigrations(_ migrator: Migrator, _ queue: DatabaseQueue) throws {
        let applied = try migrator.migrate(queue)
        guard applied.isEmpty else { throw BenchError("strata: \(applied.count) migrations were pending") }
    }

    // MARK: Case 12

    static let manyMigrationCount = 5000

    /// 5,000 small migrations (a table each): `(identifier, sql)`.
    static let manyMigrations: [(String, String)] = (1...manyMigrationCount).map { i in
        (String(format: "%05d_create_s%d", i, i), "CREATE TABLE s\(i)(id INTEGER PRIMARY KEY, name TEXT)")
    }

    static func makeManyMigrator() -> Migrator {
        var migrator = Migrator()
        for (identifier, sql) in manyMigrations { migrator.registerMigration(identifier, sql: sql) }
        return migrator
    }

    /// The same history squashed: a baseline covering the 5,000, then one more migration.
    static func makeBaselineMigrator() -> Migrator {
        var migrator = Migrator()
        migrator.registerBaseline(
            "05000_baseline", sql: manyMigrations.map(\.1).joined(separator: ";\n"),
            covering: manyMigrations.map(\.0))
        migrator.registerMigration("05001_after", sql: "CREATE TABLE after_baseline(id INTEGER PRIMARY KEY)")
        return migrator
    }

    /// Applies the 5,000 (one transaction) to `path` and to `squashedPath`, and to the latter the
    /// migration after the baseline too (setup, untimed).
    static func applyManyMigrations(path: String, squashedPath: String) throws {
        var migrator = makeManyMigrator()
        migrator.transactionMode = .singleTransaction
        for target in [path, squashedPath] {
            let applied = try migrator.migrate(try openQueue(target))
            guard applied.count == manyMigrationCount else { throw BenchError("strata migrated \(applied.count)") }
        }
        guard try makeBaselineMigrator().migrate(try openQueue(squashedPath)) == ["05001_after"] else {
            throw BenchError("strata: the baseline migrator did not apply only 05001_after")
        }
    }

    // MARK: Case 6

    static func makePlanDatabase(path: String) throws {
        let db = try open(path)
        try db.execute(sql: Fixtures.bigSchema(changed: false))
    }

    /// Plans the change to the desired 300-table schema; returns the number of steps.
    static func planBigChange(_ db: Database, desired: String) throws -> Plan {
        try db.planSchemaChange(to: desired)
    }

    // MARK: Case 9

    /// Brings a new file to the launch schema of `tables` tables (setup, untimed).
    static func makeLaunchDatabase(path: String, tables: Int) throws {
        let queue = try openQueue(path)
        try queue.write { db in _ = try db.migrateSchema(to: Fixtures.launchSchema(tables: tables)) }
    }

    /// App launch: the declarative schema is brought up to date; on an unchanged file the
    /// fingerprint decides "nothing to do".
    static func launch(_ queue: DatabaseQueue, schema: String) throws -> Plan {
        try queue.write { db in try db.migrateSchema(to: schema) }
    }

    static func launchJob(_ context: JobContext, tables: Int) throws -> [Double] {
        let queue = try openQueue(context.path("launch-\(tables)-strata.sqlite"))
        let schema = Fixtures.launchSchema(tables: tables)
        return try context.collect {
            var plan: Plan?
            let seconds = try timed { plan = try launch(queue, schema: schema) }
            guard plan?.isVerifiedByFingerprint == true else {
                throw BenchError("c9.strata.\(tables): \(plan?.summary ?? "")")
            }
            return seconds
        }
    }

    /// The full plan (read, diff, plan, prove) of the 25-table launch schema, unchanged or changed.
    /// With `newText`, each repetition plans a text no earlier plan saw (a different trailing
    /// comment), so the desired schema is parsed again every time (Strata keeps parsed desired
    /// schemas by text): the cost of a launch that plans once.
    static func fullPlanJob(_ context: JobContext, changed: Bool, newText: Bool = false) throws -> [Double] {
        let db = try open(context.path("launch-25-strata.sqlite"))
        let schema = Fixtures.launchSchema(tables: 25, changed: changed)
        var repetition = 0
        return try context.collect {
            var plan: Plan?
            repetition += 1
            let text = newText ? schema + "-- repetition \(repetition)\n" : schema
            let seconds = try timed { plan = try db.planSchemaChange(to: text) }
            let kinds = Set(plan?.steps.map(\.kind) ?? [])
            guard changed ? kinds.isSuperset(of: [.addColumn, .createIndex]) : kinds.isEmpty else {
                throw BenchError("c9.plan: \(plan?.summary ?? "")")
            }
            return seconds
        }
    }

    // MARK: Case 15

    /// Case 15: every record of the table through a cursor, one at a time (its sum checked).
    static func cursorJob(_ context: JobContext, file: String, rows: Int) throws -> [Double] {
        let db = try open(context.path(file))
        return try context.collect {
            var count = 0
            var sum: Int64 = 0
            let seconds = try timed {
                let cursor = try StrataWide.fetchCursor(db, sql: Fixtures.selectSQL)
                while let record = try cursor.next() {
                    count += 1
                    sum &+= record.sum
                }
            }
            guard count == rows, sum == expectedWideSum(rows: rows) else { throw BenchError("c15.cursor: sum") }
            return seconds
        }
    }

    /// Case 15: every record of the table in one array, kept until the sum is checked.
    static func fetchAllJob(_ context: JobContext, file: String, rows: Int) throws -> [Double] {
        let db = try open(context.path(file))
        return try context.collect {
            var records = [StrataWide]()
            let seconds = try timed { records = try fetchRecords(db) }
            guard records.count == rows, records.reduce(0, { $0 &+ $1.sum }) == expectedWideSum(rows: rows) else {
                throw BenchError("c15.all: sum")
            }
            return seconds
        }
    }

    /// The sum of every field of a `wide` table of `rows` rows (row i holds i * 10 + 0 ... 9).
    static func expectedWideSum(rows: Int) -> Int64 {
        let n = Int64(rows)
        // Σ_i Σ_k (10 i + k) = 100 · n(n-1)/2 + 45 n
        return 100 &* (n &* (n &- 1) / 2) &+ 45 &* n
    }

    // MARK: Cases 7 and 8

    /// Case 7: `fetchAll` of a `Decodable` record (the statement is cached by the connection).
    static func fetchRecords(_ db: Database) throws -> [StrataWide] {
        try StrataWide.fetchAll(db, sql: Fixtures.selectSQL)
    }

    /// Case 8: `insert(db)` of an `Encodable` record, one transaction.
    static func insertRecords(_ db: Database, _ records: [StrataWide]) throws {
        try db.transaction(.immediate) {
            for record in records { try record.insert(db) }
        }
    }

    // MARK: Jobs

    static let jobs: [String: @Sendable (JobContext) throws -> [Double]] = [
        "c1.strata": { context in
            try context.collect {
                let path = context.path("c1-strata.sqlite")
                removeDatabase(path)
                let db = try open(path)
                try db.execute(sql: Fixtures.createWideTable)
                let seconds = try timed { try insert(db, rows: Fixtures.insertRows) }
                guard try db.fetchValue(Int.self, sql: "SELECT count(*) FROM wide") == Fixtures.insertRows else {
                    throw BenchError("c1.strata: count")
                }
                return seconds
            }
        },
        "c2.strata.index": { context in try fetchJob(context, byName: false) },
        "c2.strata.name": { context in try fetchJob(context, byName: true) },
        "c3.strata.250k": { context in
            try migrateJob(
                context, template: "item-250k.sqlite", desired: Fixtures.itemSchemaTypeChange, expect: .rebuildTable)
        },
        "c3.strata.1m": { context in
            try migrateJob(
                context, template: "item-1m.sqlite", desired: Fixtures.itemSchemaTypeChange, expect: .rebuildTable)
        },
        "c3.strata.4m": { context in
            try migrateJob(
                context, template: "item-4m.sqlite", desired: Fixtures.itemSchemaTypeChange, expect: .rebuildTable)
        },
        // Case 10: the same CHECK added natively (SQLite 3.53's ADD CONSTRAINT) and, with the
        // capabilities held below 3.53, by a rebuild.
        "c10.native": { context in
            try migrateJob(
                context, template: "item-1m.sqlite", desired: Fixtures.itemSchemaAddCheck, expect: .addConstraint)
        },
        "c10.rebuild": { context in
            try migrateJob(
                context, template: "item-1m.sqlite", desired: Fixtures.itemSchemaAddCheck, expect: .rebuildTable,
                capabilityLimit: SQLiteVersion(3, 52))
        },
        "c4.strata": { context in
            try migrateJob(
                context, template: "item-1m.sqlite", desired: Fixtures.itemSchemaAddColumn, expect: .addColumn)
        },
        "c5.strata.check": { context in
            let migrator = makeMigrator()
            let queue = try openQueue(context.path("migrations-strata.sqlite"))
            return try context.collect { try timed { try checkMigrations(migrator, queue) } }
        },
        "c14.strata.startup": { context in
            let queue = try openQueue(context.path("migrations-5000.sqlite"))
            return try context.collect { try timed { try checkMigrations(makeManyMigrator(), queue) } }
        },
        "c14.strata.baseline": { context in
            let queue = try openQueue(context.path("migrations-5000-squashed.sqlite"))
            return try context.collect { try timed { try checkMigrations(makeBaselineMigrator(), queue) } }
        },
        "c5.strata.startup": { context in
            let queue = try openQueue(context.path("migrations-strata.sqlite"))
            return try context.collect { try timed { try checkMigrations(makeMigrator(), queue) } }
        },
        "c6.strata": { context in
            let desired = Fixtures.bigSchema(changed: true)
            let db = try open(context.path("plan.sqlite"))
            return try context.collect {
                var plan: Plan?
                let seconds = try timed { plan = try planBigChange(db, desired: desired) }
                let tables = Set(
                    plan?.steps.filter { [.addColumn, .rebuildTable].contains($0.kind) }.map(\.object) ?? [])
                guard tables.count == Fixtures.changedTables.count else {
                    throw BenchError("c6: \(tables.count) tables changed: \(plan?.summary ?? "")")
                }
                return seconds
            }
        },
        "c9.strata.5": { context in try launchJob(context, tables: 5) },
        "c9.strata.25": { context in try launchJob(context, tables: 25) },
        "c9.strata.100": { context in try launchJob(context, tables: 100) },
        "c9.strata.plan25": { context in try fullPlanJob(context, changed: false) },
        "c9.strata.changed25": { context in try fullPlanJob(context, changed: true) },
        "c9.strata.changed25cold": { context in try fullPlanJob(context, changed: true, newText: true) },
        "c16.advisories.first": { context in
            // The child process has opened no connection yet: this is the once-per-process work.
            context.collect { timed { precondition(SQLiteAdvisory.runtime.count >= 0) } }
        },
        "c16.advisories.lookup": { context in
            let db = try Database(inMemory: Configuration())
            return context.collect {
                var total = 0
                let seconds = timed { for _ in 0..<1000 { total &+= db.sqliteAdvisories.count } }
                precondition(total >= 0)
                return seconds
            }
        },
        "c16.open": { context in
            try context.collect {
                try timed {
                    for _ in 0..<1000 { try Database(inMemory: Configuration()).close() }
                }
            }
        },
        "c15.open": { context in
            let db = try open(context.path("wide-1m.sqlite"))
            return try context.collect {
                try timed { _ = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_master") }
            }
        },
        "c15.cursor.100k": { context in try cursorJob(context, file: "wide-100k.sqlite", rows: 100_000) },
        "c15.cursor.1m": { context in try cursorJob(context, file: "wide-1m.sqlite", rows: 1_000_000) },
        "c15.all.100k": { context in try fetchAllJob(context, file: "wide-100k.sqlite", rows: 100_000) },
        "c15.all.1m": { context in try fetchAllJob(context, file: "wide-1m.sqlite", rows: 1_000_000) },
        "c7.strata": { context in
            let db = try open(context.path("wide.sqlite"))
            return try context.collect {
                var records = [StrataWide]()
                let seconds = try timed { records = try fetchRecords(db) }
                try Fixtures.checkWideSum(records.reduce(0) { $0 &+ $1.sum }, "c7.strata")
                return seconds
            }
        },
        "c8.strata": { context in
            let records = (0..<Fixtures.recordInsertRows).map(StrataWide.init)
            return try context.collect {
                let path = context.path("c8-strata.sqlite")
                removeDatabase(path)
                let db = try open(path)
                try db.execute(sql: Fixtures.createWideTable)
                let seconds = try timed { try insertRecords(db, records) }
                guard try db.fetchValue(Int.self, sql: "SELECT count(*) FROM wide") == Fixtures.recordInsertRows else {
                    throw BenchError("c8.strata: count")
                }
                return seconds
            }
        },
    ]

    static func fetchJob(_ context: JobContext, byName: Bool) throws -> [Double] {
        let db = try open(context.path("wide.sqlite"))
        return try context.collect {
            var sum: Int64 = 0
            let seconds = try timed { sum = try fetch(db, byName: byName) }
            guard sum == Fixtures.wideSum(rows: Fixtures.fetchRows) else {
                throw BenchError("c2.strata: wrong sum \(sum)")
            }
            return seconds
        }
    }

    static func migrateJob(
        _ context: JobContext, template: String, desired: String, expect kind: PlanStep.Kind,
        capabilityLimit: SQLiteVersion? = nil
    ) throws -> [Double] {
        let work = context.path("work-strata.sqlite")
        defer { removeDatabase(work) }
        return try context.collect {
            try copyDatabase(context.path(template), to: work)
            var configuration = Configuration()
            configuration.setupSQL = Fixtures.setupStatements
            configuration.capabilityLimit = capabilityLimit
            let db = try Database(path: work, configuration: configuration)
            let expected = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item")
            var plan: Plan?
            let seconds = try timed {
                let p = try db.planSchemaChange(to: desired)
                try db.applySchemaChange(p)
                plan = p
            }
            guard plan?.steps.contains(where: { $0.kind == kind }) == true,
                try db.fetchValue(Int.self, sql: "SELECT count(*) FROM item") == expected
            else { throw BenchError("\(template): unexpected plan \(plan?.summary ?? "")") }
            return seconds
        }
    }
}
