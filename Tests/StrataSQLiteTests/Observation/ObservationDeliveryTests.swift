import Dispatch
import Foundation
import Observation
import StrataTestSupport
import Testing

@testable import StrataSQLite

/// Delivery for UI code: `start(in:scheduling:onError:onChange:)` and the `@Observable`
/// ``FetchedValue``. Every wait is bounded (`eventually`).
@Suite("Observation delivery")
struct ObservationDeliveryTests {
    static let schema = "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)"

    static func makePool(_ directory: TemporaryDirectory) throws -> DatabasePool {
        try DatabasePool(path: directory.file("delivery.sqlite")) { db in try db.execute(sql: schema) }
    }

    static let bodies = ValueObservation.tracking { db in
        try db.fetchColumn(String.self, sql: "SELECT body FROM note ORDER BY id")
    }

    static func insert(_ body: String, into pool: DatabasePool) async throws {
        try await pool.write { db in try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: [body]) }
    }

    @MainActor
    @Test func immediateDeliversTheFirstValueBeforeStartReturnsThenOnTheMainActor() async throws {
        let directory = TemporaryDirectory()
        let pool = try Self.makePool(directory)
        try await Self.insert("milk", into: pool)
        var received: [[String]] = []
        var onMainQueue: [Bool] = []
        let mainQueue = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: mainQueue, value: true)
        defer { DispatchQueue.main.setSpecific(key: mainQueue, value: nil) }
        let cancellable = Self.bodies.start(in: pool, scheduling: .immediate) { error in
            Issue.record("unexpected error \(error)")
        } onChange: { bodies in
            received.append(bodies)
            // The first value on the calling task (the main actor), the others on the main queue.
            onMainQueue.append(DispatchQueue.getSpecific(key: mainQueue) ?? false)
        }
        #expect(received == [["milk"]])
        try await Self.insert("eggs", into: pool)
        try await eventuallyOnMain("the second value") { received.count == 2 }
        #expect(received == [["milk"], ["milk", "eggs"]])
        #expect(onMainQueue.last == true)
        cancellable.cancel()
        #expect(cancellable.isCancelled)
        // Nothing after a cancel made on the main actor, where values are delivered.
        try await Self.insert("bread", into: pool)
        try await eventuallyOnMain("the observer removed") {
            (try? pool.writer.runSync { db in db.hooks.observers.isEmpty }) ?? false
        }
        #expect(received.count == 2)
        await pool.close()
    }

    @MainActor
    @Test func mainActorSchedulingDeliversEveryValueLater() async throws {
        let directory = TemporaryDirectory()
        let pool = try Self.makePool(directory)
        var received: [[String]] = []
        let cancellable = Self.bodies.start(in: pool) { error in
            Issue.record("unexpected error \(error)")
        } onChange: { bodies in
            received.append(bodies)
        }
        #expect(received.isEmpty)  // not before start returns
        try await eventuallyOnMain("the first value") { received.count == 1 }
        try await Self.insert("milk", into: pool)
        try await eventuallyOnMain("the second value") { received.count == 2 }
        #expect(received == [[], ["milk"]])
        cancellable.cancel()
        await pool.close()
    }

    @Test func asyncSchedulingDeliversOnTheQueueInCommitOrder() async throws {
        let directory = TemporaryDirectory()
        let pool = try Self.makePool(directory)
        let queue = DispatchQueue(label: "strata.tests.delivery")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let received = LockedValue<[Int]>([])
        let onQueue = LockedValue<[Bool]>([])
        let counts = ValueObservation.tracking { db in
            try db.fetchValue(Int.self, sql: "SELECT count(*) FROM note") ?? -1
        }
        let cancellable = counts.start(in: pool, scheduling: .async(onQueue: queue)) { error in
            Issue.record("unexpected error \(error)")
        } onChange: { count in
            received.withLock { $0.append(count) }
            onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: key) ?? false) }
        }
        try await eventually("the first value") { received.withLock { $0 } == [0] }
        for index in 1...5 {
            try await Self.insert("n\(index)", into: pool)
            try await eventually("value \(index)") { received.withLock { $0.last } == index }
        }
        #expect(received.withLock { $0 } == [0, 1, 2, 3, 4, 5])
        #expect(onQueue.withLock { $0 }.allSatisfy { $0 })
        cancellable.cancel()
        await pool.close()
    }

    @Test func aFailingFetchReportsItsErrorOnceAndEnds() async throws {
        let directory = TemporaryDirectory()
        let pool = try Self.makePool(directory)
        let errors = LockedValue<[String]>([])
        let values = LockedValue(0)
        let failing = ValueObservation.tracking { db in
            try db.fetchValue(Int.self, sql: "SELECT count(*) FROM missing_table") ?? 0
        }
        let cancellable = failing.start(in: pool, scheduling: .async(onQueue: .global())) { error in
            errors.withLock { $0.append("\(error)") }
        } onChange: { _ in
            values.withLock { $0 += 1 }
        }
        try await eventually("the error") { errors.withLock { $0.count } == 1 }
        #expect(errors.withLock { $0.first?.contains("no such table: missing_table") } == true)
        #expect(values.withLock { $0 } == 0)
        try await eventually("the observer removed") {
            (try? pool.writer.runSync { db in db.hooks.observers.isEmpty }) ?? false
        }
        withExtendedLifetime(cancellable) {}
        await pool.close()
    }

    @MainActor
    @Test func immediateReportsAFailingFirstFetchBeforeStartReturns() async throws {
        let directory = TemporaryDirectory()
        let pool = try Self.makePool(directory)
        var errors: [String] = []
        let failing = ValueObservation<Int>.tracking { db in
            try db.fetchValue(Int.self, sql: "SELECT x FROM missing_table") ?? 0
        }
        let cancellable = failing.start(in: pool, scheduling: .immediate) { error in
            errors.append("\(error)")
        } onChange: { _ in
            Issue.record("no value expected")
        }
        #expect(errors.count == 1)
        #expect(errors.first?.contains("missing_table") == true)
        #expect(cancellable.isCancelled)
        try await eventuallyOnMain("the observer removed") {
            (try? pool.writer.runSync { db in db.hooks.observers.isEmpty }) ?? false
        }
        await pool.close()
    }

    @Test func releasingTheCancellableStopsTheObservation() async throws {
        let directory = TemporaryDirectory()
        let pool = try Self.makePool(directory)
        let received = LockedValue(0)
        do {
            let cancellable = Self.bodies.start(in: pool, scheduling: .async(onQueue: .global())) { _ in
            } onChange: { _ in
                received.withLock { $0 += 1 }
            }
            try await eventually("the first value") { received.withLock { $0 } == 1 }
            withExtendedLifetime(cancellable) {}
        }
        try await eventually("the observer removed") {
            (try? pool.writer.runSync { db in db.hooks.observers.isEmpty }) ?? false
        }
        try await Self.insert("milk", into: pool)
        // A later observation's first value proves the commit is visible by now.
        var later = Self.bodies.values(in: pool).makeAsyncIterator()
        #expect(try await later.next() == ["milk"])
        #expect(received.withLock { $0 } == 1)
        await pool.close()
    }

    // MARK: FetchedValue

    @MainActor
    @Test func fetchedValueIsObservableOnTheMainActor() async throws {
        let directory = TemporaryDirectory()
        let pool = try Self.makePool(directory)
        try await Self.insert("milk", into: pool)
        let notes = FetchedValue<[String]>([], observing: Self.bodies, in: pool)
        #expect(notes.value == ["milk"])  // .immediate: the current value at once
        #expect(notes.isObserving)

        let changes = LockedValue(0)
        func track() {
            withObservationTracking {
                _ = notes.value
            } onChange: {
                changes.withLock { $0 += 1 }
            }
        }
        track()
        try await Self.insert("eggs", into: pool)
        try await eventuallyOnMain("the change seen by withObservationTracking") { changes.withLock { $0 } == 1 }
        #expect(notes.value == ["milk", "eggs"])
        #expect(notes.error == nil)

        track()
        notes.cancel()
        #expect(!notes.isObserving)
        try await Self.insert("bread", into: pool)
        try await eventuallyOnMain("the observer removed") {
            (try? pool.writer.runSync { db in db.hooks.observers.isEmpty }) ?? false
        }
        #expect(notes.value == ["milk", "eggs"])
        #expect(changes.withLock { $0 } == 1)
        await pool.close()
    }

    @MainActor
    @Test func fetchedValueKeepsTheErrorThatEndedIt() async throws {
        let directory = TemporaryDirectory()
        let pool = try Self.makePool(directory)
        let count = FetchedValue(-1)
        let observation = ValueObservation.tracking { db in
            try db.fetchValue(Int.self, sql: "SELECT count(*) FROM note") ?? 0
        }
        count.observe(observation, in: pool, scheduling: .mainActor)
        #expect(count.value == -1)
        try await eventuallyOnMain("the first value") { count.value == 0 }
        await pool.close()
        // The writer closed: the observation ends with the pool's closed error.
        try await eventuallyOnMain("the closed error") { count.error != nil }
        #expect((count.error as? DatabaseAccessError)?.code == .closed)
        #expect(!count.isObserving)
        #expect(count.value == 0)
    }
}

/// `eventually` for main-actor state: polls on the main actor (sleeping lets deliveries run).
@MainActor
func eventuallyOnMain(_ what: String, _ condition: () -> Bool) async throws {
    for _ in 0..<20_000 {
        if condition() { return }
        try await Task.sleep(nanoseconds: 1_000_000)
    }
    Issue.record("never happened: \(what)")
}
