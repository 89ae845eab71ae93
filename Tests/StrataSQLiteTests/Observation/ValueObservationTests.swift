import Foundation
import StrataTestSupport
import Testing

@testable import StrataSQLite

@Suite("Value observation", .timeLimit(.minutes(3)))
struct ValueObservationTests {
    /// Counts the fetches of an observation of `SELECT count(*) FROM player`.
    final class Counter: Sendable {
        let fetches = LockedValue(0)
        var observation: ValueObservation<Int> {
            ValueObservation.tracking { db in
                self.fetches.withLock { $0 += 1 }
                return try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") ?? 0
            }
        }
    }

    static let schema = """
        CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE other(x);
        CREATE TABLE tag(name TEXT PRIMARY KEY) WITHOUT ROWID;
        """

    @Test func queueYieldsCurrentValueThenOnlyRelevantCommits() async throws {
        let dbQueue = try DatabaseQueue { db in try db.execute(sql: Self.schema) }
        let counter = Counter()
        var values = counter.observation.values(in: dbQueue).makeAsyncIterator()
        #expect(try await values.next() == 0)
        // A rolled-back transaction and a write to another table trigger nothing.
        await #expect(throws: CancellationError.self) {
            try await dbQueue.write { db in
                try db.execute(sql: "INSERT INTO player(name) VALUES ('never')")
                throw CancellationError()
            }
        }
        try await dbQueue.write { db in try db.execute(sql: "INSERT INTO other VALUES (1)") }
        try await dbQueue.write { db in try db.execute(sql: "INSERT INTO player(name) VALUES ('a'), ('b')") }
        #expect(try await values.next() == 2)
        #expect(counter.fetches.withLock { $0 } == 2)
        try await dbQueue.write { db in try db.execute(sql: "DELETE FROM player") }
        #expect(try await values.next() == 0)
        #expect(counter.fetches.withLock { $0 } == 3)
    }

    @Test func removeDuplicatesSkipsEqualValues() async throws {
        let dbQueue = try DatabaseQueue { db in try db.execute(sql: Self.schema) }
        let counter = Counter()
        var values = counter.observation.removeDuplicates().values(in: dbQueue).makeAsyncIterator()
        #expect(try await values.next() == 0)
        try await dbQueue.write { db in try db.execute(sql: "UPDATE player SET name = 'x'") }  // no row: same count
        try await dbQueue.write { db in try db.execute(sql: "INSERT INTO player(name) VALUES ('a')") }
        #expect(try await values.next() == 1)
    }

    @Test func withoutRowIDTableIsObserved() async throws {
        let dbQueue = try DatabaseQueue { db in try db.execute(sql: Self.schema) }
        let observation = ValueObservation.tracking { db in
            try db.fetchColumn(String.self, sql: "SELECT name FROM tag ORDER BY name")
        }
        var values = observation.values(in: dbQueue).makeAsyncIterator()
        #expect(try await values.next() == [])
        try await dbQueue.write { db in try db.execute(sql: "INSERT INTO tag VALUES ('swift')") }
        #expect(try await values.next() == ["swift"])
    }

    /// Writes from many tasks, each a transaction of two rows: every value seen is a committed
    /// state (even), values never go back in time, and the last one has every row.
    @Test func poolSeesEveryCommitOfTheWriterAndNoPartialTransaction() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("observe.sqlite")) { db in try db.execute(sql: Self.schema) }
        let counter = Counter()
        let writes = 40
        let seen = LockedValue<[Int]>([])
        let consumer = Task {
            for try await count in counter.observation.values(in: pool) {
                seen.withLock { $0.append(count) }
                if count == 2 * writes { return }
            }
        }
        try await eventually("the first value") { !seen.withLock { $0 }.isEmpty }
        await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<writes {
                group.addTask {
                    try await pool.write { db in
                        try db.execute(sql: "INSERT INTO player(name) VALUES ('a')")
                        try db.execute(sql: "INSERT INTO player(name) VALUES ('b')")
                    }
                }
            }
        }
        try await consumer.value
        let values = seen.withLock { $0 }
        #expect(values.first == 0)
        #expect(values.last == 2 * writes)
        #expect(values.allSatisfy { $0 % 2 == 0 })
        #expect(values == values.sorted())
        await pool.close()
    }

    @Test func poolFetchRunsOnAReaderAfterTheCommit() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("observe.sqlite")) { db in try db.execute(sql: Self.schema) }
        var values = Counter().observation.values(in: pool).makeAsyncIterator()
        #expect(try await values.next() == 0)
        for expected in 1...5 {
            try await pool.write { db in try db.execute(sql: "INSERT INTO player(name) VALUES ('a')") }
            #expect(try await values.next() == expected)
        }
        await pool.close()
    }

    @Test func cancellationStopsTheObservationAndReleasesTheReader() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("observe.sqlite")) { db in try db.execute(sql: Self.schema) }
        let counter = Counter()
        let seen = LockedValue<[Int]>([])
        let consumer = Task {
            for try await count in counter.observation.values(in: pool) { seen.withLock { $0.append(count) } }
        }
        try await eventually("the first value") { seen.withLock { $0 } == [0] }
        consumer.cancel()
        _ = try? await consumer.value
        // The observer leaves the writer.
        try await eventually("the observer removed") {
            (try? pool.writer.runSync { db in db.hooks.observers.isEmpty }) ?? false
        }
        let fetches = counter.fetches.withLock { $0 }
        for _ in 0..<5 {
            try await pool.write { db in try db.execute(sql: "INSERT INTO player(name) VALUES ('a')") }
        }
        // A later observation's first value proves the writes are visible to readers by now.
        var later = Counter().observation.values(in: pool).makeAsyncIterator()
        #expect(try await later.next() == 5)
        #expect(counter.fetches.withLock { $0 } == fetches)
        #expect(seen.withLock { $0 } == [0])
        #expect(pool.readers.busyCount == 0)
        await pool.close()
    }

    @Test func closingThePoolEndsTheObservationWithAnError() async throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("observe.sqlite")) { db in try db.execute(sql: Self.schema) }
        var values = Counter().observation.values(in: pool).makeAsyncIterator()
        #expect(try await values.next() == 0)
        // Closing waits for accesses; the observation has none pending, so it closes at once.
        await pool.close()
        // Nothing more is ever yielded: either the sequence ends or it throws `closed`.
        do {
            let next = try await values.next()
            #expect(next == nil)
        } catch let error as DatabaseAccessError {
            #expect(error.code == .closed)
        }
    }

    @Test func fetchErrorEndsTheSequence() async throws {
        let dbQueue = try DatabaseQueue { db in try db.execute(sql: Self.schema) }
        let observation = ValueObservation.tracking { db in
            try db.fetchValue(Int.self, sql: "SELECT count(*) FROM missing") ?? 0
        }
        var values = observation.values(in: dbQueue).makeAsyncIterator()
        await #expect(throws: SQLiteError.self) { _ = try await values.next() }
    }

    /// Another connection (standing in for another process) writes the file: the hooks of the
    /// pool's writer cannot see it; `PRAGMA data_version` polling does.
    @Test func externalWritesAreSeenWithDataVersionPolling() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("observe.sqlite")
        let pool = try DatabasePool(path: path) { db in try db.execute(sql: Self.schema) }
        // Every wait is bounded (`eventually`): a change that is never seen fails the test.
        let seen = LockedValue<[Int]>([])
        let observer = Task {
            for try await value in Counter().observation.values(in: pool, externalChangePolling: .milliseconds(20)) {
                seen.withLock { $0.append(value) }
            }
        }
        try await eventually("the first value") { !seen.withLock { $0 }.isEmpty }
        #expect(seen.withLock { $0 } == [0])
        let other = try Database(path: path)
        try other.execute(sql: "INSERT INTO player(name) VALUES ('from elsewhere')")
        other.close()
        try await eventually("the external write is seen") { seen.withLock { $0 }.last == 1 }
        #expect(seen.withLock { $0 } == [0, 1])
        observer.cancel()
        await pool.close()
    }

    /// A commit by another connection after the first fetch but before the poller's first
    /// `PRAGMA data_version` is still seen: the baseline version is read before the first fetch.
    /// A trace on the writer commits from another connection when the writer starts its first
    /// `PRAGMA data_version`, once the first value arrived (or after 300 ms, when the first value
    /// waits for that very read). With the baseline read by the poller when it first ran, the
    /// commit became the baseline and the observation never saw it.
    @Test func anExternalCommitBeforeThePollersFirstReadIsSeen() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("observe.sqlite")
        let pool = try DatabasePool(path: path) { db in try db.execute(sql: Self.schema) }
        let seen = LockedValue<[Int]>([])
        let committed = LockedValue(false)
        try await pool.writeWithoutTransaction { db in
            db.trace { event in
                guard event.sql == "PRAGMA data_version", !committed.withLock({ $0 }) else { return }
                committed.withLock { $0 = true }
                for _ in 0..<300 where seen.withLock({ $0 }).isEmpty { usleep(1_000) }
                do {
                    let other = try Database(path: path)
                    try other.execute(sql: "INSERT INTO player(name) VALUES ('from elsewhere')")
                    other.close()
                } catch {
                    Issue.record("the other connection's commit failed: \(error)")
                }
            }
        }
        let observer = Task {
            for try await value in Counter().observation.values(in: pool, externalChangePolling: .milliseconds(20)) {
                seen.withLock { $0.append(value) }
            }
        }
        try await eventually("the external write is seen") { seen.withLock { $0 }.last == 1 }
        #expect(committed.withLock { $0 })
        #expect([[1], [0, 1]].contains(seen.withLock { $0 }))
        observer.cancel()
        await pool.close()
    }
}

