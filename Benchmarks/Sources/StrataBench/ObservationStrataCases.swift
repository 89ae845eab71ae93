import Foundation
import Strata

/// Case 9 with Strata: 1,000 small writes (one transaction each) on a `DatabasePool`, with no
/// observation or with one `ValueObservation` of the written table, timed until the
/// observation has delivered the value of the last write.
enum ObservationStrataCases {
    static let writes = 1_000

    static func run(_ context: JobContext, observing: Bool, file: String) throws -> [Double] {
        try context.collect {
            let path = context.path(file)
            removeDatabase(path)
            var configuration = Configuration()
            configuration.setupSQL = ["PRAGMA foreign_keys = ON"]
            var poolConfiguration = PoolConfiguration()
            poolConfiguration.synchronous = .normal
            let pool = try DatabasePool(path: path, configuration: configuration, poolConfiguration: poolConfiguration)
            defer { pool.close() }
            try pool.write { db in try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            }
            let done = DispatchSemaphore(value: 0)
            let started = DispatchSemaphore(value: 0)
            var consumer: Task<Void, any Error>?
            if observing {
                let observation = ValueObservation.tracking { db in
                    try db.fetchValue(Int.self, sql: "SELECT count(*) FROM note") ?? 0
                }
                consumer = Task {
                    for try await count in observation.values(in: pool) {
                        if count == 0 { started.signal() }
                        if count == writes {
                            done.signal()
                            return
                        }
                    }
                }
                started.wait()
            }
            let seconds = try timed {
                for i in 0..<writes {
                    try pool.write { db in
                        try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["note \(i)"])
                    }
                }
                if observing { done.wait() }
            }
            consumer?.cancel()
            guard try pool.read({ db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM note") }) == writes
            else {
                throw BenchError("c11.strata: count")
            }
            return seconds
        }
    }

    static let jobs: [String: @Sendable (JobContext) throws -> [Double]] = [
        "c11.strata.none": { context in try run(context, observing: false, file: "c11-strata.sqlite") },
        "c11.strata.observed": { context in try run(context, observing: true, file: "c11-strata.sqlite") },
    ]
}
