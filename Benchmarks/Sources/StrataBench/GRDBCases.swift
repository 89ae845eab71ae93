import Foundation
import GRDB

/// Cases 7 and 8's record, as a GRDB user would declare it: `Codable` does all the work.
struct GRDBWide: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "wide"
    var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9: Int64
    var sum: Int64 { c0 &+ c1 &+ c2 &+ c3 &+ c4 &+ c5 &+ c6 &+ c7 &+ c8 &+ c9 }

    init(_ i: Int) {
        let b = Int64(i) * 10
        (c0, c1, c2, c3, c4) = (b, b + 1, b + 2, b + 3, b + 4)
        (c5, c6, c7, c8, c9) = (b + 5, b + 6, b + 7, b + 8, b + 9)
    }
}

/// Each case as a GRDB 7 user would write it (idiomatic fast paths: a reused prepared statement,
/// a row cursor with `StatementColumnConvertible` decoding).
enum GRDBCases {
    static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            for sql in Fixtures.setupStatements { try db.execute(sql: sql) }
        }
        return configuration
    }

    static func openQueue(_ path: String) throws -> DatabaseQueue {
        try DatabaseQueue(path: path, configuration: configuration())
    }

    /// Case 1: one transaction, one prepared statement, `execute(arguments:)`.
    static func insert(_ queue: DatabaseQueue, rows: Int) throws {
        try queue.write { db in
            let insert = try db.makeStatement(sql: Fixtures.insertSQL)
            for i in 0..<rows {
                let b = Int64(i) * 10
                try insert.execute(arguments: [b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7, b + 8, b + 9])
            }
        }
    }

    /// Case 2: a row cursor, every value read by index or by column name.
    static func fetch(_ queue: DatabaseQueue, byName: Bool) throws -> Int64 {
        try queue.read { db in
            let statement = try db.makeStatement(sql: Fixtures.selectSQL)
            let rows = try Row.fetchCursor(statement)
            var sum: Int64 = 0
            if byName {
                let names = Fixtures.columnNames
                while let row = try rows.next() {
                    for name in names { sum &+= row[name] as Int64 }
                }
            } else {
                while let row = try rows.next() {
                    for i in 0..<10 { sum &+= row[i] as Int64 }
                }
            }
            return sum
        }
    }

    // MARK: Case 5

    static func makeMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (identifier, sql) in Fixtures.migrations {
            migrator.registerMigration(identifier) { db in try db.execute(sql: sql) }
        }
        return migrator
    }

    /// Applies every migration (setup, untimed).
    static func applyAllMigrations(path: String) throws {
        let queue = try openQueue(path)
        try makeMigrator().migrate(queue)
        let count = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM grdb_migrations") ?? 0 }
        guard count == Fixtures.migrationCount else { throw BenchError("GRDB migrated \(count)") }
    }

    /// The start-up check: nothing is pending.
    static func checkMigrations(_ migrator: DatabaseMigrator, _ queue: DatabaseQueue) throws {
        try migrator.migrate(queue)
    }

    static func hasCompletedMigrations(_ migrator: DatabaseMigrator, _ queue: DatabaseQueue) throws -> Bool {
        try queue.read { db in try migrator.hasCompletedMigrations(db) }
    }

    // MARK: Case 9

    static func makeLaunchMigrator(tables: Int) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (identifier, sql) in Fixtures.launchMigrations(tables: tables) {
            migrator.registerMigration(identifier) { db in try db.execute(sql: sql) }
        }
        return migrator
    }

    static func makeLaunchDatabase(path: String, tables: Int) throws {
        try makeLaunchMigrator(tables: tables).migrate(try openQueue(path))
    }

    /// App launch: register the migrations and run the migrator, which finds nothing to do.
    static func launchJob(_ context: JobContext, tables: Int) throws -> [Double] {
        let queue = try openQueue(context.path("launch-\(tables)-grdb.sqlite"))
        return try context.collect {
            var migrator: DatabaseMigrator?
            let seconds = try timed {
                let m = makeLaunchMigrator(tables: tables)
                try m.migrate(queue)
                migrator = m
            }
            guard try hasCompletedMigrations(migrator!, queue) else { throw BenchError("c9.grdb: pending") }
            return seconds
        }
    }

    // MARK: Cases 7 and 8

    /// Case 7: `fetchAll` of a `Decodable` record (the statement is cached by the connection).
    static func fetchRecords(_ queue: DatabaseQueue) throws -> [GRDBWide] {
        try queue.read { db in try GRDBWide.fetchAll(db, sql: Fixtures.selectSQL) }
    }

    /// Case 8: `insert(db)` of an `Encodable` record, one transaction.
    static func insertRecords(_ queue: DatabaseQueue, _ records: [GRDBWide]) throws {
        try queue.write { db in
            for record in records { try record.insert(db) }
        }
    }

    // MARK: Jobs

    static let jobs: [String: @Sendable (JobContext) throws -> [Double]] = [
        "c1.grdb": { context in
            try context.collect {
                let path = context.path("c1-grdb.sqlite")
                removeDatabase(path)
                let queue = try openQueue(path)
                try queue.write { db in try db.execute(sql: Fixtures.createWideTable) }
                let seconds = try timed { try insert(queue, rows: Fixtures.insertRows) }
                let count = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM wide") }
                guard count == Fixtures.insertRows else { throw BenchError("c1.grdb: count") }
                return seconds
            }
        },
        "c2.grdb.index": { context in try fetchJob(context, byName: false) },
        "c2.grdb.name": { context in try fetchJob(context, byName: true) },
        "c5.grdb.check": { context in
            let migrator = makeMigrator()
            let queue = try openQueue(context.path("migrations-grdb.sqlite"))
            return try context.collect {
                let seconds = try timed { try checkMigrations(migrator, queue) }
                guard try hasCompletedMigrations(migrator, queue) else { throw BenchError("c5.grdb: pending") }
                return seconds
            }
        },
        "c5.grdb.startup": { context in
            let queue = try openQueue(context.path("migrations-grdb.sqlite"))
            return try context.collect { try timed { try checkMigrations(makeMigrator(), queue) } }
        },
        "c9.grdb.5": { context in try launchJob(context, tables: 5) },
        "c9.grdb.25": { context in try launchJob(context, tables: 25) },
        "c9.grdb.100": { context in try launchJob(context, tables: 100) },
        "c7.grdb": { context in
            let queue = try openQueue(context.path("wide.sqlite"))
            return try context.collect {
                var records = [GRDBWide]()
                let seconds = try timed { records = try fetchRecords(queue) }
                try Fixtures.checkWideSum(records.reduce(0) { $0 &+ $1.sum }, "c7.grdb")
                return seconds
            }
        },
        "c8.grdb": { context in
            let records = (0..<Fixtures.recordInsertRows).map(GRDBWide.init)
            return try context.collect {
                let path = context.path("c8-grdb.sqlite")
                removeDatabase(path)
                let queue = try openQueue(path)
                try queue.write { db in try db.execute(sql: Fixtures.createWideTable) }
                let seconds = try timed { try insertRecords(queue, records) }
                let count = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM wide") }
                guard count == Fixtures.recordInsertRows else { throw BenchError("c8.grdb: count") }
                return seconds
            }
        },
    ]

    static func fetchJob(_ context: JobContext, byName: Bool) throws -> [Double] {
        let queue = try openQueue(context.path("wide.sqlite"))
        return try context.collect {
            var sum: Int64 = 0
            let seconds = try timed { sum = try fetch(queue, byName: byName) }
            guard sum == Fixtures.wideSum(rows: Fixtures.fetchRows) else {
                throw BenchError("c2.grdb: wrong sum \(sum)")
            }
            return seconds
        }
    }
}
