import Foundation
import StrataTestSupport
import Testing

@testable import StrataSQLite

struct FunctionError: Error, CustomStringConvertible {
    var description: String { "the value is not welcome" }
}

struct Median: DatabaseAggregate {
    var values: [Double] = []
    mutating func step(_ arguments: [SQLValue]) throws {
        guard let value = Double.fromSQLValue(arguments[0]) else { return }
        if value < 0 { throw FunctionError() }
        values.append(value)
    }
    func finalize() throws -> (any SQLValueConvertible)? {
        values.isEmpty ? nil : values.sorted()[values.count / 2]
    }
}

@Suite("SQL functions written in Swift", .timeLimit(.minutes(3)))
struct FunctionTests {
    static let initials = DatabaseFunction("initials", argumentCount: 1, isDeterministic: true) { arguments in
        guard case .text(let name) = arguments[0] else { return nil }
        if name == "forbidden" { throw FunctionError() }
        return String(name.split(separator: " ").compactMap(\.first))
    }
    static let reversed = DatabaseCollation("reversed") { a, b in
        a == b ? .orderedSame : a < b ? .orderedDescending : .orderedAscending
    }

    @Test func scalarFunctionWithEveryValueType() throws {
        let db = try Database(inMemory: Configuration())
        try db.add(function: Self.initials)
        try db.add(function: DatabaseFunction("echo") { arguments in arguments.last ?? .null })
        #expect(try db.fetchValue(String.self, sql: "SELECT initials('Arthur Philip Dent')") == "APD")
        #expect(try db.fetchValue(SQLValue.self, sql: "SELECT initials(NULL)") == .null)
        #expect(try db.fetchValue(SQLValue.self, sql: "SELECT echo(1, 2.5)") == .real(2.5))
        #expect(try db.fetchValue(SQLValue.self, sql: "SELECT echo()") == .null)
        #expect(try db.fetchValue(SQLValue.self, sql: "SELECT echo(x'00ff')") == .blob([0, 255]))
        #expect(try db.fetchValue(SQLValue.self, sql: "SELECT echo('')") == .text(""))
        #expect(try db.fetchValue(SQLValue.self, sql: "SELECT echo(-7)") == .integer(-7))
        // The argument count is enforced by SQLite.
        #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT initials('a', 'b')") }
        #expect(db.registeredFunctions.map(\.description) == ["echo/*", "initials/1"])
        try db.remove(function: Self.initials)
        #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT initials('a')") }
    }