/// The README's "Observation" examples. The first one is a complete program run as written by
/// ObservationExampleTests (StrataCLITests); here, what its last comment promises.
@Suite("README observation examples", .timeLimit(.minutes(3)))
struct ObservationReadmeExampleTests {
    /// Releasing the sequence (its iterator) ends the observation: the observer leaves the pool.
    @Test func releasingTheSequenceStopsTheObservation() async throws {
        let dir = TemporaryDirectory()
        let pool = try DatabasePool(path: dir.file("notes.sqlite")) { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        }
        let observation = ValueObservation.tracking { db in
            try db.fetchColumn(String.self, sql: "SELECT body FROM note ORDER BY id")
        }.removeDuplicates()
        func addNote() async throws -> [[String]] {
            var bodies = observation.values(in: pool).makeAsyncIterator()
            let first = try await bodies.next() ?? ["none"]
            try await pool.write { db in try db.execute(sql: "INSERT INTO note(body) VALUES ('milk')") }
            return [first, try await bodies.next() ?? ["none"]]
        }
        #expect(try await addNote() == [[], ["milk"]])
        try await eventually("the observer removed") {
            (try? pool.writer.runSync { db in db.hooks.observers.isEmpty }) ?? false
        }
        #expect(pool.readers.busyCount == 0)
        await pool.close()
    }

    @Test func functionsExample() throws {
        let dir = TemporaryDirectory()
        var config = Configuration()
        config.functions = [
            DatabaseFunction("initials", argumentCount: 1, isDeterministic: true) { args in
                String.fromSQLValue(args[0]).map { String($0.split(separator: " ").compactMap(\.first)) }
            }
        ]
        config.collations = [DatabaseCollation("localized") { $0.localizedStandardCompare($1) }]
        let pool = try DatabasePool(path: dir.file("people.sqlite"), configuration: config)
        let value = try pool.read { db in
            try db.fetchValue(String.self, sql: "SELECT initials('Tricia McMillan') ORDER BY 'a' COLLATE localized")
        }
        #expect(value == "TM")
        pool.close()
    }
}
