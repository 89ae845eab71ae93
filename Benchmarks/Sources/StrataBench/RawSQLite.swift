import BenchSQLite
import Foundation

/// The baseline: SQLite's C API called directly, with the same open flags Strata uses
/// (read-write, create, `SQLITE_OPEN_NOMUTEX`) and nothing in between.
final class RawConnection {
    let handle: OpaquePointer

    init(path: String) throws {
        var pointer: OpaquePointer?
        let rc = sqlite3_open_v2(path, &pointer, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let pointer else {
            if let pointer { sqlite3_close_v2(pointer) }
            throw BenchError("\(path): cannot open (SQLite code \(rc))")
        }
        handle = pointer
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs a script with `sqlite3_exec`.
    func exec(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "code \(rc)"
            sqlite3_free(message)
            throw BenchError("`\(sql.prefix(120))`: \(text)")
        }
    }

    /// Compiles one statement; the caller finalizes it.
    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw BenchError("`\(sql)`: \(String(cString: sqlite3_errmsg(handle)))")
        }
        return statement
    }

    /// The first column of the first row of `sql`, as an integer.
    func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw BenchError("`\(sql)`: no row") }
        return sqlite3_column_int64(statement, 0)
    }

    /// Runs `statements` in one `BEGIN IMMEDIATE` transaction.
    func runInTransaction(_ statements: [String]) throws {
        try exec("BEGIN IMMEDIATE")
        do {
            for sql in statements { try exec(sql) }
            try exec("COMMIT")
        } catch {
            try? exec("ROLLBACK")
            throw error
        }
    }

    /// The SQLite library version (`sqlite3_libversion`).
    static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}

// MARK: Case 1 and 2 with the C API

enum RawCases {
    /// Case 1: one transaction, one prepared statement, `sqlite3_bind_int64` ×10, step, reset.
    static func insert(_ db: RawConnection, rows: Int) throws {
        try db.exec("BEGIN IMMEDIATE")
        let statement = try db.prepare(Fixtures.insertSQL)
        for i in 0..<rows {
            let base = Int64(i) * 10
            for j in 0..<10 { sqlite3_bind_int64(statement, Int32(j + 1), base + Int64(j)) }
            guard sqlite3_step(statement) == SQLITE_DONE else {
                throw BenchError("insert: \(String(cString: sqlite3_errmsg(db.handle)))")
            }
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        try db.exec("COMMIT")
    }

    /// Case 2: `sqlite3_column_int64` for every column of every row. "By name" resolves each
    /// name to its index once per query (what C code does), so it is the same loop.
    static func fetch(_ db: RawConnection, byName: Bool) throws -> Int64 {
        let statement = try db.prepare(Fixtures.selectSQL)
        defer { sqlite3_finalize(statement) }
        var indexes = Array(0..<Int32(10))
        if byName {
            indexes = try Fixtures.columnNames.map { name in
                guard
                    let i = (0..<sqlite3_column_count(statement)).first(where: {
                        String(cString: sqlite3_column_name(statement, $0)) == name
                    })
                else { throw BenchError("no column \(name)") }
                return i
            }
        }
        var sum: Int64 = 0
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw BenchError("fetch: \(String(cString: sqlite3_errmsg(db.handle)))") }
            for i in indexes { sum &+= sqlite3_column_int64(statement, i) }
        }
        return sum
    }

    /// Case 7: the hand-written loop a C programmer would write, `sqlite3_column_int64` for every
    /// column straight into the struct's fields, each struct appended to an array.
    static func fetchStructs(_ db: RawConnection) throws -> [WideRow] {
        let statement = try db.prepare(Fixtures.selectSQL)
        defer { sqlite3_finalize(statement) }
        var rows = [WideRow]()
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw BenchError("fetch: \(String(cString: sqlite3_errmsg(db.handle)))") }
            rows.append(
                WideRow(
                    c0: sqlite3_column_int64(statement, 0), c1: sqlite3_column_int64(statement, 1),
                    c2: sqlite3_column_int64(statement, 2), c3: sqlite3_column_int64(statement, 3),
                    c4: sqlite3_column_int64(statement, 4), c5: sqlite3_column_int64(statement, 5),
                    c6: sqlite3_column_int64(statement, 6), c7: sqlite3_column_int64(statement, 7),
                    c8: sqlite3_column_int64(statement, 8), c9: sqlite3_column_int64(statement, 9)))
        }
        return rows
    }

    static func open(_ path: String) throws -> RawConnection {
        let db = try RawConnection(path: path)
        try db.exec(Fixtures.connectionSetup)
        return db
    }

    static let jobs: [String: @Sendable (JobContext) throws -> [Double]] = [
        "c1.raw": { context in
            try context.collect {
                let path = context.path("c1-raw.sqlite")
                removeDatabase(path)
                let db = try open(path)
                try db.exec(Fixtures.createWideTable)
                let seconds = try timed { try insert(db, rows: Fixtures.insertRows) }
                guard try db.integer("SELECT count(*) FROM wide") == Fixtures.insertRows else {
                    throw BenchError("c1.raw: count")
                }
                return seconds
            }
        },
        "c2.raw.index": { context in try fetchJob(context, byName: false) },
        "c2.raw.name": { context in try fetchJob(context, byName: true) },
        "c3.raw.250k": { context in
            try runStatementsJob(context, template: "item-250k.sqlite", statements: "c3-statements.json")
        },
        "c3.raw.1m": { context in
            try runStatementsJob(context, template: "item-1m.sqlite", statements: "c3-statements.json")
        },
        "c3.raw.4m": { context in
            try runStatementsJob(context, template: "item-4m.sqlite", statements: "c3-statements.json")
        },
        "c4.naive": { context in
            try runStatementsJob(context, template: "item-1m.sqlite", statements: "c4-statements.json")
        },
        "c7.raw": { context in
            let db = try open(context.path("wide.sqlite"))
            return try context.collect {
                var rows = [WideRow]()
                let seconds = try timed { rows = try fetchStructs(db) }
                try Fixtures.checkWideSum(rows.reduce(0) { $0 &+ $1.sum }, "c7.raw")
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
                throw BenchError("c2.raw: wrong sum \(sum)")
            }
            return seconds
        }
    }

    /// Cases 3 and 4 baseline: the planned statements in one transaction, straight through `sqlite3_exec`.
    static func runStatementsJob(_ context: JobContext, template: String, statements file: String) throws -> [Double] {
        let data = try Data(contentsOf: URL(fileURLWithPath: context.path(file)))
        let statements = try JSONDecoder().decode([String].self, from: data)
        let work = context.path("work-raw.sqlite")
        defer { removeDatabase(work) }
        return try context.collect {
            try copyDatabase(context.path(template), to: work)
            let db = try open(work)
            let expected = try db.integer("SELECT count(*) FROM item")
            let seconds = try timed { try db.runInTransaction(statements) }
            guard try db.integer("SELECT count(*) FROM item") == expected else {
                throw BenchError("\(file): row count changed")
            }
            return seconds
        }
    }
}