    @Test func thrownErrorBecomesTheSQLiteMessage() throws {
        let db = try Database(inMemory: Configuration())
        try db.add(function: Self.initials)
        try db.add(function: DatabaseFunction("median", argumentCount: 1, aggregate: Median.self))
        let error = try #require(throws: SQLiteError.self) {
            try db.execute(sql: "SELECT initials('forbidden')")
        }
        #expect(error.resultCode == .SQLITE_ERROR)
        #expect(error.message.contains("initials(): the value is not welcome") == true)
        let aggregateError = try #require(throws: SQLiteError.self) {
            try db.execute(sql: "SELECT median(x) FROM (SELECT 1 AS x UNION ALL SELECT -1)")
        }
        #expect(aggregateError.message.contains("median(): the value is not welcome") == true)
    }

    @Test func aggregateFunctionPerGroup() throws {
        let db = try Database(inMemory: Configuration())
        try db.add(function: DatabaseFunction("median", argumentCount: 1, aggregate: Median.self))
        try db.execute(
            sql: """
                CREATE TABLE score(team TEXT, points REAL);
                INSERT INTO score VALUES ('a', 1), ('a', 9), ('a', 5), ('b', 2), ('b', 4);
                """)
        let rows = try db.fetchAll(sql: "SELECT team, median(points) AS m FROM score GROUP BY team ORDER BY team")
        #expect(try rows.map { try $0["m"] as Double } == [5, 4])
        // No row: the empty aggregate's result.
        #expect(try db.fetchValue(SQLValue.self, sql: "SELECT median(points) FROM score WHERE 0") == .null)
    }

    @Test func collationOrdersAndIndexes() throws {
        let db = try Database(inMemory: Configuration())
        try db.add(collation: Self.reversed)
        try db.execute(
            sql: """
                CREATE TABLE word(w TEXT);
                CREATE INDEX word_reversed ON word(w COLLATE reversed);
                INSERT INTO word VALUES ('b'), ('a'), ('c');
                """)
        #expect(
            try db.fetchColumn(String.self, sql: "SELECT w FROM word ORDER BY w COLLATE reversed") == ["c", "b", "a"])
        #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(db.registeredCollations.map(\.name) == ["reversed"])
    }

    @Test func configurationRegistersOnEveryConnectionOfAPool() async throws {
        let directory = TemporaryDirectory()
        var configuration = Configuration()
        configuration.functions = [Self.initials]
        configuration.collations = [Self.reversed]
        var poolConfiguration = PoolConfiguration()
        poolConfiguration.maximumReaderCount = 3
        let pool = try DatabasePool(
            path: directory.file("f.sqlite"), configuration: configuration, poolConfiguration: poolConfiguration
        ) { db in
            try db.execute(sql: "CREATE TABLE p(name TEXT); CREATE INDEX p_initials ON p(initials(name))")
        }
        try await pool.write { db in try db.execute(sql: "INSERT INTO p VALUES ('Ford Prefect')") }
        // Several reads at once open several readers: each knows the function and the collation.
        try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    try await pool.read { db in
                        try db.fetchValue(
                            String.self, sql: "SELECT initials(name) FROM p ORDER BY name COLLATE reversed")
                    }
                }
            }
            for try await value in group { #expect(value == "FP") }
        }
        await pool.close()
    }
}

@Suite("Statement tracing", .timeLimit(.minutes(3)))
struct TraceTests {
    @Test func tracesEachStatementWithoutValuesByDefault() throws {
        let db = try Database(inMemory: Configuration())
        var events: [TraceEvent] = []
        db.trace { events.append($0) }
        try db.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (?)", arguments: ["secret"])
        #expect(events.map(\.sql) == ["CREATE TABLE t(x)", "INSERT INTO t VALUES (?)"])
        #expect(events.allSatisfy { $0.kind == .statement && $0.duration == nil })
        db.trace(nil)
        try db.execute(sql: "DELETE FROM t")
        #expect(events.count == 2)
    }

    @Test func expandedSQLAndDurationsWhenAllowed() throws {
        var configuration = Configuration()
        configuration.publicStatementArguments = true
        let events = LockedValue<[TraceEvent]>([])
        configuration.tracer = { event in events.withLock { $0.append(event) } }
        configuration.traceOptions = [.statements, .profile]
        let db = try Database(inMemory: configuration)
        events.withLock { $0.removeAll() }  // the connection's own setup
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: ["visible"])
        let seen = events.withLock { $0 }
        #expect(seen.contains(TraceEvent(kind: .statement, sql: "INSERT INTO t VALUES ('visible')")))
        let profile = try #require(seen.last)
        #expect(profile.kind == .profile)
        #expect(profile.sql == "INSERT INTO t VALUES ('visible')")
        #expect(try #require(profile.duration) >= .zero)
        #expect(profile.description.hasSuffix(" ms  INSERT INTO t VALUES ('visible')"))
    }

    @Test func triggerProgramsAreNamed() throws {
        let db = try Database(inMemory: Configuration())
        try db.execute(
            sql: """
                CREATE TABLE t(x); CREATE TABLE log(x);
                CREATE TRIGGER audit AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.x); END;
                """)
        var events: [String] = []
        db.trace { events.append($0.sql) }
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        #expect(events == ["INSERT INTO t VALUES (1)", "-- TRIGGER audit", "-- INSERT INTO log VALUES (new.x)"])
    }
}
