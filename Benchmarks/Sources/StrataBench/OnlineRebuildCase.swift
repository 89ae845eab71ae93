import Foundation
import Strata

/// `strata-bench --online [--rows N] [--batch N | --batch-ms N]` (issue 29): a table of N rows (default 4 M)
/// rebuilt online and offline while another connection, on its own thread, commits a one-row
/// INSERT every 10 ms. For each: the rebuild's total time, the writes committed and failed, and
/// how long each write waited (from the moment it was due to its COMMIT: p50, p99, max). WAL mode,
/// release build; the figures of a run are kept in Benchmarks/README.md ("Online rebuilds").
enum OnlineRebuildCase {
    static let live = """
        CREATE TABLE event(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, at REAL, payload TEXT);
        CREATE INDEX event_at ON event(at);
        """
    static let desired = """
        CREATE TABLE event(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, at NUMERIC, payload TEXT);
        CREATE INDEX event_at ON event(at);
        """

    /// The writer's record, shared with its thread.
    final class Writes: @unchecked Sendable {
        private let lock = NSLock()
        private var waits = [Double]()
        private var failures = [String]()
        private var stopped = false

        func add(wait: Double) { lock.withLock { waits.append(wait) } }
        func fail(_ error: Error) { lock.withLock { failures.append("\(error)") } }
        func stop() { lock.withLock { stopped = true } }
        var isStopped: Bool { lock.withLock { stopped } }
        var result: (waits: [Double], failures: [String]) { lock.withLock { (waits, failures) } }
    }

    struct Outcome {
        var label: String
        var seconds: Double
        var waits: [Double]
        var failures: [String]

        func percentile(_ p: Double) -> Double {
            guard !waits.isEmpty else { return 0 }
            let sorted = waits.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
        }
    }

    static func makeTemplate(at path: String, rows: Int) throws {
        removeDatabase(path)
        let db = try Database(path: path)
        defer { db.close() }
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        try db.execute(sql: live)
        try db.execute(
            sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
                INSERT INTO event(id, kind, at, payload)
                SELECT i, 'kind ' || (i % 17), i * 0.25, printf('%040d', i) FROM n
                """)
        try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Runs `rebuild` on a copy of `template` while the writer commits every 10 ms.
    static func measure(
        _ label: String, template: String, directory: String, rebuild: @escaping (Database) throws -> Void
    ) throws -> Outcome {
        let path = directory + "/online-scratch.sqlite"
        removeDatabase(path)
        try copyDatabase(template, to: path)
        // The copy's 330 MB are still dirty in the OS's cache: flushed now, not by the first
        // syncs of the run (on ext4 a file's fsync may wait for every file's ordered data).
        if let copy = FileHandle(forUpdatingAtPath: path) {
            try copy.synchronize()
            try copy.close()
        }
        defer { removeDatabase(path) }
        let writes = Writes()
        let writerDone = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { writerDone.signal() }
            do {
                var configuration = Configuration()
                configuration.busyTimeout = 600
                let app = try Database(path: path, configuration: configuration)
                defer { app.close() }
                var next = Date()
                var id = 100_000_000
                while !writes.isStopped {
                    let due = next
                    do {
                        try app.execute(
                            sql: "INSERT INTO event(id, kind, at) VALUES (?, 'app', ?)", arguments: [id, Double(id)])
                        writes.add(wait: Date().timeIntervalSince(due))
                    } catch {
                        writes.fail(error)
                    }
                    id += 1
                    next = due.addingTimeInterval(0.010)
                    let sleep = next.timeIntervalSinceNow
                    if sleep > 0 { usleep(useconds_t(sleep * 1_000_000)) } else { next = Date() }
                }
            } catch {
                writes.fail(error)
            }
        }
        thread.start()
        usleep(100_000)
        let db = try Database(path: path)
        let started = Date()
        try rebuild(db)
        let seconds = Date().timeIntervalSince(started)
        usleep(100_000)
        writes.stop()
        writerDone.wait()
        let count = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM event WHERE kind = 'app'") ?? 0
        db.close()
        let (waits, failures) = writes.result
        guard count == waits.count else {
            throw BenchError("\(label): \(waits.count) writes committed, \(count) found after the rebuild")
        }
        return Outcome(label: label, seconds: seconds, waits: waits, failures: failures)
    }

    /// `batch` nil: the default batches, adapting to `batchMilliseconds` (default 25 ms).
    static func run(directory: String, rows: Int, batch: Int?, batchMilliseconds: Int?) throws {
        let template = directory + "/online-template.sqlite"
        try makeTemplate(at: template, rows: rows)
        defer { removeDatabase(template) }
        var online = SchemaChangeOptions(online: true)
        online.onlineBatchSize = batch
        if let batchMilliseconds { online.onlineBatchTime = .milliseconds(batchMilliseconds) }
        let batches =
            batch.map { "batches of \($0)" }
            ?? "batches adapting to \(batchMilliseconds ?? 25) ms (from \(SchemaChangeOptions.defaultOnlineBatchSize) rows)"
        let outcomes = [
            try measure("offline (one transaction)", template: template, directory: directory) { db in
                try db.migrateSchema(to: desired)
            },
            try measure("online, \(batches)", template: template, directory: directory) { db in
                try db.migrateSchema(to: desired, options: online)
            },
        ]
        print("## Online rebuild: \(rows) rows, a writer committing one row every 10 ms (WAL)\n")
        print("| Rebuild | Total | App writes | Failed | Wait p50 | Wait p99 | Wait max |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for o in outcomes {
            print(
                "| \(o.label) | \(String(format: "%.2f s", o.seconds)) | \(o.waits.count) | \(o.failures.count) "
                    + "| \(ms(o.percentile(0.5))) | \(ms(o.percentile(0.99))) | \(ms(o.waits.max() ?? 0)) |")
        }
        if outcomes.count == 2 {
            print(String(format: "\nonline / offline total: %.2f×", outcomes[1].seconds / outcomes[0].seconds))
        }
        for o in outcomes where !o.failures.isEmpty {
            print("\(o.label): first failure: \(o.failures[0])")
        }
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
}
