import Foundation
import StrataTestSupport
import Testing

@testable import StrataSQLite

/// A one-way signal from a closure running on a connection queue to the async test:
/// `signal()` from anywhere, `await wait()` in the test.
final class Signal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() { (stream, continuation) = AsyncStream<Void>.makeStream() }

    func signal() { continuation.yield() }

    /// Waits for the signal, at most `seconds`; records an issue when it never comes.
    func wait(seconds: Double = BoundedWait.seconds, sourceLocation: SourceLocation = #_sourceLocation) async {
        let stream = self.stream
        do {
            try await BoundedWait.task(seconds: seconds, "a signal") {
                for await _ in stream { return }
            }
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }
}

/// Blocks a connection queue (never a test task) until the test opens it.
final class Barrier: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    /// Called from a closure running on a connection's dispatch queue; lets go after
    /// `seconds` (recording an issue) if the test never opens it.
    func block(seconds: Double = BoundedWait.seconds) {
        BoundedWait.wait(for: semaphore, seconds: seconds, "the test opens the barrier")
    }

    func open() { semaphore.signal() }
}

/// Polls `condition` until it holds; records an issue if it never does. Polling only waits for
/// the code under test to reach a state; nothing is asserted about how long it takes.
func eventually(_ what: String, _ condition: () -> Bool) async throws {
    for _ in 0..<20_000 {
        if condition() { return }
        try await Task.sleep(nanoseconds: 1_000_000)
    }
    Issue.record("never happened: \(what)")
}

/// An error thrown on purpose by test closures.
struct PlannedFailure: Error, CustomStringConvertible {
    let reason: String
    var description: String { "planned failure: \(reason)" }
}

/// The accounts of the bank used by the hammering tests: `accountCount` accounts whose
/// balances always sum to `accountCount * initialBalance`, and a transfer counter that every
/// transfer bumps in the same transaction.
enum Bank {
    static let accountCount = 10
    static let initialBalance = 1_000
    static let total = accountCount * initialBalance

    static let schema = """
        CREATE TABLE account(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL);
        CREATE TABLE transfer_count(value INTEGER NOT NULL);
        INSERT INTO transfer_count VALUES (0);
        """

    @Sendable static func create(_ db: Database) throws {
        try db.execute(sql: schema)
        for id in 0..<accountCount {
            try db.execute(sql: "INSERT INTO account(id, balance) VALUES (?, ?)", arguments: [id, initialBalance])
        }
    }

    /// Transfer number `n`: deterministic, so the serial result is known.
    static func transfer(_ n: Int) -> (from: Int, to: Int, amount: Int) {
        (n % accountCount, (n * 7 + 3) % accountCount, n % 13 + 1)
    }

    static func apply(_ n: Int, _ db: Database) throws {
        let (from, to, amount) = transfer(n)
        try db.execute(sql: "UPDATE account SET balance = balance - ? WHERE id = ?", arguments: [amount, from])
        try db.execute(sql: "UPDATE account SET balance = balance + ? WHERE id = ?", arguments: [amount, to])
        try db.execute(sql: "UPDATE transfer_count SET value = value + 1")
    }

    /// The balances after transfers `0..<count`, computed without SQLite.
    static func serialBalances(after count: Int) -> [Int] {
        var balances = Array(repeating: initialBalance, count: accountCount)
        for n in 0..<count {
            let (from, to, amount) = transfer(n)
            balances[from] -= amount
            balances[to] += amount
        }
        return balances
    }

    static func balances(_ db: Database) throws -> [Int] {
        try db.fetchColumn(Int.self, sql: "SELECT balance FROM account ORDER BY id")
    }

    static func transferCount(_ db: Database) throws -> Int {
        try db.fetchValue(Int.self, sql: "SELECT value FROM transfer_count") ?? -1
    }
}

/// The error a closure threw, or a recorded issue if it did not throw.
func caughtError<T>(_ body: () async throws -> T) async -> (any Error)? {
    do {
        _ = try await body()
        Issue.record("expected an error")
        return nil
    } catch {
        return error
    }
}
